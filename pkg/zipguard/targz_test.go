package zipguard

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tent is one tar entry for tarball.
type tent struct {
	h    tar.Header
	data string
}

func tfile(name, data string) tent {
	return tent{h: tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data))}, data: data}
}
func tdir(name string) tent {
	return tent{h: tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755}}
}
func tlink(name string, typ byte, target string) tent {
	return tent{h: tar.Header{Name: name, Typeflag: typ, Linkname: target, Mode: 0o777}}
}
func tspecial(name string, typ byte) tent {
	return tent{h: tar.Header{Name: name, Typeflag: typ, Mode: 0o644}}
}

// tarRaw writes ents as an uncompressed tar archive.
func tarRaw(t testing.TB, ents ...tent) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for _, e := range ents {
		h := e.h
		if err := w.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gz compresses b as one gzip member.
func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tarConcat joins tar archives into one, dropping the end marker of all
// but the last.
func tarConcat(parts ...[]byte) []byte {
	var out []byte
	for i, p := range parts {
		if i < len(parts)-1 {
			p = p[:len(p)-2*512]
		}
		out = append(out, p...)
	}
	return out
}

// paxHeader returns a tar holding one pax extended header ('x') with
// records, which applies to the entry after it.
func paxHeader(t testing.TB, records map[string]string) []byte {
	var body string
	for k, v := range records {
		rec := " " + k + "=" + v + "\n"
		n := len(rec)
		for len(strconv.Itoa(n+len(strconv.Itoa(n)))) != len(strconv.Itoa(n)) {
			n++
		}
		n += len(strconv.Itoa(n))
		body += strconv.Itoa(n) + rec
	}
	return retyped(tarRaw(t, tfile("PaxHeaders/x", body)), tar.TypeXHeader)
}

// gnuLongName returns a tar holding one GNU long name header ('L'), which
// names the entry after it.
func gnuLongName(t testing.TB, name string) []byte {
	return retyped(tarRaw(t, tfile("././@LongLink", name+"\x00")), tar.TypeGNULongName)
}

// retyped returns the tar b, its first header patched to type typ and its
// checksum fixed: archive/tar's writer refuses to write such headers by
// hand.
func retyped(b []byte, typ byte) []byte {
	b[156] = typ
	copy(b[148:156], "        ")
	sum := 0
	for _, c := range b[:512] {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

func tarball(t testing.TB, ents ...tent) []byte { return gz(t, tarRaw(t, ents...)) }

// tarCorpus holds .tar.gz archives ReadTarGz must refuse: the zip corpus's
// classes in tar's spelling, and what only tar can say.
func tarCorpus() []hostile {
	one := func(ents ...tent) func(testing.TB) []byte {
		return func(t testing.TB) []byte { return tarball(t, append([]tent{tfile("SKILL.md", skillMD)}, ents...)...) }
	}
	path := func(name, reason string) hostile {
		return hostile{name: "path " + name, zip: one(tfile(name, "x")), code: "PathRejected", reason: reason, subject: name}
	}
	bad := func(name, reason, subject string, z func(testing.TB) []byte) hostile {
		return hostile{name: name, zip: z, code: "InvalidArchive", reason: reason, subject: subject}
	}
	return []hostile{
		path("../evil.sh", "dot-dot"),
		path("scripts/../../evil.sh", "dot-dot"),
		path("/etc/passwd", "absolute"),
		path(`..\evil`, "backslash"),
		path("a/b:stream", "colon"),
		bad("symlink in the skill", ReasonSymlink, "link", one(tlink("link", tar.TypeSymlink, "/etc/passwd"))),
		bad("hard link in the skill", ReasonHardlink, "hard", one(tlink("hard", tar.TypeLink, "SKILL.md"))),
		bad("character device", ReasonSpecialFile, "zero", one(tspecial("zero", tar.TypeChar))),
		bad("block device", ReasonSpecialFile, "sda", one(tspecial("sda", tar.TypeBlock))),
		bad("fifo", ReasonSpecialFile, "fifo", one(tspecial("fifo", tar.TypeFifo))),
		bad("sparse file", ReasonSpecialFile, "sparse.bin", func(t testing.TB) []byte {
			// GNU sparse 1.0: the map "one region at 0, 4 bytes long" then
			// the data; the file reads as 1,000 bytes.
			m := "1\n0\n4\n" + strings.Repeat("\x00", 512-6) + "data"
			return gz(t, tarConcat(tarRaw(t, tfile("SKILL.md", skillMD)),
				paxHeader(t, map[string]string{"GNU.sparse.major": "1", "GNU.sparse.minor": "0", "GNU.sparse.name": "sparse.bin", "GNU.sparse.realsize": "1000"}),
				tarRaw(t, tfile("GNUSparseFile.0/sparse.bin", m))))
		}),
		bad("duplicate", ReasonDuplicate, "SKILL.md", one(tfile("SKILL.md", "again"))),
		bad("case collision", ReasonCollision, "A.md", one(tfile("a.md", "1"), tfile("A.md", "2"))),
		bad("file vs directory", ReasonCollision, "x/y.md", one(tfile("x", "1"), tfile("x/y.md", "2"))),
		bad("pax size override", ReasonHeaderMismatch, "big.md", func(t testing.TB) []byte {
			// A reader that ignores pax headers reads 600 bytes of data;
			// archive/tar reads 3 and then a header hidden in the rest.
			return gz(t, tarConcat(tarRaw(t, tfile("SKILL.md", skillMD)), paxHeader(t, map[string]string{"size": "3"}),
				tarRaw(t, tfile("big.md", strings.Repeat("a", 600)))))
		}),
		bad("GNU long name and pax path disagree", ReasonHeaderMismatch, "notes.md", func(t testing.TB) []byte {
			// GNU tar reads scripts/run.sh; archive/tar, notes.md.
			return gz(t, tarConcat(tarRaw(t, tfile("SKILL.md", skillMD)), gnuLongName(t, "notes.md"),
				paxHeader(t, map[string]string{"path": "scripts/run.sh"}), tarRaw(t, tfile("x.md", "echo evil\n"))))
		}),
		bad("pax global header setting paths", ReasonGlobalHeader, "", func(t testing.TB) []byte {
			return tarball(t, tent{h: tar.Header{Name: "pax_global_header", Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"path": "evil.sh"}}}, tfile("SKILL.md", skillMD))
		}),
		{name: "ratio", zip: one(tfile("zeros.bin", strings.Repeat("\x00", 4<<20))), code: "InvalidArchive", reason: ReasonRatio},
		{name: "stream over the limit", zip: one(tfile("a.bin", strings.Repeat("ab", 32<<10))),
			limits: Limits{MaxTotalSize: 16 << 10, MaxEntries: 4}, code: "InvalidArchive", reason: ReasonTotalTooLarge},
		{name: "file too large", zip: one(tfile("big.md", skillMD+"!")), limits: Limits{MaxFileSize: int64(len(skillMD))}, code: "InvalidArchive", reason: ReasonFileTooLarge, subject: "big.md"},
		{name: "total too large", zip: one(tfile("a.md", "0123456789"), tfile("b.md", "0123456789")), limits: Limits{MaxTotalSize: int64(len(skillMD)) + 15}, code: "InvalidArchive", reason: ReasonTotalTooLarge, subject: "b.md"},
		{name: "too many entries", zip: one(tfile("a", "1"), tfile("b", "2"), tfile("c", "3")), limits: Limits{MaxEntries: 3}, code: "InvalidArchive", reason: ReasonTooManyEntries},
		{name: "too deep", zip: one(tfile("a/b/c/d.md", "x")), limits: Limits{MaxDepth: 3}, code: "InvalidArchive", reason: ReasonTooDeep, subject: "a/b/c/d.md"},
		{name: "names too long", zip: one(tfile("0123456789.md", "x")), limits: Limits{MaxNameBytes: 20}, code: "InvalidArchive", reason: ReasonNamesTooLong, subject: "0123456789.md"},
		{name: "archive too large", zip: one(tfile("a", "1")), limits: Limits{MaxArchiveSize: 20}, code: "InvalidArchive", reason: ReasonArchiveTooLarge},
		bad("data after the end marker", ReasonTrailing, "", func(t testing.TB) []byte {
			return gz(t, append(tarRaw(t, tfile("SKILL.md", skillMD)), "junk"...))
		}),
		bad("second tar after the end marker", ReasonTrailing, "", func(t testing.TB) []byte {
			return gz(t, append(tarRaw(t, tfile("SKILL.md", skillMD)), tarRaw(t, tfile("evil.sh", "x"))...))
		}),
		bad("garbage after the gzip stream", ReasonCorrupt, "", func(t testing.TB) []byte {
			return append(tarball(t, tfile("SKILL.md", skillMD)), strings.Repeat("junk", 8)...)
		}),
		bad("gzip checksum", ReasonChecksum, "", func(t testing.TB) []byte {
			z := tarball(t, tfile("SKILL.md", skillMD))
			z[len(z)-8]++ // the CRC-32 in the gzip trailer
			return z
		}),
		bad("truncated", ReasonTruncated, "", func(t testing.TB) []byte {
			z := tarball(t, tfile("SKILL.md", skillMD), tfile("b.md", strings.Repeat("x", 4000)))
			return z[:len(z)/2]
		}),
		bad("gzip of something else", ReasonCorrupt, "", func(t testing.TB) []byte { return gz(t, []byte(strings.Repeat("hello ", 200))) }),
		bad("not gzip", ReasonNotTarGz, "", func(t testing.TB) []byte { return []byte("hello") }),
		bad("no skill", ReasonNoSkill, "", func(t testing.TB) []byte { return tarball(t, tfile("README.md", "x")) }),
		bad("lowercase skill.md", ReasonNoSkill, "pdf/skill.md", func(t testing.TB) []byte { return tarball(t, tfile("pdf/skill.md", skillMD)) }),
	}
}

func TestReadTarGzRejectsHostileArchives(t *testing.T) {
	for _, h := range tarCorpus() {
		t.Run(h.name, func(t *testing.T) {
			z := h.zip(t)
			expectRefusal(t, ReadTarGz, h, z)
			if h.reason != ReasonNotTarGz {
				expectRefusal(t, ReadAny, h, z)
			}
		})
	}
}

func TestReadTarGzLayouts(t *testing.T) {
	gitGlobal := tent{h: tar.Header{Name: "pax_global_header", Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "4f1c0a2e9b7d3c5a8e6f0b1d2c3a4e5f6a7b8c9d"}}}
	for _, tc := range []struct {
		name    string
		ents    []tent
		layout  Layout
		skills  []skillView
		dropped []string
	}{
		{
			name:   "SKILL.md at the root (discovery RFC)",
			ents:   []tent{tdir("./"), tfile("./SKILL.md", skillMD), tdir("./scripts/"), tfile("./scripts/run.py", "print(1)")},
			layout: LayoutRoot,
			skills: []skillView{{Dir: ".", Files: []string{"SKILL.md", "scripts/run.py"}}},
		},
		{
			name:   "one wrapper folder",
			ents:   []tent{tdir("pdf/"), tfile("pdf/SKILL.md", skillMD), tfile("pdf/forms.md", "f")},
			layout: LayoutWrapped,
			skills: []skillView{{Dir: "pdf", Name: "pdf", Files: []string{"SKILL.md", "forms.md"}}},
		},
		{
			name: "a repository tarball: git's global header, links outside skills",
			ents: []tent{gitGlobal, tdir("repo-main/"), tfile("repo-main/CLAUDE.md", "c"), tlink("repo-main/AGENTS.md", tar.TypeSymlink, "CLAUDE.md"),
				tlink("repo-main/hard", tar.TypeLink, "repo-main/CLAUDE.md"), tspecial("repo-main/fifo", tar.TypeFifo),
				tfile("repo-main/skills/a/SKILL.md", skillMD), tfile("repo-main/skills/b/SKILL.md", skillMD)},
			layout:  LayoutPack,
			skills:  []skillView{{Dir: "repo-main/skills/a", Name: "a", Files: []string{"SKILL.md"}}, {Dir: "repo-main/skills/b", Name: "b", Files: []string{"SKILL.md"}}},
			dropped: []string{"repo-main/CLAUDE.md", "repo-main/AGENTS.md", "repo-main/hard", "repo-main/fifo"},
		},
		{
			name:    "clutter dropped",
			ents:    []tent{tfile("pdf/SKILL.md", skillMD), tfile("pdf/._SKILL.md", "x"), tfile("pdf/.DS_Store", "x")},
			layout:  LayoutWrapped,
			skills:  []skillView{{Dir: "pdf", Name: "pdf", Files: []string{"SKILL.md"}}},
			dropped: []string{"pdf/._SKILL.md", "pdf/.DS_Store"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, read := range []func([]byte, Limits) (*Archive, error){ReadTarGz, ReadAny} {
				a, err := read(tarball(t, tc.ents...), Limits{})
				if err != nil {
					t.Fatal(err)
				}
				_, skills := view(a)
				if a.Layout != tc.layout || !reflect.DeepEqual(skills, tc.skills) || !slices.Equal(a.Dropped, tc.dropped) {
					t.Errorf("layout %q, skills %+v, dropped %q; want %q, %+v, %q", a.Layout, skills, a.Dropped, tc.layout, tc.skills, tc.dropped)
				}
			}
		})
	}
}

// TestReadTarGzContent: content, executable bits and the zip reader's
// result for the same files are the same.
func TestReadTarGzContent(t *testing.T) {
	run := tfile("pdf/scripts/run.sh", "#!/bin/sh\n")
	run.h.Mode = 0o755
	ta, err := ReadTarGz(tarball(t, tfile("pdf/SKILL.md", skillMD), run), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	za, err := Read(build(t, file("pdf/SKILL.md", skillMD), zent{name: "pdf/scripts/run.sh", data: "#!/bin/sh\n", mode: 0o755}), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ta.Files {
		tf, zf := ta.Files[i], za.Files[i]
		if tf.Path != zf.Path || string(tf.Data) != string(zf.Data) || tf.Mode != zf.Mode {
			t.Errorf("tar gives %q %q %v, zip %q %q %v", tf.Path, tf.Data, tf.Mode, zf.Path, zf.Data, zf.Mode)
		}
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		data []byte
		want Format
	}{{tarball(t, tfile("SKILL.md", skillMD)), FormatTarGz}, {build(t, file("SKILL.md", skillMD)), FormatZip}, {[]byte("PK\x05\x06"), FormatZip}, {[]byte("hello"), ""}, {nil, ""}} {
		if got := Sniff(tc.data); got != tc.want {
			t.Errorf("Sniff(%q…) = %q, want %q", tc.data[:min(len(tc.data), 4)], got, tc.want)
		}
	}
	if _, err := ReadAny([]byte("hello"), Limits{}); err == nil || !strings.Contains(err.Error(), "neither a zip nor") {
		t.Errorf("ReadAny(hello) = %v", err)
	}
}
