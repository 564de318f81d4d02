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

// A new Go (its wasm_exec.js and VERSION newer than dist/) rebuilds the
// module and copies its wasm_exec.js: a module of one Go with the
// wasm_exec.js of another does not start.
func TestGoUpgradeRebuildsDist(t *testing.T) {
	dist := t.TempDir()
	for _, f := range []string{"wasm_exec.js", "skillfs.wasm"} {
		if err := os.WriteFile(filepath.Join(dist, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := goroot(t)
	for _, c := range []struct{ target, newer, want string }{
		{"wasm_exec.js", "lib/wasm/wasm_exec.js", "cp " + filepath.Join(root, "lib/wasm/wasm_exec.js")},
		{"skillfs.wasm", "VERSION", "go build"},
	} {
		out, err := makeIn(t, "-n", "DIST="+dist, "-W", filepath.Join(root, c.newer), filepath.Join(dist, c.target))
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("%s after a newer %s: want %q run; make said (%v):\n%s", c.target, c.newer, c.want, err, out)
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
