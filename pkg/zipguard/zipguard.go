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
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skillerr"
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
	ReasonHardlink          = "hardlink"
	ReasonNamesTooLong      = "names-too-long" // the names together are over MaxNameBytes
	ReasonDetached          = "detached"       // the caller took the bytes away while they were read (ErrDetached)
	// The archive is not in the one form every reader reads alike.
	ReasonPrefix         = "prefix"          // bytes before the first entry: a polyglot or self-extractor
	ReasonTrailing       = "trailing-data"   // bytes after the end of the archive
	ReasonSecondArchive  = "second-archive"  // zip records in the end record's comment
	ReasonGap            = "gap"             // bytes between entries that belong to none
	ReasonHeaderMismatch = "header-mismatch" // a local header or data descriptor disagrees with the central directory
)

// File modes kept: scripts keep their executable bit, nothing else survives.
const (
	fileMode fs.FileMode = 0o644
	execMode fs.FileMode = 0o755
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
	// MaxNameBytes bounds the bytes of all entry names together, before
	// any is cleaned or folded: folding costs about a microsecond a byte
	// in the browser. The largest real repository download has 141 KB.
	MaxNameBytes int
}

// DefaultLimits returns the limits Read applies when given zero Limits:
// a 34 MiB archive, 10,000 entries, 10 MiB per file (real skills carry
// 1–2 MB fonts and PDFs), 30 MiB in total (claude.ai's upload limit), a
// 200:1 ratio above 64 KiB, 32 path segments and 1 MiB of names.
func DefaultLimits() Limits {
	return Limits{
		MaxArchiveSize: 30<<20 + 4<<20,
		MaxEntries:     10_000,
		MaxFileSize:    10 << 20,
		MaxTotalSize:   30 << 20,
		MaxRatio:       200,
		RatioMinSize:   64 << 10,
		MaxDepth:       32,
		MaxNameBytes:   1 << 20,
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
	if l.MaxNameBytes <= 0 {
		l.MaxNameBytes = d.MaxNameBytes
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
	// Ext is the content instead of Data when ReadOutside holds it
	// outside Go.
	Ext external.Bytes
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
	Files  []File // every kept file (the files of the skills), sorted by Path
	Skills []Skill
	Layout Layout
	// Dropped lists, in archive order, the entry names left out: those
	// outside every skill directory (directories excepted) and
	// operating-system clutter.
	Dropped []string
}

// Read checks the zip archive in data and returns its skills.
//
// Skills are the directories holding a file named exactly "SKILL.md". A
// SKILL.md inside another skill's directory belongs to that skill. Hidden
// folders are searched like any other (openai/skills keeps skills in
// ".curated/"). An archive with no skill is rejected with ReasonNoSkill.
//
// An entry outside every skill directory (a repository's README, the
// symbolic links a repository keeps beside its skills) belongs to no skill:
// it is dropped and listed in Archive.Dropped, whatever its type, and never
// read. Inside a skill, a link or special file fails the whole archive.
// Entries under __MACOSX/, AppleDouble "._*" files, .DS_Store, Thumbs.db
// and desktop.ini are dropped and listed too. Directory entries only shape
// the tree; empty directories are not kept.
//
// The archive must have the one form every zip reader reads alike (see
// checkLayout): no prefix, no trailing bytes, local headers that agree
// with the central directory.
func Read(data []byte, limits Limits) (*Archive, error) {
	return read(bytes.NewReader(data), int64(len(data)), limits, nil)
}

// read reads the zip archive of size bytes in r; out, when set, inflates
// and holds its files.
func read(r io.ReaderAt, size int64, limits Limits, out Outside) (*Archive, error) {
	l := limits.withDefaults()
	if err := checkArchiveSize(size, l); err != nil {
		return nil, err
	}
	r = pacedReader{r, new(int)}
	zr, err := zip.NewReader(r, size)
	// ErrInsecurePath comes with a usable reader; the name checks are
	// stricter than archive/zip's.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, openError(r, size, err)
	}
	if len(zr.File) > l.MaxEntries {
		return nil, fail(ReasonTooManyEntries, "", nil, "the archive has %d entries; the limit is %d", len(zr.File), l.MaxEntries)
	}
	data, err := checkLayout(r, size, zr.File)
	if err != nil {
		return nil, err
	}
	ms := make([]member, len(zr.File))
	for i, f := range zr.File {
		ms[i] = zipMember(f)
		ms[i].data = data[i]
	}
	return assemble(ms, l, out)
}

// pacedReader steps (pace.StepAt) between reads: archive/zip reads the
// central directory a few KiB at a time, and checkLayout each local
// header, which of thousands of entries would otherwise hold the page for
// tens of milliseconds in one task.
type pacedReader struct {
	r     io.ReaderAt
	reads *int
}

func (p pacedReader) ReadAt(b []byte, off int64) (int, error) {
	pace.StepAt(*p.reads)
	*p.reads++
	return p.r.ReadAt(b, off)
}

// zipMember describes a central directory entry.
func zipMember(f *zip.File) member {
	m := member{
		name:     f.Name,
		exec:     f.Mode()&0o111 != 0,
		modified: f.Modified,
		size:     int64(min(f.UncompressedSize64, 1<<62)),
		packed:   int64(min(f.CompressedSize64, 1<<62)),
		read:     func() ([]byte, error) { return inflate(f, nil) },
		zf:       f,
	}
	switch mode := f.Mode(); {
	case mode&fs.ModeSymlink != 0:
		m.kind = kindSymlink
	case mode.Type()&^fs.ModeDir != 0:
		m.kind, m.special = kindSpecial, mode.Type().String()
	case strings.HasSuffix(f.Name, "/") || mode.IsDir():
		m.kind = kindDir
	}
	switch {
	case f.Flags&flagEncrypted != 0:
		m.refused = fail(ReasonEncrypted, f.Name, nil, "the entry is encrypted")
	case f.Method != zip.Store && f.Method != zip.Deflate:
		m.refused = fail(ReasonUnsupportedMethod, f.Name, nil, "compression method %d is not supported (only stored and deflated)", f.Method)
	}
	return m
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

// checkArchiveSize refuses an archive of size bytes over l's limit,
// checked before anything is read.
func checkArchiveSize(size int64, l Limits) error {
	if size > l.MaxArchiveSize {
		return fail(ReasonArchiveTooLarge, "", nil, "the archive is %d bytes; the limit is %d", size, l.MaxArchiveSize)
	}
	return nil
}

// inflate returns the entry's content, reading at most one byte more than
// the declared size, and checks size and CRC-32 itself so that each failure
// has its own reason. It inflates into scratch when that is large enough.
func inflate(f *zip.File, scratch []byte) ([]byte, error) {
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, fail(ReasonCorrupt, f.Name, err, "the entry cannot be read")
	}
	var r io.Reader = raw
	var packed *bufio.Reader
	if f.Method == zip.Deflate {
		// Through a ByteReader, flate reads no byte past its stream's end.
		packed = readers.Get().(*bufio.Reader)
		packed.Reset(raw)
		defer readers.Put(packed)
		fr := inflaters.Get().(io.ReadCloser)
		_ = fr.(flate.Resetter).Reset(packed, nil) // cannot fail without a dictionary
		defer inflaters.Put(fr)
		r = fr
	}
	want := f.UncompressedSize64 // bounded by checkSizes
	buf := scratch[:0]
	if uint64(cap(buf)) >= want {
		buf = buf[:want]
	} else {
		buf = make([]byte, want)
	}
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
	// An entry whose data descriptor follows it ends, for a reader that
	// streams the archive, where its deflate stream ends: bytes after
	// that would be read as its descriptor and the entries after it.
	if packed != nil && f.Flags&flagDescriptor != 0 {
		if _, err := packed.ReadByte(); err == nil {
			return nil, fail(ReasonGap, f.Name, nil, "bytes follow the entry's compressed stream, before its data descriptor")
		}
	}
	// archive/zip skips the check when the header says 0; honest
	// archivers always fill the CRC in, so it is checked unconditionally.
	if crc32.ChecksumIEEE(buf) != f.CRC32 {
		return nil, fail(ReasonChecksum, f.Name, nil, "the entry's CRC-32 does not match its content")
	}
	return buf, nil
}

// inflaters reuses decompressors across entries: each holds a 32 KiB
// window and Huffman tables that a pack of hundreds of small files would
// otherwise allocate and clear again for every one.
var inflaters = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}

