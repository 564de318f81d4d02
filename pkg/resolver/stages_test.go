package resolver

import (
	"context"
	"slices"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/toolrule"
)

// installGraph installs skills with dependencies:
//
//	report → charts → palette → charts (a cycle)
//	report → fonts (disabled, behind the registry, which refuses it)
//	mailer (unrelated), lonely (depends on nothing, not selected)
//
// and tool and MCP dependencies on report and palette.
func installGraph(t *testing.T, e *env) *env {
	t.Helper()
	var files []file
	files = append(files, skillFiles("report", "# Report\n\nWrite the report with ${SKILL_DIR}/scripts/run.sh.",
		"skill_dependencies: [charts, fonts]", "tool_dependencies: [Grep]", "mcp_dependencies: [docs-mcp]", `allowed-tools: "Read"`)...)
	files = append(files, skillFiles("charts", "# Charts", "skill_dependencies: [palette]")...)
	files = append(files, skillFiles("palette", "# Palette", "skill_dependencies: [charts]", "mcp_dependencies: [color-mcp]", `allowed-tools: "Bash(convert:*)"`)...)
	files = append(files, skillFiles("fonts", "# Fonts")...)
	files = append(files, skillFiles("mailer", "# Mailer", "tool_dependencies: [SendMail]", "mcp_dependencies: [mail-mcp]")...)
	files = append(files, skillFiles("lonely", "# Lonely")...)
	e.install(t, files...)
	return e.disableBehindRegistry(t, "fonts")
}

// TestStage1Snapshot: the visible set is the selection plus the closure of
// its skill dependencies (deduplicated, cycle-safe, in order), fixed when
// the session opens; it is readable from the first turn.
func TestStage1Snapshot(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e = installGraph(t, e)
		ctx := context.Background()
		s := e.open(t, SessionOptions{Skills: []string{"report", "report", "ghost", "fonts"}})
		st := s.Status()
		wantList(t, "visible", st.Visible, []string{"report", "charts", "palette"})
		wantList(t, "activated", st.Activated, []string{})
		var codes []string
		for _, d := range st.Diagnostics {
			codes = append(codes, d.Code+":"+d.Field)
		}
		wantList(t, "diagnostics", codes, []string{
			DiagSelectedNotInstalled + ":skills", DiagSelectedNotInstalled + ":skills",
		})
		// A dependency is readable from the first turn, before anything
		// is activated.
		if got := mustRead(t, s, "/skills/palette/references/notes.md"); got != "Notes about palette.\n" {
			t.Errorf("palette's notes = %q", got)
		}
		// The catalog lists exactly the visible skills.
		cat, err := s.Catalog(ctx, CatalogOptions{Mode: ModeNames})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"report", "charts", "palette"} {
			if !contains(cat, `name="`+id+`"`) {
				t.Errorf("the catalog lacks %s:\n%s", id, cat)
			}
		}
		for _, id := range []string{"mailer", "lonely", "fonts"} {
			if contains(cat, `name="`+id+`"`) {
				t.Errorf("the catalog shows %s, which is not visible:\n%s", id, cat)
			}
		}
		_, err = s.ReadFile(ctx, "/skills/lonely/SKILL.md")
		wantErr(t, "reading an unselected skill", err, skillerr.NotVisible, ReasonNotInSession)

		// A disabled dependency is reported when a selected skill brings it.
		s2 := e.open(t, SessionOptions{Skills: []string{"report"}})
		if d := s2.Status().Diagnostics; len(d) != 1 || d[0].Code != DiagDependencyNotInstalled {
			t.Errorf("diagnostics of report alone = %+v", d)
		}
		// With no selection, every enabled skill, sorted by id; none
		// selected is none.
		all := e.open(t, SessionOptions{})
		wantList(t, "visible with no selection", all.Status().Visible, []string{"charts", "lonely", "mailer", "palette", "report"})
		none := e.open(t, SessionOptions{Skills: []string{}})
		wantList(t, "visible with an empty selection", none.Status().Visible, []string{})
		if cat, _ := none.Catalog(ctx, CatalogOptions{}); cat != "" {
			t.Errorf("the catalog of an empty session is %q, want none", cat)
		}

		// The snapshot is reused: two sessions of one selection at one
		// revision share it, and its index is built once.
		if s.snap != e.open(t, SessionOptions{Skills: []string{"report", "ghost", "fonts"}}).snap {
			t.Error("two sessions of the same selection at the same revision built two snapshots")
		}
		ix := s.snap.routing()
		if _, err := s.Route(ctx, "make a chart", RouteOptions{}); err != nil || s.snap.routing() != ix {
			t.Errorf("Route rebuilt the index (%v)", err)
		}

		// Select changes the selection and rebuilds the snapshot.
		st, err = s.Select(ctx, []string{"mailer"})
		if err != nil {
			t.Fatal(err)
		}
		wantList(t, "visible after Select", st.Visible, []string{"mailer"})
		_, err = s.ReadFile(ctx, "/skills/palette/SKILL.md")
		wantErr(t, "reading a skill deselected", err, skillerr.NotVisible, ReasonNotInSession)
	})
}

