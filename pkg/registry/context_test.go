package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

func testCache(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	e.importZip(t, packOf(t, "a", "b"), ImportOptions{})
	db := &countingDB{Backend: e.db}
	r := openReg(t, db, Options{})
	db.reads.Store(0)
	mustList(t, r)
	mustList(t, r)
	mustGet(t, r, "a")
	if _, err := r.Visible(ctx); err != nil {
		t.Fatal(err)
	}
	// The records read once; then a list reads only the revision, which
	// says whether a change went unheard (testUnheardChange).
	if n := db.reads.Load(); n != 5 {
		t.Errorf("ListJSON, List, ListJSON, List, Get, Visible made %d reads, want 5 (the records, then the revision of each list)", n)
	}
	// The caller's copy is its own.
	list := mustList(t, r)
	list[0].Triggers = append(list[0].Triggers, "mine")
	list[0].Dependencies.Skills = append(list[0].Dependencies.Skills, "mine")
	if got := mustList(t, r); len(got[0].Triggers) != 0 || len(got[0].Dependencies.Skills) != 0 {
		t.Errorf("the cache was changed through a returned Meta: %+v", got[0])
	}
	// After a change, List reads only the record that changed, and the
	// revision that proves nothing else changed.
	if _, err := r.SetEnabled(ctx, "a", false); err != nil {
		t.Fatal(err)
	}
	db.reads.Store(0)
	if got, err := r.List(ctx); err != nil || got[0].Enabled || len(got) != 2 {
		t.Errorf("List after a change: %+v, %v", got, err)
	}
	want := []vfs.Query{vfs.Get(vfs.StoreMeta, "a"), vfs.Get(vfs.StoreState, revisionKey)}
	if n, got := db.reads.Load(), *db.lastRead.Load(); n != 1 || !slices.Equal(got, want) {
		t.Errorf("List after a change made %d reads, the last %v; want 1, %v", n, got, want)
	}
	// A removed skill leaves the cached list the same way.
	if err := r.Remove(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if got := mustList(t, r); len(got) != 1 || got[0].ID != "a" {
		t.Errorf("List after a remove: %+v", got)
	}
	// A change this registry did not hear (another registry with no bus
	// between them) leaves a gap in the revisions: the next own change
	// finds it and the list is read whole again.
	other := openReg(t, e.db, Options{})
	if _, err := other.Import(ctx, packOf(t, "y"), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetEnabled(ctx, "a", true); err != nil {
		t.Fatal(err)
	}
	got, err := r.List(ctx)
	if err != nil || len(got) != 2 || got[0].ID != "a" || !got[0].Enabled || got[1].ID != "y" {
		t.Errorf("List after a gap: %+v, %v", got, err)
	}
	if q := *db.lastRead.Load(); !q[0].Prefix {
		t.Errorf("List after a gap read %v, want the whole store", q)
	}

	// A disable and a delete look for dependents among every record: from
	// the cache, once it is at the revision they read.
	db.metaScans.Store(0)
	if _, err := r.SetEnabled(ctx, "y", false); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(ctx, "y"); err != nil {
		t.Fatal(err)
	}
	if n := db.metaScans.Load(); n != 0 {
		t.Errorf("a disable and a delete read every record %d times, want none (the cache)", n)
	}
	// Unless another context changed them unheard, the cache current as
	// far as this registry knows: then they are read, and a dependent it
	// installed is found.
	mustList(t, r)
	db.metaScans.Store(0)
	needsA := zipOf(t, "z", file{"SKILL.md", mdOf("z", "Needs a.", "skill_dependencies: [a]")})
	if _, err := other.Import(ctx, needsA, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = r.SetEnabled(ctx, "a", false)
	wantErr(t, "disable a, which z (installed unheard) depends on", err, skillerr.Conflict, "has-dependents")
	if n := db.metaScans.Load(); n != 1 {
		t.Errorf("the disable read every record %d times, want 1", n)
	}
	// A change of several skills at once (removed, added, changed) patches
	// the list to what a fresh read gives.
	e.importZip(t, packOf(t, "p1", "p2", "p3", "p4"), ImportOptions{})
	mustList(t, r)
	if err := r.RemoveMany(ctx, []string{"p1", "p3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Import(ctx, packOf(t, "p0", "p5"), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetEnabledMany(ctx, []string{"p2", "p5"}, false); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(mustList(t, r)), ids(mustList(t, openReg(t, e.db, Options{}))); !slices.Equal(got, want) {
		t.Errorf("the list patched: %v; read afresh: %v", got, want)
	}
	if m := mustGet(t, r, "p2"); m.Enabled {
		t.Errorf("p2 from the patched list: enabled")
	}
	// A disable looks for dependents among every record: on a registry
	// that has listed nothing, in its one read.
	fresh := openReg(t, db, Options{})
	db.reads.Store(0)
	if _, err := fresh.SetEnabled(ctx, "z", false); err != nil {
		t.Fatal(err)
	}
	if n := db.reads.Load(); n != 1 {
		t.Errorf("a disable on a registry that has listed nothing made %d reads, want 1", n)
	}
}

// testEditStaleCache: a save of SKILL.md that adds a dependency checks it
// against the records as they are under the lock, not against a list
// cached before another context, unheard, removed the skill it names.
func testEditStaleCache(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	e.importZip(t, packOf(t, "a", "b"), ImportOptions{})
	mustList(t, e.reg)
	other := openReg(t, e.db, Options{})
	if err := other.Remove(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	_, err := e.reg.WriteFile(ctx, "a", "SKILL.md", mdOf("a", "Needs b.", "skill_dependencies: [b]"))
	wantErr(t, "a save depending on b, removed unheard", err, skillerr.InvalidArgument, "unknown-skill")
}

// testUnheardChange: a context that commits and closes before its
// broadcast (here, a registry on another handle with no bus: its changes
// are never told) leaves the others nothing to hear. A list in another
// context, cached and current as far as it heard, still gives what was
// committed: the list after it holds the new skill, a changed one as
// changed, a removed one gone.
func testUnheardChange(t *testing.T, bc backendCase) {
	ctx := context.Background()
	e := newEnv(t, bc)
	b := openReg(t, e.db, Options{Bus: bc.join(t, e.db)})
	e.importZip(t, packOf(t, "a", "b"), ImportOptions{})
	a := openReg(t, bc.again(t, e.db), Options{})
	for _, step := range []struct {
		what   string
		change func() error
		want   []string
	}{
		{"an import", func() error { _, err := a.Import(ctx, packOf(t, "y"), ImportOptions{}); return err }, []string{"a", "b", "y"}},
		{"a disable", func() error { _, err := a.SetEnabled(ctx, "y", false); return err }, []string{"a", "b"}},
		{"a remove", func() error { return a.Remove(ctx, "b") }, []string{"a"}},
	} {
		mustList(t, b) // cached, at the revision before the change
		if _, err := b.ListJSON(ctx); err != nil {
			t.Fatal(err)
		}
		if err := step.change(); err != nil {
			t.Fatalf("%s: %v", step.what, err)
		}
		visible, err := b.Visible(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(visible); !slices.Equal(got, step.want) {
			t.Errorf("after %s committed unheard, the other context's enabled skills are %v, want %v", step.what, got, step.want)
		}
		js, err := b.ListJSON(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var list []Meta
		if err := json.Unmarshal(js, &list); err != nil {
			t.Fatal(err)
		}
		if got, want := ids(list), ids(mustList(t, openReg(t, e.db, Options{}))); !slices.Equal(got, want) {
			t.Errorf("after %s committed unheard, the other context's ListJSON gives %v, a fresh read %v", step.what, got, want)
		}
	}
}

// testTwoContexts: registry B, on another handle of A's database, hears
// A's changes through the bus, drops its cache and tells its subscribers.
func testTwoContexts(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	a := openReg(t, e.db, Options{Bus: bc.join(t, e.db)})
	b := openReg(t, bc.again(t, e.db), Options{Bus: bc.join(t, e.db)})
	heard := make(chan Change, 10)
	b.Subscribe(func(c Change) { heard <- c })
	if n := len(mustList(t, b)); n != 0 {
		t.Fatalf("B lists %d skills", n)
	}
	if _, err := a.Import(context.Background(), packOf(t, "x"), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if c := nextHeard(t, "B", heard); c.Revision != 1 || c.Kind != KindImport || !slices.Equal(c.IDs, []string{"x"}) {
		t.Errorf("B heard %+v", c)
	}
	if got := ids(mustList(t, b)); !slices.Equal(got, []string{"x"}) {
		t.Errorf("B lists %v after A's import", got)
	}
	// And the other way: A's cache drops on B's change, before A's
	// subscribers hear it.
	mustList(t, a)
	aHeard := make(chan Change, 10)
	a.Subscribe(func(c Change) { aHeard <- c })
	if err := b.Remove(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	if c := nextHeard(t, "A", aHeard); c.Revision != 2 {
		t.Errorf("A heard %+v", c)
	}
	if got := ids(mustList(t, a)); len(got) != 0 {
		t.Errorf("A lists %v once it heard B remove x", got)
	}
	// A registry hears its own change once, before the call returns.
	select {
	case c := <-heard:
		if c.Revision != 2 {
			t.Errorf("B heard %+v", c)
		}
	default:
		t.Error("B's subscriber had not heard B's own change when Remove returned")
	}
	// An echo of it would come before A's next change, which the bus
	// brings after B's.
	if _, err := a.Import(context.Background(), packOf(t, "y"), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if c := nextHeard(t, "B", heard); c.Revision != 3 {
		t.Errorf("B heard an extra %+v before A's next change", c)
	}
}

// nextHeard returns the next change that who, a subscriber, heard, or
// fails the test once it is clear that none is coming.
func nextHeard(t *testing.T, who string, heard <-chan Change) Change {
	t.Helper()
	select {
	case c := <-heard:
		return c
	case <-time.After(30 * time.Second):
		t.Fatalf("%s heard no change within 30 s", who)
		return Change{}
	}
}

// testConcurrentImports: two contexts import the same skill at once; the
// lock serialises them, so both land (a copy is asked for), renamed apart,
// in two revisions.
func testConcurrentImports(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	regs := []*Registry{
		openReg(t, e.db, Options{Bus: bc.join(t, e.db)}),
		openReg(t, bc.again(t, e.db), Options{Bus: bc.join(t, e.db)}),
	}
	data := zipOf(t, "x", skillFiles("", "x")...)
	var wg sync.WaitGroup
	errs := make([]error, len(regs))
	for i, r := range regs {
		wg.Go(func() { _, errs[i] = r.Import(context.Background(), data, ImportOptions{Copy: true}) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	list := mustList(t, e.reg)
	if got := ids(list); !slices.Equal(got, []string{"x", "x-v2"}) {
		t.Fatalf("List = %v", got)
	}
	if rev := mustRevision(t, e.reg); rev != 2 {
		t.Errorf("revision = %d, want 2", rev)
	}
	for _, m := range list {
		if m.FileCount != 3 {
			t.Errorf("%s has %d files", m.ID, m.FileCount)
		}
		checkGenerations(t, e.reg, m)
	}
}

// testConcurrentEdits: two contexts write files into one folder of one
// skill at once. Each edit rewrites the skill's whole tree from what it
// read, so one that read outside the lock would drop the others' files;
// every file lands, in a revision of its own.
func testConcurrentEdits(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	e.importZip(t, packOf(t, "x"), ImportOptions{})
	regs := []*Registry{
		openReg(t, e.db, Options{Bus: bc.join(t, e.db)}),
		openReg(t, bc.again(t, e.db), Options{Bus: bc.join(t, e.db)}),
	}
	const each = 6
	var wg sync.WaitGroup
	errs := make(chan error, len(regs)*each)
	for i, r := range regs {
		for j := range each {
			wg.Go(func() {
				_, err := r.WriteFile(context.Background(), "x", fmt.Sprintf("references/%d-%d.md", i, j), fmt.Sprintf("%d %d", i, j))
				errs <- err
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range regs {
		for j := range each {
			p := fmt.Sprintf("x/references/%d-%d.md", i, j)
			if data, _ := readGen(t, e.reg, p); data != fmt.Sprintf("%d %d", i, j) {
				t.Errorf("%s = %q", p, data)
			}
		}
	}
	if rev := mustRevision(t, e.reg); rev != int64(1+len(regs)*each) {
		t.Errorf("revision = %d, want %d", rev, 1+len(regs)*each)
	}
	checkGenerations(t, e.reg, mustGet(t, e.reg, "x"))
}

// testEditRacesRemove: one context writes a file into a skill as another
// removes it. The edit lands first, or fails with SkillNotFound; it never
// writes a tree for a skill no longer installed.
func testEditRacesRemove(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	held := &heldDB{Backend: e.db}
	a := openReg(t, held, Options{Bus: bc.join(t, e.db)})
	b := openReg(t, bc.again(t, e.db), Options{Bus: bc.join(t, e.db)})
	ctx := context.Background()
	// Round 0 forces the order that matters: the edit's read of the tree
	// is answered and then held. Read outside the registry's lock, it is
	// let go once the remove has committed, and the edit would write what
	// it read after the remove; read under the lock, the remove waits for
	// the edit whatever is held, and it is let go at once.
	for round := range 6 {
		e.importZip(t, packOf(t, "x"), ImportOptions{})
		var edit, remove error
		var wg sync.WaitGroup
		removed := make(chan struct{})
		if round == 0 {
			tree, err := vfs.SkillQueries("x", false)
			if err != nil {
				t.Fatal(err)
			}
			held.arm(tree[len(tree)-1])
		}
		wg.Go(func() { _, edit = a.WriteFile(ctx, "x", fmt.Sprintf("notes-%d.md", round), "x") })
		wg.Go(func() {
			if round == 0 {
				<-held.reading
			}
			remove = b.Remove(ctx, "x")
			close(removed)
		})
		if round == 0 {
			if <-held.reading; !held.underLock {
				<-removed
			}
			held.release()
		}
		wg.Wait()
		if remove != nil {
			t.Fatal(remove)
		}
		if edit != nil {
			wantErr(t, "the edit", edit, skillerr.SkillNotFound, "")
		}
		for _, store := range []string{vfs.StoreFiles, vfs.StoreBlobs, vfs.StoreMeta} {
			for key := range dump(t, e.db)[store] {
				if strings.HasPrefix(key, "x/") || key == "//x" || key == "x" {
					t.Fatalf("round %d (edit: %v): %s %q outlived the remove", round, edit, store, key)
				}
			}
		}
	}
}

// heldDB, once armed, answers the next read that asks for a query and
// then holds the answer until release is called; reading closes when
// that read has been answered, and underLock says whether it was made
// while the registry on it held a lock (Backend.Lock). Other reads (a
// list the bus asks for) go as they come.
type heldDB struct {
	vfs.Backend
	mu             sync.Mutex
	query          vfs.Query
	armed          bool
	locks          int
	underLock      bool
	reading, going chan struct{}
}

func (h *heldDB) arm(q vfs.Query) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.query, h.armed, h.reading, h.going = q, true, make(chan struct{}), make(chan struct{})
}

func (h *heldDB) Lock(ctx context.Context, name string, fn func(context.Context) error) error {
	return h.Backend.Lock(ctx, name, func(ctx context.Context) error {
		h.mu.Lock()
		h.locks++
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			h.locks--
			h.mu.Unlock()
		}()
		return fn(ctx)
	})
}

func (h *heldDB) Read(ctx context.Context, qs ...vfs.Query) ([][]vfs.Record, error) {
	h.mu.Lock()
	if !h.armed || !slices.Contains(qs, h.query) {
		h.mu.Unlock()
		return h.Backend.Read(ctx, qs...)
	}
	h.armed, h.underLock = false, h.locks > 0
	reading, going := h.reading, h.going
	h.mu.Unlock()
	res, err := h.Backend.Read(ctx, qs...)
	close(reading)
	<-going
	return res, err
}

// release lets the held read go.
func (h *heldDB) release() { close(h.going) }

// gatedDB holds every read until gate closes, once gate is set.
type gatedDB struct {
	vfs.Backend
	gate chan struct{}
}

func (g *gatedDB) Read(ctx context.Context, qs ...vfs.Query) ([][]vfs.Record, error) {
	if g.gate != nil {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, skillerr.Wrap(skillerr.Timeout, "read", ctx.Err(), "held")
		}
	}
	return g.Backend.Read(ctx, qs...)
}

// A list asked for while Warm's read goes on waits for that read, or for
// its own context's end, and does not read the records again.
func testWarm(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	e.importZip(t, packOf(t, "a", "b"), ImportOptions{})
	gated := &gatedDB{Backend: e.db}
	counted := &countingDB{Backend: gated} // the reads held count too
	r := openReg(t, counted, Options{})
	counted.reads.Store(0)
	release := make(chan struct{})
	gated.gate = release
	r.Warm()
	r.Warm() // once
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	_, err := r.List(ctx)
	cancel()
	wantErr(t, "List while Warm's read is held", err, skillerr.Timeout, "")
	close(release)
	if list := mustList(t, r); len(list) != 2 {
		t.Errorf("List after Warm = %d skills", len(list))
	}
	// Warm's read of the records, then the revision of each list.
	if n := counted.reads.Load(); n != 3 {
		t.Errorf("Warm and two lists made %d reads, want 3", n)
	}
}

// testCacheInterleavings: three contexts change the same skills in a
// random order — two hear each other's changes, the third is heard by
// no one — with commits that fail and calls cancelled among them. Batches
// take their records from the list's cache when it is at the revision
// read under the lock, so a stale cache would write old records back:
// after every call the stored records are what the calls that succeeded
// made them, and after a context's own change its list is a fresh read.
func testCacheInterleavings(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	names := []string{"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"}
	e.importZip(t, packOf(t, names...), ImportOptions{})
	type state struct {
		enabled bool
		desc    string
	}
	model := map[string]state{}
	for _, n := range names {
		model[n] = state{true, "Handles " + n + " tasks."}
	}
	regs := []*Registry{
		openReg(t, e.db, Options{Bus: bc.join(t, e.db)}),
		openReg(t, bc.again(t, e.db), Options{Bus: bc.join(t, e.db)}),
		openReg(t, bc.again(t, e.db), Options{}), // heard by no one
	}
	stored := func() map[string]state {
		res, err := e.db.Read(ctx, allMeta)
		if err != nil {
			t.Fatal(err)
		}
		metas, err := decodeMetas(res[0])
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]state{}
		for _, m := range metas {
			got[m.ID] = state{m.Enabled, m.Description}
		}
		return got
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	// some returns a few of the skills installed, or of those not, and
	// at least one when there is one.
	some := func(installed bool) []string {
		var all, out []string
		for _, n := range names {
			if _, ok := model[n]; ok == installed {
				all = append(all, n)
			}
		}
		for _, n := range all {
			if rnd.IntN(3) == 0 {
				out = append(out, n)
			}
		}
		if len(out) == 0 && len(all) > 0 {
			out = all[rnd.IntN(len(all)):][:1]
		}
		return out
	}
	for step := range 120 {
		r := regs[rnd.IntN(len(regs))]
		if rnd.IntN(4) == 0 {
			mustList(t, r)
		}
		// One call in four fails: its commit aborted after a few writes,
		// or its context cancelled before it begins.
		cctx, fails := ctx, false
		switch rnd.IntN(8) {
		case 0:
			cctx, fails = vfs.FailAfter(ctx, rnd.IntN(3)), true
		case 1:
			var cancel context.CancelFunc
			cctx, cancel = context.WithCancel(ctx)
			cancel()
			fails = true
		}
		next := maps.Clone(model)
		var err error
		var what string
		switch op := rnd.IntN(4); {
		case op == 0 && len(model) < len(names):
			ids := some(false)
			what = fmt.Sprintf("Import(%v)", ids)
			_, err = r.Import(cctx, packOf(t, ids...), ImportOptions{})
			for _, id := range ids {
				next[id] = state{true, "Handles " + id + " tasks."}
			}
		case len(model) == 0:
			continue
		case op == 0 || op == 3:
			ids := some(true)
			on := rnd.IntN(2) == 0
			what = fmt.Sprintf("SetEnabledMany(%v, %v)", ids, on)
			_, err = r.SetEnabledMany(cctx, ids, on)
			for _, id := range ids {
				s := next[id]
				s.enabled = on
				next[id] = s
			}
		case op == 1:
			ids := some(true)
			what = fmt.Sprintf("RemoveMany(%v)", ids)
			err = r.RemoveMany(cctx, ids)
			for _, id := range ids {
				delete(next, id)
			}
		default:
			id := names[rnd.IntN(len(names))]
			if _, ok := model[id]; !ok {
				continue
			}
			desc := fmt.Sprintf("Version %d.", step)
			what = fmt.Sprintf("WriteFile(%s, %q)", id, desc)
			_, err = r.WriteFile(cctx, id, "SKILL.md", mdOf(id, desc))
			next[id] = state{model[id].enabled, desc}
		}
		// A call that changes nothing commits nothing (and may not fail):
		// the list of a context that did not hear the third's changes may
		// lag until its own next change.
		noop := maps.Equal(model, next)
		if err != nil && !fails || err == nil && fails && !noop {
			t.Fatalf("step %d: %s: %v", step, what, err)
		}
		changed := err == nil && !noop
		if changed {
			model = next
		}
		if got := stored(); !maps.Equal(got, model) {
			t.Fatalf("step %d: after %s, stored %v, want %v", step, what, got, model)
		}
		if !changed {
			continue
		}
		if got, want := ids(mustList(t, r)), slices.Sorted(maps.Keys(model)); !slices.Equal(got, want) {
			t.Fatalf("step %d: after its %s, the context lists %v, stored are %v", step, what, got, want)
		}
		for _, m := range mustList(t, r) {
			if s := model[m.ID]; m.Enabled != s.enabled || m.Description != s.desc {
				t.Fatalf("step %d: after its %s, the context lists %s as %v %q, stored: %+v", step, what, m.ID, m.Enabled, m.Description, s)
			}
		}
	}
}
