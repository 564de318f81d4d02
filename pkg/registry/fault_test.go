package registry

import (
	"context"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// testFaults aborts each kind of change after every possible number of
// its writes (vfs.FailAfter), and checks after each abort that the
// database, reopened as a new page would, holds exactly what it held, and
// that neither the failing registry's cache nor a fresh registry shows
// anything of the change.
func testFaults(t *testing.T, bc backendCase) {
	scenarios := []struct {
		name string
		do   func(context.Context, *Registry) error
	}{
		{"ImportPack", func(ctx context.Context, r *Registry) error {
			// x is installed and becomes x-v2; p and q are new.
			_, err := r.Import(ctx, packOf(t, "p", "q", "x"), ImportOptions{})
			return err
		}},
		{"Replace", func(ctx context.Context, r *Registry) error {
			_, err := r.Import(ctx, zipOf(t, "", append(skillFiles("x", "x", "triggers: new"), skillFiles("y", "y", "triggers: new")...)...),
				ImportOptions{OnConflict: ConflictReplace})
			return err
		}},
		{"Remove", func(ctx context.Context, r *Registry) error { return r.Remove(ctx, "x") }},
		{"RemoveMany", func(ctx context.Context, r *Registry) error { return r.RemoveMany(ctx, []string{"y", "x"}) }},
		{"SetEnabledMany", func(ctx context.Context, r *Registry) error {
			_, err := r.SetEnabledMany(ctx, []string{"y", "x"}, true)
			return err
		}},
		{"RenameFolder", func(ctx context.Context, r *Registry) error {
			_, err := r.Rename(ctx, "x", "references", "docs/references")
			return err
		}},
		{"WriteSkillMD", func(ctx context.Context, r *Registry) error {
			_, err := r.WriteFile(ctx, "x", "SKILL.md", mdOf("x", "Edited.", "triggers: edited"))
			return err
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			e := newEnv(t, bc)
			ctx := context.Background()
			e.importZip(t, packOf(t, "x", "y"), ImportOptions{})
			if _, err := e.reg.SetEnabled(ctx, "y", false); err != nil {
				t.Fatal(err)
			}
			before := dump(t, e.db)
			wantList := jsonOf(t, mustList(t, e.reg))
			wantX := jsonOf(t, mustGet(t, e.reg, "x"))
			wantMD, _ := readGen(t, e.reg, "x/SKILL.md")

			check := func(what string, r *Registry) {
				t.Helper()
				if got := jsonOf(t, mustList(t, r)); got != wantList {
					t.Errorf("%s: List = %s\nwant %s", what, got, wantList)
				}
				if got := jsonOf(t, mustGet(t, r, "x")); got != wantX {
					t.Errorf("%s: Get(x) = %s", what, got)
				}
				if data, err := r.ReadFile(ctx, "x", "SKILL.md"); err != nil || string(data) != wantMD {
					t.Errorf("%s: SKILL.md = %q, %v", what, data, err)
				}
			}
			for k := 0; ; k++ {
				db := &countingDB{Backend: e.db}
				r := openReg(t, db, Options{Now: e.clock.Now})
				mustList(t, r) // fill the cache
				err := sc.do(vfs.FailAfter(ctx, k), r)
				wantErr(t, sc.name, err, skillerr.Internal, vfs.ReasonInjected)
				check("failing registry", r)

				e.reopen(t)
				if !sameDump(before, dump(t, e.db)) {
					t.Fatalf("after a fault at write %d the database differs", k)
				}
				check("fresh registry", openReg(t, e.db, Options{}))
				if n := db.lastOps.Load(); int64(k) >= n {
					if n == 0 {
						t.Fatal("nothing was committed")
					}
					t.Logf("%s: %d writes, each one tried", sc.name, n)
					break
				}
			}
			// Without a fault, the change happens, in one commit.
			db := &countingDB{Backend: e.db}
			if err := sc.do(ctx, openReg(t, db, Options{Now: e.clock.Now})); err != nil {
				t.Fatal(err)
			}
			if n := db.commits.Load(); n != 1 {
				t.Errorf("the change took %d commits", n)
			}
			if sameDump(before, dump(t, e.db)) {
				t.Error("the change did nothing")
			}
		})
	}
}