// TestStage2Activation: reading /skills/<id>/SKILL.md activates that
// skill, only for visible skills, once; Activate by name or location is
// the same activation.
func TestStage2Activation(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e = installGraph(t, e)
		ctx := context.Background()
		s := e.open(t, SessionOptions{Skills: []string{"report"}})
		// Other files do not activate.
		mustRead(t, s, "/skills/report/scripts/run.sh")
		wantList(t, "activated after a script read", s.Activated(), []string{})
		mustRead(t, s, "/skills/charts/SKILL.md")
		mustRead(t, s, "report/SKILL.md")
		mustRead(t, s, "/skills/charts/SKILL.md")
		wantList(t, "activated", s.Activated(), []string{"charts", "report"})
		// Not visible: refused, not activated.
		_, err := s.ReadFile(ctx, "/skills/mailer/SKILL.md")
		wantErr(t, "SKILL.md of an invisible skill", err, skillerr.NotVisible, ReasonNotInSession)
		_, err = s.ReadFile(ctx, "/skills/fonts/SKILL.md")
		wantErr(t, "SKILL.md of a disabled skill", err, skillerr.SkillNotFound, ReasonNotInstalled)
		_, err = s.Activate(ctx, "mailer")
		wantErr(t, "Activate of an invisible skill", err, skillerr.NotVisible, ReasonNotInSession)
		_, err = s.Activate(ctx, "nope")
		wantErr(t, "Activate of an unknown skill", err, skillerr.SkillNotFound, ReasonNotInstalled)
		wantList(t, "activated", s.Activated(), []string{"charts", "report"})

		// Activate by name, id in another case, or location.
		b := mustActivate(t, s, "PALETTE")
		if b.ID != "palette" || b.Name != "palette" || b.AlreadyActive || b.BaseDir != "/skills/palette/" {
			t.Errorf("block = %+v", b)
		}
		wantList(t, "resources", b.Resources, []string{"references/notes.md", "scripts/run.sh"})
		for _, name := range []string{"palette", "/skills/palette/SKILL.md", "/skills/palette/", "/skills/palette"} {
			if b2 := mustActivate(t, s, name); !b2.AlreadyActive || b2.Content != b.Content {
				t.Errorf("Activate(%s) again = %+v", name, b2)
			}
		}
		wantList(t, "activated", s.Activated(), []string{"charts", "report", "palette"})
		_, err = s.Activate(ctx, "/skills/palette/scripts/run.sh")
		wantErr(t, "Activate of a script", err, skillerr.InvalidArgument, ReasonNotLocation)

		// The block is resolver.Block over the stored body, with
		// ${SKILL_DIR} filled.
		rb := mustActivate(t, s, "report")
		want := Block(s.snap.skill("report"), "# Report\n\nWrite the report with /skills/report/scripts/run.sh.",
			[]string{"references/notes.md", "scripts/run.sh"})
		if rb.Content != want || !rb.AlreadyActive {
			t.Errorf("report's block:\n%s\nwant:\n%s", rb.Content, want)
		}
	})
}

