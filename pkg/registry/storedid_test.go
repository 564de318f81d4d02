package registry

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// legacyID is an id older rules allowed: until 2026-11-23 an id was any
// name skillpath cleaned as it is, this one with an invisible Hangul
// filler, which today's refuse (checkID, skillpath).
const legacyID = "x\u3164"

// testRemoveStoredID: Remove and RemoveMany take any id the records hold,
// one that today's rules refuse included, whole and touching no other
// skill: a removal writes no name. An id whose keys would reach another
// skill's is refused, and nothing is deleted.
func testRemoveStoredID(t *testing.T, bc backendCase) {
	ctx := context.Background()
	for _, many := range []bool{false, true} {
		e := newEnv(t, bc)
		e.importZip(t, packOf(t, "y"), ImportOptions{})
		base := dump(t, e.db)
		e.importZip(t, packOf(t, "x"), ImportOptions{})
		storeUnder(t, e.db, "x", legacyID)
		r := openReg(t, e.db, Options{})
		if got := ids(mustList(t, r)); !slices.Equal(got, []string{legacyID, "y"}) {
			t.Fatalf("List = %q", got)
		}
		var err error
		if many {
			err = r.RemoveMany(ctx, []string{legacyID})
		} else {
			err = r.Remove(ctx, legacyID)
		}
		if err != nil {
			t.Fatalf("removing %q (many %v): %v", legacyID, many, err)
		}
		after := dump(t, e.db)
		for _, store := range allStores {
			if store != vfs.StoreState && !maps.EqualFunc(after[store], base[store], bytes.Equal) {
				t.Errorf("%s after removing %q: %q, want %q", store, legacyID,
					slices.Sorted(maps.Keys(after[store])), slices.Sorted(maps.Keys(base[store])))
			}
		}
		if got := ids(mustList(t, r)); !slices.Equal(got, []string{"y"}) {
			t.Errorf("List after removing %q = %q", legacyID, got)
		}
	}

	// A record under a key that is no one name (another program's) names
	// a tree that is part of x's: refused, and x is whole.
	e := newEnv(t, bc)
	e.importZip(t, packOf(t, "x"), ImportOptions{})
	storeUnder(t, e.db, "x", "x/scripts")
	e.importZip(t, packOf(t, "x"), ImportOptions{})
	before := dump(t, e.db)
	r := openReg(t, e.db, Options{})
	wantErr(t, "Remove(x/scripts)", r.Remove(ctx, "x/scripts"), skillerr.PathRejected, vfs.ReasonBadSlug)
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a refused removal changed the database")
	}
}

// storeUnder moves skill from's tree and record to id, as a version whose
// rules allowed id would have stored them, with a new revision.
func storeUnder(t testing.TB, db vfs.Backend, from, id string) {
	t.Helper()
	ctx := context.Background()
	tq, err := vfs.SkillQueries(from, true)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Read(ctx, append(tq, metaQuery(from), vfs.Get(vfs.StoreState, revisionKey))...)
	if err != nil {
		t.Fatal(err)
	}
	var ops []vfs.Op
	for i, store := range []string{vfs.StoreFiles, vfs.StoreFiles, vfs.StoreBlobs} {
		for _, rec := range res[i] {
			key := "//" + id
			if rec.Key != "//"+from {
				key = id + strings.TrimPrefix(rec.Key, from)
			}
			ops = append(ops, vfs.Delete(store, rec.Key), vfs.Put(store, key, rec.Value))
		}
	}
	m, err := decodeMeta(res[3][0])
	if err != nil {
		t.Fatal(err)
	}
	m.ID, m.Location, m.BaseDir = id, vfs.Root+"/"+id+"/SKILL.md", vfs.Root+"/"+id+"/"
	op, err := metaOp(m)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := decodeRevision(res[4])
	if err != nil {
		t.Fatal(err)
	}
	ops = append(ops, vfs.Delete(vfs.StoreMeta, from), op, vfs.Put(vfs.StoreState, revisionKey, []byte(strconv.FormatInt(rev+1, 10))))
	if err := db.Commit(ctx, ops...); err != nil {
		t.Fatal(err)
	}
}
