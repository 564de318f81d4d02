package vfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/hack-pad/hackpadfs"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// TestHostileFS runs the checks of the file system's answers to callers
// that race it or ask the impossible, on every backend of this platform.
func TestHostileFS(t *testing.T) {
	tests := []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"OpenReadsOneVersion", testOpenReadsOneVersion},
		{"RenameRefusals", testRenameRefusals},
		{"RenameDirectory", testRenameDirectory},
		{"ConcurrentWritesToOneDirectory", testConcurrentWritesToOneDirectory},
		{"ChangedSinceChecked", testChangedSinceChecked},
		{"DirectoryFull", testDirectoryFull},
	}
	for _, bc := range testBackends {
		t.Run(bc.name, func(t *testing.T) {
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) { tc.fn(t, bc.open(t)) })
			}
		})
	}
}

// An open file reads the version it was opened on, metadata and contents
// from one transaction, however the file is rewritten before the first
// Read: shorter (a truncated read before), longer, or replaced with the
// whole skill.
func testOpenReadsOneVersion(t *testing.T, db Backend) {
	old := "---\nname: pdf\n---\nUse me."
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree})
	f := newFS(t, db)
	for _, tc := range []struct {
		name    string
		rewrite func() error
	}{
		{"shorter", func() error { return hackpadfs.WriteFullFile(f, "pdf/SKILL.md", []byte("x"), 0o644) }},
		{"longer", func() error {
			return hackpadfs.WriteFullFile(f, "pdf/SKILL.md", []byte(old+" and much more text than before"), 0o644)
		}},
		{"reimported", func() error {
			ops, err := DeleteSkill("pdf")
			if err != nil {
				return err
			}
			put, err := PutSkill("pdf", "g2", []File{{Path: "SKILL.md", Data: []byte("new")}})
			if err != nil {
				return err
			}
			return db.Commit(context.Background(), append(ops, put...)...)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := hackpadfs.WriteFullFile(f, "pdf/SKILL.md", []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			file, err := f.Open("/skills/pdf/SKILL.md")
			if err != nil {
				t.Fatal(err)
			}
			defer file.Close()
			if err := tc.rewrite(); err != nil {
				t.Fatal(err)
			}
			info, err := file.Stat()
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(file)
			if err != nil || string(got) != old || info.Size() != int64(len(old)) {
				t.Errorf("read %q (size %d), %v; want the version opened, %q", got, info.Size(), err, old)
			}
		})
	}
}

// Rename refuses what would corrupt the tree or never end, with the io/fs
// error for it, and leaves every record as it was.
func testRenameRefusals(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree, "pdf-tools": toolsTree})
	f := newFS(t, db)
	before := dump(t, db)
	for _, tc := range []struct {
		old, new string
		is       error
		code     skillerr.Code
		reason   string
	}{
		{"pdf/SKILL.md", "pdf/references", hackpadfs.ErrIsDir, skillerr.InvalidArgument, ReasonIsDir},
		{"pdf/scripts", "pdf/references", fs.ErrExist, skillerr.Conflict, ReasonNotEmpty},
		{"pdf/scripts", "pdf/SKILL.md", hackpadfs.ErrNotDir, skillerr.InvalidArgument, ReasonNotDir},
		{"pdf/SKILL.md", "pdf/missing/SKILL.md", fs.ErrNotExist, skillerr.SkillNotFound, ReasonNotExist},
		{"pdf/scripts", "pdf/missing/deeper", fs.ErrNotExist, skillerr.SkillNotFound, ReasonNotExist},
		{"pdf/SKILL.md", "pdf/SKILL.md/x", hackpadfs.ErrNotDir, skillerr.InvalidArgument, ReasonNotDir},
		{"pdf/references", "pdf/references/deep/inside", fs.ErrInvalid, skillerr.InvalidArgument, ReasonIntoItself},
		{"pdf", "pdf/references/pdf", fs.ErrInvalid, skillerr.InvalidArgument, ReasonIntoItself},
		{"pdf/nothing", "pdf/else", fs.ErrNotExist, skillerr.SkillNotFound, ReasonNotExist},
	} {
		done := make(chan error, 1)
		go func() { done <- f.Rename(tc.old, tc.new) }()
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("Rename(%s, %s) did not return", tc.old, tc.new)
		}
		what := "Rename(" + tc.old + ", " + tc.new + ")"
		wantCode(t, what, err, tc.code, tc.reason)
		if !errors.Is(err, tc.is) {
			t.Errorf("%s = %v, want it to match %v", what, err, tc.is)
		}
		if !sameDump(before, dump(t, db)) {
			t.Fatalf("%s changed the stored records", what)
		}
	}
}

