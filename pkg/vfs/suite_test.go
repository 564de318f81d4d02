package vfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hack-pad/hackpadfs"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillerr/skillerrtest"
)

// backendCase names a backend and opens a fresh, empty one.
type backendCase struct {
	name string
	open func(tb testing.TB) Backend
}

// TestSuite runs the same checks on every backend of this platform
// (testBackends): memory natively; memory and IndexedDB in the browser.
func TestSuite(t *testing.T) {
	tests := []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"TreeRoundTrip", testTreeRoundTrip},
		{"FSTest", testFSTest},
		{"DeleteSkill", testDeleteSkill},
		{"DeleteStoredSkill", testDeleteStoredSkill},
		{"Confinement", testConfinement},
		{"ReadOnly", testReadOnly},
		{"FSWrites", testFSWrites},
		{"FaultInjection", testFaultInjection},
		{"CommitThen", testCommitThen},
		{"CommitThenOthers", testCommitThenOthers},
		{"Records", testRecords},
		{"Lock", testLock},
		{"Reopen", testReopen},
		{"PutSkillErrors", testPutSkillErrors},
		{"CorruptRecord", testCorruptRecord},
		{"ForeignKeys", testForeignKeys},
		{"ContentsCorrupt", testContentsCorrupt},
		{"ListingReadsOnlyChildren", testListingReadsOnlyChildren},
		{"DecodeSkill", testDecodeSkill},
		{"FileQueries", testFileQueries},
		{"Schema2Records", testSchema2Records},
		{"RootFiles", testRootFiles},
	}
	for _, bc := range testBackends {
		t.Run(bc.name, func(t *testing.T) {
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) { tc.fn(t, bc.open(t)) })
			}
		})
	}
}

var (
	t0      = time.Date(2026, 11, 2, 10, 30, 0, 123_000_000, time.UTC)
	pdfTree = []File{
		{Path: "SKILL.md", Data: []byte("---\nname: pdf\n---\nUse me."), ModTime: t0},
		{Path: "scripts/run.py", Data: []byte("print('hi')\n"), Mode: 0o755, ModTime: t0.Add(time.Second)},
		{Path: "assets/font.bin", Data: []byte{0, 1, 2, 0xff, 0xfe}, Mode: 0o600, ModTime: t0},
		{Path: "references/deep/er/notes.md", Data: []byte("notes"), ModTime: t0},
		{Path: "empty", Mode: fs.ModeDir | 0o700, ModTime: t0},
	}
	toolsTree = []File{
		{Path: "SKILL.md", Data: []byte("---\nname: pdf-tools\n---\n"), ModTime: t0},
		{Path: "scripts/x.sh", Data: []byte("echo x"), ModTime: t0},
	}
)

// putSkills commits one skill per slug of trees, stamped gen, in one
// commit.
func putSkills(t testing.TB, db Backend, gen string, trees map[string][]File) {
	t.Helper()
	var ops []Op
	for _, slug := range slices.Sorted(maps.Keys(trees)) {
		o, err := PutSkill(slug, gen, trees[slug])
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, o...)
	}
	if err := db.Commit(context.Background(), ops...); err != nil {
		t.Fatal(err)
	}
}

func newFS(t testing.TB, db Backend) *FS {
	t.Helper()
	f, err := New(db)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// dump returns every record of every store.
func dump(t testing.TB, db Backend) map[string]map[string][]byte {
	t.Helper()
	qs := make([]Query, len(stores))
	for i, s := range stores {
		qs[i] = GetPrefix(s, "")
	}
	res, err := db.Read(context.Background(), qs...)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]map[string][]byte)
	for i, s := range stores {
		out[s] = make(map[string][]byte)
		for _, r := range res[i] {
			out[s][r.Key] = r.Value
		}
	}
	return out
}

func sameDump(a, b map[string]map[string][]byte) bool {
	return maps.EqualFunc(a, b, func(x, y map[string][]byte) bool { return maps.EqualFunc(x, y, bytes.Equal) })
}

// wantCode checks an error's code and reason; see skillerrtest.Want.
var wantCode = skillerrtest.Want

func testTreeRoundTrip(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree, "pdf-tools": toolsTree})
	f := newFS(t, db)

	for _, file := range pdfTree {
		if file.Mode.IsDir() {
			continue
		}
		for _, name := range []string{"pdf/" + file.Path, "/skills/pdf/" + file.Path} {
			data, gen, err := f.ReadFileGen(name)
			if err != nil {
				t.Fatalf("ReadFileGen(%q): %v", name, err)
			}
			if !bytes.Equal(data, file.Data) || gen != "g1" {
				t.Errorf("ReadFileGen(%q) = %q, %q; want %q, g1", name, data, gen, file.Data)
			}
		}
		info, err := f.Stat("pdf/" + file.Path)
		if err != nil {
			t.Fatal(err)
		}
		wantMode := file.Mode
		if wantMode == 0 {
			wantMode = 0o644
		}
		if info.Mode() != wantMode || info.Size() != int64(len(file.Data)) ||
			!info.ModTime().Equal(file.ModTime) || Generation(info) != "g1" {
			t.Errorf("Stat(%s) = %v %d %v %q", file.Path, info.Mode(), info.Size(), info.ModTime(), Generation(info))
		}
	}

	wantDir := map[string][]string{
		".":                    {"pdf", "pdf-tools"},
		"pdf":                  {"SKILL.md", "assets", "empty", "references", "scripts"},
		"/skills/pdf/":         {"SKILL.md", "assets", "empty", "references", "scripts"},
		"pdf/empty":            nil,
		"pdf/references":       {"deep"},
		"pdf/references/deep/": {"er"},
		"pdf-tools/scripts":    {"x.sh"},
	}
	for dir, want := range wantDir {
		entries, err := f.ReadDir(dir)
		if err != nil {
			t.Fatalf("ReadDir(%q): %v", dir, err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
			info, _ := e.Info()
			if e.IsDir() != (e.Name() != "SKILL.md" && e.Name() != "x.sh") || Generation(info) != "g1" {
				t.Errorf("ReadDir(%q): entry %s dir=%v gen=%q", dir, e.Name(), e.IsDir(), Generation(info))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("ReadDir(%q) = %q, want %q", dir, got, want)
		}
	}
	if info, err := f.Stat("pdf/empty"); err != nil || info.Mode() != fs.ModeDir|0o700 {
		t.Errorf("Stat(empty) = %v, %v", info, err)
	}
	if info, err := f.Stat("pdf/references"); err != nil || !info.IsDir() || !info.ModTime().Equal(t0.Add(time.Second)) {
		t.Errorf("implied dir: %v, %v; want the newest file time", info, err)
	}

	// Through an open file as well as ReadFile.
	file, err := f.Open("/skills/pdf/scripts/run.py")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(file)
	file.Close()
	if err != nil || string(data) != "print('hi')\n" {
		t.Errorf("Open+ReadAll = %q, %v", data, err)
	}

	_, err = f.ReadFile("pdf/missing.md")
	wantCode(t, "ReadFile(missing)", err, skillerr.SkillNotFound, ReasonNotExist)
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, hackpadfs.ErrNotExist) {
		t.Errorf("missing file error %v does not match fs.ErrNotExist", err)
	}
	for _, name := range []string{"nope", "pdf/nope/x"} {
		if _, err := f.Stat(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(%q) = %v, want not exist", name, err)
		}
		if _, err := f.Open(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) = %v, want not exist", name, err)
		}
	}
	_, err = f.ReadDir("pdf/SKILL.md")
	wantCode(t, "ReadDir(file)", err, skillerr.InvalidArgument, ReasonNotDir)
	_, err = f.ReadFile("pdf/scripts")
	wantCode(t, "ReadFile(dir)", err, skillerr.InvalidArgument, ReasonIsDir)
}

