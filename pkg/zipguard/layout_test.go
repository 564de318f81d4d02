package zipguard

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"slices"
	"testing"

	"github.com/skillfs/skillfs/pkg/pace/pacetest"
)

// layoutCorpus holds archives that archive/zip reads but that other readers
// (stream readers such as fflate, unzip, a second archive's reader) read
// differently; Read must refuse each with its reason.
func layoutCorpus() []hostile {
	good := func(t testing.TB) []byte {
		return build(t, file("SKILL.md", skillMD), file("b.md", "second"))
	}
	// stored builds entries whose local headers state CRC and sizes, as
	// most archivers write them (no data descriptor).
	stored := func(t testing.TB) []byte {
		h1, b1 := deflated(t, "SKILL.md", []byte(skillMD))
		h2, b2 := deflated(t, "b.md", []byte("second"))
		return build(t, raw(h1, b1), raw(h2, b2))
	}
	bad := func(name, reason, subject string, z func(testing.TB) []byte) hostile {
		return hostile{name: name, zip: z, code: "InvalidArchive", reason: reason, subject: subject}
	}
	patch := func(z func(testing.TB) []byte, edit func([]byte) []byte) func(testing.TB) []byte {
		return func(t testing.TB) []byte { return edit(z(t)) }
	}
	return []hostile{
		bad("PNG polyglot prefix", ReasonPrefix, "", patch(good, func(z []byte) []byte {
			return append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), z...)
		})),
		bad("script prefix with fixed offsets", ReasonPrefix, "", func(t testing.TB) []byte {
			prefix := []byte("#!/bin/sh\necho hi\nexit 0\n")
			var buf bytes.Buffer
			buf.Write(prefix)
			w := zip.NewWriter(&buf)
			w.SetOffset(int64(len(prefix)))
			fw, _ := w.Create("SKILL.md")
			fw.Write([]byte(skillMD))
			w.Close()
			return buf.Bytes()
		}),
		bad("trailing bytes", ReasonTrailing, "", patch(good, func(z []byte) []byte { return append(z, "junk"...) })),
		bad("second archive in the comment", ReasonSecondArchive, "", func(t testing.TB) []byte {
			inner := build(t, file("SKILL.md", "---\nname: other\ndescription: evil\n---\n"))
			var buf bytes.Buffer
			w := zip.NewWriter(&buf)
			fw, _ := w.Create("SKILL.md")
			fw.Write([]byte(skillMD))
			w.SetComment(string(inner))
			w.Close()
			return buf.Bytes()
		}),
		bad("end record signature in the comment", ReasonSecondArchive, "", func(t testing.TB) []byte {
			var buf bytes.Buffer
			w := zip.NewWriter(&buf)
			fw, _ := w.Create("SKILL.md")
			fw.Write([]byte(skillMD))
			w.SetComment("PK\x05\x06")
			w.Close()
			return buf.Bytes()
		}),
		bad("local header names another file", ReasonHeaderMismatch, "b.md", patch(good, func(z []byte) []byte {
			return replaceLocalName(z, "b.md", "x.sh")
		})),
		bad("local header method differs", ReasonHeaderMismatch, "b.md", patch(stored, func(z []byte) []byte {
			binary.LittleEndian.PutUint16(z[localOffset(z, "b.md")+8:], zip.Store)
			return z
		})),
		bad("local header flags differ", ReasonHeaderMismatch, "b.md", patch(stored, func(z []byte) []byte {
			z[localOffset(z, "b.md")+6] |= 0x2
			return z
		})),
		bad("local header CRC differs", ReasonHeaderMismatch, "b.md", patch(stored, func(z []byte) []byte {
			z[localOffset(z, "b.md")+14]++
			return z
		})),
		bad("local header size differs", ReasonHeaderMismatch, "b.md", patch(stored, func(z []byte) []byte {
			z[localOffset(z, "b.md")+22]++
			return z
		})),
		bad("data descriptor disagrees", ReasonHeaderMismatch, "SKILL.md", patch(good, func(z []byte) []byte {
			d := bytes.Index(z, []byte(sigDescriptor))
			z[d+4]++ // its CRC-32
			return z
		})),
		bad("bytes between entries", ReasonGap, "b.md", patch(good, func(z []byte) []byte {
			return insertAt(z, localOffset(z, "b.md"), []byte("hidden"))
		})),
		bad("bytes before the central directory", ReasonGap, "", patch(good, func(z []byte) []byte {
			return insertAt(z, centralHeaders(z)[0], []byte("hidden"))
		})),
		bad("end record count differs", ReasonCorrupt, "", patch(good, func(z []byte) []byte {
			end := bytes.LastIndex(z, []byte(sigEnd))
			binary.LittleEndian.PutUint16(z[end+8:], 1) // entries on this disk
			return z
		})),
	}
}

