// Package digest computes the SHA-256 of content given in parts, as the
// registry's skill digests need it: in the browser by the platform's
// crypto.subtle once the content is large enough to repay the copy
// (SHA-256 in Go's WebAssembly runs several times slower than the
// browser's native one), every such content of a batch in one call;
// natively and for small content held in Go by crypto/sha256. Parts held
// outside Go (external.JS) are hashed where they are.
package digest

import (
	"crypto/sha256"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/pace"
)

// subtleMin is the content size from which the browser's digest is used:
// below it, the copy into JavaScript and the call cost more than hashing
// in Go.
const subtleMin = 16 << 10

// Sum is a SHA-256.
type Sum = [sha256.Size]byte

// SHA256 returns the SHA-256 of the concatenation of parts.
func SHA256(parts []external.Bytes) Sum { return SHA256All([][]external.Bytes{parts})[0] }

// SHA256All returns, for each list of parts, the SHA-256 of their
// concatenation. In the browser, the lists of subtleMin bytes or more, and
// those with parts held outside Go, are hashed by crypto.subtle all in one
// call.
func SHA256All(lists [][]external.Bytes) []Sum {
	sums := make([]Sum, len(lists))
	var large []int
	for i, parts := range lists {
		pace.Step()
		if size(parts) >= subtleMin || held(parts) {
			large = append(large, i)
		} else {
			sums[i] = inGo(parts)
		}
	}
	if len(large) > 0 && !subtle(lists, large, sums) {
		for _, i := range large {
			sums[i] = inGo(lists[i])
		}
	}
	return sums
}

// held reports whether any of parts is held outside Go, where it is
// hashed without a copy into Go.
func held(parts []external.Bytes) bool {
	for _, p := range parts {
		if _, ok := p.(external.Go); !ok {
			return true
		}
	}
	return false
}

func size(parts []external.Bytes) int {
	n := 0
	for _, p := range parts {
		n += p.Len()
	}
	return n
}

func inGo(parts []external.Bytes) Sum {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p.Copy())
	}
	var sum Sum
	h.Sum(sum[:0])
	return sum
}
