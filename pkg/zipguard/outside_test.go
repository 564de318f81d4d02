package zipguard

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"strings"
	"testing"
)

// prose returns n bytes of text that compresses about 3:1, like a
// skill's scripts.
func prose(n int) []byte {
	words := strings.Fields("the a skill file slide table chart font style theme script render page text value list")
	rng := rand.New(rand.NewPCG(uint64(n), 14))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(" \n"[rng.IntN(2)])
	}
	return b.Bytes()[:n]
}

// streamMin is the size from which the browser streams an entry
// (js/outside.ts: smaller ones it inflates in one call).
const streamMin = 64 << 10

// outsideCorpus holds lies ReadOutside's batch sees in entries that the
// browser streams (hostileCorpus has the small ones).
func outsideCorpus() []hostile {
	big := prose(streamMin * 2)
	bad := func(name, reason, subject string, edit func(*zip.FileHeader, []byte) []byte) hostile {
		return hostile{name: "outside: " + name, code: "InvalidArchive", reason: reason, subject: subject,
			zip: func(t testing.TB) []byte {
				h, body := deflated(t, subject, big)
				body = edit(&h, body)
				return build(t, file("SKILL.md", skillMD), file("ok.md", string(big)), raw(h, body))
			}}
	}
	return []hostile{
		bad("header understates the size", "size-mismatch", "under.md", func(h *zip.FileHeader, b []byte) []byte {
			h.UncompressedSize64 = streamMin
			h.CRC32 = crc32.ChecksumIEEE(big[:streamMin])
			return b
		}),
		bad("header overstates the size", "size-mismatch", "over.md", func(h *zip.FileHeader, b []byte) []byte {
			h.UncompressedSize64 += 10
			return b
		}),
		bad("checksum", "checksum", "crc.md", func(h *zip.FileHeader, b []byte) []byte {
			h.CRC32++
			return b
		}),
		bad("corrupt deflate", "corrupt", "corrupt.md", func(h *zip.FileHeader, b []byte) []byte {
			return bytes.Repeat([]byte{0xff}, len(b))
		}),
		bad("deflate cut short", "size-mismatch", "short.md", func(h *zip.FileHeader, b []byte) []byte {
			h.CompressedSize64 = uint64(len(b) / 2)
			return b[:len(b)/2]
		}),
		bad("bytes after the stream, before its data descriptor", "gap", "hid.md", func(h *zip.FileHeader, b []byte) []byte {
			b = append(b, sigDescriptor+"a descriptor and entries only a stream reader sees"...)
			h.Flags |= flagDescriptor
			h.CompressedSize64 = uint64(len(b))
			return b
		}),
		bad("stored, checksum", "checksum", "stored.bin", func(h *zip.FileHeader, b []byte) []byte {
			h.Method, h.CompressedSize64, h.CRC32 = zip.Store, h.UncompressedSize64, h.CRC32+1
			return big
		}),
		bad("stored, longer than declared", "size-mismatch", "long.bin", func(h *zip.FileHeader, b []byte) []byte {
			h.Method, h.CompressedSize64, h.UncompressedSize64 = zip.Store, h.UncompressedSize64, h.UncompressedSize64-1
			return big
		}),
	}
}

// TestReadOutsideRefusesAsRead: every archive Read refuses, ReadOutside
// refuses with the same code, reason and entry.
func TestReadOutsideRefusesAsRead(t *testing.T) {
	for _, h := range append(hostileCorpus(), outsideCorpus()...) {
		t.Run(h.name, func(t *testing.T) {
			data := h.zip(t)
			expectRefusal(t, Read, h, data)
			expectRefusal(t, func(d []byte, l Limits) (*Archive, error) { return ReadOutside(l, testOutside(t, d)) }, h, data)
		})
	}
}

// TestReadOutsideContent: ReadOutside returns Read's tree and content,
// every file held outside Go, for files small and large, deflated and
// stored, empty and executable.
func TestReadOutsideContent(t *testing.T) {
	ents := []zent{file("pdf/SKILL.md", skillMD), file("pdf/empty.md", ""), withMode("pdf/run.sh", 0o755)}
	for i, n := range []int{100, streamMin - 1, streamMin, 3 * streamMin, 1 << 20} {
		ents = append(ents, file(fmt.Sprintf("pdf/ref/%d.md", i), string(prose(n))))
		data := prose(n)
		ents = append(ents, raw(zip.FileHeader{Name: fmt.Sprintf("pdf/stored/%d.bin", i), Method: zip.Store,
			CRC32: crc32.ChecksumIEEE(data), CompressedSize64: uint64(n), UncompressedSize64: uint64(n)}, data))
	}
	ents = append(ents, file("docs/SKILL.md", skillMD), file("README.md", "outside"))
	data := build(t, ents...)
	want, err := Read(data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadOutside(Limits{}, testOutside(t, data))
	if err != nil {
		t.Fatal(err)
	}
	if got.Layout != want.Layout || fmt.Sprint(got.Dropped) != fmt.Sprint(want.Dropped) || len(got.Skills) != len(want.Skills) || len(got.Files) != len(want.Files) {
		t.Fatalf("ReadOutside: %s, %d skills, %d files, dropped %q; Read: %s, %d, %d, %q",
			got.Layout, len(got.Skills), len(got.Files), got.Dropped, want.Layout, len(want.Skills), len(want.Files), want.Dropped)
	}
	for i, f := range got.Files {
		w := want.Files[i]
		if f.Data != nil || f.Ext == nil {
			t.Errorf("%s: held in Go", f.Path)
			continue
		}
		if f.Path != w.Path || f.Mode != w.Mode || !f.Modified.Equal(w.Modified) || !bytes.Equal(f.Ext.Copy(), w.Data) {
			t.Errorf("%s: %v %v, %d bytes; Read: %s %v %v, %d bytes", f.Path, f.Mode, f.Modified, f.Ext.Len(), w.Path, w.Mode, w.Modified, len(w.Data))
		}
	}
	for i, s := range got.Skills {
		for j, f := range s.Files {
			if f.Ext == nil || f.Path != want.Skills[i].Files[j].Path {
				t.Errorf("skill %s, file %d: %s", s.Dir, j, f.Path)
			}
		}
	}
}
