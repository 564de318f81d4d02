package registry

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/skillfs/skillfs/internal/benchpack"
	"github.com/skillfs/skillfs/pkg/source"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// The benchmarks run on the platform's real backend: IndexedDB in the
// browser, memory natively. They report the storage requests they make
// per operation, which is what costs time in IndexedDB.
//
// There is no warm SKILL.md read: neither the registry nor vfs.FS caches
// file contents (a resolver session may).

// benchCase is the last backend of the platform: IndexedDB in the browser.
var benchCase = testBackends[len(testBackends)-1]

// BenchmarkImportPack imports a repository-sized pack (benchpack.Pack: 17
// skills, 415 files, 10 MB) into a fresh database.
func BenchmarkImportPack(b *testing.B) {
	data := benchpack.Pack()
	ctx := context.Background()
	var db *countingDB
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db = &countingDB{Backend: benchCase.open(b)}
		r := openReg(b, db, Options{})
		b.StartTimer()
		res, err := r.Import(ctx, data, ImportOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Skills) != 17 {
			b.Fatalf("imported %d skills", len(res.Skills))
		}
	}
	b.ReportMetric(float64(db.reads.Load()), "reads/op")
	b.ReportMetric(float64(db.commits.Load()), "commits/op")
	b.ReportMetric(float64(db.lastOps.Load()), "writes/op")
}

// BenchmarkOpenList1000 opens a database holding 1,000 skills, as a new
// page would (the IndexedDB handle included), opens a registry on it and
// lists the skills: decoded for Go (List), and as the bridge hands them to
// JavaScript (ListJSON).
func BenchmarkOpenList1000(b *testing.B) {
	ctx := context.Background()
	db := benchCase.open(b)
	if _, err := openReg(b, db, Options{}).Import(ctx, benchpack.Small(1000), ImportOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		list func(*Registry) (int, error)
	}{
		{"List", func(r *Registry) (int, error) { l, err := r.List(ctx); return len(l), err }},
		{"ListJSON", func(r *Registry) (int, error) {
			l, err := r.ListJSON(ctx)
			return bytes.Count(l, []byte(`"instance"`)), err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				h := benchCase.again(b, db)
				r, err := Open(ctx, h, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if n, err := bc.list(r); err != nil || n != 1000 {
					b.Fatalf("%s: %d skills, %v", bc.name, n, err)
				}
				b.StopTimer()
				r.Close()
				if h != vfs.Backend(db.Reopener) {
					h.Close()
				}
				b.StartTimer()
			}
		})
	}
}

// open1000 returns a registry holding 1,000 skills, and its database.
func open1000(b *testing.B) (*Registry, *countingDB) {
	db := &countingDB{Backend: benchCase.open(b)}
	r := openReg(b, db, Options{})
	if _, err := r.Import(context.Background(), benchpack.Small(1000), ImportOptions{}); err != nil {
		b.Fatal(err)
	}
	return r, db
}

// BenchmarkList1000Cached lists 1,000 skills again, as a side panel
// does after the first list: from the registry's cache, as Go gets them
// (List) and as the bridge hands them on (ListJSON).
func BenchmarkList1000Cached(b *testing.B) {
	ctx := context.Background()
	r, db := open1000(b)
	for _, bc := range []struct {
		name string
		list func() (int, error)
	}{
		{"List", func() (int, error) { l, err := r.List(ctx); return len(l), err }},
		{"ListJSON", func() (int, error) {
			l, err := r.ListJSON(ctx)
			return bytes.Count(l, []byte(`"instance"`)), err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if _, err := bc.list(); err != nil {
				b.Fatal(err)
			}
			db.reads.Store(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if n, err := bc.list(); err != nil || n != 1000 {
					b.Fatalf("%s: %d skills, %v", bc.name, n, err)
				}
			}
			b.ReportMetric(float64(db.reads.Load())/float64(b.N), "reads/op")
		})
	}
}