// localOffset returns the offset of the local header naming name.
func localOffset(z []byte, name string) int {
	for i := 0; i+localHeaderLen <= len(z); i++ {
		if string(z[i:i+4]) == sigLocal {
			n := int(binary.LittleEndian.Uint16(z[i+26:]))
			if string(z[i+localHeaderLen:i+localHeaderLen+n]) == name {
				return i
			}
		}
	}
	panic("no local header for " + name)
}

// replaceLocalName renames an entry in its local header only.
func replaceLocalName(z []byte, from, to string) []byte {
	copy(z[localOffset(z, from)+localHeaderLen:], to)
	return z
}

// insertAt inserts junk at offset at, before the central directory, and
// moves the central directory's offsets so that archive/zip still reads
// every entry.
func insertAt(z []byte, at int, junk []byte) []byte {
	out := append(append(append([]byte{}, z[:at]...), junk...), z[at:]...)
	le := binary.LittleEndian
	for _, c := range centralHeaders(out) {
		if off := int(le.Uint32(out[c+cdLocalOffset:])); off >= at {
			le.PutUint32(out[c+cdLocalOffset:], uint32(off+len(junk)))
		}
	}
	end := bytes.LastIndex(out, []byte(sigEnd))
	le.PutUint32(out[end+16:], le.Uint32(out[end+16:])+uint32(len(junk)))
	return out
}

func TestReadRejectsAmbiguousArchives(t *testing.T) {
	for _, h := range layoutCorpus() {
		t.Run(h.name, func(t *testing.T) {
			z := h.zip(t)
			if _, err := zip.NewReader(bytes.NewReader(z), int64(len(z))); err != nil && h.reason != ReasonCorrupt {
				t.Fatalf("archive/zip refuses the fixture (%v): it tests nothing", err)
			}
			expectRefusal(t, Read, h, z)
		})
	}
}

