// Package makefile tests rules of the repository's Makefile that `make
// test` itself cannot show going wrong: a rebuild after a Go upgrade, and
// installing chromium where sudo needs a password.
package makefile

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// makeIn runs make with args at the repository's root.
func makeIn(t *testing.T, args ...string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	cmd := exec.Command("make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir = "../.."
	cmd.Stdin = nil
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func goroot(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// A new Go rebuilds the module and copies its wasm_exec.js (a module of
// one Go with the wasm_exec.js of another does not start), told by its
// version, not its files' times: an upgraded Go's files keep its
// release's dates, older than a module built before the upgrade. The
// same Go rebuilds nothing.
func TestGoUpgradeRebuildsDist(t *testing.T) {
	bin, dist := t.TempDir(), t.TempDir()
	makeDist := func(args ...string) string {
		t.Helper()
		out, err := makeIn(t, append([]string{"-n", "BIN=" + bin, "DIST=" + dist, filepath.Join(dist, "wasm_exec.js"), filepath.Join(dist, "skillfs.wasm")}, args...)...)
		if err != nil {
			t.Fatalf("make: %v\n%s", err, out)
		}
		return out
	}
	makeDist() // writes bin/go-version
	// dist/ made since, with this Go, after every source.
	for _, f := range []string{"wasm_exec.js", "skillfs.wasm"} {
		if err := os.WriteFile(filepath.Join(dist, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := goroot(t)
	if out := makeDist(); strings.Contains(out, "go build") || strings.Contains(out, "cp ") {
		t.Errorf("the same Go rebuilt dist/:\n%s", out)
	}
	out := makeDist("GO_VERSION=go0.0-upgraded")
	for _, want := range []string{"cp " + filepath.Join(root, "lib/wasm/wasm_exec.js"), "go build"} {
		if !strings.Contains(out, want) {
			t.Errorf("after a Go upgrade: want %q run; make said:\n%s", want, out)
		}
	}
}

// With no terminal and a sudo that wants a password, the chromium rule
// says what to install instead of failing with sudo's "a terminal is
// required". The stand-in sudo answers as the real one does there (the
// real one here runs as root, without a password).
func TestChromiumWithoutPasswordlessSudo(t *testing.T) {
	dir := t.TempDir()
	sudo := filepath.Join(dir, "sudo")
	script := "#!/bin/sh\n[ \"$1\" = -n ] && { echo 'sudo: a password is required' >&2; exit 1; }\necho 'sudo: a terminal is required to read the password' >&2; exit 1\n"
	if err := os.WriteFile(sudo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	chromium := filepath.Join(dir, "chromium")
	out, err := makeIn(t, "SUDO="+sudo, "CHROMIUM="+chromium, chromium)
	if err == nil || !strings.Contains(out, chromium+" is missing and apt-get could not install it here (sudo -n: sudo may not run without a password): install Debian's chromium (sudo apt-get install chromium), or set CHROMIUM=/path/to/chromium") {
		t.Fatalf("make %s: err %v, output:\n%s", chromium, err, out)
	}
}
