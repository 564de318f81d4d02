// Package zipguard reads skill archives (.zip and .skill files) that may be
// hostile, and writes deterministic ones.
//
// Read works on bytes in memory and returns either a clean in-memory tree or
// a *skillerr.Error naming the offending entry (Subject, as written in the
// archive) and a stable Reason. Path problems carry Code PathRejected with a
// skillpath reason; everything else carries Code InvalidArchive with one of
// the Reason constants below. Nothing is trusted that can be measured
// instead: sizes are counted while inflating, file data ranges are checked
// for overlap, and names are checked before any byte is inflated.
package zipguard

import (
	"archive/zip"
	"bytes"
	"cmp"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
)

// Reasons carried by InvalidArchive errors.
const (
	ReasonNotZip            = "not-a-zip"
	ReasonTruncated         = "truncated"
	ReasonCorrupt           = "corrupt"
	ReasonArchiveTooLarge   = "archive-too-large"
	ReasonTooManyEntries    = "too-many-entries"
	ReasonSymlink           = "symlink"
	ReasonSpecialFile       = "special-file" // device, pipe or socket
	ReasonEncrypted         = "encrypted"
	ReasonUnsupportedMethod = "unsupported-method"
	ReasonTooDeep           = "too-deep"
	ReasonEmptyName         = "empty-name"
	ReasonDuplicate         = "duplicate"
	ReasonCollision         = "collision" // same name after case folding or normalisation, or file vs directory
	ReasonOverlap           = "overlap"
	ReasonFileTooLarge      = "file-too-large"
	ReasonTotalTooLarge     = "total-too-large"
	ReasonRatio             = "ratio"
	ReasonSizeMismatch      = "size-mismatch"
	ReasonChecksum          = "checksum"
	ReasonNoSkill           = "no-skill"
)

// Limits bound what Read accepts. A zero or negative field means the
// default. Path length is skillpath's limit (skillpath.MaxLen).
type Limits struct {
	// MaxArchiveSize bounds the archive itself, checked before anything
	// is parsed: archive/zip reads the whole central directory before
	// MaxEntries can apply, at about three bytes of memory per archive
	// byte. Zero means MaxTotalSize plus 4 MiB for headers.
	MaxArchiveSize int64
	MaxEntries     int   // entries in the central directory, junk included
	MaxFileSize    int64 // inflated bytes of one file
	MaxTotalSize   int64 // inflated bytes of all kept files
	// MaxRatio caps inflated/compressed size, per file and for the whole
	// archive, once the inflated size reaches RatioMinSize: small files
	// compress well for honest reasons.
	MaxRatio     float64
	RatioMinSize int64
	MaxDepth     int // path segments of a file ("a/b.md" is 2), from the archive root
}

// DefaultLimits returns the limits Read applies when given zero Limits:
// a 34 MiB archive, 10,000 entries, 10 MiB per file (real skills carry
// 1–2 MB fonts and PDFs), 30 MiB in total (claude.ai's upload limit), a
// 200:1 ratio above 64 KiB, and 32 path segments.
func DefaultLimits() Limits {
	return Limits{
		MaxArchiveSize: 30<<20 + 4<<20,
		MaxEntries:     10_000,
		MaxFileSize:    10 << 20,
		MaxTotalSize:   30 << 20,
		MaxRatio:       200,
		RatioMinSize:   64 << 10,
		MaxDepth:       32,
	}
}

// WithDefaults returns l as Read applies it: each zero or negative field
// replaced by its default.
func (l Limits) WithDefaults() Limits { return l.withDefaults() }

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxEntries <= 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = d.MaxFileSize
	}
	if l.MaxTotalSize <= 0 {
		l.MaxTotalSize = d.MaxTotalSize
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = d.MaxRatio
	}
	if l.RatioMinSize <= 0 {
		l.RatioMinSize = d.RatioMinSize
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxArchiveSize <= 0 {
		l.MaxArchiveSize = l.MaxTotalSize + 4<<20
	}
	return l
}