// A directory moves whole, in one commit: every file below it, contents
// and modes kept, nothing left at the old name.
func testRenameDirectory(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree})
	f := newFS(t, db)
	if err := f.Mkdir("pdf/empty2", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Rename("pdf/references", "pdf/empty2/refs"); err != nil {
		t.Fatal(err)
	}
	if data, err := f.ReadFile("pdf/empty2/refs/deep/er/notes.md"); err != nil || string(data) != "notes" {
		t.Errorf("moved file: %q, %v", data, err)
	}
	if _, err := f.Stat("pdf/references"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("old directory after rename: %v", err)
	}
	if _, err := f.Stat("pdf/references/deep/er/notes.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("old file after rename: %v", err)
	}
	// Onto an empty directory: replaced, as POSIX rename does.
	if err := f.Rename("pdf/scripts", "pdf/empty"); err != nil {
		t.Fatal(err)
	}
	if info, err := f.Stat("pdf/empty/run.py"); err != nil || info.Mode() != 0o755 {
		t.Errorf("moved onto an empty directory: %v, %v", info, err)
	}
	// A file onto a file replaces it.
	if err := f.Rename("pdf/empty/run.py", "pdf/SKILL.md"); err != nil {
		t.Fatal(err)
	}
	if data, err := f.ReadFile("pdf/SKILL.md"); err != nil || string(data) != "print('hi')\n" {
		t.Errorf("file onto file: %q, %v", data, err)
	}
	entries, err := f.ReadDir("pdf/empty")
	if err != nil || len(entries) != 0 {
		t.Errorf("ReadDir after the move: %v, %v", entries, err)
	}
}

// slowReads pauses after every read, so writers that read a directory's
// record at about the same time would each commit their own copy of it
// but for the lock they hold from read to commit.
type slowReads struct{ Backend }

func (s slowReads) Read(ctx context.Context, qs ...Query) ([][]Record, error) {
	res, err := s.Backend.Read(ctx, qs...)
	time.Sleep(2 * time.Millisecond)
	return res, err
}

// Writes and renames into one directory at once, which each rewrite its
// record, lose none of its files.
func testConcurrentWritesToOneDirectory(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree})
	f := newFS(t, slowReads{db})
	want := []string{"font.bin", "notes.md", "run.py"}
	errs := make(chan error, 10)
	for i := range 8 {
		name := fmt.Sprintf("f%d.py", i)
		want = append(want, name)
		go func() { errs <- hackpadfs.WriteFullFile(f, "pdf/scripts/"+name, []byte(name), 0o644) }()
	}
	go func() { errs <- f.Rename("pdf/assets/font.bin", "pdf/scripts/font.bin") }()
	go func() { errs <- f.Rename("pdf/references/deep/er/notes.md", "pdf/scripts/notes.md") }()
	for range 10 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	entries, err := f.ReadDir("pdf/scripts")
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ReadDir(pdf/scripts) = %v, %v; want %v", got, err, want)
	}
}

// changeBeforeLock makes change, once, just before the first Lock: what
// another writer does between keyvalue's checks and the write they were
// for, which takes the lock.
type changeBeforeLock struct {
	Backend
	change func() error
	done   bool
}

func (c *changeBeforeLock) Lock(ctx context.Context, name string, fn func(context.Context) error) error {
	if !c.done {
		c.done = true
		if err := c.change(); err != nil {
			return err
		}
	}
	return c.Backend.Lock(ctx, name, fn)
}

