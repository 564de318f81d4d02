package resolver

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillfs/skillfs/internal/realrepos"
	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/routing"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/toolrule"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// realEnv installs the real downloads into one database, one after the
// other as a user would (a name taken is renamed, an identical copy is
// installed once), and returns it; it skips t loudly without them.
func realEnv(t *testing.T) *env {
	t.Helper()
	repos := realrepos.Require(t)
	e := envOn(t, vfs.NewMemory())
	for _, r := range repos {
		data, err := os.ReadFile(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.reg.Import(context.Background(), data, registry.ImportOptions{Source: r.Name + ".zip"}); err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
	}
	return e
}

// sweep does with every skill installed in e what an agent does: the
// catalog at its default budget names each skill the model may load; the
// model activates each of those by its id and reads every file its block
// lists, and is refused the others; the user invokes every skill of the
// slash menu by the name the menu shows. It returns how many skills there
// are.
func sweep(t *testing.T, e *env) int {
	t.Helper()
	ctx := context.Background()
	metas, err := e.reg.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := e.open(t, SessionOptions{ContextID: "sweep"})
	catalog, err := s.Catalog(ctx, CatalogOptions{})
	if err != nil || utf8.RuneCountInString(catalog) > DefaultCatalogBudget {
		t.Fatalf("catalog of %d characters, %v", utf8.RuneCountInString(catalog), err)
	}
	files := 0
	for _, m := range metas {
		b, err := s.Activate(ctx, m.ID)
		if m.DisableModelInvocation {
			wantErr(t, "Activate("+m.ID+")", err, skillerr.PermissionDenied, ReasonModelInvocationDisabled)
			continue
		}
		if err != nil || !strings.HasPrefix(b.Content, `<skill_content name="`+m.ID+`">`) {
			t.Errorf("Activate(%s) = %.80q, %v", m.ID, b.Content, err)
			continue
		}
		if !strings.Contains(catalog, m.ID) {
			t.Errorf("the catalog does not name %s", m.ID)
		}
		for _, rel := range b.Resources {
			if _, err := s.ReadFile(ctx, b.BaseDir+rel); err != nil {
				t.Errorf("ReadFile(%s%s): %v", b.BaseDir, rel, err)
			}
			files++
		}
	}
	menu, err := s.Commands()
	if err != nil || len(menu) != len(metas) {
		t.Fatalf("%d commands for %d skills, %v", len(menu), len(metas), err)
	}
	for _, c := range menu {
		if b, err := s.Invoke(ctx, c.Invocation+" some args"); err != nil || b.ID != c.ID {
			t.Errorf("Invoke(%q) = %q, %v", c.Invocation, b.ID, err)
		}
	}
	t.Logf("%d skills: catalog of %d characters (%s), %d files of loaded skills read, %d invoked by name",
		len(metas), utf8.RuneCountInString(catalog), catalog[:strings.IndexByte(catalog, '\n')], files, len(menu))
	return len(metas)
}

// TestRealSessions: the sweep over the six real downloads in one
// database. TestGeneratedSessions is its counterpart that always runs.
func TestRealSessions(t *testing.T) {
	e := realEnv(t)
	sweep(t, e)
	// openai's skill-creator came after anthropics': the name the
	// catalog and the menu give it is the one that loads it.
	if b, err := e.open(t, SessionOptions{ContextID: "x"}).Activate(context.Background(), "skill-creator-v2"); err != nil || b.Name != "skill-creator-v2" {
		t.Errorf("skill-creator-v2: %+v, %v", b.Name, err)
	}
}

// TestGeneratedSessions: the sweep over the generated download of
// internal/realrepos and a second skill named as one of it, renamed.
func TestGeneratedSessions(t *testing.T) {
	e := envOn(t, vfs.NewMemory())
	ctx := context.Background()
	if _, err := e.reg.Import(ctx, realrepos.Generated(), registry.ImportOptions{Source: "generated.zip"}); err != nil {
		t.Fatal(err)
	}
	res, err := e.reg.Import(ctx, zipOf(t, skillFiles("pdf", "Another pdf.")...), registry.ImportOptions{})
	if err != nil || len(res.Skills) != 1 || res.Skills[0].ID != "pdf-v2" {
		t.Fatalf("second pdf: %+v, %v", res, err)
	}
	if n := sweep(t, e); n != realrepos.GeneratedSkills+1 {
		t.Errorf("%d skills", n)
	}
}

// TestRealAllowedTools: every allowed-tools pattern of the real skills
// parses as a rule, none dropped, and each with a specifier admits what
// it names (its prefix alone), with the skill's directory in place, but
// for those about a Claude Code plugin's directory
// (${CLAUDE_PLUGIN_ROOT}), which skillfs does not install; the lines
// about the skill's own directory (trailofbits' firebase-apk-scanner:
// "Bash({baseDir}/scanner.sh:*)") admit the script there, as their
// authors mean, given as a Claude Code host gives it ({command}), and a
// here-document to the program they allow. TestToolPolicySkillDir is
// its counterpart that always runs.
func TestRealAllowedTools(t *testing.T) {
	e := realEnv(t)
	ctx := context.Background()
	metas, err := e.reg.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, m := range metas {
		if len(m.AllowedTools) == 0 {
			continue
		}
		lines++
		if rules := toolrule.Parse(m.AllowedTools); len(rules) != len(m.AllowedTools) {
			t.Errorf("%s: %q parses as %d rules", m.ID, m.AllowedTools, len(rules))
		}
		for _, r := range toolrule.Parse(m.AllowedTools) {
			if r.Whole || strings.Contains(r.Spec, "${CLAUDE_PLUGIN_ROOT}") {
				continue
			}
			rule := Skill{ID: m.ID}.inDir(r.Source)
			named := strings.TrimSuffix(toolrule.Parse([]string{rule})[0].Spec, ":*")
			if err := toolrule.Check([]string{rule}, r.Tool, named, ""); err != nil {
				t.Errorf("%s: %s does not admit %q: %v", m.ID, rule, named, err)
			}
		}
	}
	t.Logf("%d skills with allowed-tools, every pattern parsed", lines)

	s := e.open(t, SessionOptions{ContextID: "x", AvailableTools: []string{"Bash", "Read", "WebFetch"}})
	if _, err := s.Invoke(ctx, "/skill:firebase-apk-scanner app.apk"); err != nil {
		t.Fatal(err)
	}
	for cmd, ok := range map[string]bool{
		"/skills/firebase-apk-scanner/scanner.sh app.apk": true,
		"apktool d app.apk":              true,
		"{baseDir}/scanner.sh app.apk":   false,
		"/skills/pdf/scanner.sh app.apk": false,
		"rm -rf /":                       false,
	} {
		if d, err := s.IsToolAllowed("Bash", cmd); err != nil || d.Allowed != ok {
			t.Errorf("Bash %q: %+v, %v; want allowed %v", cmd, d, err, ok)
		}
		if d, err := Decide(s.CheckToolInput("Bash", map[string]any{"command": cmd, "description": "x"}, nil)); err != nil || d.Allowed != ok {
			t.Errorf("Bash {command: %q}: %+v, %v; want allowed %v", cmd, d, err, ok)
		}
	}
	config := "curl -s -X POST https://example.firebaseio.com/x.json -d @- <<'EOF'\n{\"probe\": " + strings.Repeat("[1, (2)], ", 300) + "0}\nEOF"
	if d, err := s.IsToolAllowed("Bash", config); err != nil || !d.Allowed {
		t.Errorf("curl with a here-document: %+v, %v", d, err)
	}
}

// Thresholds of TestRealRouting, in percent of testdata/real-routing.tsv's
// requests: measured 86 (20 of 23) and 95 (22 of 23) when it was written.
// The one outside the first three was "create a new skill…" ("skill" is
// a stop word, and "creator" does not stem to "create"); aflpp and
// differential-review came second.
const (
	realRoutingTop1 = 80
	realRoutingTop3 = 90
)

// TestRealRouting: with the six real downloads installed in one database,
// a session's router ranks the skill a request clearly calls for first,
// or among the first three, for at least the thresholds' share of
// testdata/real-routing.tsv. pkg/routing's TestEvaluation measures the
// larger sets; TestRoute's fixture is the generated counterpart.
func TestRealRouting(t *testing.T) {
	e := realEnv(t)
	data, err := os.ReadFile("testdata/real-routing.tsv")
	if err != nil {
		t.Fatal(err)
	}
	s := e.open(t, SessionOptions{ContextID: "routing"})
	cases, top1, top3 := 0, 0, 0
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		want, request, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("no tab in %q", line)
		}
		res, err := s.Route(context.Background(), request, RouteOptions{TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		right := func(c routing.Candidate) bool { return slices.Contains(strings.Split(want, "|"), c.ID) }
		cases++
		switch i := slices.IndexFunc(res.Candidates, right); {
		case i == 0:
			top1++
			top3++
		case i > 0 && i < 3:
			top3++
			t.Logf("second or third: %q (want %s): %v", request, want, ids(res.Candidates))
		default:
			t.Logf("missed: %q (want %s): %v", request, want, ids(res.Candidates))
		}
	}
	t.Logf("%d requests: top-1 %d (%d%%), top-3 %d (%d%%)", cases, top1, 100*top1/cases, top3, 100*top3/cases)
	if 100*top1 < realRoutingTop1*cases || 100*top3 < realRoutingTop3*cases {
		t.Errorf("top-1 %d and top-3 %d of %d, below %d%% and %d%%", top1, top3, cases, realRoutingTop1, realRoutingTop3)
	}
}

func ids(cs []routing.Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}
