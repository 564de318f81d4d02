package registry

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

func testFiles(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, func(o *Options) { o.MaxTextFile = 100 })
	ctx := context.Background()
	m := e.importZip(t, zipOf(t, "x", skillFiles("", "x")...), ImportOptions{}).Skills[0]
	// Management works on disabled skills too.
	if _, err := e.reg.SetEnabled(ctx, "x", false); err != nil {
		t.Fatal(err)
	}

	entries, err := e.reg.Tree(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SKILL.md", "references/", "references/deep/", "references/deep/notes.md", "scripts/", "scripts/run.sh"}
	if got := pathsOf(entries); !slices.Equal(got, want) {
		t.Errorf("Tree = %v, want %v", got, want)
	}
	if en := entries[5]; en.Size != int64(len("#!/bin/sh\necho x\n")) || en.ModTime.IsZero() {
		t.Errorf("entry = %+v", en)
	}
	if data, err := e.reg.ReadFile(ctx, "x", "references/deep/notes.md"); err != nil || string(data) != "Notes about x.\n" {
		t.Errorf("ReadFile = %q, %v", data, err)
	}
	_, err = e.reg.ReadFile(ctx, "x", "nope.md")
	wantErr(t, "missing file", err, skillerr.SkillNotFound, "not-exist")
	_, err = e.reg.ReadFile(ctx, "x", "../y/SKILL.md")
	wantErr(t, "read outside", err, skillerr.PathRejected, "dot-dot")

	// A new file in new directories: the whole tree gets the new digest.
	e.clock.advance(time.Minute)
	m2, err := e.reg.WriteFile(ctx, "x", "scripts/lib/util.py", "print('util')\n")
	if err != nil {
		t.Fatal(err)
	}
	if m2.Digest == m.Digest || m2.FileCount != 4 || m2.Enabled || !m2.UpdatedAt.Equal(t0.Add(time.Minute)) || !m2.CreatedAt.Equal(t0) {
		t.Errorf("after write: %s", jsonOf(t, m2))
	}
	if c := e.lastChange(t); c.Kind != KindEdit || !slices.Equal(c.IDs, []string{"x"}) {
		t.Errorf("change = %+v", c)
	}
	checkGenerations(t, e.reg, m2)
	if info, err := e.reg.FS().Stat("x/scripts/run.sh"); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("run.sh lost its mode in the rewrite: %v, %v", info, err)
	}
	// Overwrite keeps the mode.
	if _, err := e.reg.WriteFile(ctx, "x", "scripts/run.sh", "echo changed\n"); err != nil {
		t.Fatal(err)
	}
	if data, _ := readGen(t, e.reg, "x/scripts/run.sh"); data != "echo changed\n" {
		t.Errorf("run.sh = %q", data)
	}
	if info, _ := e.reg.FS().Stat("x/scripts/run.sh"); info.Mode().Perm() != 0o755 {
		t.Errorf("run.sh mode = %v", info.Mode())
	}

	before := dump(t, e.db)
	for _, tc := range []struct {
		path, text string
		code       skillerr.Code
		reason     string
	}{
		{"font.ttf", "x", skillerr.NotText, "extension"},
		{"image.PNG", "x", skillerr.NotText, "extension"},
		{"a.md", "a\x00b", skillerr.NotText, "nul"},
		{"a.md", "\xff\xfe", skillerr.NotText, "not-utf8"},
		{"a.md", strings.Repeat("x", 101), skillerr.TooLarge, ""},
		{"../a.md", "x", skillerr.PathRejected, "dot-dot"},
		{"/etc/a.md", "x", skillerr.PathRejected, "absolute"},
		{"", "x", skillerr.PermissionDenied, "root"},
		{"scripts", "x", skillerr.InvalidArgument, "is-dir"},
		{"scripts/run.sh/x.md", "x", skillerr.InvalidArgument, "not-dir"},
		{"Scripts/x.md", "x", skillerr.Conflict, "collision"},
		{"\uff53cripts/x.md", "x", skillerr.Conflict, "collision"}, // fullwidth s: "scripts" once normalised
		{"scripts/run.s\u0068\u200b", "x", skillerr.PathRejected, "format-char"},
		{"scripts/run.sh.", "x", skillerr.PathRejected, "windows-name"},
	} {
		_, err := e.reg.WriteFile(ctx, "x", tc.path, tc.text)
		wantErr(t, "WriteFile "+tc.path, err, tc.code, tc.reason)
	}
	_, err = e.reg.WriteFile(ctx, "nope", "a.md", "x")
	wantErr(t, "unknown skill", err, skillerr.SkillNotFound, "")
	// Files without an extension are text too.
	if _, err := e.reg.WriteFile(ctx, "x", "LICENSE", "MIT\n"); err != nil {
		t.Errorf("WriteFile(LICENSE): %v", err)
	}
	if _, err := e.reg.RemovePath(ctx, "x", "LICENSE"); err != nil {
		t.Fatal(err)
	}
	if !sameDumpExceptRevision(t, before, dump(t, e.db)) {
		t.Error("refused writes changed the tree")
	}

	// Mkdir.
	m3, err := e.reg.Mkdir(ctx, "x", "assets/fonts")
	if err != nil {
		t.Fatal(err)
	}
	if m3.Digest != mustGet(t, e.reg, "x").Digest {
		t.Error("Mkdir returned a stale record")
	}
	if info, err := e.reg.FS().Stat("x/assets/fonts"); err != nil || !info.IsDir() {
		t.Errorf("Stat(assets/fonts) = %v, %v", info, err)
	}
	_, err = e.reg.Mkdir(ctx, "x", "assets")
	wantErr(t, "Mkdir existing", err, skillerr.Conflict, "exists")
	_, err = e.reg.Mkdir(ctx, "x", "SKILL.md/sub")
	wantErr(t, "Mkdir under a file", err, skillerr.InvalidArgument, "not-dir")
	_, err = e.reg.Mkdir(ctx, "x", ".")
	wantErr(t, "Mkdir root", err, skillerr.PermissionDenied, "root")

	// RemovePath.
	m4, err := e.reg.RemovePath(ctx, "x", "scripts")
	if err != nil {
		t.Fatal(err)
	}
	if m4.FileCount != 2 {
		t.Errorf("after removing scripts/: %d files", m4.FileCount)
	}
	entries, _ = e.reg.Tree(ctx, "x")
	for _, en := range entries {
		if strings.HasPrefix(en.Path, "scripts") {
			t.Errorf("%s survived", en.Path)
		}
	}
	checkGenerations(t, e.reg, m4)
	_, err = e.reg.RemovePath(ctx, "x", "SKILL.md")
	wantErr(t, "remove SKILL.md", err, skillerr.PermissionDenied, "skill-md")
	_, err = e.reg.RemovePath(ctx, "x", "./")
	wantErr(t, "remove root", err, skillerr.PermissionDenied, "root")
	_, err = e.reg.RemovePath(ctx, "x", "scripts")
	wantErr(t, "remove missing", err, skillerr.SkillNotFound, "not-exist")
	_, err = e.reg.RemovePath(ctx, "x", "a\\b")
	wantErr(t, "remove backslash", err, skillerr.PathRejected, "backslash")
}

