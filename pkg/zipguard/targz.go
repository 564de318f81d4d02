package zipguard

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
)

// Reasons of .tar.gz archives only.
const (
	ReasonNotTarGz = "not-tar-gz"
	// ReasonGlobalHeader: a pax global header that sets anything but a
	// comment changes the entries after it for some readers (GNU tar)
	// and not others (Go's archive/tar).
	ReasonGlobalHeader = "global-header"
)

// Format is an archive format ReadAny recognises.
type Format string

// The formats ReadAny reads.
const (
	FormatZip   Format = "zip"    // also .skill files
	FormatTarGz Format = "tar.gz" // also .tgz
)

// Sniff returns the format of data by its magic bytes, or "".
func Sniff(data []byte) Format {
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		return FormatTarGz
	case bytes.HasPrefix(data, []byte(sigLocal)), bytes.HasPrefix(data, []byte(sigEnd)):
		return FormatZip
	}
	return ""
}

// ReadAny reads a zip (Read) or a .tar.gz (ReadTarGz) archive, whichever
// data's magic bytes say it is, into the same clean tree under the same
// rules. Anything else fails with ReasonNotZip.
func ReadAny(data []byte, limits Limits) (*Archive, error) {
	switch Sniff(data) {
	case FormatTarGz:
		return ReadTarGz(data, limits)
	case FormatZip:
		return Read(data, limits)
	}
	return nil, fail(ReasonNotZip, "", nil, "the file is neither a zip nor a gzip-compressed tar archive")
}

// tarHeaderAllowance is what Limits allow a tar stream to inflate beyond
// the files' content, per entry: its header, padding, and a pax or GNU
// long-name header (git archive writes one for each path over 100 bytes).
const tarHeaderAllowance = 2 << 10

