package registry

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

func testEnable(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	e.importZip(t, packOf(t, "a", "b"), ImportOptions{})
	m, err := e.reg.SetEnabled(ctx, "a", false)
	if err != nil || m.Enabled || m.ID != "a" {
		t.Fatalf("SetEnabled(a, false) = %+v, %v", m, err)
	}
	if c := e.lastChange(t); c.Kind != KindDisable || c.Revision != 2 || !slices.Equal(c.IDs, []string{"a"}) {
		t.Errorf("change = %+v", c)
	}
	vis, err := e.reg.Visible(ctx)
	if err != nil || !slices.Equal(ids(vis), []string{"b"}) {
		t.Errorf("Visible = %v, %v", ids(vis), err)
	}
	if got := ids(mustList(t, e.reg)); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("List = %v: a disabled skill stays installed", got)
	}
	// A disabled skill's files stay stored.
	readGen(t, e.reg, "a/SKILL.md")

	// Disabling again changes nothing, and commits nothing.
	if m, err := e.reg.SetEnabled(ctx, "a", false); err != nil || m.Enabled {
		t.Errorf("SetEnabled again = %+v, %v", m, err)
	}
	if rev := mustRevision(t, e.reg); rev != 2 {
		t.Errorf("revision = %d after a no-op, want 2", rev)
	}
	if m, err := e.reg.SetEnabled(ctx, "a", true); err != nil || !m.Enabled || e.lastChange(t).Kind != KindEnable {
		t.Errorf("SetEnabled(a, true) = %+v, %v", m, err)
	}
	_, err = e.reg.SetEnabled(ctx, "nope", true)
	wantErr(t, "unknown", err, skillerr.SkillNotFound, "")
}

func testRemove(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	// "pdf" and "pdf-tools" share a prefix; removing one keeps the other.
	e.importZip(t, packOf(t, "pdf", "pdf-tools"), ImportOptions{})
	keep := dump(t, e.db)
	if err := e.reg.Remove(ctx, "pdf"); err != nil {
		t.Fatal(err)
	}
	if c := e.lastChange(t); c.Kind != KindRemove || c.Revision != 2 || !slices.Equal(c.IDs, []string{"pdf"}) {
		t.Errorf("change = %+v", c)
	}
	if got := ids(mustList(t, e.reg)); !slices.Equal(got, []string{"pdf-tools"}) {
		t.Errorf("List = %v", got)
	}
	_, err := e.reg.Get(ctx, "pdf")
	wantErr(t, "Get", err, skillerr.SkillNotFound, "")
	_, err = e.reg.Tree(ctx, "pdf")
	wantErr(t, "Tree", err, skillerr.SkillNotFound, "")
	_, err = e.reg.ReadFile(ctx, "pdf", "SKILL.md")
	wantErr(t, "ReadFile", err, skillerr.SkillNotFound, "not-installed")
	if _, err := e.reg.FS().Stat("pdf"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the directory survived: %v", err)
	}
	after := dump(t, e.db)
	for store, recs := range after {
		for key := range recs {
			if strings.Contains(key, "pdf") && !strings.Contains(key, "pdf-tools") {
				t.Errorf("%s: %q survived", store, key)
			}
		}
		for key, v := range keep[store] {
			if strings.Contains(key, "pdf-tools") && !bytes.Equal(after[store][key], v) {
				t.Errorf("%s: %q changed", store, key)
			}
		}
	}
	checkGenerations(t, e.reg, mustGet(t, e.reg, "pdf-tools"))
	// A new registry on the database finds nothing to bring back.
	e.reopen(t)
	r2 := openReg(t, e.db, Options{})
	if got := ids(mustList(t, r2)); !slices.Equal(got, []string{"pdf-tools"}) {
		t.Errorf("after reopen, List = %v", got)
	}
	wantErr(t, "again", e.reg.Remove(ctx, "pdf"), skillerr.SkillNotFound, "")
}

