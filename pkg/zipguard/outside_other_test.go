//go:build !(js && wasm)

package zipguard

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// testOutside natively is an Outside that inflates nothing, so that every
// entry takes ReadOutside's Go path; the browser's runs in Chromium.
func testOutside(_ testing.TB, data []byte) Outside { return goOutside{bytes.NewReader(data)} }

type goOutside struct{ *bytes.Reader }

func (goOutside) Inflate(es []EntryData) []external.Bytes { return make([]external.Bytes, len(es)) }
func (goOutside) Hold(b []byte) external.Bytes            { return external.Go(slices.Clone(b)) }

// TestReadOutsideChangedHeader: an archive whose bytes change while it is
// read (the browser's is the caller's buffer) is refused or read, and
// never panics: here the extra field's length in a local header, which
// the layout check reads once.
func TestReadOutsideChangedHeader(t *testing.T) {
	// Stored, and larger than the end of the archive archive/zip and the
	// layout check read first.
	big := prose(80 << 10)
	h := zip.FileHeader{Name: "pdf/big.md", Method: zip.Store, CRC32: crc32.ChecksumIEEE(big),
		CompressedSize64: uint64(len(big)), UncompressedSize64: uint64(len(big)),
		Extra: []byte{0xfe, 0xca, 4, 0, 1, 2, 3, 4}} // an unknown field of 4 bytes
	data := build(t, raw(h, big), file("pdf/SKILL.md", skillMD))
	after := slices.Clone(data)
	binary.LittleEndian.PutUint16(after[28:], 4000) // the first local header's extra length
	_, err := ReadOutside(Limits{}, &changing{goOutside{bytes.NewReader(data)}, after, 28, false})
	if err != nil && skillerr.CodeOf(err) != skillerr.InvalidArchive {
		t.Fatal(err)
	}
}

// changing reads as after from the second read that covers offset at on.
type changing struct {
	goOutside
	after []byte
	at    int64
	seen  bool
}

func (c *changing) ReadAt(p []byte, off int64) (int, error) {
	if off <= c.at && c.at < off+int64(len(p)) {
		if c.seen {
			return bytes.NewReader(c.after).ReadAt(p, off)
		}
		c.seen = true
	}
	return c.goOutside.ReadAt(p, off)
}