// A write through the file system that keyvalue checked for refuses,
// under the lock, what changed since the check, and what the other writer
// stored is kept.
func testChangedSinceChecked(t *testing.T, db Backend) {
	putSkills(t, db, "g1", map[string][]File{"pdf": pdfTree})
	other := newFS(t, db)
	write := func(p string) func() error {
		return func() error { return hackpadfs.WriteFullFile(other, p, []byte(p), 0o644) }
	}
	for _, tc := range []struct {
		what   string
		change func() error
		op     func(f *FS) error
		code   skillerr.Code
		reason string
		kept   string // a file the other writer stored
	}{
		{"Remove of a directory a file was written into", write("pdf/empty/new.md"),
			func(f *FS) error { return f.Remove("pdf/empty") }, skillerr.Conflict, ReasonNotEmpty, "pdf/empty/new.md"},
		{"Remove of a directory a directory was made in", func() error {
			return errors.Join(other.Mkdir("pdf/empty2/sub", 0o755), write("pdf/empty2/sub/in.md")())
		}, func(f *FS) error {
			return errors.Join(other.Mkdir("pdf/empty2", 0o755), f.Remove("pdf/empty2"))
		}, skillerr.Conflict, ReasonNotEmpty, "pdf/empty2/sub/in.md"},
		{"Mkdir where a file was written", write("pdf/made"),
			func(f *FS) error { return f.Mkdir("pdf/made", 0o755) }, skillerr.Conflict, ReasonExist, "pdf/made"},
		{"a write where a directory was made", func() error {
			return errors.Join(other.Mkdir("pdf/dir", 0o755), write("pdf/dir/in.md")())
		}, func(f *FS) error { return hackpadfs.WriteFullFile(f, "pdf/dir", []byte("x"), 0o644) },
			skillerr.InvalidArgument, ReasonIsDir, "pdf/dir/in.md"},
		{"Mkdir in a directory removed", func() error {
			return errors.Join(other.Remove("pdf/references/deep/er/notes.md"), other.Remove("pdf/references/deep/er"))
		}, func(f *FS) error { return f.Mkdir("pdf/references/deep/er/x", 0o755) },
			skillerr.SkillNotFound, ReasonNotExist, ""},
	} {
		f := newFS(t, &changeBeforeLock{Backend: db, change: tc.change})
		wantCode(t, tc.what, tc.op(f), tc.code, tc.reason)
		if tc.kept != "" {
			if data, err := other.ReadFile(tc.kept); err != nil || string(data) != tc.kept {
				t.Errorf("%s: %s = %q, %v; want it kept", tc.what, tc.kept, data, err)
			}
		}
	}
	if _, err := other.Stat("pdf/references/deep/er/x"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a directory made in one removed: %v", err)
	}
	// Mkdir checks that the parent exists, not that it is a directory.
	for _, p := range []string{"pdf/SKILL.md/x", "pdf/scripts/run.py/x"} {
		before := dump(t, db)
		if err := other.Mkdir(p, 0o755); err == nil {
			t.Errorf("Mkdir(%s) under a file succeeded", p)
		}
		if !sameDump(before, dump(t, db)) {
			t.Errorf("Mkdir(%s) under a file changed the stored records", p)
		}
	}
}

// PathRejected errors match fs.ErrInvalid, as io/fs expects of a name it
// cannot use.
func TestPathRejectedIsInvalid(t *testing.T) {
	f := newFS(t, NewMemory())
	for _, name := range []string{"../etc/passwd", "/skills/../x", "a\x00b"} {
		_, err := f.Stat(name)
		wantCode(t, "Stat("+name+")", err, skillerr.PathRejected, "")
		if !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Stat(%q) = %v, want it to match fs.ErrInvalid", name, err)
		}
	}
}

// No write stores a directory past MaxDirFiles, which a read would
// refuse: PutSkill (an import, an edit) refuses the tree, and a write
// through the file system the file past it, changing nothing.
func testDirectoryFull(t *testing.T, db Backend) {
	files := make([]File, MaxDirFiles+1)
	for i := range files {
		files[i] = File{Path: fmt.Sprintf("refs/%06d", i)}
	}
	_, err := PutSkill("s", "g", files)
	wantCode(t, "PutSkill(MaxDirFiles+1 files in one folder)", err, skillerr.TooLarge, ReasonTooManyFiles)
	// Full: listed, with no contents, which a write of another file does
	// not read (but for the one rewritten below).
	full := &record{meta: meta{mode: fs.ModeDir | 0o755, gen: "g"}}
	for _, f := range files[:MaxDirFiles] {
		full.files = append(full.files, entry{name: path.Base(f.Path), meta: meta{mode: 0o644, gen: "g"}})
	}
	putSkills(t, db, "g", map[string][]File{"s": {{Path: "SKILL.md", Data: []byte("x")}}})
	if err := db.Commit(context.Background(), Put(StoreFiles, fileKey("s/refs"), full.encode()), Put(StoreBlobs, fileKey("s/refs/000007"), []byte{})); err != nil {
		t.Fatal(err)
	}
	f := newFS(t, db)
	before := dump(t, db)
	err = hackpadfs.WriteFullFile(f, "s/refs/new", []byte("x"), 0o644)
	wantCode(t, "a write into a full folder", err, skillerr.TooLarge, ReasonTooManyFiles)
	if !sameDump(before, dump(t, db)) {
		t.Error("the refused write changed the stored records")
	}
	// Rewriting a file it lists is no new file.
	if err := hackpadfs.WriteFullFile(f, "s/refs/000007", []byte("x"), 0o644); err != nil {
		t.Errorf("a write of a file the full folder lists: %v", err)
	}
}
