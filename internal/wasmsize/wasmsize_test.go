package wasmsize

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPkgOf(t *testing.T) {
	pkgs := []string{"runtime", "fmt", "encoding/json", "gopkg.in/yaml.v3", "github.com/skillfs/skillfs/pkg/vfs"}
	byName := map[string]string{}
	for _, p := range pkgs {
		byName[linkerName(p)] = p
	}
	for sym, want := range map[string]string{
		"runtime.mallocgc":                                    "runtime",
		"fmt.__pp_.doPrintf":                                  "fmt",
		"type:.eq.encoding_json.decodeState":                  "encoding/json",
		"gopkg.in_yaml_2ev3.yaml_parser_fetch_more":           "gopkg.in/yaml.v3",
		"github.com_skillfs_skillfs_pkg_vfs.__FS_.Open.func1": "github.com/skillfs/skillfs/pkg/vfs",
		"nosuchpkg.F":                                         "(other)",
	} {
		if got := pkgOf(sym, byName); got != want {
			t.Errorf("pkgOf(%q) = %q, want %q", sym, got, want)
		}
	}
}

// TestReadRealModule builds a small Go wasm module and checks that its
// code is attributed to the packages it uses.
func TestReadRealModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a wasm module")
	}
	dir := t.TempDir()
	src := "package main\n\nimport (\"encoding/json\"; \"fmt\")\n\nfunc main() { b, _ := json.Marshal(1); fmt.Println(string(b)) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "hello.wasm")
	env := append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	build := exec.Command("go", "build", "-o", out, ".")
	build.Dir, build.Env = dir, env
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	list := exec.Command("go", "list", "-deps", ".")
	list.Dir, list.Env = dir, env
	pkgs, err := list.Output()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Read(wasm, strings.Fields(string(pkgs)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	sum := 0
	for _, p := range s.Packages {
		got[p.Path] = p.Bytes
		sum += p.Bytes
	}
	for _, p := range []string{"runtime", "encoding/json", "fmt", "main"} {
		if got[p] == 0 {
			t.Errorf("no code attributed to %s: %v", p, got)
		}
	}
	if got["(other)"] > sum/10 {
		t.Errorf("%d of %d code bytes are of no known package", got["(other)"], sum)
	}
	if s.Total != len(wasm) || s.Code == 0 || s.Data == 0 || sum > s.Code {
		t.Errorf("sizes do not add up: %+v, code of functions %d", s, sum)
	}
	if _, err := Read(wasm[:len(wasm)/2], nil); err == nil {
		t.Error("a truncated module was read without error")
	}
}
