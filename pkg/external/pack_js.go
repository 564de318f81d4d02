//go:build js && wasm

package external

import (
	"encoding/binary"
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/pace"
)

// Pack is many contents described for one call into the import's
// JavaScript half (js/outside.ts) instead of a crossing each.
type Pack struct {
	// Where holds two numbers per content: its offset and length in
	// Bytes for content held in Go (nil is empty); for content held
	// outside, its index in Values and -1, or its index in Lists[k] and
	// -2-k.
	Where js.Value // Int32Array
	// Bytes holds the contents held in Go, one after another.
	Bytes js.Value // Uint8Array
	// Values holds the contents held outside Go on their own.
	Values js.Value // Array of Uint8Array
	// Lists holds the Lists of the contents held outside Go in one.
	Lists js.Value // Array of Array of Uint8Array
}

// packChunk is how much content held in Go PackOf copies into JavaScript
// at a time: Go never holds more than this extra.
const packChunk = 256 << 10

// PackOf describes cs.
func PackOf(cs []Bytes) Pack {
	total, ext := 0, 0
	lists := map[*List]int{}
	var order []any
	for i, c := range cs {
		pace.StepAt(i) // a commit describes thousands of contents
		switch c := c.(type) {
		case nil:
		case JS:
			if c.list == nil {
				ext++
			} else if _, ok := lists[c.list]; !ok {
				lists[c.list] = len(order)
				order = append(order, c.list.v)
			}
		default:
			total += c.Len()
		}
	}
	p := Pack{Bytes: jsUint8Array.New(total), Values: js.Global().Get("Array").New(ext), Lists: js.ValueOf(order)}
	where := make([]int32, 0, 2*len(cs))
	var chunk []byte
	at, flushed, k := 0, 0, 0
	flush := func() {
		if len(chunk) > 0 {
			js.CopyBytesToJS(p.Bytes.Call("subarray", flushed, flushed+len(chunk)), chunk)
			flushed += len(chunk)
			chunk = chunk[:0]
		}
	}
	for _, c := range cs {
		pace.Step()
		switch c := c.(type) {
		case nil:
			where = append(where, 0, 0)
		case JS:
			if c.list != nil {
				where = append(where, int32(c.i), int32(-2-lists[c.list]))
				continue
			}
			p.Values.SetIndex(k, c.v)
			where = append(where, int32(k), -1)
			k++
		default:
			b := c.Copy()
			where = append(where, int32(at), int32(len(b)))
			if len(chunk)+len(b) > packChunk {
				flush()
			}
			if len(b) > packChunk {
				js.CopyBytesToJS(p.Bytes.Call("subarray", at, at+len(b)), b)
				flushed += len(b)
			} else {
				if chunk == nil {
					// No larger than the content: a new buffer is zeroed.
					chunk = make([]byte, 0, min(packChunk, total-at))
				}
				chunk = append(chunk, b...)
			}
			at += len(b)
		}
	}
	flush()
	p.Where = Int32s(where)
	return p
}

// JS returns p as the object js/outside.ts takes.
func (p Pack) JS() js.Value {
	return js.ValueOf(map[string]any{"where": p.Where, "bytes": p.Bytes, "values": p.Values, "lists": p.Lists})
}

// Int32s returns v as an Int32Array.
func Int32s(v []int32) js.Value {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return js.Global().Get("Int32Array").New(Hold(b).v.Get("buffer"))
}
