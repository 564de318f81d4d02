package zipguard

import (
	"archive/zip"
	"errors"
	"io"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// Outside holds a zip archive outside Go, and inflates its entries and
// holds what it inflates there (in the browser: DecompressionStream into
// JavaScript buffers), so that neither the archive nor its files stay in
// Go's memory, which in WebAssembly is never returned.
type Outside interface {
	// ReadAt reads the archive; once the archive is gone from under it, it
	// returns ErrDetached.
	io.ReaderAt
	// Size is the archive's length in bytes.
	Size() int64
	// Inflate inflates (or for stored entries, checks) the entries es,
	// all at once. Result i is the content of es[i], or nil where it could
	// not be inflated to exactly its declared size and CRC-32: ReadOutside
	// then reads that entry in Go, which names the fault. It must bound
	// what an entry that lies costs: stop it once it passes its declared
	// size, or give up on the rest of the batch after it.
	Inflate(es []EntryData) []external.Bytes
	// Hold copies b, content inflated in Go, outside Go; b is reused.
	Hold(b []byte) external.Bytes
}

// EntryData locates one entry's data in an archive.
type EntryData struct {
	Offset, Packed int64 // where the compressed bytes start, and how many
	Size           int64 // inflated, as the archive declares it
	CRC32          uint32
	Stored         bool // not compressed: Packed is Size
	// Descriptor says a data descriptor follows a deflated entry: its
	// deflate stream must end exactly at Packed (see inflate).
	Descriptor bool
}

// ReadOutside is Read of the zip archive out holds, with each File's
// content held outside Go by out (in Ext, not Data). Every rule is checked
// on the headers, read through out, before out inflates anything, and
// out's content must have the size and CRC-32 the archive declares; Go
// never holds the archive whole.
//
// The archive is read where it is, and may change while it is read (in
// the browser it is the caller's buffer): out inflates each entry from
// where the layout check found its data, not from a second reading of its
// header, and every file is checked, on bytes of its own, against the
// size and CRC-32 of the central directory, so that bytes changed
// meanwhile make it refuse the archive, never return content other than
// what it checked. An archive gone from under it makes it return
// ErrDetached.
func ReadOutside(limits Limits, out Outside) (*Archive, error) {
	a, err := read(out, out.Size(), limits, out)
	if errors.Is(err, ErrDetached) {
		return nil, ErrDetached
	}
	return a, err
}

// ReadAnyOutside is ReadAny of the archive out holds: a zip read where it
// is (ReadOutside), a .tar.gz (a stream, inflated in Go) from a copy in
// Go, made only when the archive is within MaxArchiveSize: memory Go takes
// in WebAssembly is never given back, and a file of gigabytes would end
// the module.
func ReadAnyOutside(limits Limits, out Outside) (*Archive, error) {
	head := make([]byte, 4)
	n, err := out.ReadAt(head, 0)
	if errors.Is(err, ErrDetached) {
		return nil, err
	}
	if Sniff(head[:n]) == FormatZip {
		return ReadOutside(limits, out)
	}
	if err := checkArchiveSize(out.Size(), limits.withDefaults()); err != nil {
		return nil, err
	}
	data := make([]byte, out.Size())
	if _, err := out.ReadAt(data, 0); err != nil && len(data) > 0 {
		if errors.Is(err, ErrDetached) {
			return nil, err
		}
		return nil, fail(ReasonCorrupt, "", err, "the archive cannot be read")
	}
	return ReadAny(data, limits)
}

// ErrDetached is what an Outside's ReadAt returns once the archive is gone
// from under it, as in the browser when its owner detaches (transfers) the
// ArrayBuffer that holds it during the import: the caller's doing, not
// the archive's.
var ErrDetached = &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonDetached,
	Msg: "the archive's bytes were taken away (their ArrayBuffer detached, as by transfer()) while the import read them; nothing was stored"}

// readOutside returns the content reader of ReadOutside: out inflates
// every entry in one batch (in the browser, faster than Go and without
// holding anything in Go's memory), Go any that out could not, in archive
// order, so that the first entry at fault is named as Read names it.
func readOutside(out Outside) func([]*member) ([]external.Bytes, error) {
	return func(files []*member) ([]external.Bytes, error) {
		var batch []EntryData
		var at []int // the index in files of each entry of batch
		for i, m := range files {
			f := m.zf
			stored := f != nil && f.Method == zip.Store
			if f == nil || !stored && f.Method != zip.Deflate || stored && f.CompressedSize64 != f.UncompressedSize64 {
				continue // Go's reading says what is wrong with a stored entry
			}
			batch = append(batch, EntryData{Offset: m.data, Packed: int64(f.CompressedSize64), Size: int64(f.UncompressedSize64), CRC32: f.CRC32, Stored: stored,
				Descriptor: f.Flags&flagDescriptor != 0})
			at = append(at, i)
		}
		contents := make([]external.Bytes, len(files))
		if len(batch) > 0 {
			for k, c := range out.Inflate(batch) {
				if c != nil && int64(c.Len()) == batch[k].Size {
					contents[at[k]] = c
				}
			}
		}
		var scratch []byte
		for i, m := range files {
			if contents[i] != nil {
				continue
			}
			pace.Step()
			var b []byte
			var err error
			if m.zf != nil {
				b, err = inflate(m.zf, scratch)
				scratch = b
			} else {
				b, err = m.read()
			}
			if err != nil {
				return nil, err
			}
			contents[i] = out.Hold(b)
		}
		return contents, nil
	}
}
