package digest

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

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
		if got := SHA256(parts); got != want {
			t.Errorf("%s: SHA256 = %x, want %x", name, got, want)
		}
	}
}
