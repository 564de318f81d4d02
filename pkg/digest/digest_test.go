package digest

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"github.com/skillfs/skillfs/pkg/external"
)

// goParts wraps parts as content held in Go.
func goParts(parts [][]byte) []external.Bytes {
	out := make([]external.Bytes, len(parts))
	for i, p := range parts {
		out[i] = external.Go(p)
	}
	return out
}

// TestSHA256 checks both paths (Go's and, in the browser, the platform's)
// against crypto/sha256 of the concatenated content.
func TestSHA256(t *testing.T) {
	big := bytes.Repeat([]byte("skillfs "), subtleMin/8+3)
	for name, parts := range map[string][][]byte{
		"none":           nil,
		"small":          {[]byte("SKILL.md"), {0}, []byte("hello")},
		"large":          {[]byte("a"), big, nil, []byte("z")},
		"large, empties": {nil, big[:subtleMin], {}, big[subtleMin:]},
	} {
		want := sha256.Sum256(bytes.Join(parts, nil))
		if got := SHA256(goParts(parts)); got != want {
			t.Errorf("%s: SHA256 = %x, want %x", name, got, want)
		}
	}
}

// TestSHA256All: a batch of small and large lists, each its own sum.
func TestSHA256All(t *testing.T) {
	lists := [][][]byte{{[]byte("a")}, {bytes.Repeat([]byte("b"), subtleMin)}, nil, {bytes.Repeat([]byte("c"), 2*subtleMin), []byte("d")}}
	in := make([][]external.Bytes, len(lists))
	for i, l := range lists {
		in[i] = goParts(l)
	}
	for i, got := range SHA256All(in) {
		if want := sha256.Sum256(bytes.Join(lists[i], nil)); got != want {
			t.Errorf("list %d: %x, want %x", i, got, want)
		}
	}
}
