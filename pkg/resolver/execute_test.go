package resolver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/internal/wasitest"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/wasmrun"
)

var wasiFdWrite = []wasitest.Import{{Module: "wasi_snapshot_preview1", Name: "fd_write"}}

// runnerSession installs runner with module and returns a session in which
// it is activated.
func runnerSession(t *testing.T, e *env, module []byte) *Session {
	t.Helper()
	runnable(t, e, module)
	s := e.open(t, SessionOptions{})
	mustActivate(t, s, "runner")
	return s
}

// runnable installs skill "runner" with module as its wasm/skill.wasm.
func runnable(t *testing.T, e *env, module []byte, extra ...string) {
	t.Helper()
	e.install(t,
		file{"runner/SKILL.md", md("runner", "# runner\n\nRun the module.", extra...)},
		file{"runner/references/data.txt", "reference text\n"},
		file{"runner/wasm/skill.wasm", string(module)},
		file{"other/SKILL.md", md("other", "# other")},
	)
}

func TestPrepareExecution(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		module := wasitest.Module(wasiFdWrite, 0, 2)
		runnable(t, e, module, "allowed-tools: Read Write Bash(python:*) WebFetch")
		s := e.open(t, SessionOptions{})
		_, _, err := s.PrepareExecution(ctx, "runner", wasmrun.Options{})
		wantErr(t, "before the skill is loaded", err, skillerr.PermissionDenied, ReasonNotActivated)
		mustActivate(t, s, "runner")
		mustActivate(t, s, "other")
		_, _, err = s.PrepareExecution(ctx, "other", wasmrun.Options{})
		wantErr(t, "a skill without a module", err, skillerr.WasmError, wasmrun.ReasonNoModule)
		_, _, err = s.PrepareExecution(ctx, "nope", wasmrun.Options{})
		wantErr(t, "an unknown skill", err, skillerr.SkillNotFound, ReasonNotInstalled)
		_, _, err = s.PrepareExecution(ctx, "runner", wasmrun.Options{TimeoutMs: -1})
		wantErr(t, "a negative timeout", err, skillerr.InvalidArgument, "timeout")

		seed := int64(7)
		x, b, err := s.PrepareExecution(ctx, "/skills/runner/SKILL.md", wasmrun.Options{Input: json.RawMessage(`{"q": "x"}`), MemoryMb: 1, Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		m := e.meta(t, "runner")
		if x.ID != "runner" || x.Digest != m.Digest || x.MemoryMb != 1 || x.TimeoutMs != wasmrun.DefaultTimeoutMs {
			t.Errorf("execution = %+v", x)
		}
		if got := strings.Join(x.Env, "|"); got != `SKILL_ID=runner|SKILL_NAME=runner|SKILL_INPUT={"q":"x"}|TIMEOUT_MS=30000|RANDOM_SEED=7` {
			t.Errorf("env = %s", got)
		}
		if !x.Grants.Scratch || len(x.Grants.Denied) != 2 {
			t.Errorf("grants = %+v", x.Grants)
		}
		// The bytes: the module capped at 1 MiB (16 pages), then every file.
		capped, err := wasmrun.Capped(module, 16)
		if err != nil || !bytes.Equal(b[:x.ModuleSize], capped) {
			t.Fatalf("the module part differs from the capped module (%v)", err)
		}
		off := x.ModuleSize
		got := map[string]string{}
		for _, f := range x.Files {
			got[f.Path] = string(b[off : off+f.Size])
			off += f.Size
		}
		if off != len(b) || got["references/data.txt"] != "reference text\n" || !strings.HasPrefix(got["SKILL.md"], "---\nname: runner") || got["wasm/skill.wasm"] != string(module) {
			t.Errorf("files = %v (%d of %d bytes)", x.Files, off, len(b))
		}
	})
}

func TestPrepareExecutionRefusesModules(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		s := runnerSession(t, e, wasitest.Module([]wasitest.Import{{Module: "env", Name: "fetch"}}, 0, 1))
		_, _, err := s.PrepareExecution(ctx, "runner", wasmrun.Options{})
		wantErr(t, "an import outside WASI", err, skillerr.WasmError, wasmrun.ReasonImport)

		s = runnerSession(t, e, wasitest.Module(wasiFdWrite, 0, 17))
		_, _, err = s.PrepareExecution(ctx, "runner", wasmrun.Options{MemoryMb: 1})
		wantErr(t, "more memory than the cap", err, skillerr.WasmError, wasmrun.ReasonMemoryTooLarge)
	})
}

