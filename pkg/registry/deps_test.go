package registry

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

func testDependencies(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	declared := []string{"skill_dependencies: [b, ghost]", "tool_dependencies: Read, Grep", "mcp_dependencies: docs"}
	// An import gets SetDependencies' verdict: nothing is installed while
	// the host has not said which tools it has, or the pack names a
	// skill, tool or server that does not exist, or the skill itself.
	importErr := func(name string, files []file, reason string) {
		t.Helper()
		rev := mustRevision(t, e.reg)
		_, err := e.reg.Import(ctx, zipOf(t, "", files...), ImportOptions{})
		wantErr(t, name, err, skillerr.InvalidArgument, reason)
		if got := mustRevision(t, e.reg); got != rev {
			t.Errorf("%s: a refused import moved the revision from %d to %d", name, rev, got)
		}
	}
	importErr("tools unregistered", skillFiles("a", "a", "tool_dependencies: Read"), "tools-not-registered")
	importErr("mcp unregistered", skillFiles("a", "a", "mcp_dependencies: docs"), "mcp-not-registered")
	e.importZip(t, zipOf(t, "a", skillFiles("", "a")...), ImportOptions{})
	rev := mustRevision(t, e.reg)
	for _, tc := range []struct {
		name   string
		deps   Dependencies
		reason string
	}{
		{"tools unregistered", Dependencies{Tools: []string{"Read"}}, "tools-not-registered"},
		{"mcp unregistered", Dependencies{MCP: []string{"docs"}}, "mcp-not-registered"},
	} {
		_, err := e.reg.SetDependencies(ctx, "a", tc.deps)
		wantErr(t, tc.name, err, skillerr.InvalidArgument, tc.reason)
	}
	if tools, mcp := e.reg.Registered(); tools != nil || mcp != nil {
		t.Errorf("Registered before registering = %v, %v", tools, mcp)
	}
	e.reg.RegisterTools([]string{"Read", "Write", "Grep"})
	e.reg.RegisterMCPServers([]string{"docs"})
	if tools, mcp := e.reg.Registered(); !slices.Equal(tools, []string{"Read", "Write", "Grep"}) || !slices.Equal(mcp, []string{"docs"}) {
		t.Errorf("Registered = %v, %v", tools, mcp)
	}
	importErr("unknown skill", skillFiles("x", "x", declared...), "unknown-skill")
	importErr("self", skillFiles("x", "x", "skill_dependencies: [x]"), "self-dependency")
	importErr("unknown tool", skillFiles("x", "x", "tool_dependencies: Read, Curl"), "unknown-tool")
	importErr("unknown mcp", skillFiles("x", "x", "mcp_dependencies: web"), "unknown-mcp-server")
	// A dependency on a skill of the same pack, or an installed one, is
	// fine.
	res := e.importZip(t, zipOf(t, "", slices.Concat(skillFiles("c", "c", "skill_dependencies: d"), skillFiles("d", "d"),
		skillFiles("b", "b", "skill_dependencies: [a]", "tool_dependencies: Read, Grep", "mcp_dependencies: docs"))...), ImportOptions{})
	want := Dependencies{Tools: []string{"Read", "Grep"}, MCP: []string{"docs"}, Skills: []string{"a"}}
	if len(res.Skills) != 3 || res.Skills[0].ID != "b" || !res.Skills[0].Dependencies.equal(want) {
		t.Errorf("imported dependencies = %+v", res.Skills)
	}
	if got := mustRevision(t, e.reg); got != rev+1 {
		t.Fatalf("revision %d after the pack, want %d", got, rev+1)
	}
	rev++
	for _, tc := range []struct {
		name   string
		deps   Dependencies
		reason string
	}{
		{"self", Dependencies{Skills: []string{"c", "a"}}, "self-dependency"},
		{"unknown skill", Dependencies{Skills: []string{"c", "ghost"}}, "unknown-skill"},
		{"unknown tool", Dependencies{Tools: []string{"Read", "Curl"}}, "unknown-tool"},
		{"unknown mcp", Dependencies{MCP: []string{"web"}}, "unknown-mcp-server"},
	} {
		_, err := e.reg.SetDependencies(ctx, "a", tc.deps)
		wantErr(t, tc.name, err, skillerr.InvalidArgument, tc.reason)
	}
	_, err := e.reg.SetDependencies(ctx, "nope", Dependencies{})
	wantErr(t, "unknown id", err, skillerr.SkillNotFound, "")
	if got := mustRevision(t, e.reg); got != rev {
		t.Errorf("refused saves moved the revision from %d to %d", rev, got)
	}

	set := Dependencies{Tools: []string{"Write", " Write ", ""}, MCP: []string{"docs"}, Skills: []string{"c"}}
	m, err := e.reg.SetDependencies(ctx, "a", set)
	if err != nil {
		t.Fatal(err)
	}
	want = Dependencies{Tools: []string{"Write"}, MCP: []string{"docs"}, Skills: []string{"c"}}
	if !m.Dependencies.equal(want) || !mustGet(t, e.reg, "a").Dependencies.equal(want) {
		t.Errorf("dependencies = %+v", m.Dependencies)
	}
	if c := e.lastChange(t); c.Kind != KindDependencies || c.Revision != rev+1 {
		t.Errorf("change = %+v", c)
	}
	if _, err := e.reg.SetDependencies(ctx, "a", want); err != nil || mustRevision(t, e.reg) != rev+1 {
		t.Errorf("an unchanged save committed: %v", err)
	}

	// Editing SKILL.md without touching its dependency keys keeps what
	// SetDependencies set; changing them takes the new ones, with the
	// same verdict.
	if m, err = e.reg.WriteFile(ctx, "a", "references/x.md", "x"); err != nil || !m.Dependencies.equal(want) {
		t.Errorf("after an unrelated edit: %+v, %v", m.Dependencies, err)
	}
	if m, err = e.reg.WriteFile(ctx, "a", "SKILL.md", mdOf("a", "Handles a tasks.")+"\nMore.\n"); err != nil || !m.Dependencies.equal(want) {
		t.Errorf("after a body edit: %+v, %v", m.Dependencies, err)
	}
	for _, tc := range []struct{ line, reason string }{
		{"skill_dependencies: [d, ghost]", "unknown-skill"},
		{"skill_dependencies: [a]", "self-dependency"},
		{"tool_dependencies: Curl", "unknown-tool"},
		{"mcp_dependencies: web", "unknown-mcp-server"},
	} {
		_, err := e.reg.WriteFile(ctx, "a", "SKILL.md", mdOf("a", "Handles a tasks.", tc.line))
		wantErr(t, "save with "+tc.line, err, skillerr.InvalidArgument, tc.reason)
	}
	md := mdOf("a", "Handles a tasks.", "skill_dependencies: d", "tool_dependencies: Read, Grep", "mcp_dependencies: docs")
	if m, err = e.reg.WriteFile(ctx, "a", "SKILL.md", md); err != nil || !slices.Equal(m.Dependencies.Skills, []string{"d"}) {
		t.Errorf("after a dependency edit: %+v, %v", m.Dependencies, err)
	}
}