// TestReadAcceptsUnambiguousForms: the forms honest archivers write pass:
// data descriptors with and without signature, zip64 records, comments.
func TestReadAcceptsUnambiguousForms(t *testing.T) {
	descriptorNoSig := func(t *testing.T) []byte {
		// Go writes descriptors with a signature; drop it and fix offsets.
		z := build(t, file("SKILL.md", skillMD), file("b.md", "second"))
		d := bytes.Index(z, []byte(sigDescriptor))
		out := append(append([]byte{}, z[:d]...), z[d+4:]...)
		le := binary.LittleEndian
		for _, c := range centralHeaders(out) {
			if off := int(le.Uint32(out[c+cdLocalOffset:])); off > d {
				le.PutUint32(out[c+cdLocalOffset:], uint32(off-4))
			}
		}
		end := bytes.LastIndex(out, []byte(sigEnd))
		le.PutUint32(out[end+16:], le.Uint32(out[end+16:])-4)
		return out
	}
	commented := func(t *testing.T) []byte {
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		fw, _ := w.Create("SKILL.md")
		fw.Write([]byte(skillMD))
		w.SetComment("4f1c0a2e9b7d3c5a8e6f0b1d2c3a4e5f6a7b8c9d") // git archive writes the commit id
		w.Close()
		return buf.Bytes()
	}
	for name, z := range map[string]func(*testing.T) []byte{
		"descriptor without signature": descriptorNoSig,
		"comment":                      commented,
		"stored sizes in local headers": func(t *testing.T) []byte {
			h, b := deflated(t, "SKILL.md", []byte(skillMD))
			return build(t, raw(h, b), dirEntry("d/"), withMode("run.sh", 0o755))
		},
		"zip64 end records": func(t *testing.T) []byte {
			return withZip64End(t, build(t, file("SKILL.md", skillMD), file("b.md", "x")))
		},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Read(z(t), Limits{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// withZip64End rewrites z's end record as a zip64 end record, locator and
// an end record whose fields say "see zip64", as archivers write past
// 65,535 entries.
func withZip64End(t testing.TB, z []byte) []byte {
	le := binary.LittleEndian
	end := bytes.LastIndex(z, []byte(sigEnd))
	records, cdSize, cdOffset := le.Uint16(z[end+10:]), le.Uint32(z[end+12:]), le.Uint32(z[end+16:])
	out := append([]byte{}, z[:end]...)
	r64 := make([]byte, end64MinLen)
	copy(r64, sigEnd64)
	le.PutUint64(r64[4:], end64MinLen-12)
	le.PutUint16(r64[12:], 45)
	le.PutUint16(r64[14:], 45)
	le.PutUint64(r64[24:], uint64(records))
	le.PutUint64(r64[32:], uint64(records))
	le.PutUint64(r64[40:], uint64(cdSize))
	le.PutUint64(r64[48:], uint64(cdOffset))
	loc := make([]byte, locator64Len)
	copy(loc, sigLocator64)
	le.PutUint64(loc[8:], uint64(len(out)))
	le.PutUint32(loc[16:], 1)
	out = append(append(out, r64...), loc...)
	e := make([]byte, endLen)
	copy(e, sigEnd)
	le.PutUint16(e[8:], 0xffff)
	le.PutUint16(e[10:], 0xffff)
	le.PutUint32(e[12:], max32)
	le.PutUint32(e[16:], max32)
	return append(out, e...)
}

// TestReadDropsEntriesOutsideSkills: a repository download keeps symbolic
// links, special files and entries Read cannot read beside its skills;
// they belong to no skill, so they are dropped and listed, never refused.
// Inside a skill, the same entries fail the archive.
func TestReadDropsEntriesOutsideSkills(t *testing.T) {
	enc := func(t testing.TB, name string) zent {
		h, body := deflated(t, name, []byte("secret"))
		h.Flags = flagEncrypted
		return raw(h, body)
	}
	z := build(t,
		file("repo-main/CLAUDE.md", "c"),
		withMode("repo-main/AGENTS.md", fs.ModeSymlink|0o777),
		withMode("repo-main/plugins/p/hooks/shims/pip3", fs.ModeSymlink|0o777),
		withMode("repo-main/fifo", fs.ModeNamedPipe|0o644),
		enc(t, "repo-main/secret.bin"),
		dirEntry("repo-main/docs/"),
		file("repo-main/skills/pdf/SKILL.md", skillMD),
	)
	a, err := Read(z, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"repo-main/CLAUDE.md", "repo-main/AGENTS.md", "repo-main/plugins/p/hooks/shims/pip3", "repo-main/fifo", "repo-main/secret.bin"}
	if !slices.Equal(a.Dropped, want) {
		t.Errorf("dropped %q, want %q", a.Dropped, want)
	}
	if len(a.Skills) != 1 || len(a.Files) != 1 || a.Files[0].Path != "repo-main/skills/pdf/SKILL.md" {
		t.Errorf("kept %+v", a.Files)
	}
	for _, h := range []hostile{
		{name: "symlink in a skill", zip: func(t testing.TB) []byte {
			return build(t, file("repo-main/skills/pdf/SKILL.md", skillMD), withMode("repo-main/skills/pdf/link", fs.ModeSymlink|0o777))
		}, code: "InvalidArchive", reason: ReasonSymlink, subject: "repo-main/skills/pdf/link"},
		{name: "SKILL.md itself a symlink", zip: func(t testing.TB) []byte {
			return build(t, file("a/SKILL.md", skillMD), withMode("b/SKILL.md", fs.ModeSymlink|0o777))
		}, code: "InvalidArchive", reason: ReasonSymlink, subject: "b/SKILL.md"},
		{name: "encrypted in a skill", zip: func(t testing.TB) []byte {
			return build(t, file("pdf/SKILL.md", skillMD), enc(t, "pdf/secret.bin"))
		}, code: "InvalidArchive", reason: ReasonEncrypted, subject: "pdf/secret.bin"},
	} {
		t.Run(h.name, func(t *testing.T) { expectRefusal(t, Read, h, h.zip(t)) })
	}
}

// TestFindSkillsSteps: finding the skills among the entries of a download
// of a thousand skills gives the host turns (pace.Step) in its loops over
// them. Counted, not timed: web/bench/calls.mjs times an import of 9,000.
func TestFindSkillsSteps(t *testing.T) {
	const n = 1000
	ms := make([]member, n)
	for i := range ms {
		ms[i] = member{name: fmt.Sprintf("repo/skills/s%04d/SKILL.md", i), kind: kindFile, packed: -1}
	}
	ms, _, err := classify(ms, newTree(), Limits{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	defer pacetest.Observe(func() { steps++ })()
	skills, err := findSkills(ms)
	if err != nil || len(skills) != n || skills[0].path() != "repo/skills/s0000" || skills[n-1].path() != "repo/skills/s0999" {
		t.Fatalf("findSkills: %d skills, %v", len(skills), err)
	}
	if want := 3 * n / 16; steps < want {
		t.Errorf("finding %d skills stepped %d times, want %d or more", n, steps, want)
	}
}
