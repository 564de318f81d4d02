package vfs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/hack-pad/hackpadfs"
)

// FuzzDecodeRecord feeds the record decoder what another program could
// store: it never panics, and a stat's decoding, which keeps one entry
// (decodeListing), agrees with the whole decoding, refusal for refusal
// and entry for entry.
func FuzzDecodeRecord(f *testing.F) {
	dir := &record{meta: meta{mode: fs.ModeDir | 0o755, gen: "g"}, files: []entry{
		{name: "a.md", meta: meta{mode: 0o644, size: 3, gen: "g"}},
		{name: "b.md", meta: meta{mode: 0o600, size: 1, gen: "other"}},
	}}
	f.Add(dir.encode(), "a.md")
	f.Add(dir.encode(), "b.md")
	f.Add(meta{mode: 0o644, size: 3}.encode(), "")
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		whole, err := decodeRecord("k", b)
		one, errOne := decodeListing("k", b, &name)
		none, errNone := decodeListing("k", b, &noFile)
		if (err == nil) != (errOne == nil) || (err == nil) != (errNone == nil) {
			t.Fatalf("decodeRecord: %v; decodeListing(%q): %v; of none: %v", err, name, errOne, errNone)
		}
		if err != nil {
			return
		}
		e, found := whole.file(name)
		if found != (len(one.files) == 1) || found && one.files[0] != e || len(one.files) > 1 || len(none.files) != 0 {
			t.Fatalf("decodeListing(%q) = %+v; decodeRecord found %v, %+v", name, one.files, found, e)
		}
		if one.meta != whole.meta || none.meta != whole.meta {
			t.Fatalf("the directory's own meta differs: %+v, %+v, %+v", whole.meta, one.meta, none.meta)
		}
		// What decodes encodes to a record that decodes the same.
		again, err := decodeRecord("k", whole.encode())
		if err != nil || again.meta != whole.meta || len(again.files) != len(whole.files) {
			t.Fatalf("encode(decode(b)) = %+v, %v; want %+v", again, err, whole)
		}
		for i := range again.files {
			if again.files[i] != whole.files[i] {
				t.Fatalf("entry %d: %+v, want %+v", i, again.files[i], whole.files[i])
			}
		}
	})
}

// FuzzPathOfKey: a key a prefix read returns is a path's only when
// fileKey gives it back for that path, which is clean; anything else is
// refused, never a panic.
func FuzzPathOfKey(f *testing.F) {
	for _, k := range []string{"//pdf", "pdf//SKILL.md", "pdf/a/b//c", "pdf/x", "pdf//a//b", "pdf///b", "pdf/x//", "..//x", "pdf/./a//b"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		p, err := pathOfKey(key)
		if err != nil {
			return
		}
		if fileKey(p) != key || path.Clean(p) != p || p == "." || strings.HasPrefix(p, "../") || p == ".." || strings.HasPrefix(p, "/") {
			t.Fatalf("pathOfKey(%q) = %q", key, p)
		}
	})
}

// FuzzFSWrites runs programs of writes through the file system (write,
// mkdir, remove, rename, chmod) over a few names in and around a skill
// stored by schema version 2 or 3,
// and checks after every step that the stores hold one tree, whole: every
// record under a key a path gives, in a directory that has one; every
// file listed once, with contents of the length it lists; no contents
// without a file. A write that fails changes nothing; one that succeeds
// leaves what it says.
func FuzzFSWrites(f *testing.F) {
	f.Add([]byte{0, 3, 0, 3, 3, 9, 2, 1, 0, 1, 8, 0, 0, 12, 0, 3, 1, 12})
	f.Add([]byte{3, 1, 11, 3, 11, 2, 2, 2, 0, 4, 5, 0, 1, 10, 0, 3, 10, 1})
	f.Add([]byte{0x80, 3, 0, 3, 3, 9, 2, 1, 0, 1, 8, 0, 0, 12, 0, 3, 1, 12})
	names := []string{"s", "s/SKILL.md", "s/scripts", "s/scripts/run.py", "s/empty", "s/references",
		"s/references/deep", "s/a", "s/a/b", "s/a/x.md", "t", "top.md", "s/empty/in.md"}
	f.Fuzz(func(t *testing.T, prog []byte) {
		db := NewMemory()
		// The skill as schema version 2 wrote it, a record per file, or
		// as 3 does.
		if len(prog) > 0 && prog[0]&0x80 != 0 {
			putSchema2(t, db, "s", "g", pdfTree)
		} else {
			putSkills(t, db, "g", map[string][]File{"s": pdfTree})
		}
		fsys := newFS(t, db)
		for step := 0; len(prog) >= 3 && step < 40; step++ {
			a, b := names[int(prog[1])%len(names)], names[int(prog[2])%len(names)]
			data := []byte(fmt.Sprintf("step %d", step))
			before := dump(t, db)
			var err error
			what := ""
			switch prog[0] % 5 {
			case 0:
				what, err = "WriteFile("+a+")", hackpadfs.WriteFullFile(fsys, a, data, 0o644)
			case 1:
				what, err = "Mkdir("+a+")", fsys.Mkdir(a, 0o755)
			case 2:
				what, err = "Remove("+a+")", fsys.Remove(a)
			case 3:
				what, err = "Rename("+a+", "+b+")", fsys.Rename(a, b)
			case 4:
				what, err = "Chmod("+a+")", fsys.Chmod(a, 0o600)
			}
			prog = prog[3:]
			if err != nil {
				if !sameDump(before, dump(t, db)) {
					t.Fatalf("step %d: %s failed (%v) and changed the stores", step, what, err)
				}
				continue
			}
			checkWhole(t, db)
			switch {
			case strings.HasPrefix(what, "WriteFile"):
				if got, err := fsys.ReadFile(a); err != nil || !bytes.Equal(got, data) {
					t.Fatalf("step %d: after %s: %q, %v", step, what, got, err)
				}
			case strings.HasPrefix(what, "Remove"), strings.HasPrefix(what, "Rename") && a != b:
				if _, err := fsys.Stat(a); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("step %d: after %s: Stat(%s) = %v", step, what, a, err)
				}
			}
		}
	})
}

// checkWhole checks that db holds one tree, whole (see FuzzFSWrites).
func checkWhole(t *testing.T, db Backend) {
	t.Helper()
	d := dump(t, db)
	files := map[string]int64{} // every file, by key, and its size
	for key, v := range d[StoreFiles] {
		p, err := pathOfKey(key)
		if err != nil {
			t.Fatal(err)
		}
		r, err := decodeRecord(key, v)
		if err != nil {
			t.Fatal(err)
		}
		if dir := path.Dir(p); dir != "." {
			if parent, ok := d[StoreFiles][fileKey(dir)]; !ok {
				t.Fatalf("%s has no directory", p)
			} else if pr, _ := decodeRecord(fileKey(dir), parent); !pr.mode.IsDir() {
				t.Fatalf("%s is in a file", p)
			}
		}
		if !r.mode.IsDir() {
			files[key] = r.size
		}
		for _, e := range r.files {
			k := fileKey(p + "/" + e.name)
			if _, twice := files[k]; twice || d[StoreFiles][k] != nil {
				t.Fatalf("%s is listed twice", k)
			}
			files[k] = e.size
		}
	}
	for k, size := range files {
		if v, ok := d[StoreBlobs][k]; !ok || int64(len(v)) != size {
			t.Fatalf("%s: contents %q, listed with %d bytes", k, v, size)
		}
	}
	for k := range d[StoreBlobs] {
		if _, ok := files[k]; !ok {
			t.Fatalf("contents %s belong to no file", k)
		}
	}
}
