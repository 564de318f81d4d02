//go:build js && wasm

package zipguard

import (
	"bytes"
	"hash/crc32"
	"math/bits"
	"testing"

	"github.com/skillfs/skillfs/pkg/external"
)

// testOutside in the browser is Browser, on a JavaScript copy of data.
func testOutside(_ testing.TB, data []byte) Outside { return Browser(external.Hold(data).Value()) }

// TestBrowserInflate: the browser inflates an honest entry, small or
// streamed, and gives up on one whose CRC-32 or size the archive
// misstates, or whose data is damaged, without inflating past the
// declared size; after a small entry it gave up on, it leaves the rest to
// Go. The largest size checks a stored entry over several of the slices
// js/outside.ts checks it in (1 MiB each).
func TestBrowserInflate(t *testing.T) {
	for _, n := range []int{1000, 5 * streamMin, 3<<20 + 7} {
		content := prose(n)
		body := deflate(t, content)
		arc := append(append([]byte("head"), body...), "tail"...)
		honest := EntryData{Offset: 4, Packed: int64(len(body)), Size: int64(len(content)), CRC32: crc32.ChecksumIEEE(content)}
		lies := map[string]EntryData{
			"crc":     {Offset: 4, Packed: honest.Packed, Size: honest.Size, CRC32: honest.CRC32 + 1},
			"longer":  {Offset: 4, Packed: honest.Packed, Size: honest.Size - 1, CRC32: crc32.ChecksumIEEE(content[:len(content)-1])},
			"shorter": {Offset: 4, Packed: honest.Packed, Size: honest.Size + 1, CRC32: honest.CRC32},
			"cut":     {Offset: 4, Packed: honest.Packed - 10, Size: honest.Size, CRC32: honest.CRC32},
			"wrapped": {Offset: 4, Packed: honest.Packed, Size: honest.Size + 1<<32, CRC32: honest.CRC32},
		}
		if n >= streamMin {
			// Bytes after the deflate stream: Read ignores them, as the
			// small entries' inflater does.
			lies["trailing"] = EntryData{Offset: 4, Packed: honest.Packed + 4, Size: honest.Size, CRC32: honest.CRC32}
		}
		for name, lie := range lies {
			got := testOutside(t, arc).Inflate([]EntryData{honest, lie, honest})
			if got[0] == nil || !bytes.Equal(got[0].Copy(), content) {
				t.Fatalf("%d bytes, the honest entry: %v", n, got[0])
			}
			// IndexedDB stores a view's whole buffer.
			if b := got[0].(external.JS).Value().Get("buffer").Get("byteLength").Int(); b != n {
				t.Fatalf("%d bytes, the honest entry: in a buffer of %d bytes", n, b)
			}
			if got[1] != nil {
				t.Errorf("%d bytes, %s: inflated to %d bytes", n, name, got[1].Len())
			}
			if n < streamMin && name != "wrapped" && got[2] != nil {
				t.Errorf("%d bytes, %s: the entry after it was inflated too", n, name)
			}
		}
		stored := EntryData{Offset: 4, Packed: int64(len(content)), Size: int64(len(content)), CRC32: honest.CRC32, Stored: true}
		storedArc := append(append([]byte("head"), content...), "tail"...)
		lie := stored
		lie.CRC32++
		got := testOutside(t, storedArc).Inflate([]EntryData{stored, lie})
		if got[0] == nil || !bytes.Equal(got[0].Copy(), content) {
			t.Fatalf("the stored entry of %d bytes: %v", n, got[0])
		}
		if got[1] != nil {
			t.Errorf("a stored entry of %d bytes with the wrong CRC-32 was accepted", n)
		}
	}
}

// TestBrowserInflateCounts: a small entry whose stream holds one byte more
// than declared is refused though the bytes that fit have the declared
// CRC-32. Its stream ends in a Huffman block: compress/flate ends every
// stream with an empty stored block, which fflate fails to write into a
// full buffer whatever it counted, so TestBrowserInflate's "longer" does
// not test the count.
func TestBrowserInflateCounts(t *testing.T) {
	text := prose(1000)
	body := huffman(text)
	honest := EntryData{Packed: int64(len(body)), Size: int64(len(text)), CRC32: crc32.ChecksumIEEE(text)}
	longer := EntryData{Packed: honest.Packed, Size: honest.Size - 1, CRC32: crc32.ChecksumIEEE(text[:len(text)-1])}
	got := testOutside(t, body).Inflate([]EntryData{honest, longer})
	if got[0] == nil || !bytes.Equal(got[0].Copy(), text) {
		t.Fatalf("the honest entry: %v", got[0])
	}
	if got[1] != nil {
		t.Errorf("a stream one byte longer than declared was inflated to %d bytes", got[1].Len())
	}
}

// huffman returns text (bytes below 144) deflated as one final block of
// literals with the fixed codes.
func huffman(text []byte) []byte {
	var out []byte
	var acc uint32
	var n uint
	put := func(v uint32, width uint) { // fields go least significant bit first
		acc |= v << n
		for n += width; n >= 8; n -= 8 {
			out = append(out, byte(acc))
			acc >>= 8
		}
	}
	// Huffman codes go most significant bit first.
	code := func(c uint32, width uint) { put(bits.Reverse32(c)>>(32-width), width) }
	put(1, 1) // the final block
	put(1, 2) // fixed codes
	for _, c := range text {
		code(0x30+uint32(c), 8)
	}
	code(0, 7) // end of block
	if n > 0 {
		out = append(out, byte(acc))
	}
	return out
}

// TestBrowserDetached: Browser reads the caller's buffer where it is; once
// its owner detaches it (transfers it elsewhere), before the import reads
// it or after the headers were read and checked, ReadOutside fails with
// ErrDetached, not with a fault of the archive or a panic of syscall/js.
// (The archive is larger than the window Browser reads headers through:
// an archive whose every byte Go still holds in it is read to the end.)
func TestBrowserDetached(t *testing.T) {
	big := string(prose(8 * streamMin))
	data := build(t, file("pdf/SKILL.md", skillMD), file("pdf/big.md", big), file("pdf/small.md", "small"))
	for _, when := range []string{"before", "inflating"} {
		v := external.Hold(data).Value()
		out := Browser(v)
		detach := func() { v.Get("buffer").Call("transfer") }
		if when == "before" {
			detach()
		} else {
			out = detachingOutside{out, detach}
		}
		_, err := ReadOutside(Limits{}, out)
		if err != ErrDetached {
			t.Errorf("detached %s: %v", when, err)
		}
	}
}

// detachingOutside calls detach as Inflate starts.
type detachingOutside struct {
	Outside
	detach func()
}

func (d detachingOutside) Inflate(es []EntryData) []external.Bytes {
	d.detach()
	return d.Outside.Inflate(es)
}
