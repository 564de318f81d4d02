//go:build js && wasm

// Command wasm is the GOOS=js GOARCH=wasm entry point that exposes the
// registry and the resolver to JavaScript.
package main