// testFSTest checks io/fs semantics with testing/fstest. FS accepts
// unclean names such as "a//b" (it cleans them), which io/fs forbids, so
// the check runs through strictFS.
func testFSTest(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree, "pdf-tools": toolsTree})
	f := newFS(t, db)
	if err := fstest.TestFS(strictFS{f.ReadOnly()}, "pdf/SKILL.md", "pdf/references/deep/er/notes.md", "pdf-tools/scripts/x.sh"); err != nil {
		t.Error(err)
	}
	sub, err := f.Sub("pdf")
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(strictFS{sub}, "SKILL.md", "scripts/run.py", "empty"); err != nil {
		t.Error(err)
	}
}

// strictFS refuses the names io/fs calls invalid, and passes the rest on.
type strictFS struct{ f *FS }

func (s strictFS) check(op, name string) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return nil
}

func (s strictFS) Open(name string) (fs.File, error) {
	if err := s.check("open", name); err != nil {
		return nil, err
	}
	return s.f.Open(name)
}

func (s strictFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := s.check("readdir", name); err != nil {
		return nil, err
	}
	return s.f.ReadDir(name)
}

func (s strictFS) ReadFile(name string) ([]byte, error) {
	if err := s.check("readfile", name); err != nil {
		return nil, err
	}
	return s.f.ReadFile(name)
}

func (s strictFS) Stat(name string) (fs.FileInfo, error) {
	if err := s.check("stat", name); err != nil {
		return nil, err
	}
	return s.f.Stat(name)
}

func testDeleteSkill(t *testing.T, db Backend) {
	// "pdf.x" sorts between "pdf" and "pdf/", "pdf-tools" shares the prefix.
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree, "pdf-tools": toolsTree, "pdf.x": toolsTree, "pd": toolsTree})
	before := dump(t, db)
	ops, err := DeleteSkill("pdf")
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 3 {
		t.Errorf("DeleteSkill: %d ops, want 3 requests whatever the size", len(ops))
	}
	if err := db.Commit(context.Background(), ops...); err != nil {
		t.Fatal(err)
	}
	after := dump(t, db)
	for _, s := range []string{StoreFiles, StoreBlobs} {
		for k, v := range before[s] {
			ofPDF := strings.HasPrefix(k, "pdf/") || k == "//pdf"
			_, kept := after[s][k]
			if ofPDF == kept {
				t.Errorf("%s key %q: kept=%v after deleting pdf", s, k, kept)
			}
			if kept && !bytes.Equal(after[s][k], v) {
				t.Errorf("%s key %q changed", s, k)
			}
		}
	}
	f := newFS(t, db)
	entries, err := f.ReadDir("/skills")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"pd", "pdf-tools", "pdf.x"}) {
		t.Errorf("skills after delete: %q", names)
	}
	if _, err := f.Stat("pdf"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(pdf) after delete: %v", err)
	}
	_, err = DeleteSkill("a/b")
	wantCode(t, "DeleteSkill(a/b)", err, skillerr.PathRejected, ReasonBadSlug)
}

// testDeleteStoredSkill: a skill stored under a name today's rules refuse
// (an invisible Hangul filler, refused since 2026-11-23) is deleted whole,
// and only it; a name that would address another's keys is refused.
func testDeleteStoredSkill(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"x": toolsTree, "x-y": toolsTree})
	legacy := "x\u3164"
	if _, err := PutSkill(legacy, "g1", toolsTree); err == nil {
		t.Fatalf("PutSkill(%q) is allowed: the test needs a name refused today", legacy)
	}
	ops, err := PutSkill("x", "g1", toolsTree)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ops { // the same tree, stored as an older version did
		ops[i].Key = strings.Replace(ops[i].Key, "x", legacy, 1)
	}
	before := dump(t, db)
	if err := db.Commit(context.Background(), ops...); err != nil {
		t.Fatal(err)
	}
	del, err := DeleteSkill(legacy)
	if err != nil {
		t.Fatalf("DeleteSkill(%q): %v", legacy, err)
	}
	if err := db.Commit(context.Background(), del...); err != nil {
		t.Fatal(err)
	}
	if after := dump(t, db); !maps.EqualFunc(after[StoreFiles], before[StoreFiles], bytes.Equal) ||
		!maps.EqualFunc(after[StoreBlobs], before[StoreBlobs], bytes.Equal) {
		t.Errorf("after deleting %q: files %q, blobs %q; want those of x and x-y alone",
			legacy, slices.Sorted(maps.Keys(after[StoreFiles])), slices.Sorted(maps.Keys(after[StoreBlobs])))
	}
	for _, slug := range []string{"", ".", "..", "x/scripts", "x/", "/x", "retained:g1"} {
		_, err := DeleteSkill(slug)
		wantCode(t, fmt.Sprintf("DeleteSkill(%q)", slug), err, skillerr.PathRejected, ReasonBadSlug)
	}
}