// BenchmarkReadSkillMDCold reads the largest SKILL.md (75 KB) through the
// registry's FS, a new read transaction each time.
func BenchmarkReadSkillMDCold(b *testing.B) {
	ctx := context.Background()
	db := &countingDB{Backend: benchCase.open(b)}
	r := openReg(b, db, Options{})
	if _, err := r.Import(ctx, benchpack.Pack(), ImportOptions{}); err != nil {
		b.Fatal(err)
	}
	name := benchpack.LargeSkillMD + "/SKILL.md"
	db.reads.Store(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		data, err := r.FS().ReadFile(name)
		if err != nil || len(data) < 70_000 {
			b.Fatalf("ReadFile: %d bytes, %v", len(data), err)
		}
	}
	b.ReportMetric(float64(db.reads.Load())/float64(b.N), "reads/op")
}

// BenchmarkRemove80 removes the skill of 80 files from a database holding
// the whole pack.
func BenchmarkRemove80(b *testing.B) {
	ctx := context.Background()
	db := &countingDB{Backend: benchCase.open(b)}
	r := openReg(b, db, Options{})
	if _, err := r.Import(ctx, benchpack.Pack(), ImportOptions{}); err != nil {
		b.Fatal(err)
	}
	one, err := r.ExportZip(ctx, benchpack.Skill80)
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Remove(ctx, benchpack.Skill80); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		res, err := r.Import(ctx, one, ImportOptions{})
		if err != nil || res.Skills[0].FileCount != 80 {
			b.Fatalf("Import: %v", err)
		}
		db.reads.Store(0)
		db.commits.Store(0)
		b.StartTimer()
		if err := r.Remove(ctx, benchpack.Skill80); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(db.reads.Load()), "reads/op")
	b.ReportMetric(float64(db.commits.Load()), "commits/op")
	b.ReportMetric(float64(db.lastOps.Load()), "writes/op")
}

// BenchmarkEditRetains edits the skill of 80 files in a database holding
// the whole pack, a new version each time: the edit keeps the version it
// overwrites for sessions (retain.go) in the same commit, which costs that
// version's bytes written once more, up to DefaultRetainBytes a version,
// and collects the oldest kept past the bounds. "none" keeps nothing (a
// version larger than RetainBytes), for the ratio.
func BenchmarkEditRetains(b *testing.B) {
	for _, bc := range []struct {
		name  string
		bytes int
	}{{"kept", 0}, {"none", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			db := &countingDB{Backend: benchCase.open(b)}
			r := openReg(b, db, Options{RetainBytes: bc.bytes})
			if _, err := r.Import(ctx, benchpack.Pack(), ImportOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := r.WriteFile(ctx, benchpack.Skill80, "references/version.md", strconv.Itoa(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			res, err := db.Read(ctx, retainedQuery())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(db.lastOps.Load()), "writes/op")
			b.ReportMetric(float64(len(res[0])), "kept")
		})
	}
}

// BenchmarkToggle1000 disables and enables again one skill among 1,000:
// the disable looks for dependents among every record, from the list's
// cache when it is current (readLocked), as a delete does.
func BenchmarkToggle1000(b *testing.B) {
	ctx := context.Background()
	r, db := open1000(b)
	list, err := r.List(ctx)
	if err != nil {
		b.Fatal(err)
	}
	id := list[500].ID
	db.metaScans.Store(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, on := range []bool{false, true} {
			if _, err := r.SetEnabled(ctx, id, on); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(db.metaScans.Load())/float64(b.N), "scans/op")
}

// BenchmarkUpdateDownload updates the 17 skills of a repository's download
// (benchpack.Pack, 10 MB) from it, each from its own folder in its own
// commit: read once for all (ImportEach, as updateMany does), and, for
// comparison, read once per skill (an Import each).
func BenchmarkUpdateDownload(b *testing.B) {
	data := benchpack.Pack()
	ctx := context.Background()
	r := openReg(b, benchCase.open(b), Options{})
	o := source.Origin{Kind: source.KindURL, URL: "https://a.test/pack.zip", Type: source.TypeArchive, Digest: source.Sum(data)}
	res, err := r.Import(ctx, data, ImportOptions{Origin: &o})
	if err != nil {
		b.Fatal(err)
	}
	each := make([]ImportOptions, len(res.Skills))
	for i, m := range res.Skills {
		each[i] = ImportOptions{Target: m.ID, Origin: m.Origin}
	}
	b.Run("read-once", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, errs := r.ImportEach(ctx, data, each); errors.Join(errs...) != nil {
				b.Fatal(errors.Join(errs...))
			}
		}
	})
	b.Run("read-per-skill", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, opts := range each {
				if _, err := r.Import(ctx, data, opts); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
