//go:build js && wasm

package zipguard

import (
	"encoding/binary"
	"errors"
	"io"
	"sync"
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/external"
)

// Browser returns the Outside of the zip archive held by the Uint8Array
// archive, which nothing may change while it is read: the browser's
// DecompressionStream inflates the entries into JavaScript buffers.
//
// Each entry's deflate data is framed as a gzip member whose trailer
// carries the CRC-32 and size the archive declares, so that the browser
// checks both as it inflates; a counting step stops the entry as soon as
// it yields more than its declared size. A stored entry is framed as
// deflate's stored blocks, so that its CRC-32 is checked the same way.
// Where the browser has no DecompressionStream, every entry is left to Go.
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
		return js.CopyBytesToGo(p, b.archive.Call("subarray", off, off+int64(len(p)))), err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if off < b.at || off+int64(len(p)) > b.at+int64(len(b.window)) {
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

// maxStoredBlock is the most a deflate stored block holds.
const maxStoredBlock = 0xffff

// storedBlockHeads returns the 5-byte headers of the deflate stored blocks
// that hold n > 0 bytes, one after another: final flag and type, length,
// and its complement.
func storedBlockHeads(n int64) []byte {
	var heads []byte
	for left := n; left > 0; left -= maxStoredBlock {
		k := uint16(min(left, maxStoredBlock))
		final := byte(0)
		if left <= maxStoredBlock {
			final = 1
		}
		heads = append(heads, final, byte(k), byte(k>>8), byte(^k), byte(^k>>8))
	}
	return heads
}

// gzipHeader is a gzip member header: deflate, no flags, no time, no OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

func (b *browser) Hold(p []byte) external.Bytes { return external.Hold(p) }

func (b *browser) Inflate(es []EntryData) []external.Bytes {
	out := make([]external.Bytes, len(es))
	g := js.Global()
	decompression := g.Get("DecompressionStream")
	if decompression.Type() != js.TypeFunction {
		return out
	}
	transform, u8, object, response := g.Get("TransformStream"), g.Get("Uint8Array"), g.Get("Object"), g.Get("Response")
	ignore := js.FuncOf(func(js.Value, []js.Value) any { return nil })
	defer ignore.Release()
	// One callback counts the output of every entry, on its own
	// transformer (this), which holds what the entry may still yield.
	count := js.FuncOf(func(this js.Value, args []js.Value) any {
		chunk, ctl := args[0], args[1]
		left := this.Get("left").Int() - chunk.Get("byteLength").Int()
		if left < 0 {
			ctl.Call("error", "the entry inflates past its declared size")
			return nil
		}
		this.Set("left", left)
		ctl.Call("enqueue", chunk)
		return nil
	})
	defer count.Release()
	head := external.Hold(gzipHeader).Value()
	promises := make([]any, len(es))
	for i, e := range es {
		var trailer [8]byte
		binary.LittleEndian.PutUint32(trailer[:], e.CRC32)
		binary.LittleEndian.PutUint32(trailer[4:], uint32(e.Size))
		gunzip := decompression.New("gzip")
		w := gunzip.Get("writable").Call("getWriter")
		// Their outcome is the readable side's: the writes' own Promises
		// are silenced.
		write := func(v js.Value) { w.Call("write", v).Call("catch", ignore) }
		write(head)
		if e.Stored {
			heads := external.Hold(storedBlockHeads(e.Size)).Value()
			for k, at := int64(0), e.Offset; at < e.Offset+e.Size; k, at = k+1, at+maxStoredBlock {
				write(heads.Call("subarray", 5*k, 5*k+5))
				write(b.archive.Call("subarray", at, min(at+maxStoredBlock, e.Offset+e.Size)))
			}
		} else {
			write(b.archive.Call("subarray", e.Offset, e.Offset+e.Packed))
		}
		write(external.Hold(trailer[:]).Value())
		w.Call("close").Call("catch", ignore)
		transformer := object.New()
		transformer.Set("transform", count)
		transformer.Set("left", e.Size)
		promises[i] = response.New(gunzip.Get("readable").Call("pipeThrough", transform.New(transformer))).Call("arrayBuffer")
	}
	settled := make(chan js.Value, 1)
	done := js.FuncOf(func(_ js.Value, args []js.Value) any {
		settled <- args[0]
		return nil
	})
	defer done.Release()
	g.Get("Promise").Call("allSettled", promises).Call("then", done)
	results := <-settled
	for i, e := range es {
		// The gzip trailer checks the size modulo 2^32 only.
		if r := results.Index(i); r.Get("status").String() == "fulfilled" && r.Get("value").Get("byteLength").Int() == int(e.Size) {
			out[i] = external.FromJS(u8.New(r.Get("value")))
		}
	}
	return out
}