// attacks are names that must be rejected everywhere, with the reason
// skillpath gives (or ReasonOutsideView).
var attacks = []string{
	"../pdf-tools/SKILL.md",
	"pdf/../pdf-tools/SKILL.md",
	"/skills/../etc/passwd",
	"/skills/pdf/../../x",
	"/etc/passwd",
	"//skills/pdf/SKILL.md",
	"/skillsx/pdf",
	`..\pdf-tools\SKILL.md`,
	`pdf\SKILL.md`,
	"%2e%2e/pdf-tools/SKILL.md",
	"pdf%2fSKILL.md",
	"．．/pdf-tools/SKILL.md", // fullwidth full stops
	"pdf／SKILL.md",          // fullwidth solidus
	"..∕pdf-tools",          // division slash
	"C:/Windows",
	"pdf/SKILL.md\x00",
	"pdf/\u202eSKILL.md",
	"...",
}

func testConfinement(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree, "pdf-tools": toolsTree})
	before := dump(t, db)
	f := newFS(t, db)
	sub, err := f.Sub("pdf")
	if err != nil {
		t.Fatal(err)
	}
	roSub, err := f.ReadOnly().Sub("/skills/pdf")
	if err != nil {
		t.Fatal(err)
	}
	views := map[string]*FS{"full": f, "sub": sub, "read-only sub": roSub}
	// A per-skill view cannot reach its sibling by any spelling.
	siblingSpellings := []string{"/skills/pdf-tools/SKILL.md", "/skills/pdf-tools", "/skills", "/skills/", "/skills/pdf-toolsx"}
	for vname, v := range views {
		names := attacks
		if v != f {
			names = append(slices.Clone(attacks), siblingSpellings...)
		}
		for _, name := range names {
			what := vname + " " + name
			calls := map[string]error{}
			_, calls["Open"] = v.Open(name)
			_, calls["Stat"] = v.Stat(name)
			_, calls["ReadDir"] = v.ReadDir(name)
			_, calls["ReadFile"] = v.ReadFile(name)
			_, calls["Sub"] = v.Sub(name)
			if v != roSub { // the read-only view refuses before looking at the name
				_, calls["OpenFile(write)"] = v.OpenFile(name, hackpadfs.FlagWriteOnly|hackpadfs.FlagCreate, 0o644)
				calls["Mkdir"] = v.Mkdir(name, 0o755)
				calls["Remove"] = v.Remove(name)
				calls["Rename from"] = v.Rename(name, "SKILL2.md")
				calls["Rename to"] = v.Rename("SKILL.md", name)
				calls["Chmod"] = v.Chmod(name, 0o777)
			}
			for call, err := range calls {
				wantCode(t, what+" "+call, err, skillerr.PathRejected, "")
			}
		}
	}
	// Legitimate spellings inside the view still work.
	for _, name := range []string{"SKILL.md", "./SKILL.md", "scripts//run.py/", "/skills/pdf/SKILL.md"} {
		if _, err := sub.Stat(name); err != nil {
			t.Errorf("sub Stat(%q): %v", name, err)
		}
	}
	if entries, err := sub.ReadDir("."); err != nil || len(entries) != 5 {
		t.Errorf("sub ReadDir(.) = %d entries, %v", len(entries), err)
	}
	_, err = sub.Stat("/skills/pdf-tools/SKILL.md")
	wantCode(t, "sibling", err, skillerr.PathRejected, ReasonOutsideView)
	if !sameDump(before, dump(t, db)) {
		t.Error("rejected calls changed the store")
	}
}

func testReadOnly(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree})
	before := dump(t, db)
	full := newFS(t, db)
	sub, err := full.Sub("pdf")
	if err != nil {
		t.Fatal(err)
	}
	roSub, err := sub.ReadOnly().Sub("scripts")
	if err != nil {
		t.Fatal(err)
	}
	// Names relative to each view: hackpadfs's helpers refuse absolute ones.
	views := map[string]struct {
		v      *FS
		prefix string
	}{
		"/skills":     {full.ReadOnly(), "pdf/scripts/"},
		"pdf":         {sub.ReadOnly(), "scripts/"},
		"pdf/scripts": {roSub, ""},
	}
	for vname, view := range views {
		v, name := view.v, view.prefix+"run.py"
		dir := strings.TrimSuffix(view.prefix, "/")
		if dir == "" {
			dir = "."
		}
		calls := map[string]error{
			"Mkdir":        v.Mkdir(view.prefix+"new", 0o755),
			"MkdirAll":     v.MkdirAll(view.prefix+"new/a", 0o755),
			"Remove":       v.Remove(name),
			"RemoveAll":    hackpadfs.RemoveAll(v, dir),
			"Rename":       v.Rename(name, view.prefix+"x.py"),
			"Chmod":        v.Chmod(name, 0o777),
			"Chtimes":      v.Chtimes(name, t0, t0),
			"WriteFile":    hackpadfs.WriteFullFile(v, name, []byte("x"), 0o644),
			"Create":       func() error { _, err := hackpadfs.Create(v, view.prefix+"new.py"); return err }(),
			"Symlink":      hackpadfs.Symlink(v, name, view.prefix+"link"),
			"Chown":        hackpadfs.Chown(v, name, 1, 1),
			"Mkdir(bad)":   v.Mkdir("../x", 0o755),
			"Remove(root)": v.Remove("/skills"),
			"Remove(abs)":  v.Remove("/skills/pdf/scripts/run.py"),
		}
		for _, flag := range []int{hackpadfs.FlagWriteOnly, hackpadfs.FlagReadWrite, hackpadfs.FlagCreate,
			hackpadfs.FlagTruncate, hackpadfs.FlagAppend} {
			_, calls[fmt.Sprintf("OpenFile(%#x)", flag)] = v.OpenFile(name, flag, 0o644)
		}
		for call, err := range calls {
			if err == nil {
				t.Errorf("%s: %s succeeded on a read-only view", vname, call)
				continue
			}
			if call == "Symlink" || call == "Chown" {
				continue // not implemented by FS at all
			}
			wantCode(t, vname+" "+call, err, skillerr.PermissionDenied, ReasonReadOnly)
			if !errors.Is(err, fs.ErrPermission) {
				t.Errorf("%s %s: %v does not match fs.ErrPermission", vname, call, err)
			}
		}
		// An open file offers nothing that writes.
		file, err := v.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := file.(io.Writer); ok {
			t.Errorf("%s: read-only file is an io.Writer", vname)
		}
		if _, ok := file.(hackpadfs.TruncaterFile); ok {
			t.Errorf("%s: read-only file can Truncate", vname)
		}
		if _, ok := file.(hackpadfs.ChmoderFile); ok {
			t.Errorf("%s: read-only file can Chmod", vname)
		}
		if err := hackpadfs.TruncateFile(file, 0); err == nil {
			t.Errorf("%s: TruncateFile succeeded", vname)
		}
		if _, err := file.(io.ReaderAt).ReadAt(make([]byte, 5), 0); err != nil {
			t.Errorf("%s: ReadAt: %v", vname, err)
		}
		file.Close()
		if data, err := v.ReadFile(name); err != nil || string(data) != "print('hi')\n" {
			t.Errorf("%s: ReadFile = %q, %v", vname, data, err)
		}
	}
	if !sameDump(before, dump(t, db)) {
		t.Error("a read-only view changed the store")
	}
}

