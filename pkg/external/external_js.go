//go:build js && wasm

package external

import (
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

var jsUint8Array = js.Global().Get("Uint8Array")

// JS is content held in a JavaScript Uint8Array, which nothing may change
// once it is wrapped: a value of its own, or an element of a List, which
// Go then never fetches unless it copies the content (PackOf passes the
// List whole).
type JS struct {
	v    js.Value // when list is nil
	list *List
	i, n int
}

// List is a JavaScript Array of Uint8Arrays, such as a batch of files the
// import's JavaScript half inflated.
type List struct{ v js.Value }

// ListOf wraps the Array v.
func ListOf(v js.Value) *List { return &List{v: v} }

// At returns element i of l, which holds n bytes.
func (l *List) At(i, n int) JS { return JS{list: l, i: i, n: n} }

// Len implements Bytes.
func (b JS) Len() int { return b.n }

// Copy implements Bytes.
func (b JS) Copy() []byte {
	out := make([]byte, b.n)
	js.CopyBytesToGo(out, b.Value())
	return out
}

// Value returns the Uint8Array.
func (b JS) Value() js.Value {
	if b.list != nil {
		return b.list.v.Index(b.i)
	}
	return b.v
}

// Hold copies b out of Go into a new Uint8Array.
func Hold(b []byte) JS {
	v := jsUint8Array.New(len(b))
	js.CopyBytesToJS(v, b)
	return JS{v: v, n: len(b)}
}

// host is the JavaScript half of the import (js/outside.ts).
var host = js.Undefined()

// hostAPI is what this build calls on js/outside.ts.
var hostAPI = []string{"commit", "records", "inflate", "digest"}

// SetHost gives this module the JavaScript half of the import, the module
// js/outside.ts: the bridge passes it at start, Go's browser tests load
// its bundle (internal/jsoutside). It refuses a module that lacks a
// function this build calls: a bridge.js from another build than the
// module's, which would otherwise fail later, call by call.
func SetHost(v js.Value) error {
	for _, name := range hostAPI {
		if v.Type() != js.TypeObject || v.Get(name).Type() != js.TypeFunction {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "build-mismatch", Subject: "bridge.js",
				Msg: "bridge.js and skillfs.wasm come from different builds (its js/outside.ts has no " + name + "): serve the two files of one build"}
		}
	}
	host = v
	return nil
}

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
