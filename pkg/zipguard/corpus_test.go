package zipguard

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io/fs"
	"testing"
)

// The archives in this file are built in memory: the tests also run in a
// browser, where there is no host file system to keep fixtures in.

// entry kinds for build.
type zent struct {
	name string
	data string
	mode fs.FileMode // 0: a plain file
	// raw, when set, is written with CreateRaw: its sizes, CRC, method and
	// flags are whatever the test says, and body is the data as stored.
	raw  *zip.FileHeader
	body []byte
}

func file(name, data string) zent              { return zent{name: name, data: data} }
func withMode(name string, m fs.FileMode) zent { return zent{name: name, data: "x", mode: m} }
func raw(h zip.FileHeader, body []byte) zent   { return zent{name: h.Name, raw: &h, body: body} }
func dirEntry(name string) zent                { return zent{name: name, mode: fs.ModeDir | 0o755} }

// build writes ents as a zip archive.
func build(t testing.TB, ents ...zent) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range ents {
		if e.raw != nil {
			fw, err := w.CreateRaw(e.raw)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fw.Write(e.body); err != nil {
				t.Fatal(err)
			}
			continue
		}
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// deflate returns data compressed as a zip entry stores it.
func deflate(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(data)
	fw.Close()
	return buf.Bytes()
}

// deflated returns a raw entry whose header tells the truth unless the
// caller edits it.
func deflated(t testing.TB, name string, data []byte) (zip.FileHeader, []byte) {
	body := deflate(t, data)
	return zip.FileHeader{
		Name:               name,
		Method:             zip.Deflate,
		CRC32:              crc32.ChecksumIEEE(data),
		CompressedSize64:   uint64(len(body)),
		UncompressedSize64: uint64(len(data)),
	}, body
}

// centralHeaders returns the offsets of the central directory headers in z,
// in order.
func centralHeaders(z []byte) []int {
	var offs []int
	for i := 0; i+4 <= len(z); i++ {
		if bytes.Equal(z[i:i+4], []byte("PK\x01\x02")) {
			offs = append(offs, i)
		}
	}
	return offs
}

// Field offsets inside a central directory header.
const (
	cdCompressedSize = 20
	cdLocalOffset    = 42
)

// overlapShared is the overlapping-file bomb in its simplest form: the
// second central directory entry points at the first entry's local header,
// so the same compressed bytes would be inflated twice.
func overlapShared(t testing.TB) []byte {
	z := build(t, file("SKILL.md", "---\nname: a\n---\n"), file("b.md", "second"))
	cd := centralHeaders(z)
	first := binary.LittleEndian.Uint32(z[cd[0]+cdLocalOffset:])
	binary.LittleEndian.PutUint32(z[cd[1]+cdLocalOffset:], first)
	return z
}

// overlapQuoted is the variant where an entry's data runs over the next
// entry's local header, as Fifield's quoting construction does.
func overlapQuoted(t testing.TB) []byte {
	z := build(t, file("SKILL.md", "---\nname: a\n---\n"), file("b.md", "second"))
	cd := centralHeaders(z)
	size := binary.LittleEndian.Uint32(z[cd[0]+cdCompressedSize:])
	binary.LittleEndian.PutUint32(z[cd[0]+cdCompressedSize:], size+64)
	return z
}

// hostile is one archive Read must refuse.
type hostile struct {
	name    string
	zip     func(testing.TB) []byte
	limits  Limits
	code    string // "PathRejected" or "InvalidArchive"
	reason  string
	subject string
}

const skillMD = "---\nname: x\ndescription: y\n---\nbody\n"

func hostileCorpus() []hostile {
	one := func(ents ...zent) func(testing.TB) []byte {
		return func(t testing.TB) []byte { return build(t, append([]zent{file("SKILL.md", skillMD)}, ents...)...) }
	}
	zeros := func(n int) []byte { return make([]byte, n) }
	path := func(name, reason string) hostile {
		return hostile{name: "path " + name, zip: one(file(name, "x")), code: "PathRejected", reason: reason, subject: name}
	}
	bad := func(name, reason, subject string, z func(testing.TB) []byte) hostile {
		return hostile{name: name, zip: z, code: "InvalidArchive", reason: reason, subject: subject}
	}
	return []hostile{
		// Zip slip in every spelling.
		path("../evil.sh", "dot-dot"),
		path("scripts/../../evil.sh", "dot-dot"),
		path("a/..", "dot-dot"),
		path(`..\evil.sh`, "backslash"),
		path(`scripts\..\..\evil`, "backslash"),
		path("/etc/passwd", "absolute"),
		path(`C:\Windows\evil.dll`, "drive-letter"),
		path("c:/evil", "drive-letter"),
		path("%2e%2e/evil", "percent-encoded"),
		path("..%2fevil", "percent-encoded"),
		path("..%5cevil", "percent-encoded"),
		path("..\uff0fevil", "lookalike"),      // fullwidth solidus
		path("..\uff3cevil", "lookalike"),      // fullwidth reverse solidus
		path("\uff0e\uff0e/evil", "lookalike"), // fullwidth full stops
		path("\u2025/evil", "lookalike"),       // two-dot leader
		path("..\u2215evil", "lookalike"),      // division slash
		path("..\u2044evil", "lookalike"),      // fraction slash
		path("..\u29f8evil", "lookalike"),      // big solidus
		path("evil\x00.md", "nul"),
		path("evil\n.md", "control-char"),
		path("evil\u202egpj.sh", "format-char"),
		path("evil\xff.md", "not-utf8"),
		path("a/b:stream", "colon"),
		path("CON.md", "reserved"),
		// Entry types, flags and methods.
		bad("symlink", "symlink", "link", one(withMode("link", fs.ModeSymlink|0o777))),
		bad("named pipe", "special-file", "fifo", one(withMode("fifo", fs.ModeNamedPipe|0o644))),
		bad("device", "special-file", "dev", one(withMode("dev", fs.ModeDevice|0o644))),
		bad("encrypted", "encrypted", "secret.md", func(t testing.TB) []byte {
			h, body := deflated(t, "secret.md", []byte("secret"))
			h.Flags = 0x1
			return build(t, file("SKILL.md", skillMD), raw(h, body))
		}),
		bad("bzip2", "unsupported-method", "data.bin", func(t testing.TB) []byte {
			return build(t, file("SKILL.md", skillMD), raw(zip.FileHeader{Name: "data.bin", Method: 12, CompressedSize64: 4, UncompressedSize64: 4}, []byte("BZh9")))
		}),
		bad("empty name", "empty-name", "", one(file("", "x"))),
		// Names that clash.
		bad("duplicate", "duplicate", "SKILL.md", one(file("SKILL.md", "again"))),
		bad("case collision", "collision", "A.md", one(file("a.md", "1"), file("A.md", "2"))),
		bad("case collision of SKILL.md", "collision", "skill.md", one(file("skill.md", "2"))),
		bad("NFC vs NFD", "collision", "caf\u0065\u0301.md", one(file("caf\u00e9.md", "1"), file("caf\u0065\u0301.md", "2"))),
		bad("directory case collision", "collision", "Ref/b.md", one(file("ref/a.md", "1"), file("Ref/b.md", "2"))),
		bad("file vs directory", "collision", "x/y.md", one(file("x", "1"), file("x/y.md", "2"))),
		bad("directory entry vs file", "collision", "x", one(dirEntry("x/"), file("x", "1"))),
		bad("fold collision", "collision", "STRASSE.md", one(file("stra\u00dfe.md", "1"), file("STRASSE.md", "2"))),
		// Bombs.
		bad("overlap, shared header", "overlap", "b.md", overlapShared),
		bad("overlap, quoted header", "overlap", "b.md", overlapQuoted),
		bad("ratio, one file", "ratio", "zeros.bin", func(t testing.TB) []byte {
			h, body := deflated(t, "zeros.bin", zeros(1<<20))
			return build(t, file("SKILL.md", skillMD), raw(h, body))
		}),
		{name: "ratio, whole archive", zip: func(t testing.TB) []byte {
			a, abody := deflated(t, "a.bin", zeros(3<<10))
			b, bbody := deflated(t, "b.bin", zeros(3<<10))
			return build(t, file("SKILL.md", skillMD), raw(a, abody), raw(b, bbody))
		}, limits: Limits{MaxRatio: 20, RatioMinSize: 4 << 10}, code: "InvalidArchive", reason: "ratio", subject: ""},
		bad("header understates the size", "size-mismatch", "liar.bin", func(t testing.TB) []byte {
			h, body := deflated(t, "liar.bin", zeros(1<<20))
			h.UncompressedSize64 = 100
			return build(t, file("SKILL.md", skillMD), raw(h, body))
		}),
		bad("header overstates the size", "size-mismatch", "liar.md", func(t testing.TB) []byte {
			h, body := deflated(t, "liar.md", []byte("short"))
			h.UncompressedSize64 = 50
			return build(t, file("SKILL.md", skillMD), raw(h, body))
		}),
		bad("bytes after the stream, before its data descriptor", "gap", "hid.md", func(t testing.TB) []byte {
			h, body := deflated(t, "hid.md", []byte("content"))
			h.Flags |= flagDescriptor
			body = append(body, sigDescriptor+"a descriptor and entries only a stream reader sees"...)
			h.CompressedSize64 = uint64(len(body))
			return build(t, file("SKILL.md", skillMD), raw(h, body))
		}),
		bad("an entry only a stream reader sees, after the stream", "gap", "hid.md", func(t testing.TB) []byte {
			h, body := deflated(t, "hid.md", []byte("content"))
			h.Flags |= flagDescriptor
			body = append(body, "0123456789ab"+sigLocal+"a local header no central entry lists"...)
			h.CompressedSize64 = uint64(len(body))
			return build(t, file("SKILL.md", skillMD), raw(h, body))
		}),
		bad("stored entry longer than declared", "size-mismatch", "liar.txt", func(t testing.TB) []byte {
			return build(t, file("SKILL.md", skillMD), raw(zip.FileHeader{Name: "liar.txt", Method: zip.Store, CRC32: crc32.ChecksumIEEE([]byte("abc")), CompressedSize64: 6, UncompressedSize64: 3}, []byte("abcdef")))
		}),
		bad("checksum", "checksum", "bad.md", func(t testing.TB) []byte {
			h, body := deflated(t, "bad.md", []byte("content"))
			h.CRC32++
			return build(t, file("SKILL.md", skillMD), raw(h, body))
		}),
		bad("zero checksum", "checksum", "bad.md", func(t testing.TB) []byte {
			h, body := deflated(t, "bad.md", []byte("content"))
			h.CRC32 = 0
			return build(t, file("SKILL.md", skillMD), raw(h, body))
		}),
		bad("corrupt deflate", "corrupt", "bad.md", func(t testing.TB) []byte {
			return build(t, file("SKILL.md", skillMD), raw(zip.FileHeader{Name: "bad.md", Method: zip.Deflate, CRC32: 1, CompressedSize64: 4, UncompressedSize64: 10}, []byte{0xff, 0xff, 0xff, 0xff}))
		}),
		// Limits, lowered so the fixtures stay small.
		{name: "archive too large", zip: one(file("a", "1")), limits: Limits{MaxArchiveSize: 100}, code: "InvalidArchive", reason: "archive-too-large"},
		{name: "too many entries", zip: one(file("a", "1"), file("b", "2"), file("c", "3")), limits: Limits{MaxEntries: 3}, code: "InvalidArchive", reason: "too-many-entries"},
		{name: "file too large", zip: one(file("big.md", skillMD+"!")), limits: Limits{MaxFileSize: int64(len(skillMD))}, code: "InvalidArchive", reason: "file-too-large", subject: "big.md"},
		{name: "total too large", zip: one(file("a.md", "0123456789"), file("b.md", "0123456789")), limits: Limits{MaxTotalSize: int64(len(skillMD)) + 15}, code: "InvalidArchive", reason: "total-too-large", subject: "b.md"},
		{name: "too deep", zip: one(file("a/b/c/d.md", "x")), limits: Limits{MaxDepth: 3}, code: "InvalidArchive", reason: "too-deep", subject: "a/b/c/d.md"},
		{name: "too deep outside every skill", zip: one(file("docs/a/b/c.md", "x")), limits: Limits{MaxDepth: 3}, code: "InvalidArchive", reason: "too-deep", subject: "docs/a/b/c.md"},
		{name: "names too long", zip: one(file("0123456789.md", "x")), limits: Limits{MaxNameBytes: 20}, code: "InvalidArchive", reason: "names-too-long", subject: "0123456789.md"},
		// Default limits, with a header that declares 10 MiB + 1 and
		// holds nothing: rejected before anything is inflated.
		bad("file over the default limit", "file-too-large", "huge.bin", func(t testing.TB) []byte {
			return build(t, file("SKILL.md", skillMD), raw(zip.FileHeader{Name: "huge.bin", Method: zip.Deflate, UncompressedSize64: 10<<20 + 1, CompressedSize64: 64 << 10}, make([]byte, 64<<10)))
		}),
		// Not zips.
		bad("not a zip", "not-a-zip", "", func(testing.TB) []byte { return []byte("hello, world") }),
		bad("empty input", "not-a-zip", "", func(testing.TB) []byte { return nil }),
		bad("truncated", "truncated", "", func(t testing.TB) []byte {
			z := build(t, file("SKILL.md", skillMD), file("b.md", "second"))
			return z[:len(z)-30]
		}),
		// No skill.
		bad("no skill", "no-skill", "", only(file("README.md", "hi"))),
		bad("lowercase skill.md", "no-skill", "pdf/skill.md", only(file("pdf/skill.md", skillMD))),
		bad("empty archive", "no-skill", "", only()),
		bad("only junk", "no-skill", "", only(file("__MACOSX/._SKILL.md", "x"), file(".DS_Store", "x"))),
	}
}

// only builds an archive of exactly ents, without a SKILL.md.
func only(ents ...zent) func(testing.TB) []byte {
	return func(t testing.TB) []byte { return build(t, ents...) }
}
