package zipguard

import (
	"archive/zip"
	"bytes"
	"cmp"
	"encoding/binary"
	"io"
	"slices"
	"sort"

	"github.com/skillfs/skillfs/pkg/pace"
)

// Zip structure. Field offsets are from the start of each record.
const (
	sigLocal      = "PK\x03\x04"
	sigCentral    = "PK\x01\x02"
	sigEnd        = "PK\x05\x06"
	sigEnd64      = "PK\x06\x06"
	sigLocator64  = "PK\x06\x07"
	sigDescriptor = "PK\x07\x08"

	localHeaderLen   = 30
	centralHeaderLen = 46
	endLen           = 22
	locator64Len     = 20
	end64MinLen      = 56
	maxCommentLen    = 0xffff

	flagEncrypted  = 0x1
	flagDescriptor = 0x8 // CRC and sizes follow the data
	max32          = 0xffffffff
	zip64ExtraID   = 0x0001
)

// signatures are the record markers of a zip: none may appear in the end
// record's comment, where a second archive would hide.
var signatures = []string{sigLocal, sigCentral, sigEnd, sigEnd64, sigLocator64}

// checkLayout requires the one form of a zip that every reader reads the
// same way: local entries from offset 0, each followed directly by the
// next (or by its data descriptor), then the central directory, then one
// end record (with its zip64 records when used) ending exactly at the end
// of data. Each local header must agree with its central entry on name,
// flags, method, and CRC and sizes where it states them; data descriptors
// must agree too. Without this, a prefix (a PNG or script polyglot), bytes
// after the end record, a second archive in the end record's comment or a
// local header naming another file let stream readers (fflate, unzip -)
// see other files than Read does.
//
// files is archive/zip's reading of the central directory; checkLayout
// reads the records again itself and requires the two to agree. It reads
// headers only, through r (size bytes): nothing is inflated, and an
// archive held outside Go is never copied into it whole. It returns where
// each entry's data starts, by the local headers it checked: ReadOutside
// inflates from there rather than read them again (archive/zip's
// DataOffset), since the bytes of an archive held outside Go are the
// caller's.
func checkLayout(r io.ReaderAt, size int64, files []*zip.File) ([]int64, error) {
	tailLen := min(size, endLen+maxCommentLen)
	tail, err := readRange(r, size-tailLen, tailLen)
	if err != nil {
		return nil, err
	}
	at, err := findEnd(tail)
	if err != nil {
		return nil, err
	}
	end := size - tailLen + at
	le := binary.LittleEndian
	rec := tail[at:]
	disk, cdDisk := le.Uint16(rec[4:]), le.Uint16(rec[6:])
	onDisk, records := uint64(le.Uint16(rec[8:])), uint64(le.Uint16(rec[10:]))
	cdSize, cdOffset := uint64(le.Uint32(rec[12:])), uint64(le.Uint32(rec[16:]))
	dirEnd := end // where the central directory must end
	if records == 0xffff || cdSize == max32 || cdOffset == max32 {
		loc := end - locator64Len
		var locator []byte
		if loc >= 0 {
			if locator, err = readRange(r, loc, locator64Len); err != nil {
				return nil, err
			}
		}
		if loc < 0 || string(locator[:4]) != sigLocator64 {
			return nil, fail(ReasonCorrupt, "", nil, "the end record asks for zip64 records that are not there")
		}
		o := le.Uint64(locator[8:])
		var r64 []byte // the zip64 end record's fixed fields
		if o <= uint64(loc) && uint64(loc)-o >= end64MinLen {
			if r64, err = readRange(r, int64(o), end64MinLen); err != nil {
				return nil, err
			}
		}
		if r64 == nil || string(r64[:4]) != sigEnd64 {
			return nil, fail(ReasonCorrupt, "", nil, "the zip64 end record is missing or damaged")
		}
		if n := le.Uint64(r64[4:]); n != uint64(loc)-o-12 {
			return nil, fail(ReasonGap, "", nil, "bytes lie between the zip64 end record and its locator")
		}
		if le.Uint32(locator[4:]) != 0 || le.Uint32(locator[16:]) != 1 {
			return nil, fail(ReasonCorrupt, "", nil, "the archive spans several disks")
		}
		disk, cdDisk = uint16(min(le.Uint32(r64[16:]), 0xffff)), uint16(min(le.Uint32(r64[20:]), 0xffff))
		onDisk, records = le.Uint64(r64[24:]), le.Uint64(r64[32:])
		cdSize, cdOffset = le.Uint64(r64[40:]), le.Uint64(r64[48:])
		dirEnd = int64(o)
	}
	if disk != 0 || cdDisk != 0 || onDisk != records {
		return nil, fail(ReasonCorrupt, "", nil, "the archive spans several disks")
	}
	if cdSize > uint64(dirEnd) || cdOffset > uint64(dirEnd)-cdSize {
		return nil, fail(ReasonCorrupt, "", nil, "the central directory lies outside the archive")
	}
	cdStart := int64(cdOffset)
	if extra := dirEnd - cdStart - int64(cdSize); extra > 0 {
		return nil, fail(ReasonPrefix, "", nil, "%d bytes come before the archive's first entry or after its central directory (a polyglot or self-extractor)", extra)
	}
	if records != uint64(len(files)) {
		return nil, fail(ReasonCorrupt, "", nil, "the end record counts %d entries; the central directory holds %d", records, len(files))
	}

	// The central directory, record by record.
	dir, err := readRange(r, cdStart, int64(cdSize))
	if err != nil {
		return nil, err
	}
	spans := make([]span, len(files))
	p := int64(0)
	for i, f := range files {
		pace.StepAt(i)
		h := dir[p:]
		if len(h) < centralHeaderLen || string(h[:4]) != sigCentral {
			return nil, fail(ReasonCorrupt, f.Name, nil, "the central directory is damaged")
		}
		nameLen, extraLen, commentLen := int64(le.Uint16(h[28:])), int64(le.Uint16(h[30:])), int64(le.Uint16(h[32:]))
		n := centralHeaderLen + nameLen + extraLen + commentLen
		if n > int64(len(h)) {
			return nil, fail(ReasonCorrupt, f.Name, nil, "the central directory is damaged")
		}
		if string(h[centralHeaderLen:centralHeaderLen+nameLen]) != f.Name {
			return nil, fail(ReasonCorrupt, f.Name, nil, "the central directory is damaged")
		}
		off := uint64(le.Uint32(h[42:]))
		if off == max32 {
			var ok bool
			if off, ok = zip64Offset(h[centralHeaderLen+nameLen:centralHeaderLen+nameLen+extraLen], le.Uint32(h[24:]) == max32, le.Uint32(h[20:]) == max32); !ok {
				return nil, fail(ReasonCorrupt, f.Name, nil, "the entry's zip64 offset is missing")
			}
		}
		s, err := localSpan(r, cdStart, f, off)
		if err != nil {
			return nil, err
		}
		s.i = i
		spans[i] = s
		p += n
	}
	if p != int64(cdSize) {
		return nil, fail(ReasonGap, "", nil, "the central directory holds %d bytes its records do not account for", int64(cdSize)-p)
	}

	// The entries must tile the bytes before the central directory.
	sorted := slices.Clone(spans)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end)) < 0
	})
	for k := 1; k < len(sorted); k++ {
		if a, b := sorted[k-1], sorted[k]; b.start < a.end {
			// Name the entry that comes later in the central directory.
			first, later := files[min(a.i, b.i)], files[max(a.i, b.i)]
			return nil, fail(ReasonOverlap, later.Name, nil, "the entry overlaps %q in the archive (a zip bomb trick)", first.Name)
		}
	}
	next := int64(0)
	for k, s := range sorted {
		pace.StepAt(k)
		if s.start != next {
			if k == 0 {
				return nil, fail(ReasonPrefix, "", nil, "%d bytes come before the archive's first entry (a polyglot or self-extractor)", s.start)
			}
			return nil, fail(ReasonGap, files[s.i].Name, nil, "%d bytes before the entry belong to no entry", s.start-next)
		}
		limit := cdStart
		if k+1 < len(sorted) {
			limit = sorted[k+1].start
		}
		var after []byte // what follows the data, as far as a descriptor reaches
		if files[s.i].Flags&flagDescriptor != 0 {
			if after, err = readRange(r, s.end, min(limit-s.end, descriptorMaxLen)); err != nil {
				return nil, err
			}
		}
		n, err := descriptor(after, files[s.i], s.zip64)
		if err != nil {
			return nil, err
		}
		next = s.end + n
	}
	if next != cdStart {
		return nil, fail(ReasonGap, "", nil, "%d bytes before the central directory belong to no entry", cdStart-next)
	}
	data := make([]int64, len(spans))
	for i, s := range spans {
		pace.StepAt(i)
		if err := agree(s.header, files[s.i]); err != nil {
			return nil, err
		}
		data[i] = s.end - int64(files[i].CompressedSize64)
	}
	return data, nil
}

