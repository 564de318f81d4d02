package registry

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// treePaths lists skill id's tree, directories with a trailing slash.
func treePaths(t *testing.T, r *Registry, id string) []string {
	t.Helper()
	entries, err := r.Tree(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return pathsOf(entries)
}

// pathsOf names entries as a tree listing does, directories with a
// trailing slash.
func pathsOf(entries []Entry) []string {
	var got []string
	for _, en := range entries {
		s := en.Path
		if en.IsDir {
			s += "/"
		}
		got = append(got, s)
	}
	return got
}

func testRename(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, func(o *Options) { o.Limits.MaxDepth = 5 })
	ctx := context.Background()
	m := e.importZip(t, zipOf(t, "x", skillFiles("", "x")...), ImportOptions{}).Skills[0]
	if _, err := e.reg.SetEnabled(ctx, "x", false); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(time.Minute)

	// A file, into a folder that does not exist yet.
	m1, err := e.reg.Rename(ctx, "x", "scripts/run.sh", "bin/tools/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SKILL.md", "bin/", "bin/tools/", "bin/tools/run.sh", "references/", "references/deep/", "references/deep/notes.md", "scripts/"}
	if got := treePaths(t, e.reg, "x"); !slices.Equal(got, want) {
		t.Errorf("Tree = %v, want %v", got, want)
	}
	if data, _ := readGen(t, e.reg, "x/bin/tools/run.sh"); data != "#!/bin/sh\necho x\n" {
		t.Errorf("run.sh = %q", data)
	}
	if info, err := e.reg.FS().Stat("x/bin/tools/run.sh"); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("the renamed file lost its mode: %v, %v", info, err)
	}
	// The same bytes under other names: another version.
	if m1.Digest == m.Digest || m1.Enabled || m1.FileCount != m.FileCount || m1.Size != m.Size {
		t.Errorf("after rename: %s", jsonOf(t, m1))
	}
	if c := e.lastChange(t); c.Kind != KindEdit || !slices.Equal(c.IDs, []string{"x"}) {
		t.Errorf("change = %+v", c)
	}
	checkGenerations(t, e.reg, m1)

	// A folder with everything in it; a change of case alone.
	if _, err := e.reg.Rename(ctx, "x", "references", "docs"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.reg.Rename(ctx, "x", "docs/deep/notes.md", "docs/deep/Notes.md"); err != nil {
		t.Fatal(err)
	}
	want = []string{"SKILL.md", "bin/", "bin/tools/", "bin/tools/run.sh", "docs/", "docs/deep/", "docs/deep/Notes.md", "scripts/"}
	if got := treePaths(t, e.reg, "x"); !slices.Equal(got, want) {
		t.Errorf("Tree = %v, want %v", got, want)
	}
	if data, err := e.reg.ReadFile(ctx, "x", "docs/deep/Notes.md"); err != nil || string(data) != "Notes about x.\n" {
		t.Errorf("Notes.md = %q, %v", data, err)
	}

	// Refusals change nothing.
	before := dump(t, e.db)
	rev := mustRevision(t, e.reg)
	for _, tc := range []struct {
		from, to string
		code     skillerr.Code
		reason   string
	}{
		{"SKILL.md", "README.md", skillerr.PermissionDenied, "skill-md"},
		{"docs", "SKILL.md", skillerr.Conflict, "exists"},
		{"docs", "bin", skillerr.Conflict, "exists"},
		{"docs", "Bin/docs", skillerr.Conflict, "collision"},
		{"docs", "docs/inner", skillerr.InvalidArgument, "into-itself"},
		{"docs", "docs", skillerr.InvalidArgument, "same-path"},
		{"nope.md", "b.md", skillerr.SkillNotFound, "not-exist"},
		{"docs", "SKILL.md/docs", skillerr.InvalidArgument, "not-dir"},
		{"docs", "../y/docs", skillerr.PathRejected, "dot-dot"},
		{"docs", ".", skillerr.PermissionDenied, "root"},
		{".", "docs2", skillerr.PermissionDenied, "root"},
		{"docs", ".DS_Store", skillerr.PathRejected, ReasonClutter},
		// docs/deep/Notes.md would be 5 levels deep, one too many.
		{"docs", "a/b/c/docs", skillerr.PathRejected, ReasonTooDeep},
	} {
		_, err := e.reg.Rename(ctx, "x", tc.from, tc.to)
		wantErr(t, "Rename "+tc.from+" → "+tc.to, err, tc.code, tc.reason)
	}
	_, err = e.reg.Rename(ctx, "nope", "a.md", "b.md")
	wantErr(t, "unknown skill", err, skillerr.SkillNotFound, "not-installed")
	if !sameDump(before, dump(t, e.db)) || mustRevision(t, e.reg) != rev {
		t.Error("a refused rename changed the database")
	}
	if got := treePaths(t, e.reg, "x"); !slices.Contains(got, "docs/deep/Notes.md") || slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, "a/") }) {
		t.Errorf("Tree = %v", got)
	}
}
