package wasmrun

import (
	"bytes"
	"encoding/json"
	"slices"
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

// withSection returns module with a section added after its header: the
// checker reads sections in any order, as the engine would not.
func withSection(module []byte, id byte, body ...byte) []byte {
	sec := append([]byte{id}, leb(uint32(len(body)))...)
	return slices.Concat(module[:8], sec, body, module[8:])
}

func leb(v uint32) []byte {
	var b []byte
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// Modules written to break the checker or to escape the caps: each is
// refused with a code and reason, at the check, not later by the engine.
func TestCappedHostileModules(t *testing.T) {
	ok := wasitest.Module(wasi, 0, 1)
	many := make([]wasitest.Import, 100_000)
	for i := range many {
		many[i] = wasi[0]
	}
	for _, tc := range []struct {
		name   string
		module []byte
		code   skillerr.Code
		reason string
	}{
		{"0 bytes", nil, skillerr.WasmError, ReasonMalformed},
		{"a zip", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"), skillerr.WasmError, ReasonMalformed},
		{"a SKILL.md", []byte("---\nname: x\ndescription: y\n---\n# x\n"), skillerr.WasmError, ReasonMalformed},
		{"version 2", append([]byte("\x00asm\x02\x00\x00\x00"), ok[8:]...), skillerr.WasmError, ReasonMalformed},
		{"a section size past 32 bits", append(ok[:8:8], 1, 0xff, 0xff, 0xff, 0xff, 0x7f), skillerr.WasmError, ReasonMalformed},
		{"a count past 32 bits", withSection(ok, 2, 0x80, 0x80, 0x80, 0x80, 0x10), skillerr.WasmError, ReasonMalformed},
		{"2^32-1 imports in 5 bytes", withSection(ok, 2, 0xff, 0xff, 0xff, 0xff, 0x0f), skillerr.WasmError, ReasonMalformed},
		{"2^32-1 exports in 5 bytes", withSection(ok, 7, 0xff, 0xff, 0xff, 0xff, 0x0f), skillerr.WasmError, ReasonMalformed},
		{"a name past the section", withSection(ok, 2, 1, 0x7f, 'w'), skillerr.WasmError, ReasonMalformed},
		{"preview 0 (wasi_unstable)", wasitest.Module([]wasitest.Import{{Module: "wasi_unstable", Name: "fd_write"}}, 0, 1), skillerr.WasmError, ReasonImport},
		{"an imported global", withSection(ok, 2, append(append([]byte{1, 22}, "wasi_snapshot_preview1"...), append([]byte{8}, "fd_write\x03\x7f\x00"...)...)...), skillerr.WasmError, ReasonImport},
		{"an imported table", withSection(ok, 2, append(append([]byte{1, 22}, "wasi_snapshot_preview1"...), append([]byte{8}, "fd_write\x01\x70\x00\x01"...)...)...), skillerr.WasmError, ReasonImport},
		{"two memory sections", withSection(ok, 5, 1, 0, 1), skillerr.WasmError, ReasonMemory},
		{"two memories", withSection(wasitest.Module(wasi, 0), 5, 2, 0, 1, 0, 1), skillerr.WasmError, ReasonMemory},
		{"a 64-bit memory", wasitest.Module(wasi, 4, 1), skillerr.WasmError, ReasonMemory},
		{"a struct type", withSection(ok, 1, 1, 0x5f, 1, 0x7f, 1), skillerr.WasmError, ReasonUncapped},
		{"an array type", withSection(ok, 1, 1, 0x5e, 0x78, 1), skillerr.WasmError, ReasonUncapped},
		{"a recursion group", withSection(ok, 1, 1, 0x4e, 1, 0x5f, 0), skillerr.WasmError, ReasonUncapped},
		{"two tables", withSection(ok, 4, 2, 0x70, 0, 1, 0x70, 0, 1), skillerr.WasmError, ReasonUncapped},
		{"a table past the cap", withSection(ok, 4, append([]byte{1, 0x70, 0}, leb(MaxTableSize+1)...)...), skillerr.WasmError, ReasonUncapped},
		{"a 64-bit table", withSection(ok, 4, 1, 0x70, 4, 1), skillerr.WasmError, ReasonUncapped},
		{"a table with an initializer", withSection(ok, 4, 1, 0x40, 0, 0x70, 0, 1, 0xd0, 0x70, 0x0b), skillerr.WasmError, ReasonUncapped},
		{"a table whose maximum is below its minimum", withSection(ok, 4, 1, 0x70, 1, 5, 2), skillerr.WasmError, ReasonMalformed},
		{"over the size limit", append(ok[:8:8], make([]byte, MaxModuleSize)...), skillerr.TooLarge, ""},
	} {
		_, err := Capped(tc.module, 2048)
		if skillerr.CodeOf(err) != tc.code || skillerr.ReasonOf(err) != tc.reason {
			t.Errorf("%s: got %v (%s/%s), want %s/%s", tc.name, err, skillerr.CodeOf(err), skillerr.ReasonOf(err), tc.code, tc.reason)
		} else if msg := err.Error(); len(msg) > 300 || !strings.Contains(msg, ModulePath) {
			t.Errorf("%s: the message %q does not say plainly what is wrong with which file", tc.name, msg)
		}
	}

	// Accepted: many imports, function types with reference types, one
	// table, a module at the size limit.
	for _, tc := range []struct {
		name   string
		module []byte
	}{
		{"100,000 imports", wasitest.Module(many, 0, 1)},
		{"a function type taking a funcref", withSection(ok, 1, 1, 0x60, 2, 0x63, 0x70, 0x7f, 0)},
		{"one table at the cap", withSection(ok, 4, append([]byte{1, 0x70, 0}, leb(MaxTableSize)...)...)},
		{"a module at the size limit", withSection(ok, 0, make([]byte, MaxModuleSize-len(ok)-6)...)},
	} {
		if len(tc.module) > MaxModuleSize {
			t.Fatalf("%s: %d bytes", tc.name, len(tc.module))
		}
		if _, err := Capped(tc.module, 2048); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// A table's maximum is written like the memory's: at most MaxTableSize.
func TestCappedTable(t *testing.T) {
	ok := wasitest.Module(wasi, 0, 1)
	capMax := leb(MaxTableSize)
	for _, tc := range []struct {
		name string
		body []byte
		want []byte
	}{
		{"no maximum", []byte{1, 0x70, 0, 10}, slices.Concat([]byte{1, 0x70, 1, 10}, capMax)},
		{"a larger maximum", slices.Concat([]byte{1, 0x70, 1, 10}, leb(1<<30)), slices.Concat([]byte{1, 0x70, 1, 10}, capMax)},
		{"a smaller maximum", []byte{1, 0x6f, 1, 10, 100}, []byte{1, 0x6f, 1, 10, 100}},
		{"a typed reference", []byte{1, 0x64, 0x70, 0, 3}, slices.Concat([]byte{1, 0x64, 0x70, 1, 3}, capMax)},
	} {
		out, err := Capped(withSection(ok, 4, tc.body...), 2048)
		want := slices.Concat([]byte{4}, leb(uint32(len(tc.want))), tc.want)
		if err != nil || !bytes.Contains(out, want) {
			t.Errorf("%s: %v, no % x in % x", tc.name, err, want, out)
		}
	}
}