func TestFinishExecution(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		s := runnerSession(t, e, wasitest.Module(wasiFdWrite, 0, 1))
		zero := 0
		x, _, err := s.PrepareExecution(ctx, "runner", wasmrun.Options{Input: json.RawMessage(`[1]`)})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.res.FinishExecution(ctx, s.ID(), x.Token, wasmrun.Outcome{Exit: &zero, Stdout: []byte(`{"n":1}`), StartMs: 1000, DurationMs: 5})
		if err != nil || res.Status != wasmrun.StatusSuccess || string(res.Output) != `{"n":1}` {
			t.Fatalf("result = %+v, %v", res, err)
		}
		_, err = e.res.FinishExecution(ctx, s.ID(), x.Token, wasmrun.Outcome{Exit: &zero})
		wantErr(t, "a run finished twice", err, skillerr.InvalidArgument, "unknown-run")

		x, _, _ = s.PrepareExecution(ctx, "runner", wasmrun.Options{TimeoutMs: 50})
		_, err = e.res.FinishExecution(ctx, s.ID(), x.Token, wasmrun.Outcome{Timeout: true, StartMs: 2000, DurationMs: 50})
		wantErr(t, "a run stopped at its deadline", err, skillerr.Timeout, "deadline")

		entries, err := e.res.Audit(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		var runs []AuditEntry
		for _, a := range entries {
			if a.Kind == AuditExecute {
				runs = append(runs, a)
			}
		}
		if len(runs) != 2 {
			t.Fatalf("audit = %+v", entries)
		}
		// Newest first: the timeout, then the success.
		ok, late := runs[1], runs[0]
		digest := e.meta(t, "runner").Digest
		if ok.Skill != "runner" || ok.Outcome != AuditOK || ok.Exec == nil || ok.Exec.Version != digest || ok.Exec.Status != wasmrun.StatusSuccess ||
			ok.Exec.InputHash != sha("[1]") || ok.Exec.OutputHash != sha(`{"n":1}`) || ok.Exec.StartMs != 1000 || ok.Exec.Stdout != `{"n":1}` {
			t.Errorf("the success's record: %+v %+v", ok, ok.Exec)
		}
		if late.Outcome != string(skillerr.Timeout) || late.Exec == nil || late.Exec.Status != wasmrun.StatusTimeout {
			t.Errorf("the timeout's record: %+v", late)
		}
	})
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

func TestExecutionsAreBounded(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		s := runnerSession(t, e, wasitest.Module(wasiFdWrite, 0, 1))
		for i := 0; i < MaxExecutions; i++ {
			if _, _, err := s.PrepareExecution(ctx, "runner", wasmrun.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		_, _, err := s.PrepareExecution(ctx, "runner", wasmrun.Options{})
		wantErr(t, "one run more than the bound", err, skillerr.TooLarge, ReasonLimit)
	})
}

// The seed a run is given when its caller gives none is one a JavaScript
// caller can pass back exactly.
func TestExecutionSeedsRoundTrip(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		s := runnerSession(t, e, wasitest.Module(wasiFdWrite, 0, 1))
		for range 20 {
			x, _, err := s.PrepareExecution(ctx, "runner", wasmrun.Options{})
			if err != nil {
				t.Fatal(err)
			}
			seed, _ := strconv.ParseInt(strings.TrimPrefix(x.Env[4], "RANDOM_SEED="), 10, 64)
			if seed < 0 || seed > wasmrun.MaxSeed {
				t.Fatalf("seed %d is past 2^53", seed)
			}
			if _, err := e.res.FinishExecution(ctx, s.ID(), x.Token, wasmrun.Outcome{Timeout: true}); skillerr.CodeOf(err) != skillerr.Timeout {
				t.Fatal(err)
			}
		}
	})
}

// A run is recorded once the host reports it, though its session was
// closed meanwhile (an agent's port that disconnects mid-run), and only
// as a run of that session.
func TestFinishExecutionAfterClose(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		s := runnerSession(t, e, wasitest.Module(wasiFdWrite, 0, 1))
		x, _, err := s.PrepareExecution(ctx, "runner", wasmrun.Options{})
		if err != nil {
			t.Fatal(err)
		}
		other := e.open(t, SessionOptions{})
		_, err = e.res.FinishExecution(ctx, other.ID(), x.Token, wasmrun.Outcome{Timeout: true})
		wantErr(t, "another session's run", err, skillerr.InvalidArgument, "unknown-run")
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		zero := 0
		res, err := e.res.FinishExecution(ctx, s.ID(), x.Token, wasmrun.Outcome{Exit: &zero, Stdout: []byte("{}")})
		if err != nil || res.Status != wasmrun.StatusSuccess {
			t.Fatalf("finishing after the session closed: %+v, %v", res, err)
		}
		entries, err := e.res.Audit(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, a := range entries {
			if a.Kind == AuditExecute && a.Session == s.ID() && a.Exec != nil && a.Exec.Status == wasmrun.StatusSuccess {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d records of the run in %+v", n, entries)
		}
	})
}

// A run whose skill is replaced or removed while it runs is recorded as
// the version it ran; its outcome does not count for another version.
func TestFinishExecutionOfAChangedSkill(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		module := wasitest.Module(wasiFdWrite, 0, 1)
		s := runnerSession(t, e, module)
		ran := e.meta(t, "runner").Digest
		replaced, _, err := s.PrepareExecution(ctx, "runner", wasmrun.Options{})
		if err != nil {
			t.Fatal(err)
		}
		removed, _, err := s.PrepareExecution(ctx, "runner", wasmrun.Options{})
		if err != nil {
			t.Fatal(err)
		}
		runnable(t, e, module, "license: changed")
		if e.meta(t, "runner").Digest == ran {
			t.Fatal("the skill did not change")
		}
		zero := 0
		if _, err := e.res.FinishExecution(ctx, s.ID(), replaced.Token, wasmrun.Outcome{Exit: &zero}); err != nil {
			t.Fatalf("a run of a replaced skill: %v", err)
		}
		if err := e.reg.Remove(ctx, "runner"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.res.FinishExecution(ctx, s.ID(), removed.Token, wasmrun.Outcome{Exit: &zero}); err != nil {
			t.Fatalf("a run of a removed skill: %v", err)
		}
		entries, err := e.res.Audit(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		var versions []string
		for _, a := range entries {
			if a.Kind == AuditExecute {
				versions = append(versions, a.Exec.Version)
			}
		}
		if len(versions) != 2 || versions[0] != ran || versions[1] != ran {
			t.Errorf("recorded versions %q, want %s twice", versions, ran)
		}
	})
}
