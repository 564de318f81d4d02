package resolver

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/source"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// events collects a session's events.
type events struct {
	mu  sync.Mutex
	got []Event
}

func watch(s *Session) *events {
	ev := &events{}
	s.Subscribe(func(e Event) {
		ev.mu.Lock()
		ev.got = append(ev.got, e)
		ev.mu.Unlock()
	})
	return ev
}

func (ev *events) list() []Event {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return slices.Clone(ev.got)
}

// TestStaleness: a skill replaced through the registry while a session
// holds it makes the session stale and tells its subscribers; the session
// keeps reading the version it started with (seed 002), never a mix, and
// Refresh moves it to the new version. The old version is kept while the
// session reads it, and collected once it refreshes.
func TestStaleness(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.installSkills(t, "pdf", "docx")
		ctx := context.Background()
		s := e.open(t, SessionOptions{})
		ev := watch(s)
		old := mustActivate(t, s, "pdf")
		mustRead(t, s, "/skills/pdf/references/notes.md") // cached now
		oldDigest := e.meta(t, "pdf").Digest
		e.res.cache.purge() // the old version must come from storage

		// Version 2 of pdf: other body, other notes, a new file.
		v2 := []file{
			{"pdf/SKILL.md", md("pdf", "# pdf v2")},
			{"pdf/references/notes.md", "Version 2 notes.\n"},
			{"pdf/references/new.md", "New in version 2.\n"},
		}
		e.install(t, v2...)
		st := s.Status()
		if !st.Stale || !slices.Equal(st.Changed, []string{"pdf"}) {
			t.Errorf("after the replace: status %+v, want stale with pdf changed", st)
		}
		if got := ev.list(); len(got) != 1 || got[0].Kind != EventStale || !slices.Equal(got[0].Skills, []string{"pdf"}) || got[0].Revision != 2 {
			t.Errorf("events = %+v", got)
		}
		// Reads give the session's version, whole.
		for p, want := range map[string]string{
			"/skills/pdf/references/notes.md": "Notes about pdf.\n",
			"/skills/pdf/SKILL.md":            md("pdf", "# pdf\n\nDo the pdf thing."),
			"/skills/pdf/scripts/run.sh":      "#!/bin/sh\necho pdf\n",
		} {
			if got := mustRead(t, s, p); got != want {
				t.Errorf("%s = %q, want the old %q", p, got, want)
			}
		}
		_, err := s.ReadFile(ctx, "/skills/pdf/references/new.md")
		wantErr(t, "a file only the new version has", err, skillerr.SkillNotFound, vfs.ReasonNotExist)
		if b := mustActivate(t, s, "pdf"); b.Content != old.Content || !b.AlreadyActive {
			t.Errorf("block of the session's version:\n%s", b.Content)
		}
		if cat, _ := s.Catalog(ctx, CatalogOptions{Mode: ModeNames}); !contains(cat, `"pdf"`) || !contains(cat, `"docx"`) {
			t.Errorf("the stale session's catalog:\n%s", cat)
		}
		if kept := retainedDigests(t, e); !slices.Equal(kept, []string{oldDigest}) {
			t.Errorf("retained versions %q, want the old one", kept)
		}

		// Refresh: the new version, pdf still activated, the old one gone.
		st, err = s.Refresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Stale || len(st.Changed) != 0 || st.Revision != 2 || !slices.Contains(st.Activated, "pdf") {
			t.Errorf("after Refresh: %+v", st)
		}
		if got := mustRead(t, s, "/skills/pdf/references/notes.md"); got != "Version 2 notes.\n" {
			t.Errorf("notes after Refresh = %q", got)
		}
		nb := mustActivate(t, s, "pdf")
		if nb.Content == old.Content || !contains(nb.Content, "# pdf v2") || !slices.Contains(nb.Resources, "references/new.md") {
			t.Errorf("block after Refresh:\n%s", nb.Content)
		}
		if s.snap.metas["pdf"].Digest == oldDigest {
			t.Error("the refreshed snapshot kept the old digest")
		}
		if kept := retainedDigests(t, e); len(kept) != 0 {
			t.Errorf("retained versions after the last session let go: %q", kept)
		}
	})
}

