package zipguard

import (
	"testing"

	"github.com/skillfs/skillfs/internal/benchpack"
)

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
