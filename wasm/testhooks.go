//go:build js && wasm && skillfs_testhooks

package main

import "context"

// The test build (make test builds it with -tags skillfs_testhooks) adds a
// method that panics, so the browser tests can prove a panic becomes an
// Error and the module keeps serving. Release builds do not have it.
func init() {
	methods["test.panic"] = method{agent: true, run: func(context.Context, *module, request) (result, error) {
		panic("test.panic was called")
	}}
}
