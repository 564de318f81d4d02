// Package external holds file content that may live outside Go's memory.
//
// In the browser, WebAssembly linear memory grows and is never returned:
// every byte an import holds in Go stays reserved for the host's life. An
// import therefore keeps the files it inflates in JavaScript buffers, which
// IndexedDB stores and crypto.subtle hashes without the bytes entering Go
// (docs/architecture.md#import). Natively, and for content Go made
// itself, Bytes is plain Go bytes.
package external

// Bytes is content held in Go or outside it.
type Bytes interface {
	Len() int
	// Copy returns the content as Go bytes: the bytes themselves for Go,
	// a copy for content held outside.
	Copy() []byte
}

// Go is content held in Go.
type Go []byte

// Len implements Bytes.
func (b Go) Len() int { return len(b) }

// Copy implements Bytes; it returns b itself.
func (b Go) Copy() []byte { return b }
