//go:build !(js && wasm)

package registry

// testBackends are the backends of this platform: memory only.
var testBackends = []backendCase{memoryCase}
