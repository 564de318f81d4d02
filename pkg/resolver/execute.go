package resolver

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"slices"
	"time"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/wasmrun"
)

// MaxExecutions bounds the runs a session has prepared and not finished:
// the host runs a few at once and finishes every run it prepares.
// maxPendingExecutions bounds them over all sessions, closed ones too: a
// run outlives the session it was prepared in until the host reports it.
const (
	MaxExecutions        = 8
	maxPendingExecutions = 64
)

// ReasonNotActivated: a skill's module runs only once the skill is
// activated in the session, as its scripts would.
const ReasonNotActivated = "not-activated"

// Execution is a run of a skill's module, prepared for the host's runner
// (a Worker: see docs/architecture.md, "Skills that run"). The bytes that
// come with it are the capped module followed by the skill's files, in
// Files' order.
type Execution struct {
	// Token names the run when the host finishes it.
	Token       string         `json:"token"`
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Digest      string         `json:"digest"`
	Env         []string       `json:"env"`
	TimeoutMs   int            `json:"timeoutMs"`
	MemoryMb    int            `json:"memoryMb"`
	ModuleSize  int            `json:"moduleSize"`
	Files       []ExecFile     `json:"files"`
	Grants      wasmrun.Grants `json:"grants"`
	StdoutLimit int            `json:"stdoutLimit"`
	StderrLimit int            `json:"stderrLimit"`
}

// ExecFile is a file of the skill, preopened read-only under /skill.
type ExecFile struct {
	Path string `json:"path"`
	Size int    `json:"size"`
}

type execution struct {
	s          *Session
	id, digest string
	opts       wasmrun.Options
	grants     wasmrun.Grants
	start      time.Time
}

// PrepareExecution prepares a run of the module (wasm/skill.wasm) of the
// visible skill nameOrLocation, which must be activated in the session
// (PermissionDenied, Reason "not-activated", otherwise): the module
// checked and capped (wasmrun.Capped), the skill's files as the
// session's version of them, the environment and the grants of its
// allowed-tools. The host runs it and reports with FinishExecution.
func (s *Session) PrepareExecution(ctx context.Context, nameOrLocation string, o wasmrun.Options) (Execution, []byte, error) {
	sn, err := s.current()
	if err != nil {
		return Execution{}, nil, err
	}
	id, err := s.resolveName(ctx, sn, nameOrLocation)
	if err != nil {
		return Execution{}, nil, err
	}
	m := sn.metas[id]
	if !slices.Contains(s.Activated(), id) {
		return Execution{}, nil, &skillerr.Error{Code: skillerr.PermissionDenied, Reason: ReasonNotActivated, Subject: id,
			Msg: "load the skill before running its module"}
	}
	if o, err = o.Normalize(randomSeed); err != nil {
		return Execution{}, nil, err
	}
	p, err := s.parsed(ctx, sn, id)
	if err != nil {
		return Execution{}, nil, err
	}
	if !slices.Contains(p.resources, wasmrun.ModulePath) {
		return Execution{}, nil, &skillerr.Error{Code: skillerr.WasmError, Reason: wasmrun.ReasonNoModule, Subject: id,
			Msg: "the skill has no " + wasmrun.ModulePath + " to run"}
	}
	module, _, err := s.read(ctx, sn, id, wasmrun.ModulePath)
	if err != nil {
		return Execution{}, nil, err
	}
	capped, err := wasmrun.Capped(module, o.Pages())
	if err != nil {
		return Execution{}, nil, err
	}
	// The skill's size is bounded by the registry: so are these bytes.
	out := slices.Grow(capped, int(m.Size))
	files := []ExecFile{}
	for _, rel := range append([]string{skillMD}, p.resources...) {
		data, _, err := s.read(ctx, sn, id, rel)
		if err != nil {
			return Execution{}, nil, err
		}
		files = append(files, ExecFile{Path: rel, Size: len(data)})
		out = append(out, data...)
	}
	e := &execution{s: s, id: id, digest: m.Digest, opts: o, grants: wasmrun.GrantsFor(m.AllowedTools), start: time.Now()}
	token := newID()
	if err := s.r.addExecution(token, e); err != nil {
		return Execution{}, nil, err
	}
	return Execution{
		Token: token, ID: id, Name: m.Name, Digest: m.Digest, Env: wasmrun.Env(id, m.Name, o),
		TimeoutMs: o.TimeoutMs, MemoryMb: o.MemoryMb, ModuleSize: len(capped), Files: files, Grants: e.grants,
		StdoutLimit: wasmrun.StdoutCap, StderrLimit: wasmrun.StderrCap,
	}, out, nil
}

// addExecution keeps e under token until the host finishes it, within
// MaxExecutions for its session and maxPendingExecutions in all.
func (r *Resolver) addExecution(token string, e *execution) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	mine := 0
	for _, x := range r.execs {
		if x.s == e.s {
			mine++
		}
	}
	switch {
	case mine >= MaxExecutions:
		return errLimit(e.id, "the session has %d runs under way; finish one first", MaxExecutions)
	case len(r.execs) >= maxPendingExecutions:
		return errLimit(e.id, "%d runs are under way; finish one first", maxPendingExecutions)
	}
	if r.execs == nil {
		r.execs = map[string]*execution{}
	}
	r.execs[token] = e
	return nil
}

// FinishExecution takes the host's outcome of the run token, prepared in
// session, writes its audit record, counts it in the skill's success
// rate, and returns its result; a run that did not succeed is also an
// error (Timeout or WasmError) that comes with the result. Every run
// prepared is recorded once, even when its session was closed meanwhile
// (its caller stopped, its port disconnected).
func (r *Resolver) FinishExecution(ctx context.Context, session, token string, out wasmrun.Outcome) (wasmrun.Result, error) {
	r.mu.Lock()
	e := r.execs[token]
	if e != nil && e.s.id == session {
		delete(r.execs, token)
	} else {
		e = nil
	}
	r.mu.Unlock()
	if e == nil {
		return wasmrun.Result{}, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "unknown-run", Subject: clip(token, auditField),
			Msg: "no run of this session has this token"}
	}
	res, rec, runErr := wasmrun.Finish(e.digest, e.opts, e.grants, out)
	r.audit.record(e.s, AuditEntry{Kind: AuditExecute, Skill: e.id, Digest: e.digest, Path: wasmrun.ModulePath, Exec: &rec}, e.start, runErr)
	// The success rate counts runs as it counts steps; a skill removed
	// since, or a session closed, is no error of the run's.
	if err := e.s.RecordOutcome(ctx, e.id, runErr == nil); err != nil && skillerr.CodeOf(err) == skillerr.Internal {
		return res, err
	}
	return res, runErr
}

// randomSeed returns a seed from 0 to wasmrun.MaxSeed.
func randomSeed() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) >> 11)
}