// descriptorMaxLen is the longest data descriptor: signature, CRC-32 and
// two 64-bit sizes.
const descriptorMaxLen = 4 + 4 + 16

// readRange reads n bytes of r from off, which the caller has checked lie
// within the archive.
func readRange(r io.ReaderAt, off, n int64) ([]byte, error) {
	b := make([]byte, n)
	if k, err := r.ReadAt(b, off); int64(k) < n {
		return nil, fail(ReasonCorrupt, "", err, "the archive cannot be read")
	}
	return b, nil
}

// span is the bytes of one entry: local header and data, without a data
// descriptor.
type span struct {
	start, end int64
	i          int    // index in the central directory
	zip64      bool   // the local header carries zip64 sizes
	header     []byte // the local header, with its name and extra field
}

// findEnd returns the offset of the end record in data, the archive's
// last bytes (all of them, or enough for the longest comment): the record
// must end exactly at the end of the archive and be the only one.
func findEnd(data []byte) (int64, error) {
	size := int64(len(data))
	le := binary.LittleEndian
	// The end record archive/zip reads: the last signature whose comment
	// fits in the file.
	at := int64(-1)
	for i := size - endLen; i >= 0 && i >= size-endLen-maxCommentLen; i-- {
		if string(data[i:i+4]) == sigEnd && i+endLen+int64(le.Uint16(data[i+20:])) <= size {
			at = i
			break
		}
	}
	if at < 0 {
		return 0, fail(ReasonCorrupt, "", nil, "the archive has no end record")
	}
	comment := data[at+endLen : at+endLen+int64(le.Uint16(data[at+20:]))]
	if trailing := size - at - endLen - int64(len(comment)); trailing > 0 {
		return 0, fail(ReasonTrailing, "", nil, "%d bytes follow the archive's end record", trailing)
	}
	for _, sig := range signatures {
		if bytes.Contains(comment, []byte(sig)) {
			return 0, fail(ReasonSecondArchive, "", nil, "the end record's comment holds zip records (a second archive)")
		}
	}
	// An earlier end record whose comment runs to the end of the file
	// holds this one: the archive carries a second archive in its comment.
	for i := at - 1; i >= 0 && i >= size-endLen-maxCommentLen; i-- {
		if string(data[i:i+4]) == sigEnd && i+endLen+int64(le.Uint16(data[i+20:])) == size {
			return 0, fail(ReasonSecondArchive, "", nil, "the archive holds a second archive in its end record's comment")
		}
	}
	return at, nil
}

