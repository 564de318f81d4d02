package source

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

const skillMD = "SKILL.md"

// checkName requires name to be a skill name as the Agent Skills
// specification writes it: 1–64 lowercase letters, digits and single
// hyphens, neither first nor last. It becomes a directory name.
func checkName(name string) error {
	ok := len(name) >= 1 && len(name) <= 64 && name[0] != '-' && name[len(name)-1] != '-' && !strings.Contains(name, "--")
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-'
	}
	if !ok {
		return &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonBadEntry, Subject: skillerr.Clip(name),
			Msg: "a published skill name must be 1–64 lowercase letters, digits and single hyphens"}
	}
	return nil
}

// cleanRel returns p when it is a clean path of a file inside a skill, as
// skillpath.Clean decides; a path that needs cleaning is refused too, for
// what a server lists must be what it serves.
func cleanRel(p string) (string, error) {
	clean, err := skillpath.Clean(p)
	if err != nil {
		return "", err
	}
	if clean != p || clean == skillpath.Root {
		return "", &skillerr.Error{Code: skillerr.PathRejected, Reason: "not-clean", Subject: skillerr.Clip(p),
			Msg: "a file's path must be clean and relative to its skill, such as \"scripts/run.py\""}
	}
	return clean, nil
}

// fileUnder returns the FileRef of path p below the directory URL dir.
func fileUnder(dir *url.URL, p, digest string, size int64) (FileRef, error) {
	clean, err := cleanRel(p)
	if err != nil {
		return FileRef{}, err
	}
	segs := strings.Split(clean, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u, err := dir.Parse(strings.Join(segs, "/"))
	if err != nil {
		return FileRef{}, skillerr.Wrap(skillerr.InvalidIndex, skillerr.Clip(p), err, "the file's URL cannot be formed")
	}
	return FileRef{Path: clean, URL: u.String(), Digest: digest, Size: size}, nil
}

// checkFileSet requires files, the files of skill name, to include
// SKILL.md, to name each path once, and to stay within the guard's
// limits by what is published.
func checkFileSet(name string, files []FileRef) error {
	l := zipguard.DefaultLimits()
	if len(files) > l.MaxEntries {
		return &skillerr.Error{Code: skillerr.TooLarge, Reason: zipguard.ReasonTooManyEntries, Subject: name,
			Msg: fmt.Sprintf("the skill lists %d files; the limit is %d", len(files), l.MaxEntries)}
	}
	seen := make(map[string]bool, len(files))
	var total int64
	for _, f := range files {
		if seen[f.Path] {
			return &skillerr.Error{Code: skillerr.InvalidIndex, Reason: zipguard.ReasonDuplicate, Subject: f.Path,
				Msg: "the skill lists this file twice"}
		}
		seen[f.Path] = true
		if f.Size > l.MaxFileSize {
			return &skillerr.Error{Code: skillerr.TooLarge, Reason: zipguard.ReasonFileTooLarge, Subject: f.Path,
				Msg: fmt.Sprintf("the file is published as %d bytes; the limit is %d", f.Size, l.MaxFileSize)}
		}
		total += max(f.Size, 0)
	}
	if total > l.MaxTotalSize {
		return &skillerr.Error{Code: skillerr.TooLarge, Reason: zipguard.ReasonTotalTooLarge, Subject: name,
			Msg: fmt.Sprintf("the skill's files are published as %d bytes in all; the limit is %d", total, l.MaxTotalSize)}
	}
	if !seen[skillMD] {
		return &skillerr.Error{Code: skillerr.InvalidIndex, Reason: zipguard.ReasonNoSkill, Subject: name,
			Msg: "the skill's files do not include SKILL.md"}
	}
	return nil
}

// Artifact returns the archive to import for an artifact of type typ
// (TypeSkillMD or TypeArchive) whose bytes are data, verified already. A
// SKILL.md becomes a one-file archive under dir ("" for the archive root).
func Artifact(typ, dir string, data []byte) ([]byte, error) {
	switch typ {
	case TypeArchive:
		return data, nil
	case TypeSkillMD:
		return pack(dir, []zipguard.File{{Path: skillMD, Data: data, Mode: 0o644}})
	}
	return nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonUnknownType, Subject: typ,
		Msg: `the artifact type must be "skill-md" or "archive"`}
}

// ReasonNameMismatch: a skill's SKILL.md names another skill than the
// name its source lists it under (an index entry's of one SKILL.md, an
// MCP server's listing).
const ReasonNameMismatch = "name-mismatch"

// publishedAs refuses md, the SKILL.md of the skill a source of kind
// lists as name (KindIndex, KindMCP), when its frontmatter names another
// skill: a person reviews the source's name and status ("differs", new),
// and must not get a skill of another name — one that replaces or sits
// beside an installed skill the review never showed. One whose name
// cannot be read is left to the import, which refuses it with why.
func publishedAs(kind, name string, md []byte) error {
	if name == "" || (kind != KindIndex && kind != KindMCP) {
		return nil
	}
	s, _ := skill.Read(md, skill.Options{})
	if s == nil || s.Name == "" || s.Name == name {
		return nil
	}
	lister := "index lists"
	if kind == KindMCP {
		lister = "MCP server lists"
	}
	return &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonNameMismatch, Subject: name,
		Msg: fmt.Sprintf("the %s this skill as '%s', but its SKILL.md names it '%s': nothing of it was installed, since it would install as another skill than the one shown (the publisher must make the names agree)", lister, name, skillerr.Clip(s.Name))}
}

// typeOf tells a plain URL's artifact by its first bytes: an archive the
// guard reads (zip or .tar.gz), else a SKILL.md.
func typeOf(data []byte) string {
	if zipguard.Sniff(data) != "" {
		return TypeArchive
	}
	return TypeSkillMD
}

// Assemble returns the archive to import for skill dir fetched file by
// file: blob holds the files' bytes one after the other, lengths[i] bytes
// for files[i]. Every file's digest, when published (by a source of
// Origin.Kind kind, for messages), is verified, and
// every path checked, before the archive is made; one failure fails all.
func Assemble(kind, dir string, files []FileRef, lengths []int64, blob []byte) ([]byte, error) {
	if len(lengths) != len(files) {
		return nil, skillerr.New(skillerr.InvalidArgument, dir, "%d files but %d lengths", len(files), len(lengths))
	}
	if err := checkFileSet(dir, files); err != nil {
		return nil, err
	}
	var sum int64
	for _, n := range lengths {
		if n < 0 {
			sum = -1
			break
		}
		sum += n
	}
	if sum != int64(len(blob)) {
		return nil, skillerr.New(skillerr.InvalidArgument, dir, "the lengths do not add up to the bytes given")
	}
	out := make([]zipguard.File, len(files))
	var at int64
	for i, f := range files {
		if _, err := cleanRel(f.Path); err != nil {
			return nil, err
		}
		n := lengths[i]
		data := blob[at : at+n : at+n]
		at += n
		if f.Digest != "" {
			if err := Verify(data, f.Digest, f.Path, kind); err != nil {
				return nil, err
			}
		}
		if f.Path == skillMD {
			if err := publishedAs(kind, dir, data); err != nil {
				return nil, err
			}
		}
		// A file served by URL or resource has no mode to keep.
		out[i] = zipguard.File{Path: f.Path, Data: data, Mode: 0o644}
	}
	return pack(dir, out)
}

// pack writes files as a deterministic zip under dir, which the registry
// then imports through the archive guard like any other.
func pack(dir string, files []zipguard.File) ([]byte, error) {
	var buf bytes.Buffer
	if err := zipguard.Write(&buf, files, dir); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