// retainedDigests lists the versions the registry keeps.
func retainedDigests(t testing.TB, e *env) []string {
	t.Helper()
	res, err := e.db.Read(context.Background(), vfs.GetPrefix(vfs.StoreState, "retained:"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res[0] {
		out = append(out, strings.TrimPrefix(r.Key, "retained:"))
	}
	return out
}

// TestStaleByRead: a change the session never heard of (another context
// without a bus) is caught by the generation check of the read itself,
// which reads the session's version instead.
func TestStaleByRead(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		db := bc.open(t)
		e := envOn(t, db)
		e.installSkills(t, "pdf")
		s := e.open(t, SessionOptions{})
		ev := watch(s)
		// A second registry on the same database, with no bus between.
		other, err := registry.Open(context.Background(), db, registry.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		if _, err := other.WriteFile(context.Background(), "pdf", "references/notes.md", "Edited elsewhere.\n"); err != nil {
			t.Fatal(err)
		}
		if s.Status().Stale {
			t.Fatal("the session heard a change nobody told it about")
		}
		if got := mustRead(t, s, "/skills/pdf/references/notes.md"); got != "Notes about pdf.\n" {
			t.Errorf("read of a file edited elsewhere = %q, want the session's version", got)
		}
		_, err = s.ReadFile(context.Background(), "/skills/pdf/references/gone.md")
		wantErr(t, "a file neither version has", err, skillerr.SkillNotFound, vfs.ReasonNotExist)
		if st := s.Status(); !st.Stale || !slices.Equal(st.Changed, []string{"pdf"}) {
			t.Errorf("status = %+v", st)
		}
		if got := ev.list(); len(got) != 1 || got[0].Revision != 0 {
			t.Errorf("events = %+v", got)
		}
	})
}

// TestStaleActivation: a cold activation finds a skill edited elsewhere
// and activates the session's version, whether it reads the skill whole
// (small skills) or its list and SKILL.md apart (large ones); one removed
// elsewhere is gone.
func TestStaleActivation(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		for _, size := range []int{10, prefetchLimit + 1} {
			db := bc.open(t)
			e := envOn(t, db)
			big := string(make([]byte, size))
			e.install(t, file{"pdf/SKILL.md", md("pdf", "# pdf")}, file{"pdf/big.bin", big}, file{"pdf/gone.md", "x"})
			other, err := registry.Open(context.Background(), db, registry.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			ctx := context.Background()
			s := e.open(t, SessionOptions{})
			if b := mustActivate(t, s, "pdf"); !slices.Equal(b.Resources, []string{"big.bin", "gone.md"}) {
				t.Errorf("size %d: resources %q", size, b.Resources)
			}
			s2 := e.open(t, SessionOptions{})
			e.res.cache.purge()
			if _, err := other.RemovePath(ctx, "pdf", "gone.md"); err != nil {
				t.Fatal(err)
			}
			if b := mustActivate(t, s2, "pdf"); !slices.Equal(b.Resources, []string{"big.bin", "gone.md"}) {
				t.Errorf("size %d: the session's version has resources %q", size, b.Resources)
			}
			if got := mustRead(t, s2, "/skills/pdf/gone.md"); got != "x" {
				t.Errorf("size %d: gone.md = %q", size, got)
			}
			s3 := e.open(t, SessionOptions{}) // the registry's list is stale too: no bus
			if err := other.Remove(ctx, "pdf"); err != nil {
				t.Fatal(err)
			}
			e.res.cache.purge()
			_, err = s3.Activate(ctx, "pdf")
			wantErr(t, "activation of a skill removed elsewhere", err, skillerr.Conflict, ReasonStale)
		}
	})
}

