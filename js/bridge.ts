// The typed bridge between JavaScript callers and the skillfs wasm module.
// It grows with the module; see README.md.
export {};
