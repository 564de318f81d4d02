package vfs

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hack-pad/hackpadfs"
	"github.com/skillfs/skillfs/pkg/pace/pacetest"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// putSchema2 writes the tree of skill slug as schema version 2 did: a
// record of its own for every file and directory.
func putSchema2(t *testing.T, db Backend, slug, gen string, files []File) {
	t.Helper()
	tree, err := NewTree(slug, files)
	if err != nil {
		t.Fatal(err)
	}
	ops := tree.Blobs()
	for p, m := range tree.entries {
		m.gen = gen
		ops = append(ops, Put(StoreFiles, fileKey(p), m.encode()))
	}
	if err := db.Commit(context.Background(), ops...); err != nil {
		t.Fatal(err)
	}
}

// decoded reads skill slug's tree with contents, one line a path.
func decoded(t *testing.T, db Backend, slug string) []string {
	t.Helper()
	files, err := readSkill(t, db, slug, true)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = fmt.Sprintf("%s %v %d %q %s %d", f.Path, f.Mode, f.Size, f.Data, f.Gen, f.ModTime.UnixMilli())
	}
	return out
}

// A database written by schema version 2 reads as the same tree, and a
// write through the file system turns a file's own record into an entry
// of its directory's.
func testSchema2Records(t *testing.T, db Backend) {
	putSchema2(t, db, "old", "g1", pdfTree)
	putSkills(t, db, "g1", map[string][]File{"new": pdfTree})
	if got, want := decoded(t, db, "old"), decoded(t, db, "new"); !slices.Equal(got, want) {
		t.Errorf("schema 2 tree =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f := newFS(t, db)
	if err := fstest.TestFS(strictFS{f.ReadOnly()}, "old/SKILL.md", "old/references/deep/er/notes.md", "new/scripts/run.py"); err != nil {
		t.Error(err)
	}
	for _, dir := range []string{"old", "old/scripts", "old/references/deep/er"} {
		a, errA := f.ReadDir(dir)
		b, errB := f.ReadDir("new" + strings.TrimPrefix(dir, "old"))
		if errA != nil || errB != nil || !slices.EqualFunc(a, b, func(x, y fs.DirEntry) bool { return x.Name() == y.Name() && x.Type() == y.Type() }) {
			t.Errorf("ReadDir(%s) = %v, %v; want %v, %v", dir, a, errA, b, errB)
		}
	}

	old := func(p string) bool { _, ok := dump(t, db)[StoreFiles][fileKey(p)]; return ok }
	if err := hackpadfs.WriteFullFile(f, "old/scripts/run.py", []byte("print(2)\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if old("old/scripts/run.py") {
		t.Error("a file written keeps its own record")
	}
	if data, err := f.ReadFile("old/scripts/run.py"); err != nil || string(data) != "print(2)\n" {
		t.Errorf("after the write: %q, %v", data, err)
	}
	if entries, err := f.ReadDir("old/scripts"); err != nil || len(entries) != 1 {
		t.Errorf("ReadDir(old/scripts) after the write = %v, %v; want run.py once", entries, err)
	}
	if err := f.Rename("old/assets/font.bin", "old/scripts/font.bin"); err != nil {
		t.Fatal(err)
	}
	if old("old/assets/font.bin") || old("old/scripts/font.bin") {
		t.Error("a file renamed keeps a record of its own")
	}
	if info, err := f.Stat("old/scripts/font.bin"); err != nil || info.Size() != 5 || info.Mode() != 0o600 {
		t.Errorf("Stat(old/scripts/font.bin) = %v, %v", info, err)
	}
	if err := f.Remove("old/SKILL.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Stat("old/SKILL.md"); !errors.Is(err, fs.ErrNotExist) || old("old/SKILL.md") {
		t.Errorf("Stat(old/SKILL.md) after Remove = %v", err)
	}
	if entries, err := f.ReadDir("old"); err != nil || slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == "SKILL.md" }) {
		t.Errorf("ReadDir(old) after Remove = %v, %v", entries, err)
	}
}

// A file directly in /skills has no directory's record to list it: it
// keeps one of its own.
func testRootFiles(t *testing.T, db Backend) {
	f := newFS(t, db)
	if err := hackpadfs.WriteFullFile(f, "top.txt", []byte("top"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Mkdir("dir", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Rename("top.txt", "dir/top.txt"); err != nil {
		t.Fatal(err)
	}
	if err := f.Rename("dir/top.txt", "back.txt"); err != nil {
		t.Fatal(err)
	}
	entries, err := f.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if err != nil || !slices.Equal(names, []string{"back.txt", "dir"}) {
		t.Errorf("ReadDir(/skills) = %v, %v", names, err)
	}
	if data, err := f.ReadFile("back.txt"); err != nil || string(data) != "top" {
		t.Errorf("ReadFile(back.txt) = %q, %v", data, err)
	}
	if _, err := f.ReadDir("back.txt"); !errors.Is(err, hackpadfs.ErrNotDir) {
		t.Errorf("ReadDir(a file) = %v, want ErrNotDir", err)
	}
	if _, err := f.ReadDir("dir/missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir(missing) = %v, want ErrNotExist", err)
	}
	if _, ok := dump(t, db)[StoreFiles][fileKey("back.txt")]; !ok {
		t.Error("a file in /skills has no record of its own")
	}
}

// A corrupt directory record is an Internal error wherever it is read,
// never a panic or a wrong listing.
func TestDecodeRecordCorrupt(t *testing.T) {
	dir := &record{meta: meta{mode: fs.ModeDir | 0o755, gen: "g"}, files: []entry{
		{name: "a.md", meta: meta{mode: 0o644, size: 3, gen: "g"}},
		{name: "b.md", meta: meta{mode: 0o600, size: 1}},
	}}
	good := dir.encode()
	if r, err := decodeRecord("k", good); err != nil || !bytes.Equal(r.encode(), good) || r.mode != dir.mode ||
		len(r.files) != 2 || r.files[0].gen != "g" || r.files[1].gen != "" || r.files[1].size != 1 {
		t.Fatalf("decodeRecord(good) = %+v, %v; want %+v", r, err, dir)
	}
	for i := range good {
		if r, err := decodeRecord("k", good[:i]); err == nil {
			t.Errorf("decodeRecord accepted the first %d bytes: %+v", i, r)
		}
	}
	if _, err := decodeRecord("k", append(slices.Clone(good), 0)); err == nil {
		t.Error("decodeRecord accepted a byte past the end")
	}
	// Entries a directory cannot list: lookups binary-search the names,
	// and DecodeSkill turns each into a path.
	for what, files := range map[string][]string{
		"unsorted": {"b.md", "a.md"}, "twice": {"a.md", "a.md"}, "empty": {""},
		"dot": {"."}, "dot-dot": {".."}, "slash": {"a/b.md"},
	} {
		bad := &record{meta: dir.meta}
		for _, name := range files {
			bad.files = append(bad.files, entry{name: name, meta: meta{mode: 0o644}})
		}
		r, err := decodeRecord("k", bad.encode())
		wantCode(t, "decodeRecord("+what+")", err, skillerr.Internal, "")
		if r != nil {
			t.Errorf("decodeRecord(%s) = %+v, want nil", what, r)
		}
	}
	// Modes and sizes nothing here stores: exported, a symbolic link would
	// be an archive entry of that kind; listed, a size past int64
	// negative.
	for what, m := range map[string]meta{
		"a directory listed as a file": {mode: fs.ModeDir | 0o755},
		"a symbolic link":              {mode: fs.ModeSymlink | 0o777},
		"a device":                     {mode: fs.ModeDevice | 0o644},
		"a negative size":              {mode: 0o644, size: -1},
	} {
		bad := &record{meta: dir.meta, files: []entry{{name: "d", meta: m}}}
		_, err := decodeRecord("k", bad.encode())
		wantCode(t, "decodeRecord("+what+")", err, skillerr.Internal, "")
		if !m.mode.IsDir() {
			_, err = decodeRecord("k", m.encode())
			wantCode(t, "decodeRecord(a file's own record: "+what+")", err, skillerr.Internal, "")
		}
	}
	_, err := decodeRecord("k", (&record{meta: meta{mode: fs.ModeDir | fs.ModeSymlink | 0o755}}).encode())
	wantCode(t, "decodeRecord(a directory that is a link)", err, skillerr.Internal, "")
	// A mode past 32 bits would be read as another.
	wide := binary.AppendUvarint(nil, 1<<40|0o644)
	_, err = decodeRecord("k", append(append(wide, 0), 0))
	wantCode(t, "decodeRecord(a mode of 41 bits)", err, skillerr.Internal, "")
	// A count no record of its length can hold is refused before
	// anything is allocated for it.
	empty := (&record{meta: dir.meta}).encode()
	const n = 1 << 20
	huge := append(binary.AppendUvarint(empty[:len(empty)-1], n), make([]byte, n)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = decodeRecord("k", huge)
	runtime.ReadMemStats(&after)
	wantCode(t, "decodeRecord(a count of zero bytes)", err, skillerr.Internal, "")
	if got := after.TotalAlloc - before.TotalAlloc; got > n {
		t.Errorf("decodeRecord allocated %d bytes for a record of %d", got, len(huge))
	}
}

// A directory's record listing more than MaxDirFiles files is refused,
// TooLarge, before its entries are allocated: at six bytes an entry
// stored and 72 decoded, its decoding would hold twelve times its bytes.
// One listing MaxDirFiles reads.
func TestDecodeRecordBounded(t *testing.T) {
	listing := func(n int) []byte {
		r := &record{meta: meta{mode: fs.ModeDir | 0o755}}
		for i := range n {
			r.files = append(r.files, entry{name: fmt.Sprintf("%06d", i), meta: meta{mode: 0o644}})
		}
		return r.encode()
	}
	full := listing(MaxDirFiles)
	if r, err := decodeRecord("k", full); err != nil || len(r.files) != MaxDirFiles {
		t.Fatalf("a record of MaxDirFiles files: %v", err)
	}
	over := listing(MaxDirFiles + 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := decodeRecord(fileKey("pdf/refs"), over)
	runtime.ReadMemStats(&after)
	wantCode(t, "decodeRecord(MaxDirFiles+1 files)", err, skillerr.TooLarge, ReasonTooManyFiles)
	wantSubject(t, "decodeRecord(MaxDirFiles+1 files)", err, "pdf/refs")
	if got := after.TotalAlloc - before.TotalAlloc; got > 4096 {
		t.Errorf("decodeRecord allocated %d bytes for a record of %d it refuses", got, len(over))
	}
	name := "000000"
	_, err = decodeListing("k", over, &name)
	wantCode(t, "a stat in it", err, skillerr.TooLarge, ReasonTooManyFiles)
}

// An error about a stored record names the path its key stands for, as a
// person reads it, not the key; a long one (another program's) clipped.
func TestRecordErrorsNamePaths(t *testing.T) {
	long := strings.Repeat("a", 300) + "/b"
	for key, want := range map[string]string{
		fileKey("x"): "x", fileKey("pdf/notes.md"): "pdf/notes.md", "x/junk": "x/junk", fileKey(long): skillerr.Clip(long),
	} {
		_, err := decodeRecord(key, []byte{0xff})
		wantSubject(t, fmt.Sprintf("decodeRecord(%q)", key), err, want)
	}
}

// wantSubject checks that err is an Error about subject.
func wantSubject(t *testing.T, what string, err error, subject string) {
	t.Helper()
	var se *skillerr.Error
	if !errors.As(err, &se) || se.Subject != subject {
		t.Errorf("%s: %v; want an error about %q", what, err, subject)
	}
}

// A stat finds its file in its directory's record without allocating the
// others' entries, and still checks every one of them.
func TestDecodeListing(t *testing.T) {
	dir := &record{meta: meta{mode: fs.ModeDir | 0o755, gen: "g"}}
	for i := range 10_000 {
		dir.files = append(dir.files, entry{name: fmt.Sprintf("file%05d.md", i), meta: meta{mode: 0o644, modTime: time.UnixMilli(int64(i)), size: int64(i), gen: "g"}})
	}
	dir.files[4242].gen = "own"
	b := dir.encode()
	name := "file04242.md"
	var r *record
	var err error
	allocs := testing.AllocsPerRun(10, func() { r, err = decodeListing("k", b, &name) })
	if err != nil || len(r.files) != 1 || r.files[0] != dir.files[4242] {
		t.Fatalf("decodeListing(%s) = %+v, %v; want %+v", name, r, err, dir.files[4242])
	}
	if allocs > 5 {
		t.Errorf("decodeListing(%s) made %v allocations in a directory of 10,000", name, allocs)
	}
	// The directory's own stat, and its parent's listing, need none.
	recs := []Record{{Key: fileKey("s/refs"), Value: b}}
	for what, fn := range map[string]func() error{
		"a stat of the directory": func() error { _, err := lookup("s/refs", recs, nil); return err },
		"a listing of its parent": func() error { _, err := children(nil, recs); return err },
	} {
		if allocs := testing.AllocsPerRun(10, func() { err = fn() }); err != nil || allocs > 5 {
			t.Errorf("%s: %v, %v allocations, with 10,000 files in the directory", what, err, allocs)
		}
	}
	missing := "file04242.mdx"
	if r, err := decodeListing("k", b, &missing); err != nil || len(r.files) != 0 {
		t.Errorf("decodeListing(%s) = %+v, %v; want no entry", missing, r, err)
	}
	// A corrupt entry after the one found.
	dir.files[9999].name = "file00000.md"
	if _, err := decodeListing("k", dir.encode(), &name); err == nil {
		t.Error("decodeListing accepted names out of order after the one it found")
	}
}

// DecodeSkill gives the host turns between the files of a skill: 10,000,
// an import's most, took 12-16 ms of one task in Chromium. Counted, not
// timed.
func TestDecodeSkillSteps(t *testing.T) {
	db := NewMemory()
	putSkills(t, db, "g", map[string][]File{"s": benchTree(320, 1)})
	steps := 0
	stop := pacetest.Observe(func() { steps++ })
	_, err := readSkill(t, db, "s", true)
	stop()
	if err != nil || steps < 2*320/16 {
		t.Errorf("DecodeSkill of 320 files: %v, %d steps; want %d or more", err, steps, 2*320/16)
	}
}