func testFSWrites(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree, "pdf-tools": toolsTree})
	f := newFS(t, db)
	sub, err := f.Sub("pdf")
	if err != nil {
		t.Fatal(err)
	}
	if err := hackpadfs.WriteFullFile(sub, "notes.md", []byte("edited"), 0o640); err != nil {
		t.Fatal(err)
	}
	data, gen, err := f.ReadFileGen("/skills/pdf/notes.md")
	if err != nil || string(data) != "edited" || gen != "" {
		t.Errorf("after write: %q, gen %q, %v; want edited with no generation", data, gen, err)
	}
	if info, err := sub.Stat("notes.md"); err != nil || info.Mode() != 0o640 {
		t.Errorf("Stat(notes.md) = %v, %v", info, err)
	}
	if err := sub.Mkdir("new", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := sub.Rename("notes.md", "new/notes.md"); err != nil {
		t.Fatal(err)
	}
	if data, err := sub.ReadFile("new/notes.md"); err != nil || string(data) != "edited" {
		t.Errorf("after rename: %q, %v", data, err)
	}
	if _, err := sub.Stat("notes.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("old name after rename: %v", err)
	}
	if err := sub.Chmod("new/notes.md", 0o600); err != nil {
		t.Fatal(err)
	}
	mtime := t0.Add(time.Hour)
	if err := sub.Chtimes("new/notes.md", mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if info, err := sub.Stat("new/notes.md"); err != nil || info.Mode() != 0o600 || !info.ModTime().Equal(mtime) {
		t.Errorf("after Chmod/Chtimes: %v, %v", info, err)
	}
	// A directory's Chmod and Chtimes rewrite its record, which lists its
	// files: they stay.
	if err := errors.Join(sub.Chmod("new", 0o700), sub.Chtimes("new", mtime, mtime)); err != nil {
		t.Fatal(err)
	}
	if entries, err := sub.ReadDir("new"); err != nil || len(entries) != 1 || entries[0].Name() != "notes.md" {
		t.Errorf("ReadDir(new) after its Chmod/Chtimes = %v, %v", entries, err)
	}
	if info, err := sub.Stat("new"); err != nil || info.Mode() != fs.ModeDir|0o700 || !info.ModTime().Equal(mtime) {
		t.Errorf("Stat(new) after its Chmod/Chtimes = %v, %v", info, err)
	}
	err = sub.Remove("new")
	wantCode(t, "Remove(non-empty)", err, skillerr.Conflict, ReasonNotEmpty)
	err = sub.Mkdir("new", 0o755)
	wantCode(t, "Mkdir(existing)", err, skillerr.Conflict, ReasonExist)
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("Mkdir(existing) = %v, want fs.ErrExist", err)
	}
	if err := sub.Remove("new/notes.md"); err != nil {
		t.Fatal(err)
	}
	if err := sub.Remove("new"); err != nil {
		t.Fatal(err)
	}
	err = sub.Remove("new")
	wantCode(t, "Remove(missing)", err, skillerr.SkillNotFound, ReasonNotExist)
	if err := hackpadfs.WriteFullFile(sub, "nodir/x.md", nil, 0o644); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("write without parent: %v", err)
	}
	// A view's own directory, and the mount point, cannot be changed.
	for what, err := range map[string]error{
		"sub Remove(.)":    sub.Remove("."),
		"sub Chmod(.)":     sub.Chmod("/skills/pdf", 0o700),
		"sub Rename(.)":    sub.Rename(".", "x"),
		"full Remove(/)":   f.Remove("/skills"),
		"full Chtimes(/)":  f.Chtimes(".", t0, t0),
		"full Rename(->/)": f.Rename("pdf", "/skills/"),
	} {
		wantCode(t, what, err, skillerr.PermissionDenied, ReasonRoot)
	}
	// The adapter refuses the root too, should keyvalue ever try.
	err = kvStore{db: db}.Set(context.Background(), ".", nil)
	wantCode(t, "kvStore.Set(.)", err, skillerr.PermissionDenied, ReasonRoot)
	// A new skill directory through the full tree; the sibling is intact.
	if err := f.MkdirAll("/skills/made/by/hand", 0o755); err != nil {
		t.Fatal(err)
	}
	if entries, err := f.ReadDir("."); err != nil || len(entries) != 3 {
		t.Errorf("ReadDir(/skills) after MkdirAll: %d entries, %v", len(entries), err)
	}
	if data, err := f.ReadFile("pdf-tools/scripts/x.sh"); err != nil || string(data) != "echo x" {
		t.Errorf("sibling: %q, %v", data, err)
	}
}

