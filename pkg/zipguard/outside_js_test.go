//go:build js && wasm

package zipguard

import (
	"bytes"
	"hash/crc32"
	"testing"

	"github.com/skillfs/skillfs/pkg/external"
)

// testOutside in the browser is Browser, on a JavaScript copy of data.
func testOutside(_ testing.TB, data []byte) Outside { return Browser(external.Hold(data).Value()) }

// TestBrowserInflate: the browser inflates an honest entry, and gives up
// on one whose CRC-32 or size the archive misstates, or whose data is
// damaged, without inflating past the declared size.
func TestBrowserInflate(t *testing.T) {
	content := prose(5 * outsideMin)
	body := deflate(t, content)
	arc := append(append([]byte("head"), body...), "tail"...)
	honest := EntryData{Offset: 4, Packed: int64(len(body)), Size: int64(len(content)), CRC32: crc32.ChecksumIEEE(content)}
	lies := map[string]EntryData{
		"crc":      {Offset: 4, Packed: honest.Packed, Size: honest.Size, CRC32: honest.CRC32 + 1},
		"longer":   {Offset: 4, Packed: honest.Packed, Size: honest.Size - 1, CRC32: crc32.ChecksumIEEE(content[:len(content)-1])},
		"shorter":  {Offset: 4, Packed: honest.Packed, Size: honest.Size + 1, CRC32: honest.CRC32},
		"cut":      {Offset: 4, Packed: honest.Packed - 10, Size: honest.Size, CRC32: honest.CRC32},
		"trailing": {Offset: 4, Packed: honest.Packed + 4, Size: honest.Size, CRC32: honest.CRC32},
		"wrapped":  {Offset: 4, Packed: honest.Packed, Size: honest.Size + 1<<32, CRC32: honest.CRC32},
	}
	stored := EntryData{Offset: 4, Packed: int64(len(content)), Size: int64(len(content)), CRC32: honest.CRC32, Stored: true}
	storedArc := append(append([]byte("head"), content...), "tail"...)
	lies["stored crc"] = EntryData{Offset: 4, Packed: stored.Packed, Size: stored.Size, CRC32: stored.CRC32 + 1, Stored: true}
	es := []EntryData{honest}
	var names []string
	for name, d := range lies {
		es, names = append(es, d), append(names, name)
	}
	got := Browser(external.Hold(arc).Value()).Inflate(es)
	if got[0] == nil || !bytes.Equal(got[0].Copy(), content) {
		t.Fatalf("the honest entry: %v", got[0])
	}
	for i, name := range names {
		if got[i+1] != nil {
			t.Errorf("%s: inflated to %d bytes", name, got[i+1].Len())
		}
	}
	// Stored entries, in several stored blocks: honest, and one byte short
	// of a block boundary.
	for _, e := range []EntryData{stored, {Offset: 4, Packed: 2*maxStoredBlock - 1, Size: 2*maxStoredBlock - 1, CRC32: crc32.ChecksumIEEE(content[:2*maxStoredBlock-1]), Stored: true}} {
		got := Browser(external.Hold(storedArc).Value()).Inflate([]EntryData{e, lies["stored crc"]})
		if got[0] == nil || !bytes.Equal(got[0].Copy(), content[:e.Size]) {
			t.Fatalf("the stored entry of %d bytes: %v", e.Size, got[0])
		}
		if got[1] != nil {
			t.Errorf("a stored entry with the wrong CRC-32 was accepted")
		}
	}
}