// File is one regular file of an archive.
type File struct {
	Path string // clean (see skillpath.Clean), relative to the archive root or to a Skill's Dir
	Data []byte
	// Mode is 0755 when the archive marked the file executable, else
	// 0644: scripts keep their executable bit, nothing else survives.
	Mode     fs.FileMode
	Modified time.Time
}

// Layout says where an archive keeps its skills.
type Layout string

// The layouts Read recognises.
const (
	// LayoutRoot: SKILL.md at the archive root; one skill whose directory
	// name the archive does not tell.
	LayoutRoot Layout = "root"
	// LayoutWrapped: one skill, below one or more wrapper folders
	// ("pdf/SKILL.md", "repo-main/skills/pdf/SKILL.md").
	LayoutWrapped Layout = "wrapped"
	// LayoutPack: several skills ("a/SKILL.md", "b/SKILL.md", or a
	// repository download with "repo-main/skills/*/SKILL.md").
	LayoutPack Layout = "pack"
)

// Skill is one skill found in an archive: a directory holding SKILL.md.
type Skill struct {
	Dir   string // archive path of the skill directory, "." for LayoutRoot
	Name  string // base name of Dir, "" for LayoutRoot
	Files []File // the skill's files, Path relative to Dir, sorted; Data shared with Archive.Files
}

// Archive is the clean tree Read returns.
type Archive struct {
	Files   []File // every kept file, sorted by Path
	Skills  []Skill
	Layout  Layout
	Dropped []string // entry names left out as operating-system clutter, in archive order
}

// entry is a central directory entry that passed the name checks.
type entry struct {
	f    *zip.File
	path string // clean
	dir  bool
}

// Read checks the zip archive in data and returns its files and skills.
//
// Skills are the directories holding a file named exactly "SKILL.md". A
// SKILL.md inside another skill's directory belongs to that skill. Hidden
// folders are searched like any other (openai/skills keeps skills in
// ".curated/"). Files outside every skill directory, such as a repository's
// README, are kept in Archive.Files but belong to no skill. An archive with no
// skill is rejected with ReasonNoSkill.
//
// Entries under __MACOSX/, AppleDouble "._*" files, .DS_Store, Thumbs.db
// and desktop.ini are dropped and listed in Archive.Dropped. Directory
// entries only shape the tree; empty directories are not kept.
func Read(data []byte, limits Limits) (*Archive, error) {
	l := limits.withDefaults()
	if int64(len(data)) > l.MaxArchiveSize {
		return nil, fail(ReasonArchiveTooLarge, "", nil, "the archive is %d bytes; the limit is %d", len(data), l.MaxArchiveSize)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	// ErrInsecurePath comes with a usable reader; the name checks below
	// are stricter than archive/zip's.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, openError(data, err)
	}
	if len(zr.File) > l.MaxEntries {
		return nil, fail(ReasonTooManyEntries, "", nil, "the archive has %d entries; the limit is %d", len(zr.File), l.MaxEntries)
	}

	a := &Archive{}
	t := newTree()
	var files []entry
	for _, f := range zr.File {
		e, drop, err := checkEntry(f, l)
		if err != nil {
			return nil, err
		}
		if drop {
			a.Dropped = append(a.Dropped, f.Name)
			continue
		}
		if reason, msg := t.add(e.path, e.dir); reason != "" {
			return nil, fail(reason, f.Name, nil, "%s", msg)
		}
		if !e.dir {
			files = append(files, e)
		}
	}
	if err := checkOverlap(zr.File, int64(len(data))); err != nil {
		return nil, err
	}
	if err := checkSizes(files, l); err != nil {
		return nil, err
	}
	skillDirs, err := findSkills(files)
	if err != nil {
		return nil, err
	}

	for _, e := range files {
		b, err := inflate(e.f)
		if err != nil {
			return nil, err
		}
		mode := fs.FileMode(0o644)
		if e.f.Mode()&0o111 != 0 {
			mode = 0o755
		}
		a.Files = append(a.Files, File{Path: e.path, Data: b, Mode: mode, Modified: e.f.Modified})
	}
	slices.SortFunc(a.Files, func(x, y File) int { return strings.Compare(x.Path, y.Path) })
	a.Layout, a.Skills = layout(skillDirs, a.Files)
	return a, nil
}