// sameDumpExceptRevision compares two dumps, ignoring the revision.
func sameDumpExceptRevision(t testing.TB, a, b map[string]map[string][]byte) bool {
	t.Helper()
	for _, d := range []map[string]map[string][]byte{a, b} {
		delete(d["state"], revisionKey)
		// The versions edits overwrote are kept for sessions (retain.go);
		// the tree is what must be as it was.
		for _, store := range []string{"state", "blobs"} {
			maps.DeleteFunc(d[store], func(k string, _ []byte) bool { return strings.HasPrefix(k, "retained:") })
		}
		for k, v := range d["meta"] {
			m, err := decodeMeta(vfs.Record{Key: k, Value: v})
			if err != nil {
				t.Fatal(err)
			}
			m.UpdatedAt = time.Time{}
			d["meta"][k] = []byte(jsonOf(t, m))
		}
	}
	return sameDump(a, b)
}

func testEditSkillMD(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	e.importZip(t, zipOf(t, "x", skillFiles("", "x")...), ImportOptions{})
	before := dump(t, e.db)
	rev := mustRevision(t, e.reg)

	// Invalid: refused with the diagnostics, nothing changes.
	_, err := e.reg.WriteFile(ctx, "x", "SKILL.md", "no frontmatter\n")
	var me *ManifestError
	if !errors.As(err, &me) || me.Skill != "x" || !slices.ContainsFunc(me.Diagnostics, func(d skill.Diagnostic) bool { return d.Code == "frontmatter-missing" }) {
		t.Errorf("invalid save: %v", err)
	}
	wantErr(t, "invalid save", err, skillerr.InvalidManifest, "frontmatter-missing")
	// A rename: refused, with a message saying so.
	_, err = e.reg.WriteFile(ctx, "x", "SKILL.md", mdOf("y", "Renamed."))
	if se := wantErr(t, "rename", err, skillerr.InvalidManifest, "rename-refused"); se != nil && !strings.Contains(se.Msg, "renamed") {
		t.Errorf("message %q", se.Msg)
	}
	if !errors.As(err, &me) {
		t.Errorf("rename error %v is not a *ManifestError", err)
	}
	if !sameDump(before, dump(t, e.db)) || mustRevision(t, e.reg) != rev {
		t.Error("a refused save changed the database")
	}

	// Valid: the record follows in the same commit.
	m, err := e.reg.WriteFile(ctx, "x", "SKILL.md", mdOf("x", "Now does more.",
		"allowed-tools: Read Write", "triggers: more", "disable-model-invocation: true", "version: 2"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Description != "Now does more." || !slices.Equal(m.AllowedTools, []string{"Read", "Write"}) ||
		!slices.Equal(m.Triggers, []string{"more"}) || !m.DisableModelInvocation || m.Version != "2" {
		t.Errorf("after save: %s", jsonOf(t, m))
	}
	if got := mustGet(t, e.reg, "x"); jsonOf(t, got) != jsonOf(t, m) {
		t.Errorf("Get = %s\nwant %s", jsonOf(t, got), jsonOf(t, m))
	}
	checkGenerations(t, e.reg, m)
	// skill.yaml is part of the metadata too.
	m, err = e.reg.WriteFile(ctx, "x", "skill.yaml", "cost_hint: low\n")
	if err != nil || m.CostHint != "low" {
		t.Errorf("after skill.yaml: %+v, %v", m.CostHint, err)
	}
	// A name left out is the directory's, with a warning.
	m, err = e.reg.WriteFile(ctx, "x", "SKILL.md", "---\ndescription: Nameless.\n---\n")
	if err != nil || m.Name != "x" || !slices.ContainsFunc(m.Diagnostics, func(d skill.Diagnostic) bool { return d.Code == "name-missing" }) {
		t.Errorf("nameless save: %+v, %v", m, err)
	}
}

// An edit never creates a file that the skill's export would lose, or that
// an import of the export would refuse: names zipguard drops as clutter,
// and paths deeper than Options.Limits allows, counting the folder the
// export puts the skill in.
func testEditedExportRoundTrip(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, func(o *Options) { o.Limits.MaxDepth = 5 })
	ctx := context.Background()
	e.importZip(t, zipOf(t, "a", skillFiles("", "a")...), ImportOptions{})
	before := dump(t, e.db)
	for _, tc := range []struct{ path, reason string }{
		{"._notes.md", ReasonClutter},
		{"scripts/._run.sh", ReasonClutter},
		{"__MACOSX/notes.md", ReasonClutter},
		{"references/__MACOSX/deep/notes.md", ReasonClutter},
		{".DS_Store", ReasonClutter},
		{"Thumbs.db", ReasonClutter},
		{"references/desktop.ini", ReasonClutter},
		{"b/c/d/e/f.md", ReasonTooDeep}, // a/b/c/d/e/f.md in the export: 6 > 5
	} {
		_, err := e.reg.WriteFile(ctx, "a", tc.path, "notes\n")
		if se := wantErr(t, "WriteFile "+tc.path, err, skillerr.PathRejected, tc.reason); se != nil && se.Subject != tc.path {
			t.Errorf("WriteFile %s: the error names %q", tc.path, se.Subject)
		}
		_, err = e.reg.Mkdir(ctx, "a", tc.path)
		wantErr(t, "Mkdir "+tc.path, err, skillerr.PathRejected, tc.reason)
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("refused edits changed the database")
	}

	// What an edit accepts, an export keeps and an import accepts: at the
	// depth limit, and under a folder whose name is clutter only as a
	// file's.
	for _, p := range []string{"._notes.md", "__MACOSX/notes.md", "b/c/d/e.md", "._d/notes.md", "notes/.DS_Store.md"} {
		m, err := e.reg.WriteFile(ctx, "a", p, "notes\n")
		if err != nil {
			if skillerr.CodeOf(err) != skillerr.PathRejected {
				t.Errorf("%s: %v", p, err)
			}
			continue // refusing such a name is a fix too
		}
		z, err := e.reg.ExportZip(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.reg.Import(ctx, z, ImportOptions{OnConflict: ConflictReplace})
		if err != nil {
			t.Fatalf("%s: re-import of the export: %v", p, err)
		}
		if got := res.Skills[0].Digest; got != m.Digest {
			t.Errorf("after writing %s, export+import changed the digest %s -> %s (dropped %v)", p, m.Digest, got, res.Dropped)
		}
	}
	if _, err := e.reg.Mkdir(ctx, "a", "b/c/d/f"); err != nil {
		t.Errorf("Mkdir at the depth limit: %v", err)
	}

	// Without Limits, zipguard's default depth applies.
	e2 := newEnv(t, bc)
	e2.importZip(t, zipOf(t, "a", skillFiles("", "a")...), ImportOptions{})
	limit := zipguard.DefaultLimits().MaxDepth - 1
	deep := strings.Repeat("d/", limit-1) + "x.md"
	if _, err := e2.reg.WriteFile(ctx, "a", deep, "x\n"); err != nil {
		t.Errorf("WriteFile %d levels deep: %v", limit, err)
	}
	_, err := e2.reg.WriteFile(ctx, "a", "d/"+deep, "x\n")
	wantErr(t, "WriteFile too deep", err, skillerr.PathRejected, ReasonTooDeep)
}

// An edit never grows a skill past what an import of its export accepts
// (Options.Limits), so its size stays bounded however many edits it takes;
// what is refused changes nothing, and an edit that shrinks it is not
// refused.
func testEditedSkillStaysImportable(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, func(o *Options) { o.Limits.MaxEntries = 12; o.Limits.MaxTotalSize = 4 << 10 })
	ctx := context.Background()
	e.importZip(t, zipOf(t, "a", skillFiles("", "a")...), ImportOptions{})
	var err error
	wrote := 0
	for ; wrote < 20 && err == nil; wrote++ {
		_, err = e.reg.WriteFile(ctx, "a", fmt.Sprintf("notes/%02d.md", wrote), "x\n")
	}
	wantErr(t, "WriteFile past MaxEntries", err, skillerr.TooLarge, zipguard.ReasonTooManyEntries)
	if wrote == 1 {
		t.Fatal("the first write was refused: the limit leaves no room to test")
	}
	before := dump(t, e.db)
	_, err = e.reg.Mkdir(ctx, "a", "more")
	wantErr(t, "Mkdir past MaxEntries", err, skillerr.TooLarge, zipguard.ReasonTooManyEntries)
	_, err = e.reg.WriteFile(ctx, "a", "notes/00.md", strings.Repeat("x", 4<<10))
	wantErr(t, "WriteFile past MaxTotalSize", err, skillerr.TooLarge, zipguard.ReasonTotalTooLarge)
	if !sameDump(before, dump(t, e.db)) {
		t.Error("refused edits changed the database")
	}
	// At its largest, the skill's export imports again.
	z, err := e.reg.ExportZip(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.reg.Import(ctx, z, ImportOptions{OnConflict: ConflictReplace}); err != nil {
		t.Errorf("re-import of the export at the limit: %v", err)
	}
	if _, err := e.reg.RemovePath(ctx, "a", "notes/00.md"); err != nil {
		t.Errorf("RemovePath at the limit: %v", err)
	}
}
