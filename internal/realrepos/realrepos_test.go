package realrepos

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

func TestZipsFromEnv(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b+two.zip", "obra+superpowers.zip", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvVar, dir)
	repos, err := Zips()
	if err != nil {
		t.Fatal(err)
	}
	if len(repos) != 2 || repos[0].Name != "b+two" || repos[1].Name != "obra+superpowers" {
		t.Fatalf("Zips() = %+v", repos)
	}
	if repos[0].Skills != 0 || repos[1].Skills != 14 {
		t.Errorf("skill counts = %d, %d; want 0 (unknown), 14", repos[0].Skills, repos[1].Skills)
	}
}

func TestZipsMissingDir(t *testing.T) {
	t.Setenv(EnvVar, filepath.Join(t.TempDir(), "absent"))
	if _, ok := Dir(); ok {
		t.Fatal("Dir() reports a missing folder as present")
	}
	if repos, err := Zips(); err != nil || repos != nil {
		t.Fatalf("Zips() = %v, %v; want nil, nil", repos, err)
	}
}

// The committed copies of the generated downloads, which the browser tests
// import, are what the generator writes. After changing the generator:
//
//	go test ./internal/realrepos -run Committed -update
var update = flag.Bool("update", false, "rewrite testdata/ from the generator")

func TestCommittedGeneratedDownloads(t *testing.T) {
	for name, data := range map[string][]byte{
		GeneratedName + ".zip":               Generated(),
		GeneratedName + "-link-in-skill.zip": GeneratedWithLinkInSkill(),
	} {
		p := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s differs from what the generator writes; run go test ./internal/realrepos -run Committed -update", p)
		}
	}
}