// checkEntry applies the per-entry rules: name, type, flags, method, depth.
// drop reports operating-system clutter to leave out.
func checkEntry(f *zip.File, l Limits) (e entry, drop bool, err error) {
	p, err := skillpath.Clean(f.Name)
	if err != nil {
		return e, false, err
	}
	dir := strings.HasSuffix(f.Name, "/") || f.Mode().IsDir()
	if IsClutter(p) {
		return e, true, nil
	}
	if p == skillpath.Root && !dir {
		return e, false, fail(ReasonEmptyName, f.Name, nil, "a file entry has no name")
	}
	switch m := f.Mode(); {
	case m&fs.ModeSymlink != 0:
		return e, false, fail(ReasonSymlink, f.Name, nil, "the archive contains a symbolic link")
	case m.Type()&^fs.ModeDir != 0:
		return e, false, fail(ReasonSpecialFile, f.Name, nil, "the archive contains a special file (%v)", m.Type())
	}
	if f.Flags&0x1 != 0 {
		return e, false, fail(ReasonEncrypted, f.Name, nil, "the entry is encrypted")
	}
	if f.Method != zip.Store && f.Method != zip.Deflate {
		return e, false, fail(ReasonUnsupportedMethod, f.Name, nil, "compression method %d is not supported (only stored and deflated)", f.Method)
	}
	if depth := strings.Count(p, "/") + 1; depth > l.MaxDepth {
		return e, false, fail(ReasonTooDeep, f.Name, nil, "the path is %d levels deep; the limit is %d", depth, l.MaxDepth)
	}
	return entry{f: f, path: p, dir: dir}, false, nil
}

// IsClutter reports whether the slash-separated path p is clutter that
// archivers on macOS and Windows add behind the user's back; Read drops it
// and packers should leave it out.
func IsClutter(p string) bool {
	if slices.Contains(strings.Split(p, "/"), "__MACOSX") {
		return true
	}
	base := path.Base(p)
	return base == ".DS_Store" || strings.HasPrefix(base, "._") ||
		strings.EqualFold(base, "Thumbs.db") || strings.EqualFold(base, "desktop.ini")
}

// localHeaderLen is the fixed part of a local file header, which precedes
// every entry's data.
const localHeaderLen = 30

// checkOverlap requires every entry's local header and data to occupy their
// own bytes of the archive. Overlapping entries are how a few kilobytes
// inflate into gigabytes (David Fifield, "A better zip bomb"): many central
// directory entries share, or quote, one compressed kernel. Honest
// archivers never overlap entries, so no ratio threshold is involved.
func checkOverlap(files []*zip.File, size int64) error {
	type span struct {
		start, end int64
		i          int // index in the central directory
	}
	spans := make([]span, 0, len(files))
	for i, f := range files {
		off, err := f.DataOffset()
		if err != nil {
			return fail(ReasonCorrupt, f.Name, err, "the entry's local header is missing or damaged")
		}
		if f.CompressedSize64 > uint64(size) || off+int64(f.CompressedSize64) > size {
			return fail(ReasonCorrupt, f.Name, nil, "the entry's data runs past the end of the archive")
		}
		spans = append(spans, span{off - localHeaderLen, off + int64(f.CompressedSize64), i})
	}
	slices.SortFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
	})
	for k := 1; k < len(spans); k++ {
		if a, b := spans[k-1], spans[k]; b.start < a.end {
			// Name the entry that comes later in the central directory.
			first, later := files[min(a.i, b.i)], files[max(a.i, b.i)]
			return fail(ReasonOverlap, later.Name, nil, "the entry overlaps %q in the archive (a zip bomb trick)", first.Name)
		}
	}
	return nil
}