// TestStage3Dependencies: tool and MCP dependencies come into play only
// once a skill that needs them (or depends on one that does) is
// activated.
func TestStage3Dependencies(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e = installGraph(t, e)
		available := []string{"Read", "Write", "Grep", "Bash", "SendMail", "WebFetch", "mcp__docs-mcp__search", "mcp__color-mcp__pick"}
		s := e.open(t, SessionOptions{
			Skills: []string{"report", "mailer"}, AvailableTools: available, BaseTools: []string{"Write"},
			MCPServers: []string{"docs-mcp", "color-mcp", "mail-mcp"},
		})
		// Session start: nothing activated, nothing injected; the tools
		// only skills need (Grep, SendMail) wait for them.
		ts := mustTools(t, s)
		wantList(t, "tools at start", ts.Tools, without(available, "Grep", "SendMail"))
		wantList(t, "MCP at start", ts.MCPServers, []string{})
		d, _ := s.IsToolAllowed("SendMail", "")
		if d.Allowed || d.Reason != ReasonToolNotActive {
			t.Errorf("at start, SendMail, only mailer's dependency, is allowed: %+v", d)
		}
		if d, _ := s.IsToolAllowed("Bash", "ls"); !d.Allowed {
			t.Errorf("at start, with no skill restricting tools, Bash is refused: %+v", d)
		}

		// mailer says nothing about allowed-tools: every tool stays, its
		// tool and MCP dependencies arrive; Grep still waits for report.
		mustActivate(t, s, "mailer")
		ts = mustTools(t, s)
		wantList(t, "tools after mailer", ts.Tools, without(available, "Grep"))
		wantList(t, "MCP after mailer", ts.MCPServers, []string{"mail-mcp"})

		// report restricts: its allowed-tools and its dependencies', their
		// tool and MCP dependencies, and the base tools.
		mustRead(t, s, "/skills/report/SKILL.md")
		ts = mustTools(t, s)
		wantList(t, "tools after report", ts.Tools, []string{"Read", "Write", "Grep", "Bash", "SendMail", "mcp__docs-mcp__search", "mcp__color-mcp__pick"})
		wantList(t, "MCP after report", ts.MCPServers, []string{"docs-mcp", "color-mcp", "mail-mcp"})
		for _, c := range []struct {
			name, input string
			ok          bool
		}{
			{"Bash", "convert a.png b.jpg", true}, // palette's, through charts
			{"Bash", "rm -rf /", false},
			{"Grep", "x", true},                 // report's tool dependency
			{"mcp__docs-mcp__search", "", true}, // report's MCP dependency
			{"Write", "", true},                 // a base tool
			{"WebFetch", "https://example.com", false},
		} {
			if d, _ := s.IsToolAllowed(c.name, c.input); d.Allowed != c.ok {
				t.Errorf("IsToolAllowed(%s, %q) = %+v, want %v", c.name, c.input, d, c.ok)
			}
		}

		// The host did not list MCP servers: the dependencies pass as they are.
		s2 := e.open(t, SessionOptions{Skills: []string{"report"}, AvailableTools: available})
		mustActivate(t, s2, "report")
		wantList(t, "MCP without a host list", mustTools(t, s2).MCPServers, []string{"docs-mcp", "color-mcp"})
		// A host list filters them.
		s3 := e.open(t, SessionOptions{Skills: []string{"report"}, AvailableTools: available, MCPServers: []string{"color-mcp"}})
		mustActivate(t, s3, "report")
		wantList(t, "MCP with a host list", mustTools(t, s3).MCPServers, []string{"color-mcp"})
		if got := mustTools(t, s3).Tools; slices.Contains(got, "SendMail") {
			t.Errorf("mailer was never activated in s3, yet SendMail is active: %q", got)
		}
	})
}

// TestIsToolAllowedAgreesWithActiveTools: a call is allowed only for a
// tool that ActiveTools offers, restricted or not: never a tool the host
// did not list as available, nor one of an MCP server no activated skill
// depends on.
func TestIsToolAllowedAgreesWithActiveTools(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e = installGraph(t, e)
		e.installSkills(t, "plain")
		ctx := context.Background()
		s := e.open(t, SessionOptions{AvailableTools: []string{"Read"}, MCPServers: []string{"github", "mail-mcp"}})
		if _, err := s.Activate(ctx, "plain"); err != nil {
			t.Fatal(err)
		}
		set, _ := s.ActiveTools()
		for _, tool := range []string{"Bash", "mcp__github__delete_repo", "mcp__mail-mcp__send"} {
			d, err := s.IsToolAllowed(tool, "")
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed || d.Reason != ReasonToolNotActive || d.Message == "" {
				t.Errorf("IsToolAllowed(%q) = %+v, but ActiveTools offers only %v and MCP servers %v", tool, d, set.Tools, set.MCPServers)
			}
			wantErr(t, "CheckTool("+tool+")", s.CheckTool(tool, ""), skillerr.ToolNotAllowed, ReasonToolNotActive)
		}
		if d, _ := s.IsToolAllowed("Read", "notes.md"); !d.Allowed {
			t.Errorf("Read, which ActiveTools offers, is refused: %+v", d)
		}
		// mailer depends on mail-mcp: its tools are offered, and allowed,
		// once it is activated; github's still are not.
		mustActivate(t, s, "mailer")
		wantList(t, "MCP after mailer", mustTools(t, s).MCPServers, []string{"mail-mcp"})
		for _, c := range []struct {
			tool string
			ok   bool
		}{{"mcp__mail-mcp__send", true}, {"mcp__mail-mcp", false}, {"mcp__github__delete_repo", false}, {"SendMail", false}} {
			if d, _ := s.IsToolAllowed(c.tool, ""); d.Allowed != c.ok {
				t.Errorf("after mailer, IsToolAllowed(%q) = %+v, want allowed %v", c.tool, d, c.ok)
			}
		}
		// Every decision agrees with the tool set, restricted or not.
		s2 := e.open(t, SessionOptions{Skills: []string{"report", "mailer"}, AvailableTools: []string{"Read", "Bash", "Write", "mcp__docs-mcp__search"},
			MCPServers: []string{"docs-mcp", "color-mcp", "mail-mcp"}})
		universe := []string{"Read", "Bash", "Write", "Grep", "SendMail", "mcp__docs-mcp__search", "mcp__color-mcp__pick", "mcp__mail-mcp__send", "mcp__github__x"}
		for _, activate := range []string{"", "mailer", "report"} {
			if activate != "" {
				mustActivate(t, s2, activate)
			}
			set := mustTools(t, s2)
			for _, tool := range universe {
				d, _ := s2.IsToolAllowed(tool, "convert a.png b.png")
				if d.Allowed && !set.offers(tool) {
					t.Errorf("after %q, %s is allowed but not offered (%v, %v)", activate, tool, set.Tools, set.MCPServers)
				}
				if !d.Allowed && set.offers(tool) && (d.Reason == ReasonToolNotActive || d.Reason == toolrule.ReasonToolNotListed) {
					t.Errorf("after %q, %s is offered but refused as %s", activate, tool, d.Reason)
				}
			}
		}
	})
}

