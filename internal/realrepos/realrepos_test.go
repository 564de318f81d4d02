package realrepos

import (
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
