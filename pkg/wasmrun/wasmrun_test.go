package wasmrun

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/internal/wasitest"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

var wasi = []wasitest.Import{{Module: "wasi_snapshot_preview1", Name: "fd_write"}}

func TestCappedWritesTheMaximum(t *testing.T) {
	for _, tc := range []struct {
		name   string
		flags  byte
		limits []uint32
	}{
		{"no maximum", 0, []uint32{17}},
		{"a larger maximum", 1, []uint32{17, 65536}},
		{"a smaller maximum", 1, []uint32{17, 20}},
	} {
		m := wasitest.Module(wasi, tc.flags, tc.limits...)
		out, err := Capped(m, 2048)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		// The memory section now says {min 17, max 2048}: 05 len 01 01 11 80 10.
		if !bytes.Contains(out, []byte{5, 5, 1, 1, 17, 0x80, 0x10}) {
			t.Errorf("%s: no capped memory section in % x", tc.name, out)
		}
		if _, err := Capped(out, 2048); err != nil {
			t.Errorf("%s: the capped module is refused: %v", tc.name, err)
		}
	}
}

func TestCappedRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		module []byte
		code   skillerr.Code
		reason string
	}{
		{"not wasm", []byte("#!/bin/sh\necho hi\n"), skillerr.WasmError, ReasonMalformed},
		{"truncated", wasitest.Module(wasi, 0, 1)[:30], skillerr.WasmError, ReasonMalformed},
		{"an import from env", wasitest.Module([]wasitest.Import{{Module: "env", Name: "system"}}, 0, 1), skillerr.WasmError, ReasonImport},
		{"a preview 2 import", wasitest.Module([]wasitest.Import{{Module: "wasi:cli/environment@0.2.0", Name: "get-environment"}}, 0, 1), skillerr.WasmError, ReasonImport},
		{"an unknown WASI name", wasitest.Module([]wasitest.Import{{Module: "wasi_snapshot_preview1", Name: "sock_open"}}, 0, 1), skillerr.WasmError, ReasonImport},
		{"an imported memory", wasitest.Module([]wasitest.Import{{Module: "wasi_snapshot_preview1", Name: "memory", Memory: true}}, 0, 1), skillerr.WasmError, ReasonMemory},
		{"no memory", wasitest.Module(wasi, 0), skillerr.WasmError, ReasonMemory},
		{"a shared memory", wasitest.Module(wasi, 3, 1, 2), skillerr.WasmError, ReasonMemory},
		{"more memory than the cap", wasitest.Module(wasi, 0, 2049), skillerr.WasmError, ReasonMemoryTooLarge},
	} {
		_, err := Capped(tc.module, 2048)
		if skillerr.CodeOf(err) != tc.code || skillerr.ReasonOf(err) != tc.reason {
			t.Errorf("%s: got %v (%s/%s), want %s/%s", tc.name, err, skillerr.CodeOf(err), skillerr.ReasonOf(err), tc.code, tc.reason)
		}
	}
}

// A real Go program built for wasip1 passes, and comes out capped.
func TestCappedRealModule(t *testing.T) {
	m := wasitest.Build(t, t.TempDir(), "echo")
	out, err := Capped(m, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if d := len(out) - len(m); d < -16 || d > 16 {
		t.Errorf("the capped module is %d bytes, the module %d", len(out), len(m))
	}
	if _, err := Capped(m, 1); skillerr.ReasonOf(err) != ReasonMemoryTooLarge {
		t.Errorf("a 64 KiB cap: %v", err)
	}
}

func TestGrantsFor(t *testing.T) {
	g := GrantsFor([]string{"Read", "Write(/scratch/**)", "Bash(python:*)", "WebFetch", "Bash(git:*)"})
	if !g.Scratch || strings.Join(g.Permissions, " ") != "read:/skill write:/scratch" {
		t.Errorf("grants = %+v", g)
	}
	if len(g.Denied) != 2 || g.Denied[0].Tool != "Bash" || g.Denied[1].Tool != "WebFetch" {
		t.Errorf("denied = %+v", g.Denied)
	}
	if g := GrantsFor(nil); g.Scratch || len(g.Permissions) != 1 {
		t.Errorf("no allowed-tools: %+v", g)
	}
}

func TestOptionsAndFinish(t *testing.T) {
	seed := func() int64 { return 42 }
	if _, err := (Options{TimeoutMs: MaxTimeoutMs + 1}).Normalize(seed); skillerr.CodeOf(err) != skillerr.InvalidArgument {
		t.Errorf("a long timeout: %v", err)
	}
	if _, err := (Options{Input: json.RawMessage("{")}).Normalize(seed); skillerr.CodeOf(err) != skillerr.InvalidArgument {
		t.Errorf("bad JSON: %v", err)
	}
	if _, err := (Options{Input: json.RawMessage(`"` + strings.Repeat("x", MaxInput) + `"`)}).Normalize(seed); skillerr.CodeOf(err) != skillerr.TooLarge {
		t.Errorf("a large input: %v", err)
	}
	for _, v := range []int64{MaxSeed + 1, -MaxSeed - 1, 1 << 62} {
		if _, err := (Options{Seed: &v}).Normalize(seed); skillerr.ReasonOf(err) != "seed" {
			t.Errorf("seed %d: %v", v, err)
		}
	}
	o, err := Options{Input: json.RawMessage(` {"a": 1} `)}.Normalize(seed)
	if err != nil || string(o.Input) != `{"a":1}` || o.TimeoutMs != DefaultTimeoutMs || o.Pages() != 2048 || *o.Seed != 42 {
		t.Fatalf("normalized = %+v, %v", o, err)
	}
	if env := strings.Join(Env("x", "X", o), "\n"); env != "SKILL_ID=x\nSKILL_NAME=X\nSKILL_INPUT={\"a\":1}\nTIMEOUT_MS=30000\nRANDOM_SEED=42" {
		t.Errorf("env:\n%s", env)
	}
	zero, two := 0, 2
	g := GrantsFor(nil)
	res, rec, err := Finish("sha256:d", o, g, Outcome{Exit: &zero, Stdout: []byte(" {\"ok\":true}\n"), Stderr: bytes.Repeat([]byte("é"), StderrCap)})
	if err != nil || res.Status != StatusSuccess || string(res.Output) != `{"ok":true}` || !res.StderrTruncated || len(res.Stderr) > StderrCap {
		t.Errorf("success: %+v %v", res, err)
	}
	if rec.Version != "sha256:d" || !strings.HasPrefix(rec.InputHash, "sha256:") || len(rec.Stderr) > AuditOutputCap || rec.Status != StatusSuccess {
		t.Errorf("record: %+v", rec)
	}
	res, _, err = Finish("d", o, g, Outcome{Exit: &two, Stdout: []byte("not json"), Stderr: []byte("boom\n")})
	if res.Status != StatusFailed || string(res.Output) != "null" || skillerr.CodeOf(err) != skillerr.WasmError || !strings.Contains(err.Error(), "code 2") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("failure: %+v %v", res, err)
	}
	_, rec, err = Finish("d", o, g, Outcome{Timeout: true})
	if rec.Status != StatusTimeout || skillerr.CodeOf(err) != skillerr.Timeout {
		t.Errorf("timeout: %+v %v", rec, err)
	}
}
