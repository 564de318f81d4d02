//go:build js && wasm

package digest

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"github.com/skillfs/skillfs/pkg/external"
)

// TestSubtle checks that the browser's digest is really used (the test
// page is a secure context) and agrees with crypto/sha256, for lists of
// several sizes in either order (the JavaScript side joins each list's
// parts in one buffer it reuses).
func TestSubtle(t *testing.T) {
	lists := [][][]byte{
		{[]byte("head"), bytes.Repeat([]byte{7}, subtleMin)},
		nil,
		{bytes.Repeat([]byte{8}, 3*subtleMin)},
		{bytes.Repeat([]byte{9}, subtleMin), []byte("tail")},
	}
	in := make([][]external.Bytes, len(lists))
	for i, l := range lists {
		in[i] = goParts(l)
	}
	sums := make([]Sum, len(lists))
	if !subtle(in, []int{0, 2, 3}, sums) {
		t.Fatal("crypto.subtle.digest was not used")
	}
	for _, i := range []int{0, 2, 3} {
		if want := sha256.Sum256(bytes.Join(lists[i], nil)); sums[i] != want {
			t.Errorf("list %d: crypto.subtle gave %x, want %x", i, sums[i], want)
		}
	}
	if sums[1] != (Sum{}) {
		t.Errorf("list 1, not asked for: %x, want nothing", sums[1])
	}
}

// TestSubtleJS hashes parts held in JavaScript beside parts held in Go,
// small and large, where they are.
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
			if !subtle([][]external.Bytes{parts}, []int{0}, make([]Sum, 1)) {
				b.Fatal("no crypto.subtle")
			}
		}
	})
}
