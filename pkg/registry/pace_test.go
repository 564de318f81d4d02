package registry

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/pace/pacetest"
	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// stepsBy runs fn and counts its pace.Steps by the function that called
// them (StepAt's caller for StepAt), by name.
func stepsBy(fn func()) map[string]int {
	steps := map[string]int{}
	stop := pacetest.Observe(func() {
		pcs := make([]uintptr, 16)
		frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
		for {
			f, more := frames.Next()
			if !strings.HasPrefix(f.Function, "github.com/skillfs/skillfs/pkg/pace.") || !more {
				steps[strings.TrimPrefix(f.Function, "github.com/skillfs/skillfs/pkg/registry.")]++
				return
			}
		}
	})
	defer stop()
	fn()
	return steps
}

// installedMany installs 320 skills, more than maxPatch, in a registry
// of their own: their names and the download they came from.
func installedMany(t *testing.T) (*env, []string, []byte) {
	e := newEnv(t, memoryCase)
	names := make([]string, 320)
	for i := range names {
		names[i] = fmt.Sprintf("s%03d", i)
	}
	pack := packOf(t, names...)
	e.importZip(t, pack, ImportOptions{})
	return e, names, pack
}

// TestBatchesStep: a first list, and a batch of thousands of skills (the
// side panel's "select all"), give the host turns in their loops over
// the skills; a batch reads its records with every record (from the
// list's cache), not with a query per skill, which would be issued in
// one task, nor does the list after it. Counted, not timed: the time is
// web/bench/calls.mjs's.
func TestBatchesStep(t *testing.T) {
	e, names, _ := installedMany(t)
	n := len(names)
	ctx := context.Background()
	db := &countingDB{Backend: e.db}
	r := openReg(t, db, Options{})
	// The first list decodes every record and copies it for the caller,
	// stepping.
	steps := stepsBy(func() { mustList(t, r) })
	for _, loop := range []string{"decodeMetas", "(*Registry).List"} {
		if got, want := steps[loop], n/16; got < want {
			t.Errorf("the first list of %d skills: %d steps in %s, want %d or more", n, got, loop, want)
		}
	}
	batches := []struct {
		name, loop string
		run        func() error
	}{
		{"disable", "(*Registry).SetEnabledMany.func1", func() error { _, err := r.SetEnabledMany(ctx, names, false); return err }},
		{"enable", "(*Registry).SetEnabledMany.func1", func() error { _, err := r.SetEnabledMany(ctx, names, true); return err }},
		{"remove", "(*Registry).RemoveMany.func1", func() error { return r.RemoveMany(ctx, names) }},
	}
	for _, b := range batches {
		db.reads.Store(0)
		var err error
		steps := stepsBy(func() { err = b.run() })
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		if got, want := steps[b.loop], n/16; got < want {
			t.Errorf("%s of %d skills: %d steps in its loop over them, want %d or more (all steps: %v)", b.name, n, got, want, steps)
		}
		oneByOne := func(what string) {
			for _, q := range *db.lastRead.Load() {
				if q.Store == vfs.StoreMeta && !q.Prefix {
					t.Errorf("%s: a query of one skill's record (%s), want every record in one", what, q.Key)
					return
				}
			}
		}
		oneByOne(fmt.Sprintf("%s of %d skills", b.name, n))
		if got := db.reads.Load(); got > 2 {
			t.Errorf("%s of %d skills: %d reads, want at most 2 (the revision, the list's changes)", b.name, n, got)
		}
		// The list after it reads the records of more than maxPatch
		// skills changed in one request, not one each.
		db.reads.Store(0)
		mustList(t, r)
		if db.reads.Load() > 0 {
			oneByOne(fmt.Sprintf("the list after the %s of %d skills", b.name, n))
		}
	}
}

// TestPreviewAndImportStep: a preview and an import of a download of
// hundreds of skills beside as many installed give the host turns in
// their loops over both (an id folded to its skeleton for each).
func TestPreviewAndImportStep(t *testing.T) {
	e, names, pack := installedMany(t)
	n := len(names)
	ctx := context.Background()
	var err error
	steps := stepsBy(func() { _, err = e.reg.Preview(ctx, pack, nil, nil) })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := steps["(*Registry).Preview"], 2*n/16; got < want {
		t.Errorf("a preview of %d skills beside %d: %d steps in its loops, want %d or more (all: %v)", n, n, got, want, steps)
	}
	steps = stepsBy(func() { _, err = e.reg.Import(ctx, pack, ImportOptions{Copy: true}) })
	if err != nil {
		t.Fatal(err)
	}
	for loop, want := range map[string]int{"byKey": n / 16, "assignIDs": 2 * n / 16} {
		if got := steps[loop]; got < want {
			t.Errorf("an import of %d copies beside %d: %d steps in %s, want %d or more (all: %v)", n, n, got, loop, want, steps)
		}
	}
}

// TestPreviewNotesStep: a preview of hundreds of skills that each depend
// on the one before it, the first on a disabled installed skill, notes
// every one as the import then stores it (depending on the one before
// it, disabled with it), under the default choice and under a choice of
// every skill; and PreviewNotes, with its check of that choice, gives the
// host turns in its loops over the skills. Counted, not timed: the time
// is web/bench/calls.mjs's.
func TestPreviewNotesStep(t *testing.T) {
	e := newEnv(t, memoryCase)
	ctx := context.Background()
	e.importZip(t, packOf(t, "root"), ImportOptions{})
	if _, err := e.reg.SetEnabled(ctx, "root", false); err != nil {
		t.Fatal(err)
	}
	const n = 320
	var files []file
	choose := map[string]ConflictPolicy{}
	want := map[string]string{} // by name: the note's message
	before := "root"
	for i := range n {
		name := fmt.Sprintf("c%03d", i)
		files = append(files, skillFiles(name, name, "skill_dependencies: "+before)...)
		choose[name] = ConflictRename
		want[name] = disabledNote([]string{before}).Message
		before = name
	}
	pack := zipOf(t, "repo-main/skills", files...)
	p, err := e.reg.Preview(ctx, pack, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	previewed := map[string]string{}
	for _, s := range p.Skills {
		for _, m := range notesOf(s.Diagnostics) {
			previewed[s.Name] = m
		}
	}
	if !maps.Equal(previewed, want) {
		t.Errorf("the preview's notes: %d, want %d (c005's %q)", len(previewed), len(want), previewed["c005"])
	}
	var notes map[string]skill.Diagnostic
	steps := stepsBy(func() { notes, err = PreviewNotes(p, choose, false) })
	if err != nil {
		t.Fatal(err)
	}
	for loop, min := range map[string]int{"PreviewNotes": 3 * n / 16, "CheckChoose": n / 16} {
		if got := steps[loop]; got < min {
			t.Errorf("the notes of %d skills: %d steps in %s, want %d or more (all: %v)", n, got, loop, min, steps)
		}
	}
	chosen := map[string]string{}
	for name, d := range notes {
		chosen[name] = d.Message
	}
	if !maps.Equal(chosen, want) {
		t.Errorf("PreviewNotes under a choice of every skill: %d notes, want %d (c005's %q)", len(chosen), len(want), chosen["c005"])
	}
	stored := map[string]string{}
	for _, m := range e.importZip(t, pack, ImportOptions{Choose: choose}).Skills {
		for _, msg := range notesOf(m.Diagnostics) {
			stored[m.ID] = msg
		}
	}
	if !maps.Equal(stored, want) {
		t.Errorf("the import stored %d notes, want %d (c005's %q)", len(stored), len(want), stored["c005"])
	}
}
