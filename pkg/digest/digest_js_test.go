//go:build js && wasm

package digest

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

// TestSubtle checks that the browser's digest is really used (the test
// page is a secure context) and agrees with crypto/sha256.
func TestSubtle(t *testing.T) {
	parts := [][]byte{[]byte("head"), bytes.Repeat([]byte{7}, subtleMin)}
	sum, ok := subtle(parts, 4+subtleMin)
	if !ok {
		t.Fatal("crypto.subtle.digest was not used")
	}
	if want := sha256.Sum256(bytes.Join(parts, nil)); sum != want {
		t.Fatalf("crypto.subtle: %x, want %x", sum, want)
	}
}

// BenchmarkSHA256 hashes 10 MB in 400 parts (a skill pack's files), in Go
// and by crypto.subtle, in the same run.
func BenchmarkSHA256(b *testing.B) {
	parts := make([][]byte, 400)
	for i := range parts {
		parts[i] = bytes.Repeat([]byte{byte(i)}, 25_000)
	}
	b.Run("go", func(b *testing.B) {
		b.SetBytes(10_000_000)
		for i := 0; i < b.N; i++ {
			inGo(parts)
		}
	})
	b.Run("subtle", func(b *testing.B) {
		b.SetBytes(10_000_000)
		for i := 0; i < b.N; i++ {
			if _, ok := subtle(parts, 10_000_000); !ok {
				b.Fatal("no crypto.subtle")
			}
		}
	})
}
