package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

func testEnableMany(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	e.importZip(t, packOf(t, "a", "b", "c", "d"), ImportOptions{})
	if _, err := e.reg.SetEnabled(ctx, "b", false); err != nil {
		t.Fatal(err)
	}
	db := &countingDB{Backend: e.db}
	r := openReg(t, db, Options{Now: e.clock.Now})
	var heard []Change
	r.Subscribe(func(c Change) { heard = append(heard, c) })
	db.commits.Store(0)

	// b is disabled already: the change names only those it disabled, the
	// records come back in the order asked, a repeat counted once.
	ms, err := r.SetEnabledMany(ctx, []string{"c", "a", "b", "c"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(ms); !slices.Equal(got, []string{"c", "a", "b"}) || slices.ContainsFunc(ms, func(m Meta) bool { return m.Enabled }) {
		t.Errorf("SetEnabledMany = %v %+v", got, ms)
	}
	if n := db.commits.Load(); n != 1 {
		t.Errorf("%d commits, want 1", n)
	}
	if len(heard) != 1 || heard[0].Kind != KindDisable || !slices.Equal(heard[0].IDs, []string{"c", "a"}) {
		t.Errorf("changes heard: %+v", heard)
	}
	if vis, err := r.Visible(ctx); err != nil || !slices.Equal(ids(vis), []string{"d"}) {
		t.Errorf("Visible = %v, %v", ids(vis), err)
	}

	// One id not installed: nothing changes, and the error names it.
	rev := mustRevision(t, r)
	_, err = r.SetEnabledMany(ctx, []string{"a", "gone", "b"}, true)
	if e := wantErr(t, "with an unknown id", err, skillerr.SkillNotFound, "not-installed"); e != nil && e.Subject != "gone" {
		t.Errorf("the error names %q, want gone", e.Subject)
	}
	if got := mustRevision(t, r); got != rev || mustGet(t, r, "a").Enabled {
		t.Errorf("a refused batch changed something: revision %d -> %d", rev, got)
	}

	// Nothing to change, or nothing asked: no commit.
	db.commits.Store(0)
	if ms, err := r.SetEnabledMany(ctx, []string{"a", "b"}, false); err != nil || len(ms) != 2 {
		t.Errorf("again = %+v, %v", ms, err)
	}
	if ms, err := r.SetEnabledMany(ctx, nil, true); err != nil || ms == nil || len(ms) != 0 {
		t.Errorf("none = %#v, %v", ms, err)
	}
	if n := db.commits.Load(); n != 0 || mustRevision(t, r) != rev {
		t.Errorf("no-ops committed %d times", n)
	}

	// All of them back on, seen by the registry that made the first change.
	if _, err := r.SetEnabledMany(ctx, []string{"a", "b", "c", "d"}, true); err != nil {
		t.Fatal(err)
	}
	if vis, err := e.reg.Visible(ctx); err != nil || len(vis) != 4 {
		t.Errorf("Visible after enabling all = %v, %v", ids(vis), err)
	}
	if c := heard[len(heard)-1]; c.Kind != KindEnable || !slices.Equal(c.IDs, []string{"a", "b", "c"}) {
		t.Errorf("change = %+v", c)
	}

	// Past the bound: refused before anything is read.
	many := make([]string, MaxBatch+1)
	for i := range many {
		many[i] = "a"
	}
	db.reads.Store(0)
	_, err = r.SetEnabledMany(ctx, many, false)
	wantErr(t, "past MaxBatch", err, skillerr.TooLarge, "batch")
	if n := db.reads.Load(); n != 0 {
		t.Errorf("a batch past the bound made %d reads", n)
	}
}

func testRemoveMany(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	names := make([]string, 30)
	for i := range names {
		names[i] = fmt.Sprintf("s%02d", i)
	}
	// "pdf" and "pdf-tools" share a prefix; removing one keeps the other.
	e.importZip(t, packOf(t, append(names, "pdf", "pdf-tools")...), ImportOptions{})
	db := &countingDB{Backend: e.db}
	r := openReg(t, db, Options{Now: e.clock.Now})
	var heard []Change
	r.Subscribe(func(c Change) { heard = append(heard, c) })

	// One not installed: nothing is deleted.
	before := dump(t, e.db)
	err := r.RemoveMany(ctx, []string{"s00", "nope", "s01"})
	if e := wantErr(t, "with an unknown id", err, skillerr.SkillNotFound, "not-installed"); e != nil && e.Subject != "nope" {
		t.Errorf("the error names %q, want nope", e.Subject)
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a refused batch changed the database")
	}

	gone := append(slices.Clone(names[:20]), "pdf", "s03")
	db.commits.Store(0)
	if err := r.RemoveMany(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if n := db.commits.Load(); n != 1 {
		t.Errorf("%d commits, want 1", n)
	}
	if len(heard) != 1 || heard[0].Kind != KindRemove || !slices.Equal(heard[0].IDs, gone[:21]) {
		t.Errorf("changes heard: %+v", heard)
	}
	want := append([]string{"pdf-tools"}, names[20:]...)
	if got := ids(mustList(t, e.reg)); !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	for store, recs := range dump(t, e.db) {
		for key := range recs {
			for _, id := range gone {
				if key == id || strings.HasPrefix(key, id+"/") {
					t.Errorf("%s: %q survived", store, key)
				}
			}
		}
	}
	for _, id := range want {
		checkGenerations(t, e.reg, mustGet(t, e.reg, id))
	}
	if err := r.RemoveMany(ctx, nil); err != nil {
		t.Errorf("RemoveMany(nil) = %v", err)
	}
	wantErr(t, "past MaxBatch", r.RemoveMany(ctx, make([]string, MaxBatch+1)), skillerr.TooLarge, "batch")
	if len(heard) != 1 {
		t.Errorf("no-ops published %+v", heard[1:])
	}
}
