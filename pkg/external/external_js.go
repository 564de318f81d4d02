//go:build js && wasm

package external

import "syscall/js"

var jsUint8Array = js.Global().Get("Uint8Array")

// JS is content held in a JavaScript Uint8Array, which nothing may change
// once it is wrapped.
type JS struct {
	v js.Value
	n int
}

// FromJS wraps the Uint8Array v.
func FromJS(v js.Value) JS { return JS{v: v, n: v.Length()} }

// Len implements Bytes.
func (b JS) Len() int { return b.n }

// Copy implements Bytes.
func (b JS) Copy() []byte {
	out := make([]byte, b.n)
	js.CopyBytesToGo(out, b.v)
	return out
}

// Value returns the Uint8Array.
func (b JS) Value() js.Value { return b.v }

// Hold copies b out of Go into a new Uint8Array.
func Hold(b []byte) JS {
	v := jsUint8Array.New(len(b))
	js.CopyBytesToJS(v, b)
	return JS{v: v, n: len(b)}
}

// ToJS returns b as a Uint8Array: its own for JS content, a copy of Go
// content.
func ToJS(b Bytes) js.Value {
	if j, ok := b.(JS); ok {
		return j.v
	}
	return Hold(b.Copy()).v
}