// zip64Offset reads a local header offset from a central entry's zip64
// extra field, which holds the sizes first when they overflow too.
func zip64Offset(extra []byte, usize, csize bool) (uint64, bool) {
	for len(extra) >= 4 {
		id, n := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
		if n > len(extra)-4 {
			return 0, false
		}
		if field := extra[4 : 4+n]; id == zip64ExtraID {
			skip := 0
			if usize {
				skip += 8
			}
			if csize {
				skip += 8
			}
			if len(field) < skip+8 {
				return 0, false
			}
			return binary.LittleEndian.Uint64(field[skip:]), true
		}
		extra = extra[4+n:]
	}
	return 0, false
}

// localSpan reads the local header of f at off in r, among the entries
// (the cdStart bytes before the central directory).
func localSpan(r io.ReaderAt, cdStart int64, f *zip.File, off uint64) (span, error) {
	size := uint64(cdStart)
	if off > size || size-off < localHeaderLen {
		return span{}, fail(ReasonCorrupt, f.Name, nil, "the entry's local header is missing or damaged")
	}
	h, err := readRange(r, int64(off), localHeaderLen)
	if err != nil {
		return span{}, err
	}
	if string(h[:4]) != sigLocal {
		return span{}, fail(ReasonCorrupt, f.Name, nil, "the entry's local header is missing or damaged")
	}
	nameLen, extraLen := uint64(binary.LittleEndian.Uint16(h[26:])), uint64(binary.LittleEndian.Uint16(h[28:]))
	start := off + localHeaderLen + nameLen + extraLen
	if start > size || f.CompressedSize64 > size-start {
		return span{}, fail(ReasonCorrupt, f.Name, nil, "the entry's data runs past the end of the archive")
	}
	// The name and extra field only, after the fixed part: read again, the
	// fixed part might not give the lengths just checked (ReadOutside's
	// archive is the caller's, who may change it meanwhile).
	rest, err := readRange(r, int64(off)+localHeaderLen, int64(nameLen+extraLen))
	if err != nil {
		return span{}, err
	}
	h = append(h, rest...)
	_, z64 := localZip64(h[localHeaderLen+nameLen:])
	return span{start: int64(off), end: int64(start + f.CompressedSize64), zip64: z64, header: h}, nil
}