// TestStaleEvents: which registry changes make a session stale.
func TestStaleEvents(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.installSkills(t, "a", "b", "c")
		e.setEnabled(t, "c", false)
		ctx := context.Background()
		all := e.open(t, SessionOptions{})
		sel := e.open(t, SessionOptions{Skills: []string{"a", "c", "d"}})
		stale := func() (bool, bool) { return all.Status().Stale, sel.Status().Stale }
		// Editing b: all sees b, the selection does not.
		if _, err := e.reg.WriteFile(ctx, "b", "x.md", "x"); err != nil {
			t.Fatal(err)
		}
		if a, s := stale(); !a || s {
			t.Errorf("edit of b: all %v, selection %v; want true, false", a, s)
		}
		all.Refresh(ctx)
		// Enabling c, which the selection wants.
		e.setEnabled(t, "c", true)
		if a, s := stale(); !a || !s {
			t.Errorf("enable of c: all %v, selection %v; want both", a, s)
		}
		all.Refresh(ctx)
		sel.Refresh(ctx)
		wantList(t, "selection after enabling c", sel.Status().Visible, []string{"a", "c"})
		// Installing d, which the selection names; and e, which only all
		// would show.
		e.installSkills(t, "e")
		if a, s := stale(); !a || s {
			t.Errorf("import of e: all %v, selection %v; want true, false", a, s)
		}
		e.installSkills(t, "d")
		if _, s := stale(); !s {
			t.Error("import of d, which the selection names, left it fresh")
		}
		sel.Refresh(ctx)
		wantList(t, "selection after importing d", sel.Status().Visible, []string{"a", "c", "d"})
		// Disabling a visible skill: stale, and the skill is gone from
		// reads, the catalog and routing at once.
		e.setEnabled(t, "a", false)
		_, err := sel.ReadFile(ctx, "/skills/a/SKILL.md")
		wantErr(t, "read of a skill disabled underneath", err, skillerr.Conflict, ReasonStale)
		res, err := sel.Route(ctx, "$a now", RouteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Candidates {
			if c.ID == "a" {
				t.Errorf("routing recalled a skill disabled underneath the session: %+v", c)
			}
		}
		sel.Refresh(ctx)
		_, err = sel.ReadFile(ctx, "/skills/a/SKILL.md")
		wantErr(t, "read of a disabled skill after Refresh", err, skillerr.SkillNotFound, ReasonNotInstalled)
	})
}

// delayedBus is a Bus whose messages wait until deliver: another tab's
// change reaches this one a little after its commit.
type delayedBus struct {
	mu      sync.Mutex
	peers   []*delayedBus
	subs    []func(registry.Change)
	pending []registry.Change
}

func (b *delayedBus) Publish(c registry.Change) {
	for _, p := range b.peers {
		p.mu.Lock()
		p.pending = append(p.pending, c)
		p.mu.Unlock()
	}
}

func (b *delayedBus) Subscribe(fn func(registry.Change)) func() {
	b.mu.Lock()
	b.subs = append(b.subs, fn)
	b.mu.Unlock()
	return func() {}
}

// deliver hands the waiting messages to the subscribers.
func (b *delayedBus) deliver() { b.deliverFirst(-1) }

// deliverFirst hands the first n waiting messages to the subscribers, all
// of them when n is -1.
func (b *delayedBus) deliverFirst(n int) {
	b.mu.Lock()
	if n < 0 || n > len(b.pending) {
		n = len(b.pending)
	}
	msgs, subs := b.pending[:n:n], slices.Clone(b.subs)
	b.pending = b.pending[n:]
	b.mu.Unlock()
	for _, c := range msgs {
		for _, fn := range subs {
			fn(c)
		}
	}
}

