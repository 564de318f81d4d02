package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/internal/realrepos"
)

// verdicts runs skills validate on path and returns its output lines with
// the path's own spelling taken out, sorted, so that a download and its
// extracted folder can be compared line by line.
func verdicts(t *testing.T, path, prefix string) (int, []string) {
	t.Helper()
	code, out, errOut := runCLI("validate", path)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out+errOut), "\n") {
		lines = append(lines, strings.TrimPrefix(l, prefix))
	}
	slices.Sort(lines)
	return code, lines
}

// validateAlike validates a download as a zip and as the folder it
// extracts to, and requires the same verdicts on every skill.
func validateAlike(t *testing.T, name string, data []byte) (code int, lines []string) {
	t.Helper()
	tmp := t.TempDir()
	zipPath := filepath.Join(tmp, name+".zip")
	if err := os.WriteFile(zipPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "x")
	if err := realrepos.Extract(data, dir); err != nil {
		t.Fatal(err)
	}
	zcode, zlines := verdicts(t, zipPath, zipPath+":")
	fcode, flines := verdicts(t, dir, dir+string(filepath.Separator))
	if zcode != fcode || !slices.Equal(zlines, flines) {
		t.Fatalf("the zip and its folder get different verdicts:\nzip (exit %d):\n%s\nfolder (exit %d):\n%s",
			zcode, strings.Join(zlines, "\n"), fcode, strings.Join(flines, "\n"))
	}
	return zcode, zlines
}

func countValid(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.HasSuffix(l, ": valid (lenient)") {
			n++
		}
	}
	return n
}

// TestValidateGeneratedDownload: the generated download, with links outside
// its skills, validates every skill, as a zip and as a folder; with a link
// inside a skill, both refuse it naming the entry.
func TestValidateGeneratedDownload(t *testing.T) {
	code, lines := validateAlike(t, realrepos.GeneratedName, realrepos.Generated())
	if code != 0 || countValid(lines) != realrepos.GeneratedSkills {
		t.Fatalf("exit %d, %d valid, want 0 and %d:\n%s", code, countValid(lines), realrepos.GeneratedSkills, strings.Join(lines, "\n"))
	}
	tmp := t.TempDir()
	if err := realrepos.Extract(realrepos.GeneratedWithLinkInSkill(), tmp); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(tmp, "link.zip")
	os.WriteFile(zipPath, realrepos.GeneratedWithLinkInSkill(), 0o644)
	for _, p := range []string{zipPath, tmp} {
		code, _, stderr := runCLI("validate", p)
		if code != 1 || !strings.Contains(stderr, "InvalidArchive (symlink)") || !strings.Contains(stderr, realrepos.LinkInSkill) {
			t.Errorf("validate %s: exit %d, stderr %q; want 1 and the symlink named", p, code, stderr)
		}
	}
}

// TestValidateRealDownloads: every skill of the six real repository
// downloads is valid, with the same verdicts from the zip and from the
// extracted folder.
func TestValidateRealDownloads(t *testing.T) {
	total := 0
	realrepos.Each(t, func(t *testing.T, r realrepos.Repo, data []byte) {
		code, lines := validateAlike(t, r.Name, data)
		if code != 0 || r.Skills != 0 && countValid(lines) != r.Skills {
			t.Fatalf("exit %d, %d valid, want 0 and %d", code, countValid(lines), r.Skills)
		}
		total += countValid(lines)
	})
	t.Logf("%d skills valid", total)
}

// TestValidateFolderFollowsNothing: a folder's links and pipes are never
// followed or read: outside a skill they are left out, inside one they
// make it invalid, named.
func TestValidateFolderFollowsNothing(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"pdf/SKILL.md": skillMD("pdf", "PDFs.")})
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret"), 0o644)
	if err := os.Symlink(secret, filepath.Join(dir, "outside-link")); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if code, out, stderr := runCLI("validate", dir); code != 0 || countValid(strings.Split(out, "\n")) != 1 {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
	for _, evil := range []string{"pdf/link", "pdf/pipe"} {
		t.Run(evil, func(t *testing.T) {
			p := filepath.Join(dir, filepath.FromSlash(evil))
			if strings.HasSuffix(evil, "link") {
				os.Symlink(secret, p)
			} else {
				mkfifo(p)
			}
			defer os.Remove(p)
			code, _, stderr := runCLI("validate", dir)
			if code != 1 || !strings.Contains(stderr, evil) {
				t.Fatalf("exit %d, stderr %q; want 1 naming %s", code, stderr, evil)
			}
		})
	}
}
