package zipguard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/internal/benchpack"
	"github.com/skillfs/skillfs/pkg/skillpath"
)

// caseless holds two-byte letters without case or decomposition (Hebrew,
// Arabic, Syriac), so that distinct segments never fold together.
var caseless = func() []rune {
	var rs []rune
	for _, r := range [][2]rune{{0x05d0, 0x05ea}, {0x0621, 0x063a}, {0x0641, 0x064a}, {0x0712, 0x072f}} {
		for c := r[0]; c <= r[1]; c++ {
			rs = append(rs, c)
		}
	}
	return rs
}()

// deepPaths returns n paths of depth segments of non-ASCII letters (what
// makes folding cost), every segment distinct from every other so that no
// node is shared and no fold is cached: three letters that number it, then
// pad more.
func deepPaths(n, depth, pad int) []string {
	l := len(caseless)
	paths := make([]string, n)
	for i := range paths {
		segs := make([]string, depth)
		for j := range segs {
			k := i*depth + j
			segs[j] = string([]rune{caseless[k/l/l%l], caseless[k/l%l], caseless[k%l]}) + strings.Repeat(string(caseless[0]), pad)
		}
		paths[i] = strings.Join(segs, "/")
	}
	return paths
}

// BenchmarkCollisionTree records deep paths of non-ASCII segments in the
// archive guard's collision tree: 1,000 paths 14 deep (1×, 97 KB of names:
// a real download has up to 141 KB), 140 deep (10×, Limits.MaxDepth
// raised) and 146 deep (the deepest such path within skillpath.MaxLen),
// then the worst case DefaultLimits allow: MaxNameBytes of paths MaxDepth
// deep, each about MaxLen bytes. The cost must follow the bytes recorded,
// not depth × length: ns/byte stays flat.
func BenchmarkCollisionTree(b *testing.B) {
	d := DefaultLimits()
	for _, c := range []struct {
		name          string
		n, depth, pad int
	}{
		{"1x", 1_000, 14, 0},
		{"10x", 1_000, 140, 0},
		{"limit-depth", 1_000, (skillpath.MaxLen + 1) / 7, 0},
		{"limit-defaults", d.MaxNameBytes / skillpath.MaxLen, d.MaxDepth, ((skillpath.MaxLen+1)/d.MaxDepth - 7) / 2},
	} {
		paths := deepPaths(c.n, c.depth, c.pad)
		bytes := 0
		for _, p := range paths {
			if len(p) > skillpath.MaxLen {
				b.Fatalf("a path of %d bytes is over the limit", len(p))
			}
			bytes += len(p)
		}
		b.Run(fmt.Sprintf("%s/paths=%d/depth=%d/bytes=%d", c.name, c.n, c.depth, bytes), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t := newTree()
				for _, p := range paths {
					if reason, msg := t.add(p, false); reason != "" {
						b.Fatal(msg)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(bytes), "ns/byte")
		})
	}
}

// BenchmarkReadPack reads the 10 MB, 415-file reference pack: every check
// and every entry inflated.
func BenchmarkReadPack(b *testing.B) {
	pack := benchpack.Pack()
	b.SetBytes(int64(len(pack)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(pack, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