func testFaultInjection(t *testing.T, db Backend) {
	ctx := context.Background()
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree, "pdf-tools": toolsTree})
	if err := db.Commit(ctx, Put(StoreMeta, "pdf", []byte(`{"v":1}`)), Put(StoreState, "rev", []byte("1"))); err != nil {
		t.Fatal(err)
	}
	before := dump(t, db)

	// What the registry commits to replace a skill.
	ops, err := DeleteSkill("pdf")
	if err != nil {
		t.Fatal(err)
	}
	newTree := append(slices.Clone(pdfTree[:2]), File{Path: "scripts/new.py", Data: []byte("new"), ModTime: t0})
	put, err := PutSkill("pdf", "g2", newTree)
	if err != nil {
		t.Fatal(err)
	}
	ops = append(ops, put...)
	ops = append(ops, Put(StoreMeta, "pdf", []byte(`{"v":2}`)), Put(StoreState, "rev", []byte("2")))

	for k := 0; k <= len(ops)+1; k++ {
		err := db.Commit(FailAfter(ctx, k), ops...)
		wantCode(t, "FailAfter", err, skillerr.Internal, ReasonInjected)
		if !sameDump(before, dump(t, db)) {
			t.Fatalf("failing after %d of %d writes changed the store", k, len(ops))
		}
	}
	if r, ok := db.(Reopener); ok {
		var err error
		if db, err = r.Reopen(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if !sameDump(before, dump(t, db)) {
			t.Fatal("store differs after reopening")
		}
	}
	if err := db.Commit(ctx, ops...); err != nil {
		t.Fatal(err)
	}
	f := newFS(t, db)
	if data, gen, err := f.ReadFileGen("pdf/scripts/new.py"); err != nil || string(data) != "new" || gen != "g2" {
		t.Errorf("after the real commit: %q %q %v", data, gen, err)
	}
	if _, err := f.Stat("pdf/assets"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("old file survived the replacement: %v", err)
	}
	if data, gen, err := f.ReadFileGen("pdf-tools/SKILL.md"); err != nil || gen != "g1" || len(data) == 0 {
		t.Errorf("sibling after replacement: %q %q %v", data, gen, err)
	}
}