// ReadTarGz checks the gzip-compressed tar archive in data and returns its
// skills under Read's rules: the same skill discovery and layouts
// (SKILL.md at the root, under one wrapper folder, or a pack), entries
// outside every skill dropped whatever their type, symbolic and hard links
// or device files inside a skill refused, the same name rules, collisions,
// depth and size limits.
//
// A stream has no index, so the bombs are counted while inflating: the
// stream may inflate to at most MaxTotalSize of file content plus
// tarHeaderAllowance per entry and, past RatioMinSize, MaxRatio times the
// archive's size; file content is held only up to MaxTotalSize in all,
// kept or not. The archive must end with the tar end marker followed only
// by zero padding, and the gzip stream must end there too (its CRC-32 and
// size are checked). Sizes stated in pax headers, sparse files, pax
// global headers other than git archive's comment, and a pax name that a
// GNU long name overrides are refused: readers that ignore them, or
// apply the other, would read other files.
func ReadTarGz(data []byte, limits Limits) (*Archive, error) {
	l := limits.withDefaults()
	if err := checkArchiveSize(int64(len(data)), l); err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		if Sniff(data) != FormatTarGz {
			return nil, fail(ReasonNotTarGz, "", err, "the file is not gzip-compressed")
		}
		return nil, streamError(nil, "", err)
	}
	c := &inflateCounter{r: zr, packed: int64(len(data)), l: l,
		limit: l.MaxTotalSize + int64(l.MaxEntries)*tarHeaderAllowance + 20<<10}
	tr := tar.NewReader(c)
	var ms []member
	var held int64 // file content read so far
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, streamError(c, "", err)
		}
		if len(ms) >= l.MaxEntries {
			return nil, fail(ReasonTooManyEntries, "", nil, "the archive has more than %d entries", l.MaxEntries)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			for k := range h.PAXRecords {
				if k != "comment" {
					return nil, fail(ReasonGlobalHeader, "", nil, "a pax global header sets %q: readers disagree on whether it applies to later entries", k)
				}
			}
			continue
		}
		if _, ok := h.PAXRecords["size"]; ok {
			return nil, fail(ReasonHeaderMismatch, h.Name, nil, "a pax header overrides the entry's size: readers that ignore it read another archive")
		}
		// archive/tar takes a GNU long name over a pax path, GNU tar the
		// pax path: an entry named by both, differently, is two files.
		if p, ok := h.PAXRecords["path"]; ok && p != h.Name {
			return nil, fail(ReasonHeaderMismatch, h.Name, nil, "a pax header names the entry %q: readers disagree on which name applies", p)
		}
		m := member{name: h.Name, exec: h.Mode&0o111 != 0, modified: h.ModTime, size: h.Size, packed: -1}
		switch h.Typeflag {
		case tar.TypeReg, tar.TypeCont:
			if isSparse(h) {
				m.kind, m.special = kindSpecial, "sparse file"
				break
			}
			name := h.Name
			switch {
			case h.Size > l.MaxFileSize:
				m.read = func() ([]byte, error) {
					return nil, fail(ReasonFileTooLarge, name, nil, "the file is larger than %d bytes", l.MaxFileSize)
				}
			case held+h.Size > l.MaxTotalSize:
				// The checks of kept files come later; meanwhile no more
				// than the limit is held.
				m.read = func() ([]byte, error) {
					return nil, fail(ReasonTotalTooLarge, name, nil, "the archive inflates to more than %d bytes", l.MaxTotalSize)
				}
			default:
				buf := make([]byte, h.Size)
				if _, err := io.ReadFull(tr, buf); err != nil {
					return nil, streamError(c, h.Name, err)
				}
				held += h.Size
				m.read = func() ([]byte, error) { return buf, nil }
			}
		case tar.TypeDir:
			m.kind = kindDir
		case tar.TypeSymlink:
			m.kind = kindSymlink
		case tar.TypeLink:
			m.kind = kindHardlink
		case tar.TypeChar:
			m.kind, m.special = kindSpecial, "character device"
		case tar.TypeBlock:
			m.kind, m.special = kindSpecial, "block device"
		case tar.TypeFifo:
			m.kind, m.special = kindSpecial, "named pipe"
		default:
			m.kind, m.special = kindSpecial, "tar entry type "+strings.TrimSpace(string(h.Typeflag))
		}
		if m.kind != kindFile {
			m.size = 0
		}
		ms = append(ms, m)
	}
	// After the end marker: zero padding only, then the end of the gzip
	// stream, whose checksum is verified on the way.
	var block [4 << 10]byte
	for {
		n, err := c.Read(block[:])
		for _, b := range block[:n] {
			if b != 0 {
				return nil, fail(ReasonTrailing, "", nil, "data follows the tar archive's end marker")
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, streamError(c, "", err)
		}
	}
	return assemble(ms, l, nil)
}

// isSparse reports a GNU or pax sparse file, whose logical content is
// larger than what it stores.
func isSparse(h *tar.Header) bool {
	if h.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// inflateCounter counts the bytes a stream inflates to and stops it at the
// limits.
type inflateCounter struct {
	r      io.Reader
	n      int64
	limit  int64
	packed int64
	l      Limits
	err    error // the limit that stopped the stream
}

func (c *inflateCounter) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	k, err := c.r.Read(p)
	c.n += int64(k)
	switch {
	case c.n > c.limit:
		c.err = fail(ReasonTotalTooLarge, "", nil, "the archive inflates to more than %d bytes", c.limit)
	case tooCompressed(c.n, c.packed, c.l):
		c.err = fail(ReasonRatio, "", nil, "the archive inflates %d bytes to more than %d, more than %g:1", c.packed, c.n, c.l.MaxRatio)
	}
	if c.err != nil {
		return 0, c.err
	}
	return k, err
}

// streamError classifies a failure to read the stream.
func streamError(c *inflateCounter, subject string, err error) error {
	if c != nil && c.err != nil {
		return c.err
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fail(ReasonTruncated, subject, err, "the archive is truncated (cut short): download or copy it again")
	case errors.Is(err, gzip.ErrChecksum):
		return fail(ReasonChecksum, subject, err, "the archive's gzip checksum does not match its content")
	default:
		return fail(ReasonCorrupt, subject, err, "the archive is damaged")
	}
}
