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
	// test.wait waits until its call is cancelled (its caller's signal
	// aborted, or the deadline) and then counts it in
	// globalThis.skillfsTestCancelled, so a test sees the module was told.
	methods["test.wait"] = method{agent: true, run: func(ctx context.Context, _ *module, _ request) (result, error) {
		<-ctx.Done()
		g, n := js.Global(), 0
		if v := g.Get("skillfsTestCancelled"); v.Type() == js.TypeNumber {
			n = v.Int()
		}
		g.Set("skillfsTestCancelled", n+1)
		return result{}, ctx.Err()
	}}
}
