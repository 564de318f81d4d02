// Package digest computes the SHA-256 of content given in parts, as the
// registry's skill digests need it: in the browser by the platform's
// crypto.subtle once the content is large enough to repay the round trip
// (SHA-256 in Go's WebAssembly runs several times slower than the
// browser's native one), natively and for small content by crypto/sha256.
// Parts held outside Go (external.JS) are hashed where they are.
package digest

import (
	"crypto/sha256"

	"github.com/skillfs/skillfs/pkg/external"
)

// subtleMin is the content size from which the browser's digest is used:
// below it, the copy into JavaScript and the round trip cost more than
// hashing in Go.
const subtleMin = 1 << 20

// SHA256 returns the SHA-256 of the concatenation of parts.
func SHA256(parts []external.Bytes) [sha256.Size]byte {
	n := 0
	for _, p := range parts {
		n += p.Len()
	}
	if n >= subtleMin {
		if sum, ok := subtle(parts, n); ok {
			return sum
		}
	}
	return inGo(parts)
}

func inGo(parts []external.Bytes) [sha256.Size]byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p.Copy())
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}