func testExport(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	m := e.importZip(t, zipOf(t, "repo/skills/x", skillFiles("", "x", "triggers: ex")...), ImportOptions{}).Skills[0]
	// An edit adds an empty directory, which an archive does not keep.
	if _, err := e.reg.Mkdir(ctx, "x", "empty"); err != nil {
		t.Fatal(err)
	}
	data, err := e.reg.ExportZip(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := e.reg.ExportZip(ctx, "x")
	if !bytes.Equal(data, again) {
		t.Error("two exports differ")
	}
	arc, err := zipguard.Read(data, zipguard.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if arc.Layout != zipguard.LayoutWrapped || arc.Skills[0].Dir != "x" || len(arc.Skills[0].Files) != 3 {
		t.Errorf("export layout %s, skills %+v", arc.Layout, arc.Skills)
	}
	for _, f := range arc.Skills[0].Files {
		if (f.Mode == 0o755) != strings.HasSuffix(f.Path, ".sh") {
			t.Errorf("%s: mode %v", f.Path, f.Mode)
		}
	}
	// Importing the export elsewhere gives the same digest.
	e2 := newEnv(t, e.bc)
	m2 := e2.importZip(t, data, ImportOptions{}).Skills[0]
	if m2.ID != "x" || m2.Digest != m.Digest {
		t.Errorf("reimported %s with digest %s, want x with %s", m2.ID, m2.Digest, m.Digest)
	}
	// And replacing the original with its export too.
	m3 := e.importZip(t, data, ImportOptions{OnConflict: ConflictReplace}).Skills[0]
	if m3.Digest != m.Digest {
		t.Errorf("replaced digest %s, want %s", m3.Digest, m.Digest)
	}
	_, err = e.reg.ExportZip(ctx, "nope")
	wantErr(t, "unknown", err, skillerr.SkillNotFound, "")
	_, err = e.reg.ExportZip(ctx, "../x")
	wantErr(t, "bad id", err, skillerr.PathRejected, "")
}

// testInstance: Meta.Instance is new for every fresh install, even with a
// clock that never moves (so CreatedAt is equal), and kept by every change
// of the installed skill.
func testInstance(t *testing.T, bc backendCase) {
	e := newEnv(t, bc) // e.clock stands still at t0 unless advanced
	ctx := context.Background()
	first := e.importZip(t, packOf(t, "a", "b"), ImportOptions{}).Skills[0]
	if len(first.Instance) != 16 || strings.Trim(first.Instance, "0123456789abcdef") != "" {
		t.Fatalf("instance %q is not 16 hexadecimal digits", first.Instance)
	}
	if b := mustGet(t, e.reg, "b"); b.Instance == first.Instance {
		t.Errorf("a and b share the instance %q", b.Instance)
	}
	seen := []string{first.Instance, mustGet(t, e.reg, "b").Instance}
	same := func(what string, m Meta, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if m.Instance != first.Instance || mustGet(t, e.reg, "a").Instance != first.Instance {
			t.Errorf("%s changed the instance: %q, want %q", what, m.Instance, first.Instance)
		}
	}

	// Every change of the installed skill keeps it.
	res, err := e.reg.Import(ctx, zipOf(t, "a", skillFiles("", "a", "version: 2")...), ImportOptions{OnConflict: ConflictReplace})
	if err != nil || len(res.Replaced) != 1 {
		t.Fatalf("replace: %+v, %v", res, err)
	}
	same("a replacing import", res.Skills[0], nil)
	m, err := e.reg.WriteFile(ctx, "a", "references/more.md", "More.\n")
	same("WriteFile", m, err)
	m, err = e.reg.Mkdir(ctx, "a", "assets")
	same("Mkdir", m, err)
	m, err = e.reg.RemovePath(ctx, "a", "assets")
	same("RemovePath", m, err)
	m, err = e.reg.SetEnabled(ctx, "a", false)
	same("SetEnabled", m, err)
	m, err = e.reg.SetDependencies(ctx, "a", Dependencies{Skills: []string{"b"}})
	same("SetDependencies", m, err)

	// A rename to -vN is a fresh install.
	renamed := e.importZip(t, packOf(t, "a"), ImportOptions{}).Skills[0]
	if renamed.ID != "a-v2" || slices.Contains(seen, renamed.Instance) {
		t.Errorf("renamed import = %s %q; want a-v2 with a new instance", renamed.ID, renamed.Instance)
	}
	seen = append(seen, renamed.Instance)

	// Removed and imported again in the same instant: the same CreatedAt,
	// another instance, every time.
	for range 3 {
		if err := e.reg.Remove(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		again := e.importZip(t, packOf(t, "a"), ImportOptions{}).Skills[0]
		if !again.CreatedAt.Equal(first.CreatedAt) {
			t.Fatalf("CreatedAt %v, want %v: the clock moved", again.CreatedAt, first.CreatedAt)
		}
		if slices.Contains(seen, again.Instance) || mustGet(t, e.reg, "a").Instance != again.Instance {
			t.Errorf("re-imported a has instance %q; seen before: %q", again.Instance, seen)
		}
		seen = append(seen, again.Instance)
	}

}

// testCorruptTree: another program wrote under a skill's keys (a key no
// path gives, a directory's record that is not one). Reading, exporting
// or editing that skill is an Internal error, never a panic; Remove, which
// reads no tree, deletes it whole, what was written too, and the name
// imports clean again.
func testCorruptTree(t *testing.T, bc backendCase) {
	ctx := context.Background()
	for what, op := range map[string]vfs.Op{
		// A regular file of mode 0644, time 0, size 0.
		"a key without //":             vfs.Put(vfs.StoreFiles, "x/junk", []byte{0xa4, 0x03, 0, 0}),
		"a directory's record garbled": vfs.Put(vfs.StoreFiles, "x//scripts", []byte{0xff}),
	} {
		e := newEnv(t, bc)
		e.importZip(t, packOf(t, "x", "y"), ImportOptions{})
		clean := dump(t, e.db)
		was, err := e.reg.Get(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.db.Commit(ctx, op); err != nil {
			t.Fatal(err)
		}
		_, err = e.reg.Tree(ctx, "x")
		wantErr(t, what+": Tree", err, skillerr.Internal, "")
		_, err = e.reg.ExportZip(ctx, "x")
		wantErr(t, what+": ExportZip", err, skillerr.Internal, "")
		_, err = e.reg.WriteFile(ctx, "x", "notes.md", "x")
		wantErr(t, what+": WriteFile", err, skillerr.Internal, "")
		// An update replaces the tree whole: the version it replaces
		// cannot be kept (no session can read it either), but it is no
		// reason to refuse the one thing that mends it.
		v2 := zipOf(t, "repo-main/skills", skillFiles("x", "x", "version: '2'")...)
		res, err := e.reg.Import(ctx, v2, ImportOptions{OnConflict: ConflictReplace})
		if err != nil || !slices.Equal(res.Replaced, []string{"x"}) {
			t.Fatalf("%s: an update over it = %+v, %v", what, res, err)
		}
		if _, err := e.reg.Tree(ctx, "x"); err != nil {
			t.Errorf("%s: Tree after the update = %v", what, err)
		}
		if _, _, found, err := e.reg.ReadRetained(ctx, was.Digest, ""); found || err != nil {
			t.Errorf("%s: the unreadable version kept = %v, %v", what, found, err)
		}
		if err := e.db.Commit(ctx, op); err != nil {
			t.Fatal(err)
		}
		if err := e.reg.Remove(ctx, "x"); err != nil {
			t.Fatalf("%s: Remove = %v", what, err)
		}
		for _, store := range []string{vfs.StoreFiles, vfs.StoreBlobs} {
			for key := range dump(t, e.db)[store] {
				if strings.HasPrefix(key, "x/") || key == "//x" {
					t.Errorf("%s: %s %q survived Remove", what, store, key)
				}
			}
		}
		e.importZip(t, packOf(t, "x"), ImportOptions{})
		for _, store := range []string{vfs.StoreFiles, vfs.StoreBlobs} {
			if got := dump(t, e.db)[store]; !maps.EqualFunc(got, clean[store], bytes.Equal) {
				t.Errorf("%s: %s after the import again differs from the first import's", what, store)
			}
		}
	}
}

// testTooManyFilesCode: a directory's record listing more than
// vfs.MaxDirFiles files is TooLarge, too-many-files, wherever it is read:
// Tree, ExportZip and an edit report what a session's activation does,
// in the first Error of the chain, which the wasm module and the bridge
// report, naming the skill and its directory as paths, not storage keys.
// Removing the skill reads no tree, and removes it.
func testTooManyFilesCode(t *testing.T, bc backendCase) {
	ctx := context.Background()
	e := newEnv(t, bc)
	e.importZip(t, packOf(t, "x"), ImportOptions{})
	// x's directory record (vfs/dirrecord.go: its mode with bit 32 set,
	// time, size, generation, count) listing MaxDirFiles+1 files, with the
	// six bytes an entry takes at least.
	n := vfs.MaxDirFiles + 1
	b := binary.AppendUvarint(nil, uint64(fs.ModeDir|0o755)|1<<32)
	b = binary.AppendVarint(b, 0)
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, uint64(n))
	b = append(b, make([]byte, 6*n)...)
	if err := e.db.Commit(ctx, vfs.Put(vfs.StoreFiles, "//x", b)); err != nil {
		t.Fatal(err)
	}
	_, tree := e.reg.Tree(ctx, "x")
	_, export := e.reg.ExportZip(ctx, "x")
	_, edit := e.reg.WriteFile(ctx, "x", "notes.md", "x")
	for what, err := range map[string]error{"Tree": tree, "ExportZip": export, "WriteFile": edit} {
		se := wantErr(t, what, err, skillerr.TooLarge, vfs.ReasonTooManyFiles)
		if se != nil && (se.Subject != "x" || strings.Contains(err.Error(), "//")) {
			t.Errorf("%s: %v; want an error about x naming paths", what, err)
		}
	}
	if err := e.reg.Remove(ctx, "x"); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	for _, store := range []string{vfs.StoreFiles, vfs.StoreBlobs} {
		for key := range dump(t, e.db)[store] {
			t.Errorf("%s %q survived Remove", store, key)
		}
	}
}
