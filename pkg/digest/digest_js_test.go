//go:build js && wasm

package digest

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"github.com/skillfs/skillfs/pkg/external"
)

// TestSubtle checks that the browser's digest is really used (the test
// page is a secure context) and agrees with crypto/sha256.
func TestSubtle(t *testing.T) {
	parts := [][]byte{[]byte("head"), bytes.Repeat([]byte{7}, subtleMin)}
	sum, ok := subtle(goParts(parts), 4+subtleMin)
	if !ok {
		t.Fatal("crypto.subtle.digest was not used")
	}
	if want := sha256.Sum256(bytes.Join(parts, nil)); sum != want {
		t.Fatalf("crypto.subtle: %x, want %x", sum, want)
	}
}

// TestSubtleJS hashes parts held in JavaScript beside parts held in Go,
// small (hashed in Go from copies) and large (hashed where they are).
func TestSubtleJS(t *testing.T) {
	for _, n := range []int{10, subtleMin} {
		body := bytes.Repeat([]byte{9}, n)
		parts := []external.Bytes{external.Go("head"), external.Hold(body), external.Go(nil), external.Hold([]byte("tail"))}
		want := sha256.Sum256(bytes.Join([][]byte{[]byte("head"), body, []byte("tail")}, nil))
		if got := SHA256(parts); got != want {
			t.Errorf("%d bytes: SHA256 = %x, want %x", n, got, want)
		}
	}
}

// BenchmarkSHA256 hashes 10 MB in 400 parts (a skill pack's files), in Go
// and by crypto.subtle, in the same run.
func BenchmarkSHA256(b *testing.B) {
	parts := make([]external.Bytes, 400)
	for i := range parts {
		parts[i] = external.Go(bytes.Repeat([]byte{byte(i)}, 25_000))
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