func testClosure(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	var files []file
	for _, s := range []struct{ name, deps string }{
		{"a", "b"}, {"b", "c, ghost"}, {"c", "a, e"}, {"d", "b"}, {"e", ""}, {"ghost", ""},
	} {
		files = append(files, skillFiles(s.name, s.name, "skill_dependencies: "+s.deps)...)
	}
	e.importZip(t, zipOf(t, "pack", files...), ImportOptions{})
	// A dependency no longer installed is left out: one a database written
	// before Remove checked dependents may hold (Remove refuses it now).
	if err := e.db.Commit(ctx, vfs.Delete(vfs.StoreMeta, "ghost")); err != nil {
		t.Fatal(err)
	}
	r := openReg(t, e.db, Options{})
	for _, tc := range []struct{ in, want []string }{
		{[]string{"d", "a", "missing", "d"}, []string{"d", "a", "b", "c", "e"}},
		{[]string{"c"}, []string{"c", "a", "e", "b"}},
		{[]string{"e"}, []string{"e"}},
		{[]string{"ghost"}, []string{}},
		{nil, []string{}},
	} {
		got, err := r.Closure(ctx, tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Closure(%v) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// testRemoveDependents: a skill another depends on is removed only with
// its dependents, so no installed skill names one that is not.
func testRemoveDependents(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	var files []file
	for _, s := range []struct{ name, deps string }{
		{"pdf", ""}, {"pdf-tools", "pdf"}, {"forms", "pdf"}, {"lone", ""},
		{"d1", "lone"}, {"d2", "lone"}, {"d3", "lone"}, {"d4", "lone"}, {"d5", "lone"}, {"d6", "lone"}, {"d7", "lone"},
	} {
		files = append(files, skillFiles(s.name, s.name, "skill_dependencies: "+s.deps)...)
	}
	e.importZip(t, zipOf(t, "pack", files...), ImportOptions{})
	before := dump(t, e.db)
	err := e.reg.Remove(ctx, "pdf")
	if se := wantErr(t, "Remove(pdf)", err, skillerr.Conflict, "has-dependents"); se != nil {
		if se.Subject != "pdf" || !strings.Contains(se.Msg, "'forms', 'pdf-tools' depend on") {
			t.Errorf("the refusal: %v", se)
		}
	}
	// With one of its two dependents only: still refused, naming the other.
	err = e.reg.RemoveMany(ctx, []string{"pdf", "forms"})
	if se := wantErr(t, "RemoveMany(pdf, forms)", err, skillerr.Conflict, "has-dependents"); se != nil && se.Msg != "'pdf-tools' depends on it: delete 'pdf-tools' too, or remove the dependency from it first" {
		t.Errorf("the refusal: %q", se.Msg)
	}
	// Seven dependents: five named, the others counted.
	err = e.reg.Remove(ctx, "lone")
	if se := wantErr(t, "Remove(lone)", err, skillerr.Conflict, "has-dependents"); se != nil && !strings.HasPrefix(se.Msg, "'d1', 'd2', 'd3', 'd4', 'd5' and 2 more depend on") {
		t.Errorf("the refusal: %q", se.Msg)
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a refused remove changed the database")
	}
	// A dependent first, or all of them in one batch.
	if err := e.reg.Remove(ctx, "forms"); err != nil {
		t.Fatal(err)
	}
	if err := e.reg.RemoveMany(ctx, []string{"pdf-tools", "pdf"}); err != nil {
		t.Fatal(err)
	}
	if got := ids(mustList(t, e.reg)); !slices.Equal(got, []string{"d1", "d2", "d3", "d4", "d5", "d6", "d7", "lone"}) {
		t.Errorf("List = %v", got)
	}
}

// testDisableDependents: no change of enabled state leaves an enabled
// skill depending on one that is not. A skill an enabled one depends on is
// disabled only with it, as it is deleted (the same refusal), while a
// disabled dependent does not hold it; a skill is enabled only with its
// dependencies enabled, before or in the same batch.
func testDisableDependents(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	var files []file
	for _, s := range []struct{ name, deps string }{
		{"pdf", ""}, {"pdf-tools", "pdf"}, {"forms", "pdf"}, {"x", "ghost, pdf"}, {"ghost", ""},
	} {
		files = append(files, skillFiles(s.name, s.name, "skill_dependencies: "+s.deps)...)
	}
	e.importZip(t, zipOf(t, "pack", files...), ImportOptions{})
	if _, err := e.reg.SetEnabled(ctx, "x", false); err != nil {
		t.Fatal(err)
	}
	before := dump(t, e.db)
	_, err := e.reg.SetEnabled(ctx, "pdf", false)
	if se := wantErr(t, "SetEnabled(pdf, false)", err, skillerr.Conflict, "has-dependents"); se != nil &&
		(se.Subject != "pdf" || se.Msg != "'forms', 'pdf-tools' depend on the skills to disable: disable them too, or remove the dependencies from them first") {
		t.Errorf("the refusal: %v", se)
	}
	_, err = e.reg.SetEnabledMany(ctx, []string{"pdf", "forms"}, false)
	if se := wantErr(t, "SetEnabledMany(pdf, forms)", err, skillerr.Conflict, "has-dependents"); se != nil && se.Msg != "'pdf-tools' depends on it: disable 'pdf-tools' too, or remove the dependency from it first" {
		t.Errorf("the refusal: %q", se.Msg)
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a refused disable changed the database")
	}
	// A dependent disabled before, or with it in one batch; x, disabled,
	// holds nothing.
	if _, err := e.reg.SetEnabled(ctx, "forms", false); err != nil {
		t.Fatal(err)
	}
	ms, err := e.reg.SetEnabledMany(ctx, []string{"pdf", "pdf-tools"}, false)
	if err != nil || len(ms) != 2 || ms[0].Enabled || ms[1].Enabled {
		t.Fatalf("SetEnabledMany(pdf, pdf-tools, false) = %+v, %v", ms, err)
	}

	// Enabling: not without the dependency, but with it in the batch.
	before = dump(t, e.db)
	_, err = e.reg.SetEnabled(ctx, "forms", true)
	if se := wantErr(t, "SetEnabled(forms, true)", err, skillerr.Conflict, "dependency-disabled"); se != nil &&
		(se.Subject != "forms" || se.Msg != "it depends on 'pdf', which is disabled: enable 'pdf' too, or remove the dependency first") {
		t.Errorf("the refusal: %v", se)
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a refused enable changed the database")
	}
	if _, err := e.reg.SetEnabledMany(ctx, []string{"forms", "pdf"}, true); err != nil {
		t.Fatal(err)
	}
	// x depends on ghost, which went behind the registry's back (as an
	// older version's Remove let it): enabling it cannot be done by
	// enabling more, and says so first.
	if err := e.db.Commit(ctx, vfs.Delete(vfs.StoreMeta, "ghost")); err != nil {
		t.Fatal(err)
	}
	r := openReg(t, e.db, Options{})
	_, err = r.SetEnabledMany(ctx, []string{"x", "pdf-tools"}, true)
	if se := wantErr(t, "SetEnabled(x, true)", err, skillerr.Conflict, "dependency-not-installed"); se != nil &&
		(se.Subject != "x" || se.Msg != "it depends on 'ghost', which is not installed: install 'ghost', or remove the dependency first") {
		t.Errorf("the refusal: %v", se)
	}
	if got := mustGet(t, r, "pdf-tools"); got.Enabled {
		t.Error("a refused batch enabled pdf-tools")
	}
}

// TestDepsMarker: checkDependents decodes only the records holding
// depsMarker, so every record that depends on a skill must hold it as
// metaOp writes it; one that holds the text in another field is decoded
// and depends on nothing.
func TestDepsMarker(t *testing.T) {
	for _, deps := range [][]string{{"b"}, {"b", "c"}, {"ünï"}} {
		op, err := metaOp(Meta{ID: "a", Dependencies: Dependencies{Skills: deps}})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(op.Value, depsMarker) {
			t.Errorf("the record of a skill depending on %v lacks %s: %s", deps, depsMarker, op.Value)
		}
		if err := checkDependents(deps[:1], []vfs.Record{{Key: "a", Value: op.Value}}, deleting); err == nil {
			t.Errorf("a record depending on %v is not a dependent", deps)
		}
	}
	other := []byte(`{"id":"a","x":{"skills":["b"]},"dependencies":{"tools":null,"mcp":null,"skills":null}}`)
	if err := checkDependents([]string{"b"}, []vfs.Record{{Key: "a", Value: other}}, deleting); err != nil {
		t.Errorf("a record naming b elsewhere than its dependencies: %v", err)
	}
}

// testDependencyDisabled: an enabled skill is not made to depend on a
// disabled one by setting its dependencies or saving its SKILL.md, as an
// enable of it is not (Conflict, dependency-disabled); a disabled skill
// may be.
func testDependencyDisabled(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	e.importZip(t, packOf(t, "a", "b"), ImportOptions{})
	if _, err := e.reg.SetEnabled(ctx, "b", false); err != nil {
		t.Fatal(err)
	}
	rev := mustRevision(t, e.reg)
	_, err := e.reg.SetDependencies(ctx, "a", Dependencies{Skills: []string{"b"}})
	wantErr(t, "set a's dependency on disabled b", err, skillerr.Conflict, "dependency-disabled")
	_, err = e.reg.WriteFile(ctx, "a", "SKILL.md", mdOf("a", "Needs b.", "skill_dependencies: [b]"))
	wantErr(t, "save a depending on disabled b", err, skillerr.Conflict, "dependency-disabled")
	if got := mustRevision(t, e.reg); got != rev {
		t.Errorf("refused changes moved the revision from %d to %d", rev, got)
	}
	if _, err := e.reg.SetEnabled(ctx, "a", false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.reg.SetDependencies(ctx, "a", Dependencies{Skills: []string{"b"}}); err != nil {
		t.Errorf("disabled a's dependency on disabled b: %v", err)
	}
}

// testDisabledNoteKept: a skill an import stored disabled for a disabled
// dependency keeps the note saying so (disabledNote) in a new version,
// saved or imported, while it depends on a disabled skill: before, a
// save of its SKILL.md, any edit of its files, or an update dropped it,
// and the skill stayed disabled with nothing saying why. The note names
// the dependencies disabled now, and goes once none is. A skill disabled
// by hand gets none.
func testDisabledNoteKept(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	e.importZip(t, packOf(t, "b", "c"), ImportOptions{})
	if _, err := e.reg.SetEnabledMany(ctx, []string{"b", "c"}, false); err != nil {
		t.Fatal(err)
	}
	e.importZip(t, zipOf(t, "a", file{"SKILL.md", mdOf("a", "Needs b.", "skill_dependencies: [b]")}), ImportOptions{})
	noteOn := func(bad string) []string {
		return []string{"Installed disabled, since it depends on " + bad + ", which is disabled: enable " + bad + ", then this skill."}
	}
	notes := func(what string, m Meta, want []string) {
		t.Helper()
		var got []string
		for _, d := range m.Diagnostics {
			if d.Code == "dependency-disabled" {
				got = append(got, d.Message)
			}
		}
		if stored := mustGet(t, e.reg, m.ID); m.Enabled || stored.Enabled || !slices.Equal(got, want) || !slices.Equal(stored.Diagnostics, m.Diagnostics) {
			t.Errorf("%s: enabled %v, notes %q (stored %s), want disabled, notes %q", what, m.Enabled, got, jsonOf(t, stored), want)
		}
	}
	notes("a as imported", mustGet(t, e.reg, "a"), noteOn("'b'"))
	m, err := e.reg.WriteFile(ctx, "a", "SKILL.md", mdOf("a", "Needs b, said better.", "skill_dependencies: [b]"))
	if err != nil {
		t.Fatal(err)
	}
	notes("a saved", m, noteOn("'b'"))
	if m, err = e.reg.Mkdir(ctx, "a", "notes"); err != nil {
		t.Fatal(err)
	}
	notes("a given a folder", m, noteOn("'b'"))
	// A dependency changed: the note names the disabled one now.
	if m, err = e.reg.WriteFile(ctx, "a", "SKILL.md", mdOf("a", "Needs c.", "skill_dependencies: [c]")); err != nil {
		t.Fatal(err)
	}
	notes("a saved depending on c", m, noteOn("'c'"))
	update := zipOf(t, "a", file{"SKILL.md", mdOf("a", "Needs c, v2.", "skill_dependencies: [c]")})
	res := e.importZip(t, update, ImportOptions{Target: "a"})
	notes("a updated", res.Skills[0], noteOn("'c'"))
	// No disabled dependency: no note, and a stays disabled until enabled.
	if m, err = e.reg.WriteFile(ctx, "a", "SKILL.md", mdOf("a", "Needs nothing.")); err != nil {
		t.Fatal(err)
	}
	notes("a saved depending on nothing", m, nil)
	// Disabled by hand, a skill that depends on a disabled one gets no note.
	if m, err = e.reg.WriteFile(ctx, "a", "SKILL.md", mdOf("a", "Needs c again.", "skill_dependencies: [c]")); err != nil {
		t.Fatal(err)
	}
	notes("a, disabled by hand, saved depending on c", m, nil)
	notes("a, disabled by hand, updated", e.importZip(t, update, ImportOptions{Target: "a"}).Skills[0], nil)
}

// testDependencyDisabledBounds: testDependencyDisabled's refusals change
// nothing stored, name every disabled skill, and read only the records of
// the skills named; a dependency declared before, disabled behind the
// registry's back, is not judged again.
func testDependencyDisabledBounds(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	e.importZip(t, packOf(t, "a", "b", "c", "d", "e"), ImportOptions{})
	if _, err := e.reg.SetEnabledMany(ctx, []string{"b", "c"}, false); err != nil {
		t.Fatal(err)
	}
	db := &countingDB{Backend: e.db}
	r := openReg(t, db, Options{})
	before := dump(t, e.db)
	const refused = "it depends on 'b', which is disabled: enable 'b' too, or remove the dependency first"
	_, err := r.SetDependencies(ctx, "a", Dependencies{Skills: []string{"d", "b"}})
	if se := wantErr(t, "SetDependencies(a, [d, b])", err, skillerr.Conflict, "dependency-disabled"); se != nil && (se.Subject != "a" || se.Msg != refused) {
		t.Errorf("the refusal: %v", se)
	}
	_, err = r.WriteFile(ctx, "a", "SKILL.md", mdOf("a", "Handles a tasks.", "skill_dependencies: [b, c]"))
	if se := wantErr(t, "a save of a depending on b, c", err, skillerr.Conflict, "dependency-disabled"); se != nil &&
		se.Msg != "it depends on 'b', 'c', which are disabled: enable them too, or remove the dependency first" {
		t.Errorf("the refusal: %v", se)
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a refused declaration changed the database")
	}
	if n := db.metaScans.Load(); n != 0 {
		t.Errorf("the refusals read every record %d times", n)
	}
	if _, err := r.WriteFile(ctx, "a", "SKILL.md", mdOf("a", "Handles a tasks.", "skill_dependencies: d")); err != nil {
		t.Fatal(err)
	}
	// d disabled behind the registry's back, as an older version let it:
	// a's dependency on it stays, and a save of a's SKILL.md that keeps it
	// and adds e is not refused for it; a change that adds b is.
	rec, err := e.db.Read(ctx, metaQuery("d"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := decodeMeta(rec[0][0])
	if err != nil {
		t.Fatal(err)
	}
	d.Enabled = false
	op, err := metaOp(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.Commit(ctx, op); err != nil {
		t.Fatal(err)
	}
	r = openReg(t, e.db, Options{})
	if _, err := r.WriteFile(ctx, "a", "SKILL.md", mdOf("a", "Handles a tasks.", "skill_dependencies: [d, e]")); err != nil {
		t.Errorf("a save keeping the dependency on d: %v", err)
	}
	_, err = r.SetDependencies(ctx, "a", Dependencies{Skills: []string{"d", "b"}})
	if se := wantErr(t, "SetDependencies(a, [d, b]) with d disabled before", err, skillerr.Conflict, "dependency-disabled"); se != nil && se.Msg != refused {
		t.Errorf("the refusal: %v", se)
	}
}
