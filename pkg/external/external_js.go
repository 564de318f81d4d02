//go:build js && wasm

package external

import (
	"syscall/js"
)

var jsUint8Array = js.Global().Get("Uint8Array")

// JS is content held in a JavaScript Uint8Array, which nothing may change
// once it is wrapped.
type JS struct {
	v js.Value
	n int
}

// FromJS wraps the Uint8Array v.
func FromJS(v js.Value) JS { return JS{v: v, n: v.Length()} }

// JSOf wraps the Uint8Array v, which holds n bytes.
func JSOf(v js.Value, n int) JS { return JS{v: v, n: n} }

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

// host is the JavaScript half of the import (js/outside.ts).
var host = js.Undefined()

// SetHost gives this module the JavaScript half of the import, the module
// js/outside.ts: the bridge passes it at start, Go's browser tests load
// its bundle (internal/jsoutside).
func SetHost(v js.Value) { host = v }

// Host returns the module SetHost gave; it panics without one, which is a
// mistake of the program, not of its input.
func Host() js.Value {
	if host.IsUndefined() {
		panic("external: no JavaScript host; the bridge passes js/outside.ts (SetHost)")
	}
	return host
}

// Await blocks its goroutine until the Promise p settles, and returns its
// value, or ok false with the reason it was rejected. It must not be
// called from a JavaScript callback.
func Await(p js.Value) (v js.Value, ok bool) {
	type outcome struct {
		v  js.Value
		ok bool
	}
	done := make(chan outcome, 1)
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any { done <- outcome{args[0], true}; return nil })
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any { done <- outcome{args[0], false}; return nil })
	defer onOK.Release()
	defer onErr.Release()
	p.Call("then", onOK, onErr)
	o := <-done
	return o.v, o.ok
}
