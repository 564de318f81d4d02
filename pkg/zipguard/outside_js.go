//go:build js && wasm

package zipguard

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"sync"
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/external"
)

// Browser returns the Outside of the zip archive held by the Uint8Array
// archive, read where it is: the import's JavaScript half (js/outside.ts)
// inflates the entries into JavaScript buffers of their own and checks
// their sizes and CRC-32s, all in one call. Its owner may change it
// meanwhile (ReadOutside then refuses it), or detach its buffer: ReadAt
// then returns ErrDetached. Its length is taken now.
func Browser(archive js.Value) Outside {
	return &browser{archive: archive, size: int64(archive.Get("byteLength").Int())}
}

type browser struct {
	archive js.Value
	size    int64
	// The headers are read in many small pieces, mostly in order: each
	// crossing into JavaScript copies a window of the archive.
	mu     sync.Mutex
	window []byte
	at     int64 // the archive offset of window
}

// windowLen is what one crossing copies for a small read.
const windowLen = 64 << 10

func (b *browser) Size() int64 { return b.size }

func (b *browser) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("zipguard: negative offset")
	}
	if off >= b.size {
		return 0, io.EOF
	}
	var err error
	if int64(len(p)) > b.size-off {
		p, err = p[:b.size-off], io.EOF
	}
	if len(p) > windowLen/2 {
		if b.detached() {
			return 0, ErrDetached
		}
		return js.CopyBytesToGo(p, b.archive.Call("subarray", off, off+int64(len(p)))), err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if off < b.at || off+int64(len(p)) > b.at+int64(len(b.window)) {
		if b.detached() {
			return 0, ErrDetached
		}
		end := min(off+windowLen, b.size)
		if b.window == nil {
			b.window = make([]byte, windowLen)
		}
		b.window = b.window[:end-off]
		js.CopyBytesToGo(b.window, b.archive.Call("subarray", off, end))
		b.at = off
	}
	return copy(p, b.window[off-b.at:]), err
}

// detached reports whether the archive's buffer was detached: a view of
// it then has no bytes (and subarray throws).
func (b *browser) detached() bool { return int64(b.archive.Get("byteLength").Int()) != b.size }

func (b *browser) Hold(p []byte) external.Bytes { return external.Hold(p) }

// Inflate hands every entry to the import's JavaScript half
// (external.Host, js/outside.ts) in one call, described by five numbers
// each, and wraps what it returns.
func (b *browser) Inflate(es []EntryData) []external.Bytes {
	desc := make([]byte, 0, 5*8*len(es))
	for _, e := range es {
		kind := 0.0 // deflated
		switch {
		case e.Stored:
			kind = 1
		case e.Descriptor:
			kind = 2
		}
		for _, f := range [5]float64{float64(e.Offset), float64(e.Packed), float64(e.Size), float64(e.CRC32), kind} {
			desc = binary.LittleEndian.AppendUint64(desc, math.Float64bits(f))
		}
	}
	raw := external.Hold(desc).Value()
	numbers := js.Global().Get("Float64Array").New(raw.Get("buffer"))
	out := make([]external.Bytes, len(es))
	res, ok := external.Await(external.Host().Call("inflate", b.archive, numbers))
	if !ok {
		return out // Go reads them all, and names the fault
	}
	inflated := make([]byte, len(es))
	js.CopyBytesToGo(inflated, res.Get("ok"))
	files := external.ListOf(res.Get("files"))
	for i, e := range es {
		if inflated[i] == 1 {
			out[i] = files.At(i, int(e.Size))
		}
	}
	return out
}
