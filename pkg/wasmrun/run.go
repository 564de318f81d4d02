package wasmrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// Limits of a run (seed 003's defaults) and of what it carries.
const (
	DefaultTimeoutMs = 30_000
	MaxTimeoutMs     = 300_000
	DefaultMemoryMb  = 128
	MaxMemoryMb      = 1024
	MaxInput         = 256 << 10 // SKILL_INPUT, as JSON
	StdoutCap        = 1 << 20   // kept of stdout; the rest is counted, not kept
	StderrCap        = 64 << 10
	AuditOutputCap   = 1 << 10 // of stdout and stderr in the audit record, which is bounded in bytes
	// MaxSeed bounds RANDOM_SEED either way: a JavaScript number holds
	// every integer up to it exactly, so the seed a result reports runs
	// the module again as it ran.
	MaxSeed = 1<<53 - 1
)

// Options are a caller's choices for one run.
type Options struct {
	// Input is given to the module as SKILL_INPUT; JSON null when absent.
	Input     json.RawMessage `json:"input,omitempty"`
	TimeoutMs int             `json:"timeoutMs,omitempty"`
	MemoryMb  int             `json:"memoryMb,omitempty"`
	// Seed is RANDOM_SEED; the host picks one when absent, and the result
	// says which.
	Seed *int64 `json:"seed,omitempty"`
}

// Normalize fills the defaults and refuses what is out of range
// (InvalidArgument, TooLarge for the input).
func (o Options) Normalize(seed func() int64) (Options, error) {
	if len(o.Input) == 0 {
		o.Input = json.RawMessage("null")
	}
	if len(o.Input) > MaxInput {
		return o, &skillerr.Error{Code: skillerr.TooLarge, Reason: "input", Msg: fmt.Sprintf("the input is larger than %d KiB", MaxInput>>10)}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, o.Input); err != nil {
		return o, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "input", Msg: "the input is not JSON"}
	}
	o.Input = compact.Bytes()
	switch {
	case o.TimeoutMs == 0:
		o.TimeoutMs = DefaultTimeoutMs
	case o.TimeoutMs < 1 || o.TimeoutMs > MaxTimeoutMs:
		return o, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "timeout", Msg: fmt.Sprintf("timeoutMs must be from 1 to %d", MaxTimeoutMs)}
	}
	switch {
	case o.MemoryMb == 0:
		o.MemoryMb = DefaultMemoryMb
	case o.MemoryMb < 1 || o.MemoryMb > MaxMemoryMb:
		return o, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "memory", Msg: fmt.Sprintf("memoryMb must be from 1 to %d", MaxMemoryMb)}
	}
	if o.Seed == nil {
		s := seed()
		o.Seed = &s
	}
	if *o.Seed < -MaxSeed || *o.Seed > MaxSeed {
		return o, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "seed", Msg: "seed must be an integer from -(2^53-1) to 2^53-1"}
	}
	return o, nil
}

// Pages is the memory cap in WebAssembly pages.
func (o Options) Pages() uint32 { return uint32(o.MemoryMb) * (1 << 20 / PageSize) }

// Env is the module's environment (seed 003).
func Env(id, name string, o Options) []string {
	return []string{
		"SKILL_ID=" + id,
		"SKILL_NAME=" + name,
		"SKILL_INPUT=" + string(o.Input),
		"TIMEOUT_MS=" + strconv.Itoa(o.TimeoutMs),
		"RANDOM_SEED=" + strconv.FormatInt(*o.Seed, 10),
	}
}

// Outcome is what the host's runner saw of a run.
type Outcome struct {
	// Exit is the exit code; nil when the run trapped or timed out.
	Exit *int `json:"exit"`
	// Timeout: the run was stopped at its deadline.
	Timeout bool `json:"timeout"`
	// Trap is the engine's message when the module trapped (an
	// unreachable, a failed memory.grow turned fatal, …).
	Trap            string  `json:"trap"`
	Stdout          []byte  `json:"-"`
	Stderr          []byte  `json:"-"`
	StdoutTruncated bool    `json:"stdoutTruncated"`
	StderrTruncated bool    `json:"stderrTruncated"`
	StartMs         int64   `json:"startMs"`
	DurationMs      float64 `json:"durationMs"`
}

// The statuses of a run (seed 003's exit_status).
const (
	StatusSuccess = "success"
	StatusFailed  = "failed"
	StatusTimeout = "timeout"
)