// checkSizes applies the size and ratio limits to the sizes the central
// directory declares. inflate then holds every entry to its declared size,
// so a lie is caught without inflating more than the limits allow.
func checkSizes(files []entry, l Limits) error {
	var total, packed int64
	for _, e := range files {
		f := e.f
		if f.UncompressedSize64 > uint64(l.MaxFileSize) {
			return fail(ReasonFileTooLarge, f.Name, nil, "the file inflates to %d bytes; the limit is %d", f.UncompressedSize64, l.MaxFileSize)
		}
		n := int64(f.UncompressedSize64)
		if tooCompressed(n, int64(f.CompressedSize64), l) {
			return fail(ReasonRatio, f.Name, nil, "the file inflates %d bytes to %d, more than %g:1", f.CompressedSize64, n, l.MaxRatio)
		}
		total += n
		packed += int64(f.CompressedSize64)
		if total > l.MaxTotalSize {
			return fail(ReasonTotalTooLarge, f.Name, nil, "the archive inflates to more than %d bytes", l.MaxTotalSize)
		}
	}
	if tooCompressed(total, packed, l) {
		return fail(ReasonRatio, "", nil, "the archive inflates %d bytes to %d, more than %g:1", packed, total, l.MaxRatio)
	}
	return nil
}

func tooCompressed(inflated, compressed int64, l Limits) bool {
	return inflated >= l.RatioMinSize && float64(inflated) > l.MaxRatio*float64(max(compressed, 1))
}

// inflate returns the entry's content, reading at most one byte more than
// the declared size, and checks size and CRC-32 itself so that each failure
// has its own reason.
func inflate(f *zip.File) ([]byte, error) {
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, fail(ReasonCorrupt, f.Name, err, "the entry cannot be read")
	}
	var r io.Reader = raw
	if f.Method == zip.Deflate {
		fr := flate.NewReader(raw)
		defer fr.Close()
		r = fr
	}
	want := f.UncompressedSize64 // bounded by checkSizes
	buf := make([]byte, want)
	n, err := io.ReadFull(r, buf)
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return nil, fail(ReasonSizeMismatch, f.Name, nil, "the entry holds %d bytes but declares %d", n, want)
	case err != nil:
		return nil, fail(ReasonCorrupt, f.Name, err, "the compressed data is damaged")
	}
	var extra [1]byte
	switch k, err := r.Read(extra[:]); {
	case k > 0:
		return nil, fail(ReasonSizeMismatch, f.Name, nil, "the entry holds more than the %d bytes it declares", want)
	case err != nil && err != io.EOF:
		return nil, fail(ReasonCorrupt, f.Name, err, "the compressed data is damaged")
	}
	// archive/zip skips the check when the header says 0; honest
	// archivers always fill the CRC in, so it is checked unconditionally.
	if crc32.ChecksumIEEE(buf) != f.CRC32 {
		return nil, fail(ReasonChecksum, f.Name, nil, "the entry's CRC-32 does not match its content")
	}
	return buf, nil
}

// openError classifies a failure to read the central directory.
func openError(data []byte, err error) error {
	switch {
	case !bytes.HasPrefix(data, []byte("PK\x03\x04")) && !bytes.HasPrefix(data, []byte("PK\x05\x06")):
		return fail(ReasonNotZip, "", err, "the file is not a zip archive")
	case errors.Is(err, zip.ErrFormat) || errors.Is(err, io.ErrUnexpectedEOF):
		// Starts like a zip but its directory is missing or cut short.
		return fail(ReasonTruncated, "", err, "the zip archive is truncated")
	default:
		return fail(ReasonCorrupt, "", err, "the zip archive is damaged")
	}
}

func fail(reason, subject string, cause error, format string, args ...any) *skillerr.Error {
	return &skillerr.Error{
		Code:    skillerr.InvalidArchive,
		Reason:  reason,
		Subject: subject,
		Msg:     fmt.Sprintf(format, args...),
		Err:     cause,
	}
}