// localZip64 returns the zip64 extra field of a local header, if any.
func localZip64(extra []byte) ([]byte, bool) {
	for len(extra) >= 4 {
		id, n := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
		if n > len(extra)-4 {
			return nil, false
		}
		if id == zip64ExtraID {
			return extra[4 : 4+n], true
		}
		extra = extra[4+n:]
	}
	return nil, false
}

// agree compares the local header entry (with its name and extra field)
// with f, the central directory's record.
func agree(entry []byte, f *zip.File) error {
	le := binary.LittleEndian
	nameLen, extraLen := int(le.Uint16(entry[26:])), int(le.Uint16(entry[28:]))
	flags, method := le.Uint16(entry[6:]), le.Uint16(entry[8:])
	name := string(entry[localHeaderLen : localHeaderLen+nameLen])
	mismatch := func(what string) error {
		return fail(ReasonHeaderMismatch, f.Name, nil, "the entry's local header disagrees with the central directory on its %s", what)
	}
	switch {
	case name != f.Name:
		return fail(ReasonHeaderMismatch, f.Name, nil, "the entry's local header names it %q", name)
	case flags != f.Flags:
		return mismatch("flags")
	case method != f.Method:
		return mismatch("compression method")
	}
	crc, csize, usize := le.Uint32(entry[14:]), uint64(le.Uint32(entry[18:])), uint64(le.Uint32(entry[22:]))
	if z, ok := localZip64(entry[localHeaderLen+nameLen : localHeaderLen+nameLen+extraLen]); ok {
		// The zip64 field holds the inflated size then the compressed one,
		// each only when its 32-bit field overflows.
		if usize == max32 && len(z) >= 8 {
			usize, z = le.Uint64(z), z[8:]
		}
		if csize == max32 && len(z) >= 8 {
			csize = le.Uint64(z)
		}
	}
	if flags&flagDescriptor != 0 {
		// The values follow the data; a header that states them anyway
		// must state the same.
		if crc != 0 && crc != f.CRC32 || csize != 0 && csize != f.CompressedSize64 || usize != 0 && usize != f.UncompressedSize64 {
			return mismatch("CRC-32 or sizes")
		}
		return nil
	}
	switch {
	case crc != f.CRC32:
		return mismatch("CRC-32")
	case csize != f.CompressedSize64 || usize != f.UncompressedSize64:
		return mismatch("sizes")
	}
	return nil
}

// descriptor checks what follows an entry's data, before the next entry:
// nothing, or when the entry's flags say so, one data descriptor (with or
// without its signature, with 64-bit sizes for a zip64 entry) agreeing
// with the central directory. It returns the descriptor's length.
func descriptor(after []byte, f *zip.File, zip64 bool) (int64, error) {
	if f.Flags&flagDescriptor == 0 {
		return 0, nil
	}
	d := after
	if len(d) >= 4 && string(d[:4]) == sigDescriptor {
		d = d[4:]
	}
	le := binary.LittleEndian
	sizeLen := 4
	if zip64 {
		sizeLen = 8
	}
	if len(d) < 4+2*sizeLen {
		return 0, fail(ReasonCorrupt, f.Name, nil, "the entry's data descriptor is missing")
	}
	crc := le.Uint32(d)
	var csize, usize uint64
	if zip64 {
		csize, usize = le.Uint64(d[4:]), le.Uint64(d[12:])
	} else {
		csize, usize = uint64(le.Uint32(d[4:])), uint64(le.Uint32(d[8:]))
	}
	if crc != f.CRC32 || csize != f.CompressedSize64 || usize != f.UncompressedSize64 {
		return 0, fail(ReasonHeaderMismatch, f.Name, nil, "the entry's data descriptor disagrees with the central directory")
	}
	return int64(len(after)-len(d)) + 4 + 2*int64(sizeLen), nil
}