// Result is what the caller of a run gets.
type Result struct {
	Status   string `json:"status"`
	ExitCode *int   `json:"exitCode"`
	// Output is stdout parsed as JSON, when it is JSON; else null.
	Output          json.RawMessage `json:"output"`
	Stdout          string          `json:"stdout"`
	Stderr          string          `json:"stderr"`
	StdoutTruncated bool            `json:"stdoutTruncated"`
	StderrTruncated bool            `json:"stderrTruncated"`
	DurationMs      float64         `json:"durationMs"`
	Seed            int64           `json:"seed"`
	Permissions     []string        `json:"permissions"`
	Denied          []Denial        `json:"denied"`
}

// Record is seed 003's audit record of a run.
type Record struct {
	Version     string   `json:"version"`
	InputHash   string   `json:"inputHash"`
	OutputHash  string   `json:"outputHash"`
	StartMs     int64    `json:"startMs"`
	DurationMs  float64  `json:"durationMs"`
	Permissions []string `json:"permissions"`
	Status      string   `json:"status"`
	ExitCode    *int     `json:"exitCode,omitempty"`
	Stdout      string   `json:"stdout"`
	Stderr      string   `json:"stderr"`
}

// Finish turns a run's outcome into its result, its audit record, and the
// error the caller gets for a run that did not succeed: Timeout (Reason
// "deadline") or WasmError (Reason "failed").
func Finish(digest string, o Options, g Grants, out Outcome) (Result, Record, error) {
	status := StatusSuccess
	switch {
	case out.Timeout:
		status = StatusTimeout
	case out.Exit == nil || *out.Exit != 0:
		status = StatusFailed
	}
	stdout, stdoutCut := clip(out.Stdout, StdoutCap)
	stderr, stderrCut := clip(out.Stderr, StderrCap)
	res := Result{
		Status: status, ExitCode: out.Exit, Output: json.RawMessage("null"),
		Stdout: stdout, Stderr: stderr,
		StdoutTruncated: out.StdoutTruncated || stdoutCut, StderrTruncated: out.StderrTruncated || stderrCut,
		DurationMs: out.DurationMs, Seed: *o.Seed, Permissions: g.Permissions, Denied: g.Denied,
	}
	if t := bytes.TrimSpace(out.Stdout); !res.StdoutTruncated && json.Valid(t) && len(t) > 0 {
		res.Output = t
	}
	auditOut, _ := clip(out.Stdout, AuditOutputCap)
	auditErr, _ := clip(out.Stderr, AuditOutputCap)
	rec := Record{
		Version: digest, InputHash: hash(o.Input), OutputHash: hash(out.Stdout),
		StartMs: out.StartMs, DurationMs: out.DurationMs, Permissions: g.Permissions,
		Status: status, ExitCode: out.Exit, Stdout: auditOut, Stderr: auditErr,
	}
	var err error
	switch status {
	case StatusTimeout:
		err = &skillerr.Error{Code: skillerr.Timeout, Reason: "deadline", Subject: ModulePath,
			Msg: fmt.Sprintf("the module did not finish within %d ms and was stopped", o.TimeoutMs)}
	case StatusFailed:
		why := "trapped: " + out.Trap
		if out.Exit != nil {
			why = "exited with code " + strconv.Itoa(*out.Exit)
		}
		if tail, _ := clipTail(out.Stderr, 300); tail != "" {
			why += "; its stderr ends: " + tail
		}
		err = &skillerr.Error{Code: skillerr.WasmError, Reason: ReasonFailed, Subject: ModulePath, Msg: "the module " + why}
	}
	return res, rec, err
}

func hash(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// clip returns b's first max bytes as text, cut at a rune boundary, and
// whether anything was cut.
func clip(b []byte, max int) (string, bool) {
	if len(b) <= max {
		return string(b), false
	}
	for max > 0 && !utf8.RuneStart(b[max]) {
		max--
	}
	return string(b[:max]), true
}

// clipTail returns b's last max bytes as text.
func clipTail(b []byte, max int) (string, bool) {
	b = bytes.TrimSpace(b)
	if len(b) <= max {
		return string(b), false
	}
	i := len(b) - max
	for i < len(b) && !utf8.RuneStart(b[i]) {
		i++
	}
	return string(b[i:]), true
}
