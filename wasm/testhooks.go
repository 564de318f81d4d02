//go:build js && wasm && skillfs_testhooks

package main

import (
	"context"
	"syscall/js"
)

// The test build (make test builds it with -tags skillfs_testhooks) adds
// methods the browser tests need. Release builds do not have them.
func init() {
	// test.panic proves a panic becomes an Error and the module keeps serving.
	methods["test.panic"] = method{agent: true, run: func(context.Context, *module, request) (result, error) {
		panic("test.panic was called")
	}}
	// test.wait counts its call in globalThis.skillfsTestWaiting, waits
	// until it is cancelled (its caller's signal aborted, or the deadline)
	// and then counts it in globalThis.skillfsTestCancelled, so a test sees
	// the call reach the module and the module told.
	methods["test.wait"] = method{agent: true, run: func(ctx context.Context, _ *module, _ request) (result, error) {
		count("skillfsTestWaiting")
		<-ctx.Done()
		count("skillfsTestCancelled")
		return result{}, ctx.Err()
	}}
}

// count adds one to the number globalThis[name] (none: 0).
func count(name string) {
	g, n := js.Global(), 0
	if v := g.Get(name); v.Type() == js.TypeNumber {
		n = v.Int()
	}
	g.Set(name, n+1)
}