// lateEnv is an env whose registry hears the changes of another
// context's registry, other, when here delivers them, with pdf and docx
// installed and the registry's list cached.
func lateEnv(t *testing.T, bc backendCase) (e *env, other *registry.Registry, here *delayedBus) {
	db := bc.open(t)
	here, there := &delayedBus{}, &delayedBus{}
	here.peers, there.peers = []*delayedBus{there}, []*delayedBus{here}
	ctx := context.Background()
	e = &env{db: newCountingDB(db)}
	var err error
	if e.reg, err = registry.Open(ctx, db, registry.Options{Bus: here}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.reg.Close() })
	if e.res, err = New(ctx, e.reg, db, Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.res.Close() })
	if other, err = registry.Open(ctx, db, registry.Options{Bus: there}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	e.installSkills(t, "pdf", "docx")
	e.open(t, SessionOptions{}) // the registry's list is cached now
	return e, other, here
}

// TestStaleLateChange: another tab's change committed before a session
// opened but heard after it is in the session from its start: the
// registry's list is never older than the revision the snapshot read
// before it (registry's testUnheardChange), so hearing it late is no
// news.
func TestStaleLateChange(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e, other, here := lateEnv(t, bc)
		ctx := context.Background()
		for _, c := range []struct {
			name   string
			change func() error
		}{
			{"disable", func() error { _, err := other.SetEnabled(ctx, "pdf", false); return err }},
			{"edit", func() error { _, err := other.WriteFile(ctx, "docx", "x.md", "x"); return err }},
			{"import", func() error {
				_, err := other.Import(ctx, zipOf(t, skillFiles("new", "# new")...), registry.ImportOptions{})
				return err
			}},
		} {
			if err := c.change(); err != nil {
				t.Fatal(err)
			}
			s := e.open(t, SessionOptions{}) // before the change is heard
			want, err := other.Visible(ctx)
			if err != nil {
				t.Fatal(err)
			}
			rev, err := other.Revision(ctx)
			if err != nil {
				t.Fatal(err)
			}
			st := s.Status()
			if st.Stale || st.Revision != rev || len(s.snap.ids) != len(want) {
				t.Errorf("%s: status %+v of %d skills, want revision %d of %d, not stale", c.name, st, len(s.snap.ids), rev, len(want))
			}
			for _, m := range want {
				if got := s.snap.metas[m.ID]; got == nil || got.Digest != m.Digest {
					t.Errorf("%s: the session shows %s as %+v, want digest %s", c.name, m.ID, got, m.Digest)
				}
			}
			here.deliver()
			if st, err := s.Refresh(ctx); err != nil || st.Stale || st.Revision != rev {
				t.Errorf("%s: after Refresh %+v, %v", c.name, st, err)
			}
		}
	})
}

// TestStaleLateChangeThenNewer: a change the session holds, heard late,
// is no news even when a newer change to the same skill, not heard yet,
// is in the registry's records: the newer one's own notice makes the
// session stale, under its revision. (A check of the late one against
// the records found the newer one and told of it under the older
// revision, below the snapshot's.)
func TestStaleLateChangeThenNewer(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e, other, here := lateEnv(t, bc)
		ctx := context.Background()
		edit := func(text string) int64 {
			if _, err := other.WriteFile(ctx, "pdf", "x.md", text); err != nil {
				t.Fatal(err)
			}
			rev, err := other.Revision(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return rev
		}
		edit("1")
		s := e.open(t, SessionOptions{}) // holds the first edit, not heard yet
		ev := watch(s)
		newer := edit("2")
		if _, err := e.reg.List(ctx); err != nil { // reads the newer edit
			t.Fatal(err)
		}
		here.deliverFirst(1)
		// A host lists on a notice (the side panel does): in the browser
		// the read waits for IndexedDB, and other goroutines run.
		if _, err := e.reg.List(ctx); err != nil {
			t.Fatal(err)
		}
		if st := s.Status(); st.Stale || len(ev.list()) != 0 {
			t.Errorf("after the first edit's notice: %+v, events %+v; want no news", st, ev.list())
		}
		here.deliver()
		if got := ev.list(); len(got) != 1 || !slices.Equal(got[0].Skills, []string{"pdf"}) || got[0].Revision != newer {
			t.Errorf("after the newer edit's notice: events %+v, want one for pdf at revision %d", got, newer)
		}
	})
}

