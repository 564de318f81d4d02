package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (slash paths → contents) below dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func skillMD(name, desc string, extra ...string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n" + strings.Join(extra, "\n") + "---\n# " + name + "\n"
}

// runCLI runs the command line and returns its exit code and outputs.
func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"good/SKILL.md":       skillMD("good", "Does good things."),
		"extended/SKILL.md":   skillMD("extended", "Uses a Claude Code field.", "user-invocable: false\n"),
		"bad/SKILL.md":        "---\nname: bad\n---\nno description\n",
		"wrongname/SKILL.md":  skillMD("other-name", "Name differs from its folder."),
		"notes/README.md":     "not a skill",
		"good/.DS_Store":      "junk",
		"good/scripts/run.sh": "echo hi",
	})
	cases := []struct {
		name     string
		args     []string
		code     int
		stderr   []string // substrings that must appear
		noStderr bool
	}{
		{"valid skill", []string{"validate", filepath.Join(dir, "good")}, 0, nil, true},
		{"extension key is fine leniently", []string{"validate", filepath.Join(dir, "extended")}, 0, nil, true},
		{"extension key is an error strictly", []string{"validate", "--strict", filepath.Join(dir, "extended")}, 1, []string{"user-invocable"}, false},
		{"missing description", []string{"validate", filepath.Join(dir, "bad")}, 1, []string{"description-missing"}, false},
		{"name mismatch warns leniently", []string{"validate", filepath.Join(dir, "wrongname")}, 0, []string{"warning name-mismatch"}, false},
		{"name mismatch fails strictly", []string{"validate", filepath.Join(dir, "wrongname"), "--strict"}, 1, []string{"error name-mismatch"}, false},
		{"folder of skills", []string{"validate", dir}, 1, []string{"bad: error description-missing"}, false},
		{"no skill", []string{"validate", filepath.Join(dir, "notes")}, 1, []string{"no SKILL.md"}, false},
		{"no path", []string{"validate"}, 2, []string{"usage"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			for _, s := range c.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if c.noStderr && stderr != "" {
				t.Errorf("unexpected stderr:\n%s", stderr)
			}
		})
	}
}

func TestReadProperties(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"pdf/SKILL.md": skillMD("pdf", "Reads PDFs & forms.", "license: MIT\nallowed-tools: [Read, Bash]\nmetadata:\n  version: 1.0\n"),
	})
	code, out, stderr := runCLI("read-properties", filepath.Join(dir, "pdf"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	want := map[string]any{
		"name": "pdf", "description": "Reads PDFs & forms.", "license": "MIT",
		"allowed-tools": "Read Bash", "metadata": map[string]any{"version": "1.0"},
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Fatalf("properties = %s, want %s", gotJSON, wantJSON)
	}
}

func TestToPromptLeavesOutUserOnlySkills(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a/SKILL.md": skillMD("a", `Quotes "x" & 'y'.`),
		"b/SKILL.md": skillMD("b", "Only for the user.", "disable-model-invocation: true\n"),
	})
	code, out, stderr := runCLI("to-prompt", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "<available_skills>\n<skill>\n<name>\na\n</name>\n<description>\nQuotes &quot;x&quot; &amp; &#x27;y&#x27;.\n</description>\n<location>\n" +
		filepath.Join(dir, "a", "SKILL.md") + "\n</location>\n</skill>\n</available_skills>\n"
	if out != want {
		t.Fatalf("to-prompt output:\n%s\nwant:\n%s", out, want)
	}
}

func TestPackIsDeterministicAndValid(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "pdf-tools")
	writeTree(t, src, map[string]string{
		"SKILL.md":           skillMD("pdf-tools", "Works with PDFs."),
		"scripts/extract.py": "print('hi')\n",
		".DS_Store":          "junk",
		"._SKILL.md":         "junk",
		".git/config":        "[core]",
	})
	if err := os.Chmod(filepath.Join(src, "scripts/extract.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	out1, out2 := filepath.Join(dir, "one.zip"), filepath.Join(dir, "two.zip")
	for _, out := range []string{out1, out2} {
		if code, _, stderr := runCLI("pack", src, "-o", out); code != 0 {
			t.Fatalf("pack exit %d: %s", code, stderr)
		}
	}
	a, _ := os.ReadFile(out1)
	b, _ := os.ReadFile(out2)
	if !bytes.Equal(a, b) {
		t.Fatal("two packs of the same folder differ")
	}
	zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Name == "pdf-tools/scripts/extract.py" && f.Mode()&0o111 == 0 {
			t.Error("the script lost its executable bit")
		}
	}
	if got, want := strings.Join(names, ","), "pdf-tools/SKILL.md,pdf-tools/scripts/extract.py"; got != want {
		t.Fatalf("entries = %s, want %s", got, want)
	}
	if code, _, stderr := runCLI("validate", "--strict", out1); code != 0 {
		t.Fatalf("validate of the pack: exit %d: %s", code, stderr)
	}
}

func TestPackRefusesInvalidSkill(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"x/SKILL.md": "no frontmatter\n"})
	out := filepath.Join(dir, "x.zip")
	if code, _, _ := runCLI("pack", filepath.Join(dir, "x"), "-o", out); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("an archive was written for an invalid skill")
	}
}

func TestRejectedArchiveNamesCodeAndEntry(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"evil/SKILL.md", "evil/../../etc/passwd"} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(skillMD("evil", "Evil.")))
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), "evil.skill")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("validate", path)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"PathRejected", "dot-dot", "evil/../../etc/passwd"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestValidateArchiveLayouts(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range map[string]string{
		"repo-main/skills/a/SKILL.md": skillMD("a", "First."),
		"repo-main/skills/b/SKILL.md": skillMD("b", "Second."),
		"repo-main/README.md":         "# repo",
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(data))
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), "pack.zip")
	os.WriteFile(path, buf.Bytes(), 0o644)
	code, out, stderr := runCLI("validate", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Count(out, "valid (lenient)") != 2 {
		t.Fatalf("want two valid skills, got:\n%s", out)
	}
}

// An archive of several skills: read-properties says how to name one and
// lists a bounded number of their folders, and takes the folder named.
func TestReadPropertiesOfSeveral(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 12 {
		name := fmt.Sprintf("s%02d", i)
		files["pack/"+name+"/SKILL.md"] = skillMD(name, "Skill "+name+".")
	}
	writeTree(t, dir, files)
	archive := filepath.Join(dir, "pack.zip")
	if code, _, stderr := runCLI("pack", filepath.Join(dir, "pack"), "-o", archive); code != 0 {
		t.Fatalf("pack: exit %d: %s", code, stderr)
	}
	code, _, stderr := runCLI("read-properties", archive)
	want := "holds 12 skills: name one's folder after PATH (skills read-properties " + archive + " FOLDER); their folders: pack/s00, pack/s01, pack/s02, pack/s03, pack/s04, pack/s05, pack/s06, pack/s07, pack/s08, pack/s09 and 2 more"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	for _, folder := range []string{"s07", "pack/s07"} {
		code, out, stderr := runCLI("read-properties", archive, folder)
		if code != 0 || !strings.Contains(out, `"description": "Skill s07."`) {
			t.Fatalf("%s: exit %d, out %q, stderr %q", folder, code, out, stderr)
		}
	}
	code, _, stderr = runCLI("read-properties", archive, "nope")
	if code != 1 || !strings.Contains(stderr, `holds no skill in a folder named "nope"; its skills' folders: pack/s00,`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