// TestEnabledSkillWithDisabledDependency: what an agent gets from an
// enabled skill whose dependency is disabled. The registry refuses that
// change (see "Dependencies" in docs/architecture.md); a database written
// before it did may still hold the state, which is reached here behind
// its back. The dependent is listed, loads and is invoked as before; the
// dependency is in no catalog, cannot be loaded, invoked or read (an
// agent gets the answer of a skill never installed), and its
// allowed-tools no longer come with the dependent. Only a session with
// a selection says why, in a diagnostic; one over every enabled skill
// says nothing.
func TestEnabledSkillWithDisabledDependency(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.install(t, slices.Concat(
			skillFiles("research", "# Research\n\nCite every source with the cite skill.", "skill_dependencies: [cite]", `allowed-tools: "Read"`),
			skillFiles("cite", "# Cite", `allowed-tools: "Bash(bibtex:*)"`))...)
		ctx := context.Background()
		tools := []string{"Read", "Bash"}
		both := e.open(t, SessionOptions{AvailableTools: tools})
		mustActivate(t, both, "research")
		if d, _ := both.IsToolAllowed("Bash", "bibtex refs"); !d.Allowed {
			t.Errorf("with cite enabled, research does not bring its tools: %+v", d)
		}
		_, err := e.reg.SetEnabled(ctx, "cite", false)
		wantErr(t, "disabling cite under research", err, skillerr.Conflict, "has-dependents")

		e = e.disableBehindRegistry(t, "cite")
		all := e.open(t, SessionOptions{AvailableTools: tools})
		picked := e.open(t, SessionOptions{Skills: []string{"research"}, AvailableTools: tools})
		for _, s := range []*Session{all, picked} {
			wantList(t, "visible", s.Status().Visible, []string{"research"})
			cat, err := s.Catalog(ctx, CatalogOptions{Mode: ModeNames})
			if err != nil || !contains(cat, `name="research"`) || contains(cat, `name="cite"`) {
				t.Errorf("catalog (%v):\n%s", err, cat)
			}
			if b := mustActivate(t, s, "research"); !contains(b.Content, "with the cite skill") {
				t.Errorf("research's block: %s", b.Content)
			}
			if b, err := s.Invoke(ctx, "/skill:research x"); err != nil || b.ID != "research" {
				t.Errorf("/skill:research: %+v, %v", b, err)
			}
			wantList(t, "activated", s.Activated(), []string{"research"})
			if d, _ := s.IsToolAllowed("Bash", "bibtex refs"); d.Allowed {
				t.Errorf("cite's tools came with research while cite is disabled: %+v", d)
			}
			_, err = s.Activate(ctx, "cite")
			wantErr(t, "Activate(cite)", err, skillerr.SkillNotFound, ReasonNotInstalled)
			_, err = s.Invoke(ctx, "/skill:cite x")
			wantErr(t, "/skill:cite", err, skillerr.SkillNotFound, ReasonNotInstalled)
			_, err = s.ReadFile(ctx, "/skills/cite/SKILL.md")
			wantErr(t, "reading cite", err, skillerr.SkillNotFound, ReasonNotInstalled)
		}
		if d := all.Status().Diagnostics; len(d) != 0 {
			t.Errorf("a session over every enabled skill now says why: %+v", d)
		}
		if d := picked.Status().Diagnostics; len(d) != 1 || d[0].Code != DiagDependencyNotInstalled ||
			d[0].Message != "'research' depends on 'cite', which is not installed (or not enabled)." {
			t.Errorf("diagnostics of a session selecting research = %+v", d)
		}
	})
}
