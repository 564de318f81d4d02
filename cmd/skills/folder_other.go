//go:build !unix

package main

// Elsewhere (js/wasm, wasip1, Windows) ReadFolder relies on its listing
// and the type check after opening.
const (
	openNoFollow = 0
	openNonBlock = 0
)
