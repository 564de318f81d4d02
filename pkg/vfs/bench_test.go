package vfs

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/hack-pad/hackpadfs"
)

// benchTree returns n files of size bytes each, in a few directories.
func benchTree(n, size int) []File {
	files := make([]File, n)
	for i := range files {
		files[i] = File{
			Path:    fmt.Sprintf("dir%d/file%d.md", i%8, i),
			Data:    bytes.Repeat([]byte{'a' + byte(i%26)}, size),
			ModTime: t0,
		}
	}
	return files
}

// forEachBackend runs bench on a fresh backend of every kind.
func forEachBackend(b *testing.B, bench func(b *testing.B, db Backend)) {
	for _, bc := range testBackends {
		b.Run(bc.name, func(b *testing.B) { bench(b, bc.open(b)) })
	}
}

func mustCommit(b *testing.B, db Backend, ops []Op, err error) {
	b.Helper()
	if err == nil {
		err = db.Commit(context.Background(), ops...)
	}
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFSWriteFile writes one 1 KB file per op through the hackpadfs
// API (keyvalue: a read, then a commit to create and one to write).
func BenchmarkFSWriteFile(b *testing.B) {
	forEachBackend(b, func(b *testing.B, db Backend) {
		ops, err := PutSkill("s", "g", nil)
		mustCommit(b, db, ops, err)
		f := newFS(b, db)
		data := bytes.Repeat([]byte("x"), 1024)
		for i := 0; b.Loop(); i++ {
			if err := hackpadfs.WriteFullFile(f, fmt.Sprintf("s/f%d.md", i), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCommit400Files writes a 400-file skill of 1 KB files in one
// commit per op.
func BenchmarkCommit400Files(b *testing.B) {
	forEachBackend(b, func(b *testing.B, db Backend) {
		ops, err := PutSkill("s", "g", benchTree(400, 1024))
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			mustCommit(b, db, ops, nil)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*400), "ns/file")
	})
}

// BenchmarkImport10MB replaces a skill of 400 files, 10 MB in all, in one
// commit per op, as an import does.
func BenchmarkImport10MB(b *testing.B) {
	forEachBackend(b, func(b *testing.B, db Backend) {
		del, err := DeleteSkill("s")
		if err != nil {
			b.Fatal(err)
		}
		put, err := PutSkill("s", "g", benchTree(400, 25*1024))
		if err != nil {
			b.Fatal(err)
		}
		ops := append(del, put...)
		b.SetBytes(400 * 25 * 1024)
		for b.Loop() {
			mustCommit(b, db, ops, nil)
		}
	})
}

// BenchmarkReadFile reads a 1 KB file with its generation: one new read
// transaction per op (nothing is cached in this package).
func BenchmarkReadFile(b *testing.B) {
	forEachBackend(b, func(b *testing.B, db Backend) {
		ops, err := PutSkill("s", "g", benchTree(80, 1024))
		mustCommit(b, db, ops, err)
		f := newFS(b, db)
		for b.Loop() {
			if _, _, err := f.ReadFileGen("s/dir3/file3.md"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStat stats a file (metadata only).
func BenchmarkStat(b *testing.B) {
	forEachBackend(b, func(b *testing.B, db Backend) {
		ops, err := PutSkill("s", "g", benchTree(80, 1024))
		mustCommit(b, db, ops, err)
		f := newFS(b, db)
		for b.Loop() {
			if _, err := f.Stat("s/dir3/file3.md"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// oneByteFiles returns n files of one byte each, at paths format gives
// their index.
func oneByteFiles(format string, n int) []File {
	files := make([]File, n)
	for i := range files {
		files[i] = File{Path: fmt.Sprintf(format, i), Data: []byte("x"), ModTime: t0}
	}
	return files
}

// BenchmarkStatIn10000 stats a file of a directory of 10,000, an import's
// most: its directory's record, which a stat decodes, lists them all.
func BenchmarkStatIn10000(b *testing.B) {
	forEachBackend(b, func(b *testing.B, db Backend) {
		ops, err := PutSkill("s", "g", oneByteFiles("references/file%05d.md", 10_000))
		mustCommit(b, db, ops, err)
		f := newFS(b, db)
		for b.Loop() {
			if _, err := f.Stat("s/references/file04242.md"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReadDir206 lists a directory of 206 files, beside another skill
// of 400 files it must not read.
func BenchmarkReadDir206(b *testing.B) {
	forEachBackend(b, func(b *testing.B, db Backend) {
		big, err := PutSkill("big", "g", benchTree(400, 1024))
		mustCommit(b, db, big, err)
		ops, err := PutSkill("s", "g", oneByteFiles("refs/%03d.md", 206))
		mustCommit(b, db, ops, err)
		f := newFS(b, db)
		for b.Loop() {
			if entries, err := f.ReadDir("s/refs"); err != nil || len(entries) != 206 {
				b.Fatal(len(entries), err)
			}
		}
	})
}

// BenchmarkDeleteSkill80 deletes a skill of 80 files.
func BenchmarkDeleteSkill80(b *testing.B) {
	forEachBackend(b, func(b *testing.B, db Backend) {
		put, err := PutSkill("s", "g", benchTree(80, 1024))
		if err != nil {
			b.Fatal(err)
		}
		del, err := DeleteSkill("s")
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			b.StopTimer()
			mustCommit(b, db, put, nil)
			b.StartTimer()
			mustCommit(b, db, del, nil)
		}
	})
}

// BenchmarkGetAll1000 reads 1,000 metadata records of 300 bytes in one
// query.
func BenchmarkGetAll1000(b *testing.B) {
	forEachBackend(b, func(b *testing.B, db Backend) {
		ops := make([]Op, 1000)
		for i := range ops {
			ops[i] = Put(StoreMeta, fmt.Sprintf("skill-%04d", i), bytes.Repeat([]byte("m"), 300))
		}
		mustCommit(b, db, ops, nil)
		for b.Loop() {
			res, err := db.Read(context.Background(), GetPrefix(StoreMeta, ""))
			if err != nil || len(res[0]) != 1000 {
				b.Fatal(err)
			}
		}
	})
}