// TestSnapshotBounds: what is kept for sessions is bounded. A version
// past the bounds is collected even while a session reads it, which then
// fails with Conflict, ReasonCollected, and turns the session stale; a
// version no session holds goes after registry.RetainGrace; a removed
// skill leaves nothing behind.
func TestSnapshotBounds(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		ctx := context.Background()
		now := time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		e := envWith(t, bc.open(t), registry.Options{RetainVersions: 1, Now: clock})
		e.installSkills(t, "pdf", "docx")
		edit := func(id string) {
			t.Helper()
			if _, err := e.reg.WriteFile(ctx, id, "references/notes.md", "Edited at "+now.String()); err != nil {
				t.Fatal(err)
			}
		}
		s := e.open(t, SessionOptions{Skills: []string{"pdf"}})
		edit("pdf")
		if got := mustRead(t, s, "/skills/pdf/references/notes.md"); got != "Notes about pdf.\n" {
			t.Fatalf("the session's version: %q", got)
		}
		// One version at most: docx's pushes out pdf's, held or not.
		docx0 := e.meta(t, "docx").Digest
		edit("docx")
		wantList(t, "retained", retainedDigests(t, e), []string{docx0})
		e.res.cache.purge()
		_, err := s.ReadFile(ctx, "/skills/pdf/references/notes.md")
		wantErr(t, "read of a collected version", err, skillerr.Conflict, ReasonCollected)
		if st := s.Status(); !st.Stale || !slices.Equal(st.Changed, []string{"pdf"}) {
			t.Errorf("status after the collected read: %+v", st)
		}
		if _, err := s.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, s, "/skills/pdf/references/notes.md"); !strings.HasPrefix(got, "Edited at") {
			t.Errorf("after Refresh: %q", got)
		}
		// Nobody holds docx's old version: the next change after the
		// grace collects it.
		now = now.Add(registry.RetainGrace + time.Second)
		pdf1 := e.meta(t, "pdf").Digest
		edit("pdf")
		wantList(t, "retained after the grace", retainedDigests(t, e), []string{pdf1})
		// Removing a skill removes what is kept of it.
		if err := e.reg.Remove(ctx, "pdf"); err != nil {
			t.Fatal(err)
		}
		wantList(t, "retained after Remove", retainedDigests(t, e), nil)
	})
}

// TestSnapshotTooLarge: a version larger than what may be kept is not
// kept: the session's reads fail with ReasonCollected at once.
func TestSnapshotTooLarge(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := envWith(t, bc.open(t), registry.Options{RetainBytes: 10})
		e.installSkills(t, "pdf")
		ctx := context.Background()
		s := e.open(t, SessionOptions{})
		e.install(t, file{"pdf/SKILL.md", md("pdf", "# pdf v2")})
		wantList(t, "retained", retainedDigests(t, e), nil)
		_, err := s.ReadFile(ctx, "/skills/pdf/references/notes.md")
		wantErr(t, "read of a version too large to keep", err, skillerr.Conflict, ReasonCollected)
		_, err = s.Activate(ctx, "pdf")
		wantErr(t, "activation after it", err, skillerr.Conflict, ReasonCollected)
	})
}

