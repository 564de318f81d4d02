package wasitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Build compiles the program name (a folder here) for GOOS=wasip1
// GOARCH=wasm into dir and returns the module's bytes. It skips t where
// no Go toolchain can be run (tests in the browser; they get modules
// built by the Makefile).
func Build(t testing.TB, dir, name string) []byte {
	t.Helper()
	if runtime.GOOS == "js" {
		t.Skip("no Go toolchain in the browser: the browser tests run modules the Makefile built")
	}
	_, here, _, _ := runtime.Caller(0)
	out := filepath.Join(dir, name+".wasm")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-trimpath", "-o", out, ".")
	cmd.Dir = filepath.Join(filepath.Dir(here), name)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s for wasip1: %v\n%s", name, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
