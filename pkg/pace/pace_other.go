//go:build !(js && wasm)

package pace

const yields = false

func yield() {}