// CommitThen is one commit of both parts, whatever rest does meanwhile:
// it waits long enough for IndexedDB to commit the first part if nothing
// kept its transaction open, and its ops reach stores the first part does
// not touch. When rest fails, the hook aborts or the context ends, the
// store is as before.
func testCommitThen(t *testing.T, db Backend) {
	ctx := context.Background()
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree})
	before := dump(t, db)
	tree, err := NewTree("tools", toolsTree)
	if err != nil {
		t.Fatal(err)
	}
	first := append([]Op{DeletePrefix(StoreBlobs, "tools/")}, tree.Blobs()...)
	// What an import names: an agent's pin is no part of it.
	scope := []string{StoreFiles, StoreBlobs, StoreMeta, StoreState}
	rest := func() ([]Op, error) {
		time.Sleep(50 * time.Millisecond) // a few turns of the event loop
		return append(tree.Records("g2"), Put(StoreMeta, "tools", []byte(`{}`)), Put(StoreState, "rev", []byte("2"))), nil
	}
	n := len(first) + len(tree.Records("g2")) + 2

	// An op outside the stores named fails the commit whole, in either part.
	err = CommitThen(ctx, db, scope, append(first, Put(StorePins, "p", nil)), rest)
	wantCode(t, "first outside", err, skillerr.InvalidArgument, ReasonOutsideScope)
	err = CommitThen(ctx, db, scope, first, func() ([]Op, error) {
		ops, err := rest()
		return append(ops, Put(StorePins, "p", nil)), err
	})
	wantCode(t, "rest outside", err, skillerr.InvalidArgument, ReasonOutsideScope)
	if !sameDump(before, dump(t, db)) {
		t.Fatal("a commit outside its stores changed the store")
	}

	boom := errors.New("boom")
	err = CommitThen(ctx, db, stores, first, func() ([]Op, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Errorf("rest failing: %v, want its error", err)
	}
	if !sameDump(before, dump(t, db)) {
		t.Fatal("a commit whose rest failed changed the store")
	}
	for k := 0; k <= n+1; k++ {
		err := CommitThen(FailAfter(ctx, k), db, stores, first, rest)
		wantCode(t, fmt.Sprintf("FailAfter(%d)", k), err, skillerr.Internal, ReasonInjected)
		if !sameDump(before, dump(t, db)) {
			t.Fatalf("failing after %d of %d writes changed the store", k, n)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	err = CommitThen(cctx, db, stores, first, func() ([]Op, error) {
		cancel()
		return rest()
	})
	if err == nil {
		t.Error("a commit whose context ended during rest succeeded")
	}
	if !sameDump(before, dump(t, db)) {
		t.Fatal("a commit whose context ended changed the store")
	}

	// A write to another store while rest runs does not wait for it.
	pinned := make(chan error, 1)
	err = CommitThen(ctx, db, scope, first, func() ([]Op, error) {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		pinned <- db.Commit(pctx, Put(StorePins, "p", []byte("pin")))
		return rest()
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-pinned; err != nil {
		t.Errorf("a pin written while rest ran: %v", err)
	}
	f := newFS(t, db)
	if data, gen, err := f.ReadFileGen("tools/scripts/x.sh"); err != nil || string(data) != "echo x" || gen != "g2" {
		t.Errorf("tools/scripts/x.sh = %q %q %v", data, gen, err)
	}
	res, err := db.Read(ctx, Get(StoreMeta, "tools"), Get(StoreState, "rev"))
	if err != nil || len(res[0]) != 1 || len(res[1]) != 1 || string(res[1][0].Value) != "2" {
		t.Errorf("the records of rest: %v %v", res, err)
	}
	if data, gen, err := f.ReadFileGen("pdf/SKILL.md"); err != nil || gen != "g1" || len(data) == 0 {
		t.Errorf("the other skill: %q %q %v", data, gen, err)
	}
}

func testRecords(t *testing.T, db Backend) {
	ctx := context.Background()
	var ops []Op
	for _, k := range []string{"b", "a", "a/2", "a/1", "ab", "é", "\U0001F600", "\ue000"} {
		ops = append(ops, Put(StoreMeta, k, []byte("v"+k)))
	}
	ops = append(ops, Put(StoreMeta, "empty", nil), Put(StorePins, "a/1", []byte("pin")))
	if err := db.Commit(ctx, ops...); err != nil {
		t.Fatal(err)
	}
	res, err := db.Read(ctx, Get(StoreMeta, "a"), Get(StoreMeta, "zz"), GetPrefix(StoreMeta, "a"),
		GetPrefix(StoreMeta, ""), GetPrefix(StorePins, ""), Get(StoreMeta, "empty"))
	if err != nil {
		t.Fatal(err)
	}
	keys := func(rs []Record) (ks []string) {
		for _, r := range rs {
			ks = append(ks, r.Key)
		}
		return ks
	}
	if len(res[0]) != 1 || string(res[0][0].Value) != "va" || len(res[1]) != 0 {
		t.Errorf("Get: %v %v", res[0], res[1])
	}
	if got := keys(res[2]); !slices.Equal(got, []string{"a", "a/1", "a/2", "ab"}) {
		t.Errorf("GetPrefix(a) = %q", got)
	}
	// Byte order on both backends, though IndexedDB sorts U+E000 after the emoji.
	if got := keys(res[3]); !slices.Equal(got, []string{"a", "a/1", "a/2", "ab", "b", "empty", "é", "\ue000", "\U0001F600"}) {
		t.Errorf("GetPrefix('') = %q", got)
	}
	if got := keys(res[4]); !slices.Equal(got, []string{"a/1"}) {
		t.Errorf("pins = %q", got)
	}
	if len(res[5]) != 1 || len(res[5][0].Value) != 0 {
		t.Errorf("empty value: %v", res[5])
	}
	if err := db.Commit(ctx, DeletePrefix(StoreMeta, "a"), Delete(StoreMeta, "b")); err != nil {
		t.Fatal(err)
	}
	res, err = db.Read(ctx, GetPrefix(StoreMeta, ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(res[0]); !slices.Equal(got, []string{"empty", "é", "\ue000", "\U0001F600"}) {
		t.Errorf("after deletes: %q", got)
	}

	_, err = db.Read(ctx, Get("nope", "a"))
	wantCode(t, "unknown store", err, skillerr.InvalidArgument, ReasonUnknownStore)
	err = db.Commit(ctx, Put(StoreMeta, "ok", nil), Put("nope", "a", nil))
	wantCode(t, "unknown store", err, skillerr.InvalidArgument, ReasonUnknownStore)
	for _, key := range []string{"a\uffffb", "\xff"} {
		err = db.Commit(ctx, Put(StoreMeta, key, nil))
		wantCode(t, "bad key", err, skillerr.InvalidArgument, ReasonBadKey)
		_, err = db.Read(ctx, GetPrefix(StoreMeta, key))
		wantCode(t, "bad key", err, skillerr.InvalidArgument, ReasonBadKey)
	}
	if res, err := db.Read(ctx, Get(StoreMeta, "ok")); err != nil || len(res[0]) != 0 {
		t.Errorf("a rejected commit wrote: %v %v", res, err)
	}
}

func testLock(t *testing.T, db Backend) {
	ctx := context.Background()
	var holders, maxHolders atomic.Int32
	var order []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := db.Lock(ctx, "registry", func(context.Context) error {
				n := holders.Add(1)
				if n > maxHolders.Load() {
					maxHolders.Store(n)
				}
				time.Sleep(30 * time.Millisecond)
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				holders.Add(-1)
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if maxHolders.Load() != 1 || len(order) != 3 {
		t.Errorf("lock held by %d at once, %d runs; want 1 at a time, 3 runs", maxHolders.Load(), len(order))
	}

	// fn's error comes back; a waiter whose context ends gives up with
	// Timeout while another name is free.
	sentinel := errors.New("from fn")
	if err := db.Lock(ctx, "x", func(context.Context) error { return sentinel }); err != sentinel {
		t.Errorf("Lock returned %v, want fn's error", err)
	}
	held := make(chan struct{})
	release := make(chan struct{})
	go db.Lock(ctx, "registry", func(context.Context) error {
		close(held)
		<-release
		return nil
	})
	<-held
	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	err := db.Lock(wctx, "registry", func(context.Context) error {
		t.Error("ran while another holder had the lock")
		return nil
	})
	cancel()
	wantCode(t, "waiting past the deadline", err, skillerr.Timeout, "")
	ran := false
	if err := db.Lock(ctx, "other", func(context.Context) error { ran = true; return nil }); err != nil || !ran {
		t.Errorf("another name was blocked: %v", err)
	}
	close(release)
	if err := db.Lock(ctx, "registry", func(context.Context) error { return nil }); err != nil {
		t.Errorf("lock not released: %v", err)
	}
}

func testReopen(t *testing.T, db Backend) {
	ctx := context.Background()
	r, ok := db.(Reopener)
	if !ok {
		t.Skip("backend cannot reopen")
	}
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree})
	if err := db.Commit(ctx, Put(StoreAudit, "1", []byte("imported"))); err != nil {
		t.Fatal(err)
	}
	before := dump(t, db)
	db2, err := r.Reopen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db2.Close() })
	_, err = db.Read(ctx, Get(StoreMeta, "x"))
	wantCode(t, "read after close", err, skillerr.Internal, ReasonClosed)
	if !sameDump(before, dump(t, db2)) {
		t.Error("reopened database differs")
	}
	if data, gen, err := newFS(t, db2).ReadFileGen("pdf/assets/font.bin"); err != nil || gen != "g1" || !bytes.Equal(data, pdfTree[2].Data) {
		t.Errorf("after reopen: %v %q %v", data, gen, err)
	}
}

func testPutSkillErrors(t *testing.T, db Backend) {
	cases := map[string]struct {
		slug  string
		files []File
		code  skillerr.Code
	}{
		"duplicate":      {"s", []File{{Path: "a"}, {Path: "./a"}}, skillerr.InvalidArgument},
		"file then dir":  {"s", []File{{Path: "a"}, {Path: "a/b"}}, skillerr.InvalidArgument},
		"dir then file":  {"s", []File{{Path: "a/b"}, {Path: "a"}}, skillerr.InvalidArgument},
		"root":           {"s", []File{{Path: "."}}, skillerr.InvalidArgument},
		"symlink":        {"s", []File{{Path: "l", Mode: fs.ModeSymlink}}, skillerr.InvalidArgument},
		"escape":         {"s", []File{{Path: "../t/x"}}, skillerr.PathRejected},
		"slug with path": {"s/t", nil, skillerr.PathRejected},
		"slug dot-dot":   {"..", nil, skillerr.PathRejected},
		"empty slug":     {"", nil, skillerr.PathRejected},
	}
	for name, c := range cases {
		_, err := PutSkill(c.slug, "g", c.files)
		wantCode(t, name, err, c.code, "")
	}
	// An explicit directory may repeat an implied one.
	if _, err := PutSkill("s", "g", []File{{Path: "a/b"}, {Path: "a", Mode: fs.ModeDir}}); err != nil {
		t.Error(err)
	}
}

func testCorruptRecord(t *testing.T, db Backend) {
	if err := db.Commit(context.Background(), Put(StoreFiles, fileKey("bad"), []byte{0xff})); err != nil {
		t.Fatal(err)
	}
	f := newFS(t, db)
	_, err := f.Stat("bad")
	wantCode(t, "Stat(corrupt)", err, skillerr.Internal, "")
	_, err = f.ReadDir(".")
	wantCode(t, "ReadDir(corrupt child)", err, skillerr.Internal, "")
	// A directory's record whose names are out of order, which a binary
	// search would answer wrongly; a file both listed and with a record of
	// its own (schema 2's), which would be listed twice.
	dir := func(names ...string) []byte {
		r := &record{meta: meta{mode: fs.ModeDir | 0o755}}
		for _, name := range names {
			r.files = append(r.files, entry{name: name, meta: meta{mode: 0o644}})
		}
		return r.encode()
	}
	for what, ops := range map[string][]Op{
		"unsorted":     {Put(StoreFiles, fileKey("s"), dir("b.md", "a.md"))},
		"listed-twice": {Put(StoreFiles, fileKey("s"), dir("a.md")), Put(StoreFiles, fileKey("s/a.md"), meta{mode: 0o644}.encode())},
	} {
		ops = append([]Op{Delete(StoreFiles, fileKey("bad")), DeletePrefix(StoreFiles, "s/")}, ops...)
		if err := db.Commit(context.Background(), ops...); err != nil {
			t.Fatal(err)
		}
		if what == "unsorted" {
			_, err = f.Stat("s/a.md")
			wantCode(t, "Stat(in an unsorted directory)", err, skillerr.Internal, "")
		}
		_, err = f.ReadDir("s")
		wantCode(t, "ReadDir("+what+")", err, skillerr.Internal, "")
		_, err = readSkill(t, db, "s", false)
		wantCode(t, "DecodeSkill("+what+")", err, skillerr.Internal, "")
	}
}

// A file listed without contents, or with contents of another length
// (another program changed them: a file's record and contents are
// written in one commit), is an Internal error however it is read, as
// DecodeSkill says, not a file that is not there or a size that lies.
func testContentsCorrupt(t *testing.T, db Backend) {
	for what, op := range map[string]Op{
		"missing": Delete(StoreBlobs, fileKey("s/scripts/run.py")),
		"longer":  Put(StoreBlobs, fileKey("s/scripts/run.py"), []byte("print('hi')\nmore\n")),
	} {
		putSkills(t, db, "g", map[string][]File{"s": pdfTree})
		if err := db.Commit(context.Background(), op); err != nil {
			t.Fatal(err)
		}
		f := newFS(t, db)
		_, err := f.ReadFile("s/scripts/run.py")
		wantCode(t, what+": ReadFile", err, skillerr.Internal, "")
		file, err := f.Open("s/scripts/run.py")
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(file)
		file.Close()
		wantCode(t, what+": Read", err, skillerr.Internal, "")
		_, err = readSkill(t, db, "s", true)
		wantCode(t, what+": DecodeSkill", err, skillerr.Internal, "")
	}
}

// readSkill reads skill slug's tree, with contents when data is set.
func readSkill(t *testing.T, db Backend, slug string, data bool) ([]File, error) {
	t.Helper()
	qs, err := SkillQueries(slug, data)
	if err != nil {
		t.Fatal(err)
	}
	read, err := db.Read(context.Background(), qs...)
	if err != nil {
		t.Fatal(err)
	}
	return DecodeSkill(slug, read)
}

// testForeignKeys puts records under keys fileKey never gives, as another
// program sharing the database could, beside a skill: whatever reads them
// says Internal, never panics (a key without "//" did, in DecodeSkill and
// Rename), lists a name such as "..", or moves them anywhere.
func testForeignKeys(t *testing.T, db Backend) {
	file := meta{mode: 0o644}.encode()
	for _, tc := range []struct {
		store, key string
		listed     bool // in the key range of s's children
	}{
		{StoreFiles, "s/x", false},
		{StoreFiles, "s/x//", false},
		{StoreFiles, "s/./x//y", false},
		{StoreFiles, "s//..", true},
		{StoreFiles, "s//a//b", true},
		{StoreFiles, "s///b", true},
		{StoreBlobs, "s/x", false},
	} {
		what := tc.store + " " + tc.key
		ops, err := DeleteSkill("s")
		if err != nil {
			t.Fatal(err)
		}
		put, err := PutSkill("s", "g", pdfTree)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Commit(context.Background(), append(append(ops, put...), Put(tc.store, tc.key, file))...); err != nil {
			t.Fatal(err)
		}
		f := newFS(t, db)
		if tc.store == StoreFiles {
			_, err := readSkill(t, db, "s", false)
			wantCode(t, "DecodeSkill("+what+")", err, skillerr.Internal, "")
		}
		if tc.listed {
			_, err := f.ReadDir("s")
			wantCode(t, "ReadDir("+what+")", err, skillerr.Internal, "")
		}
		before := dump(t, db)
		wantCode(t, "Rename("+what+")", f.Rename("s", "t"), skillerr.Internal, "")
		if !sameDump(before, dump(t, db)) {
			t.Errorf("Rename(%s) changed the stored records", what)
		}
	}
}

// countingBackend counts the reads and records that pass through it.
type countingBackend struct {
	Backend
	reads, records int
}

func (c *countingBackend) Read(ctx context.Context, qs ...Query) ([][]Record, error) {
	res, err := c.Backend.Read(ctx, qs...)
	c.reads++
	for _, r := range res {
		c.records += len(r)
	}
	return res, err
}

func testListingReadsOnlyChildren(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree, "pdf-tools": toolsTree, "big": benchTree(300, 10)})
	c := &countingBackend{Backend: db}
	f := newFS(t, c)
	for dir, children := range map[string]int{"/skills": 3, "pdf": 5, "pdf/references": 1, "pdf/empty": 0, "big": 8} {
		c.reads, c.records = 0, 0
		entries, err := f.ReadDir(dir)
		if err != nil || len(entries) != children {
			t.Fatalf("ReadDir(%s) = %d entries, %v; want %d", dir, len(entries), err, children)
		}
		// The directory's record lists its files; a subdirectory has
		// a record of its own.
		want := 1
		if dir == "/skills" {
			want = 0 // implied, not stored
		}
		for _, e := range entries {
			if e.IsDir() {
				want++
			}
		}
		if c.reads != 1 || c.records != want {
			t.Errorf("ReadDir(%s): %d reads returning %d records; want 1 read of %d", dir, c.reads, c.records, want)
		}
	}
}

func testDecodeSkill(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree, "pdf-tools": toolsTree})
	for _, data := range []bool{false, true} {
		qs, err := SkillQueries("pdf", data)
		if err != nil {
			t.Fatal(err)
		}
		read, err := db.Read(context.Background(), qs...)
		if err != nil {
			t.Fatal(err)
		}
		files, err := DecodeSkill("pdf", read)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range files {
			got = append(got, fmt.Sprintf("%s %v %d %d", f.Path, f.Mode, f.Size, len(f.Data)))
			if f.Gen != "g1" {
				t.Errorf("%s: generation %q, want g1", f.Path, f.Gen)
			}
		}
		n := func(size int) int { // contents only when read
			if data {
				return size
			}
			return 0
		}
		want := []string{
			fmt.Sprintf("SKILL.md -rw-r--r-- 25 %d", n(25)),
			"assets drwxr-xr-x 0 0",
			fmt.Sprintf("assets/font.bin -rw------- 5 %d", n(5)),
			"empty drwx------ 0 0",
			"references drwxr-xr-x 0 0",
			"references/deep drwxr-xr-x 0 0",
			"references/deep/er drwxr-xr-x 0 0",
			fmt.Sprintf("references/deep/er/notes.md -rw-r--r-- 5 %d", n(5)),
			"scripts drwxr-xr-x 0 0",
			fmt.Sprintf("scripts/run.py -rwxr-xr-x 12 %d", n(12)),
		}
		if !slices.Equal(got, want) {
			t.Errorf("data=%v: DecodeSkill =\n%s\nwant\n%s", data, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if data && string(files[0].Data) != string(pdfTree[0].Data) {
			t.Errorf("SKILL.md contents = %q", files[0].Data)
		}
	}
	if _, err := SkillQueries("../x", false); skillerr.CodeOf(err) != skillerr.PathRejected {
		t.Errorf("SkillQueries(../x) = %v, want PathRejected", err)
	}
}

// FileQueries lets a reader get a file with other records in one read.
func testFileQueries(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree, "pdf-tools": toolsTree})
	view, err := newFS(t, db).ReadOnly().Sub("pdf")
	if err != nil {
		t.Fatal(err)
	}
	p, qs, err := view.FileQueries("scripts/run.py")
	if err != nil {
		t.Fatal(err)
	}
	if p != "pdf/scripts/run.py" {
		t.Errorf("path = %q", p)
	}
	tree, err := SkillQueries("pdf", false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Read(context.Background(), append(tree, qs...)...)
	if err != nil {
		t.Fatal(err)
	}
	data, gen, err := DecodeFile(p, res[len(tree):])
	if err != nil || string(data) != "print('hi')\n" || gen != "g1" {
		t.Errorf("DecodeFile = %q, %q, %v", data, gen, err)
	}
	for _, c := range []struct {
		name   string
		code   skillerr.Code
		reason string
	}{
		{"missing.md", skillerr.SkillNotFound, ReasonNotExist},
		{"scripts", skillerr.InvalidArgument, ReasonIsDir},
		{"/skills/pdf-tools/SKILL.md", skillerr.PathRejected, ReasonOutsideView},
		{"../pdf-tools/SKILL.md", skillerr.PathRejected, "dot-dot"},
	} {
		p, qs, err := view.FileQueries(c.name)
		if err == nil {
			var res [][]Record
			if res, err = db.Read(context.Background(), qs...); err == nil {
				_, _, err = DecodeFile(p, res)
			}
		}
		wantCode(t, c.name, err, c.code, c.reason)
	}
}

// CommitThenOthers: a read and a write begun while rest runs wait for the
// commit or go before it: the read sees all of it or none, and nothing
// deadlocks.
func testCommitThenOthers(t *testing.T, db Backend) {
	ctx := context.Background()
	tree, err := NewTree("tools", toolsTree)
	if err != nil {
		t.Fatal(err)
	}
	first := tree.Blobs()
	read := make(chan [][]Record, 1)
	wrote := make(chan error, 1)
	err = CommitThen(ctx, db, stores, first, func() ([]Op, error) {
		go func() {
			recs, err := db.Read(ctx, GetPrefix(StoreBlobs, "tools/"), GetPrefix(StoreFiles, "tools/"), Get(StoreFiles, fileKey("tools")), Get(StoreState, "rev"))
			if err != nil {
				t.Error(err)
			}
			read <- recs
		}()
		go func() { wrote <- db.Commit(ctx, Put(StoreStats, "s", []byte("1"))) }()
		time.Sleep(50 * time.Millisecond) // a few turns of the event loop
		return append(tree.Records("g"), Put(StoreState, "rev", []byte("1"))), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	records := len(tree.Records("g"))
	for range 2 {
		select {
		case recs := <-read:
			if recs == nil {
				continue
			}
			contents, files, revs := len(recs[0]), len(recs[1])+len(recs[2]), len(recs[3])
			none := contents+files+revs == 0
			all := contents == len(first) && files == records && revs == 1
			if !none && !all {
				t.Errorf("a read during the commit saw %d of %d contents, %d of %d records, %d revisions",
					contents, len(first), files, records, revs)
			}
		case err := <-wrote:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a read or write begun during the commit still waits 30 s after it")
		}
	}
}