// readers are the buffers inflaters read an entry's compressed bytes through.
var readers = sync.Pool{New: func() any { return bufio.NewReader(nil) }}

// openError classifies a failure to read the central directory.
func openError(r io.ReaderAt, size int64, err error) error {
	data := make([]byte, min(size, 4))
	if _, rerr := r.ReadAt(data, 0); rerr != nil && rerr != io.EOF {
		return fail(ReasonCorrupt, "", rerr, "the archive cannot be read")
	}
	switch {
	case !bytes.HasPrefix(data, []byte("PK\x03\x04")) && !bytes.HasPrefix(data, []byte("PK\x05\x06")):
		return fail(ReasonNotZip, "", err, "the file is not a zip archive")
	case errors.Is(err, zip.ErrFormat) || errors.Is(err, io.ErrUnexpectedEOF):
		// Starts like a zip but its directory is missing or cut short.
		return fail(ReasonTruncated, "", err, "the zip archive is truncated (cut short): download or copy it again")
	default:
		return fail(ReasonCorrupt, "", err, "the zip archive is damaged")
	}
}

func fail(reason, subject string, cause error, format string, args ...any) *skillerr.Error {
	if formatError(cause) {
		cause = nil
	}
	return &skillerr.Error{
		Code:    skillerr.InvalidArchive,
		Reason:  reason,
		Subject: subject,
		Msg:     fmt.Sprintf(format, args...),
		Err:     cause,
	}
}

// formatError reports whether err is an archive library's word on the
// bytes it was given ("zip: not a valid zip file", "flate: corrupt input
// before offset 1", "unexpected EOF"): the reason and the sentence say
// it to a person, whom the library's words would only confuse (a zip cut
// short is "not a valid zip file"). An error reading the bytes is kept.
func formatError(err error) bool {
	var corrupt flate.CorruptInputError
	var internal flate.InternalError
	for _, e := range []error{io.EOF, io.ErrUnexpectedEOF, zip.ErrFormat, zip.ErrAlgorithm, zip.ErrChecksum,
		gzip.ErrHeader, gzip.ErrChecksum, tar.ErrHeader, tar.ErrFieldTooLong, tar.ErrInsecurePath} {
		if errors.Is(err, e) {
			return true
		}
	}
	return errors.As(err, &corrupt) || errors.As(err, &internal)
}
