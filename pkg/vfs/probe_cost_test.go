package vfs

import (
	"context"
	"fmt"
	"testing"
)

func BenchmarkProbeStatBigDir(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			db := NewMemory()
			files := make([]File, n)
			for i := range files {
				files[i] = File{Path: fmt.Sprintf("references/file%05d.md", i), Data: []byte("x"), ModTime: t0}
			}
			ops, err := PutSkill("s", "g", files)
			if err != nil || db.Commit(context.Background(), ops...) != nil {
				b.Fatal(err)
			}
			f := newFS(b, db)
			res, _ := db.Read(context.Background(), Get(StoreFiles, fileKey("s/references")))
			b.ReportMetric(float64(len(res[0][0].Value)), "recordbytes")
			b.ResetTimer()
			for b.Loop() {
				if _, err := f.Stat("s/references/file00042.md"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
