//go:build !(js && wasm)

package digest

func subtle([][]byte, int) ([32]byte, bool) { return [32]byte{}, false }
