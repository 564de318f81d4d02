package wasmdata

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// probe is a program that needs findfunc everywhere: the garbage
// collector scans deep stacks of many goroutines, and the output names the
// functions found from PCs (runtime.Callers, a panic's stack), so a table
// that sent findfunc to the wrong function shows in the names or a crash.
const probe = `package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

//go:noinline
func deep(n int) string {
	if n > 0 {
		return deep(n-1)
	}
	runtime.GC()
	pcs := make([]uintptr, 8)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	f, _ := frames.Next()
	return f.Function
}

func main() {
	var wg sync.WaitGroup
	names := make([]string, 16)
	for i := range names {
		wg.Add(1)
		go func() { defer wg.Done(); names[i] = deep(50 + i) }()
	}
	wg.Wait()
	func() {
		defer func() { recover(); os.Stdout.Write(debug.Stack()) }()
		var m map[string]int
		m["x"]++
	}()
	fmt.Println(strings.Join(names[:2], " "), "done")
}
`

// TestShrinkRuns shrinks a real module and runs it with node: the program
// must work and name its functions right (every value findfunc can read
// is as the linker wrote it, and the stack maps are intact), with no file
// or line left in its stack.
func TestShrinkRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a wasm module")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIP: node is not installed; the shrunk module cannot be run")
	}
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", probe)
	write("go.mod", "module probe\n\ngo 1.26\n")
	wasmFile := filepath.Join(dir, "probe.wasm")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", wasmFile, ".")
	build.Dir, build.Env = dir, append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	orig, err := os.ReadFile(wasmFile)
	if err != nil {
		t.Fatal(err)
	}
	out, st, err := Shrink(orig)
	if err != nil {
		t.Fatal(err)
	}
	if st.Zeroed == 0 || st.Lines == 0 || st.SegmentsAfter >= st.SegmentsBefore || len(out) >= len(orig) {
		t.Fatalf("nothing was shrunk: %+v, %d → %d bytes", st, len(orig), len(out))
	}
	t.Logf("%d → %d bytes, %d → %d segments", len(orig), len(out), st.SegmentsBefore, st.SegmentsAfter)
	if err := os.WriteFile(wasmFile, out, 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(node, filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec_node.js"), wasmFile)
	got, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the shrunk module failed: %v\n%s", err, got)
	}
	for _, want := range []string{"main.deep main.deep done", "main.main.func2", "panic(", "?:0"} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}
	if bytes.Contains(got, []byte("main.go:")) {
		t.Errorf("the stack still names files and lines:\n%s", got)
	}

	// Layout accounts for every byte of the data section, and the
	// table's share is what shrank.
	part := func(wasm []byte, name string) (sum, named int) {
		parts, err := Layout(wasm)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			sum += p.Bytes
			if p.Name == name {
				named = p.Bytes
			}
		}
		return sum, named
	}
	for _, w := range [][]byte{orig, out} {
		sum, names := part(w, "pclntab: function names")
		if sum != dataLen(t, w) || names == 0 {
			t.Errorf("Layout: %d bytes of %d, %d of names", sum, dataLen(t, w), names)
		}
	}
	if _, before := part(orig, "pclntab: findfunctab"); before == 0 {
		t.Error("Layout found no findfunctab")
	} else if _, after := part(out, "pclntab: findfunctab"); after*10 > before {
		t.Errorf("findfunctab carried %d bytes before, %d after", before, after)
	}

	// Shrinking again changes nothing: the buckets read are kept.
	again, st2, err := Shrink(out)
	if err != nil {
		t.Fatal(err)
	}
	if st2.Zeroed != 0 || !bytes.Equal(again, out) {
		t.Errorf("a second shrink changed %d bytes", st2.Zeroed)
	}
}

func TestShrinkRefuses(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":     nil,
		"not wasm":  []byte("\x7fELF\x02\x01\x01\x00"),
		"no data":   []byte("\x00asm\x01\x00\x00\x00"),
		"truncated": []byte("\x00asm\x01\x00\x00\x00\x0b\x10\x01"),
		// A data segment but no Go runtime in it.
		"not Go": []byte("\x00asm\x01\x00\x00\x00\x0b\x08\x01\x00\x41\x10\x0b\x02hi"),
	} {
		if _, _, err := Shrink(b); err == nil {
			t.Errorf("%s: shrunk without error", name)
		}
	}
}

func dataLen(t *testing.T, wasm []byte) int {
	secs, err := sections(wasm)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secs {
		if s.id == secData {
			return len(s.body)
		}
	}
	t.Fatal("no data section")
	return 0
}
