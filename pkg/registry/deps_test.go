package registry

import (
	"context"
	"slices"
	"testing"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

func testDependencies(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	a := e.importZip(t, zipOf(t, "a", skillFiles("", "a",
		"skill_dependencies: [b, ghost]", "tool_dependencies: Read, Grep", "mcp_dependencies: docs")...), ImportOptions{}).Skills[0]
	want := Dependencies{Tools: []string{"Read", "Grep"}, MCP: []string{"docs"}, Skills: []string{"b", "ghost"}}
	if !a.Dependencies.equal(want) {
		t.Errorf("imported dependencies = %+v", a.Dependencies)
	}
	missing := 0
	for _, d := range a.Diagnostics {
		if d.Code == "skill-dependency-missing" && d.Severity == skill.SeverityWarning {
			missing++
		}
	}
	if missing != 2 {
		t.Errorf("diagnostics %v: want a warning for b and ghost", a.Diagnostics)
	}
	// A dependency on a skill of the same pack is no warning.
	res := e.importZip(t, zipOf(t, "", append(skillFiles("c", "c", "skill_dependencies: d"), skillFiles("d", "d")...)...), ImportOptions{})
	if slices.ContainsFunc(res.Skills[0].Diagnostics, func(d skill.Diagnostic) bool { return d.Code == "skill-dependency-missing" }) {
		t.Errorf("c: %v", res.Skills[0].Diagnostics)
	}

	rev := mustRevision(t, e.reg)
	for _, tc := range []struct {
		name   string
		deps   Dependencies
		reason string
	}{
		{"tools unregistered", Dependencies{Tools: []string{"Read"}}, "tools-not-registered"},
		{"mcp unregistered", Dependencies{MCP: []string{"docs"}}, "mcp-not-registered"},
		{"self", Dependencies{Skills: []string{"c", "a"}}, "self-dependency"},
		{"unknown skill", Dependencies{Skills: []string{"c", "ghost"}}, "unknown-skill"},
	} {
		_, err := e.reg.SetDependencies(ctx, "a", tc.deps)
		wantErr(t, tc.name, err, skillerr.InvalidArgument, tc.reason)
	}
	e.reg.RegisterTools([]string{"Read", "Write"})
	e.reg.RegisterMCPServers([]string{"docs"})
	for _, tc := range []struct {
		name   string
		deps   Dependencies
		reason string
	}{
		{"unknown tool", Dependencies{Tools: []string{"Read", "Grep"}}, "unknown-tool"},
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
	// SetDependencies set; changing them takes the new ones.
	if m, err = e.reg.WriteFile(ctx, "a", "references/x.md", "x"); err != nil || !m.Dependencies.equal(want) {
		t.Errorf("after an unrelated edit: %+v, %v", m.Dependencies, err)
	}
	md := mdOf("a", "Handles a tasks.", "skill_dependencies: [b, ghost]", "tool_dependencies: Read, Grep", "mcp_dependencies: docs")
	if m, err = e.reg.WriteFile(ctx, "a", "SKILL.md", md+"\nMore.\n"); err != nil || !m.Dependencies.equal(want) {
		t.Errorf("after a body edit: %+v, %v", m.Dependencies, err)
	}
	md = mdOf("a", "Handles a tasks.", "skill_dependencies: d", "tool_dependencies: Read, Grep", "mcp_dependencies: docs")
	if m, err = e.reg.WriteFile(ctx, "a", "SKILL.md", md); err != nil || !slices.Equal(m.Dependencies.Skills, []string{"d"}) {
		t.Errorf("after a dependency edit: %+v, %v", m.Dependencies, err)
	}
}

func testClosure(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	var files []file
	for _, s := range []struct{ name, deps string }{
		{"a", "b"}, {"b", "c, ghost"}, {"c", "a, e"}, {"d", "b"}, {"e", ""}, {"f", "f"},
	} {
		files = append(files, skillFiles(s.name, s.name, "skill_dependencies: "+s.deps)...)
	}
	e.importZip(t, zipOf(t, "pack", files...), ImportOptions{})
	for _, tc := range []struct{ in, want []string }{
		{[]string{"d", "a", "missing", "d"}, []string{"d", "a", "b", "c", "e"}},
		{[]string{"c"}, []string{"c", "a", "e", "b"}},
		{[]string{"e"}, []string{"e"}},
		{[]string{"f"}, []string{"f"}},
		{[]string{"ghost"}, []string{}},
		{nil, []string{}},
	} {
		got, err := e.reg.Closure(ctx, tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Closure(%v) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
