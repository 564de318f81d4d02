package vfs

import (
	"io/fs"
	"path"
	"strings"
	"testing"
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