// TestSnapshotHeldAcrossContexts: two contexts on one database each hold
// the version their sessions read; the version is deleted only when the
// last of them lets go.
func TestSnapshotHeldAcrossContexts(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		db := bc.open(t)
		busA, busB := &delayedBus{}, &delayedBus{}
		busA.peers, busB.peers = []*delayedBus{busB}, []*delayedBus{busA}
		ctx := context.Background()
		a := envWith(t, db, registry.Options{Bus: busA})
		b := envWith(t, db, registry.Options{Bus: busB})
		a.installSkills(t, "pdf")
		busB.deliver()
		sa := a.open(t, SessionOptions{})
		sb := b.open(t, SessionOptions{})
		old := a.meta(t, "pdf").Digest
		if _, err := b.reg.WriteFile(ctx, "pdf", "references/notes.md", "Edited in b.\n"); err != nil {
			t.Fatal(err)
		}
		busA.deliver()
		for name, s := range map[string]*Session{"a": sa, "b": sb} {
			if got := mustRead(t, s, "/skills/pdf/references/notes.md"); got != "Notes about pdf.\n" {
				t.Errorf("%s: %q, want the session's version", name, got)
			}
		}
		// Both hold it (the holds are written in the background).
		eventually(func() bool { return holders(t, a, old) >= 2 })
		if n := holders(t, a, old); n != 2 {
			t.Fatalf("%d contexts hold the old version, want 2", n)
		}
		if _, err := sb.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		wantList(t, "retained once b let go", retainedDigests(t, a), []string{old})
		a.res.cache.purge()
		if got := mustRead(t, sa, "/skills/pdf/references/notes.md"); got != "Notes about pdf.\n" {
			t.Errorf("a after b let go: %q", got)
		}
		if err := sa.Close(ctx); err != nil {
			t.Fatal(err)
		}
		wantList(t, "retained once a let go", retainedDigests(t, a), nil)
	})
}

// holders counts the contexts that hold the retained version digest.
func holders(t testing.TB, e *env, digest string) int {
	t.Helper()
	res, err := e.db.Read(context.Background(), vfs.Get(vfs.StoreState, registry.RetainedKey(digest)))
	if err != nil || len(res[0]) == 0 {
		return -1
	}
	k, err := registry.DecodeRetained(res[0][0])
	if err != nil {
		t.Fatal(err)
	}
	return len(k.Holders)
}

// TestStaleOriginFollowed: a check that finds a skill of a download
// current by its folder, while the download changed elsewhere, records
// the download in the skill's origin (registry.KindOrigin): a session that
// shows the skill, has it active and has read it does not go stale, and
// still reads it.
func TestStaleOriginFollowed(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		ctx := context.Background()
		repo := func(aBody string) []byte {
			return zipOf(t, append(skillFiles("a", aBody), skillFiles("b", "# b")...)...)
		}
		v1 := repo("# a")
		o := source.Origin{Kind: source.KindURL, URL: "https://a.test/repo.zip", Type: source.TypeArchive, Digest: source.Sum(v1), ETag: `"1"`}
		if _, err := e.reg.Import(ctx, v1, registry.ImportOptions{Origin: &o}); err != nil {
			t.Fatal(err)
		}
		s := e.open(t, SessionOptions{})
		ev := watch(s)
		mustActivate(t, s, "b")
		mustRead(t, s, "/skills/b/references/notes.md")

		ups, err := e.reg.CheckDownload(ctx, []string{"a", "b"}, repo("# a v2"), `"2"`)
		if err != nil {
			t.Fatal(err)
		}
		if ups[0].Status != source.StatusChanged || ups[1].Status != source.StatusCurrent || e.meta(t, "b").Origin.ETag != `"2"` {
			t.Fatalf("check: %+v; b's origin %+v", ups, e.meta(t, "b").Origin)
		}
		if st := s.Status(); st.Stale || len(ev.list()) != 0 {
			t.Errorf("after b's origin followed the download: %+v, events %+v", st, ev.list())
		}
		if got := mustRead(t, s, "/skills/b/SKILL.md"); !contains(got, "# b") {
			t.Errorf("b's SKILL.md = %q", got)
		}
	})
}
