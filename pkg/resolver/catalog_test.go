package resolver

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillfs/skillfs/pkg/pace/pacetest"
	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// catalogSkills are out of order, with a hidden skill, two skills of one
// name, characters to escape and a Chinese description.
func catalogSkills() []Skill {
	return []Skill{
		{ID: "pdf-tools", Name: "pdf-tools", Description: "Extract text and tables from PDF files. Use when the user mentions PDFs, forms or extraction."},
		{ID: "docx", Name: "docx", Description: "Create & edit Word documents, e.g. reports. Tracks changes."},
		{ID: "weather", Name: "weather", Description: "查询城市天气。支持未来三天的预报。"},
		{ID: "deploy", Name: "deploy", Description: "Deploy.", DisableModelInvocation: true},
		{ID: "a-2", Name: "alpha", Description: "Second alpha <b>."},
		{ID: "a-1", Name: "alpha", Description: "First alpha 'quoted'."},
	}
}

func mustCatalog(t *testing.T, skills []Skill, opts CatalogOptions) string {
	t.Helper()
	s, err := Catalog(skills, opts)
	if err != nil {
		t.Fatalf("Catalog(%+v): %v", opts, err)
	}
	return s
}

func TestCatalogFullXMLIsToPrompt(t *testing.T) {
	got := mustCatalog(t, catalogSkills(), CatalogOptions{})
	want := skill.ToPrompt([]skill.Entry{
		{Name: "alpha", Description: "First alpha 'quoted'.", Location: "/skills/a-1/SKILL.md"},
		{Name: "alpha", Description: "Second alpha <b>.", Location: "/skills/a-2/SKILL.md"},
		{Name: "docx", Description: "Create & edit Word documents, e.g. reports. Tracks changes.", Location: "/skills/docx/SKILL.md"},
		{Name: "pdf-tools", Description: "Extract text and tables from PDF files. Use when the user mentions PDFs, forms or extraction.", Location: "/skills/pdf-tools/SKILL.md"},
		{Name: "weather", Description: "查询城市天气。支持未来三天的预报。", Location: "/skills/weather/SKILL.md"},
	})
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if again := mustCatalog(t, catalogSkills(), CatalogOptions{Format: FormatXML, Mode: ModeFull, Budget: utf8.RuneCountInString(want)}); again != want {
		t.Errorf("a budget of exactly its length changed the catalog:\n%s", again)
	}
}

func TestCatalogNoCatalog(t *testing.T) {
	hidden := []Skill{{ID: "deploy", Name: "deploy", Description: "Deploy.", DisableModelInvocation: true}}
	for _, c := range []struct {
		skills []Skill
		opts   CatalogOptions
	}{
		{nil, CatalogOptions{}},
		{hidden, CatalogOptions{}},
		{hidden, CatalogOptions{Format: FormatJSON, Mode: ModeNames}},
		{catalogSkills(), CatalogOptions{Mode: ModeOff}},
		{catalogSkills(), CatalogOptions{Format: FormatJSON, Mode: ModeOff, Budget: 10}},
	} {
		if got := mustCatalog(t, c.skills, c.opts); got != "" {
			t.Errorf("%d skills, %+v: got %q, want no catalog", len(c.skills), c.opts, got)
		}
	}
}

func TestCatalogNamesXML(t *testing.T) {
	got := mustCatalog(t, catalogSkills(), CatalogOptions{Mode: ModeNames})
	want := `<available_skills shown="5" described="0" total="5" locations="/skills/{id}/SKILL.md">
<skill name="alpha" id="a-1"/>
<skill name="alpha" id="a-2"/>
<skill name="docx"/>
<skill name="pdf-tools"/>
<skill name="weather"/>
</available_skills>`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCatalogJSON(t *testing.T) {
	got := mustCatalog(t, catalogSkills(), CatalogOptions{Format: FormatJSON})
	want := `[
{"name":"alpha","description":"First alpha 'quoted'.","location":"/skills/a-1/SKILL.md"},
{"name":"alpha","description":"Second alpha <b>.","location":"/skills/a-2/SKILL.md"},
{"name":"docx","description":"Create & edit Word documents, e.g. reports. Tracks changes.","location":"/skills/docx/SKILL.md"},
{"name":"pdf-tools","description":"Extract text and tables from PDF files. Use when the user mentions PDFs, forms or extraction.","location":"/skills/pdf-tools/SKILL.md"},
{"name":"weather","description":"查询城市天气。支持未来三天的预报。","location":"/skills/weather/SKILL.md"}
]`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = mustCatalog(t, catalogSkills(), CatalogOptions{Format: FormatJSON, Mode: ModeNames})
	want = `[
{"shown":5,"described":0,"total":5,"locations":"/skills/{id}/SKILL.md"},
{"name":"alpha","id":"a-1"},
{"name":"alpha","id":"a-2"},
{"name":"docx"},
{"name":"pdf-tools"},
{"name":"weather"}
]`
	if got != want {
		t.Errorf("names: got\n%s\nwant\n%s", got, want)
	}
}

// TestCatalogDegrades walks the budget down through every tier, in both
// formats, with and without relevant skills.
func TestCatalogDegrades(t *testing.T) {
	const head = `<available_skills shown="%d" described="%d" total="5" locations="/skills/{id}/SKILL.md">` + "\n"
	full := mustCatalog(t, catalogSkills(), CatalogOptions{})
	sentences := fmt.Sprintf(head, 5, 5) +
		`<skill name="alpha" id="a-1">First alpha &#x27;quoted&#x27;.</skill>
<skill name="alpha" id="a-2">Second alpha &lt;b&gt;.</skill>
<skill name="docx">Create &amp; edit Word documents, e.g. reports.</skill>
<skill name="pdf-tools">Extract text and tables from PDF files.</skill>
<skill name="weather">查询城市天气。</skill>
</available_skills>`
	names := mustCatalog(t, catalogSkills(), CatalogOptions{Mode: ModeNames})
	list := fmt.Sprintf(head, 5, 0) + "<other_skills>alpha (a-1), alpha (a-2), docx, pdf-tools, weather</other_skills>\n</available_skills>"
	for _, c := range []struct {
		budget int
		want   string
	}{
		{utf8.RuneCountInString(full), full},
		{utf8.RuneCountInString(full) - 1, sentences},
		{utf8.RuneCountInString(sentences), sentences},
		{utf8.RuneCountInString(sentences) - 1, names},
		{utf8.RuneCountInString(names), names},
		{utf8.RuneCountInString(names) - 1, list},
		{utf8.RuneCountInString(list), list},
		// The note on the rest is longer than these five names.
		{utf8.RuneCountInString(list) - 1, ""},
		{1, ""},
	} {
		if got := mustCatalog(t, catalogSkills(), CatalogOptions{Budget: c.budget}); got != c.want {
			t.Errorf("budget %d: got\n%s\nwant\n%s", c.budget, got, c.want)
		}
	}
	// Relevant skills keep their full descriptions; the others take what
	// is left, all alike.
	relevant := CatalogOptions{Relevant: []string{"weather", "pdf-tools"}}
	for _, c := range []struct {
		budget int
		want   string
	}{
		{utf8.RuneCountInString(full) - 1, fmt.Sprintf(head, 5, 5) +
			"<skill>\n<name>\nweather\n</name>\n<description>\n查询城市天气。支持未来三天的预报。\n</description>\n<location>\n/skills/weather/SKILL.md\n</location>\n</skill>\n" +
			"<skill>\n<name>\npdf-tools\n</name>\n<description>\nExtract text and tables from PDF files. Use when the user mentions PDFs, forms or extraction.\n</description>\n<location>\n/skills/pdf-tools/SKILL.md\n</location>\n</skill>\n" +
			"<skill name=\"alpha\" id=\"a-1\">First alpha &#x27;quoted&#x27;.</skill>\n<skill name=\"alpha\" id=\"a-2\">Second alpha &lt;b&gt;.</skill>\n<skill name=\"docx\">Create &amp; edit Word documents, e.g. reports.</skill>\n" +
			"</available_skills>"},
		{330, fmt.Sprintf(head, 5, 1) +
			"<skill>\n<name>\nweather\n</name>\n<description>\n查询城市天气。支持未来三天的预报。\n</description>\n<location>\n/skills/weather/SKILL.md\n</location>\n</skill>\n" +
			"<skill name=\"pdf-tools\"/>\n<other_skills>alpha (a-1), alpha (a-2), docx</other_skills>\n</available_skills>"},
	} {
		opts := relevant
		opts.Budget = c.budget
		if got := mustCatalog(t, catalogSkills(), opts); got != c.want {
			t.Errorf("relevant, budget %d: got\n%s\nwant\n%s", c.budget, got, c.want)
		}
	}
}

// TestCatalogNeverExceedsBudget tries every budget in both formats and
// modes, checking that the output fits and parses.
func TestCatalogNeverExceedsBudget(t *testing.T) {
	skills := catalogSkills()
	skills = append(skills, Skill{ID: "esc", Name: "esc", Description: "Quotes \" and \\ and a tab\tand\u2028line separator. " + strings.Repeat("Long text ", 30)})
	for _, format := range []CatalogFormat{FormatXML, FormatJSON} {
		for _, mode := range []CatalogMode{ModeFull, ModeNames} {
			full := mustCatalog(t, skills, CatalogOptions{Format: format, Mode: mode})
			for budget := 1; budget <= utf8.RuneCountInString(full)+5; budget++ {
				got := mustCatalog(t, skills, CatalogOptions{Format: format, Mode: mode, Budget: budget})
				if n := utf8.RuneCountInString(got); n > budget {
					t.Fatalf("%s %s budget %d: %d characters:\n%s", format, mode, budget, n, got)
				}
				if got == "" {
					continue
				}
				if err := wellFormed(format, got); err != nil {
					t.Fatalf("%s %s budget %d: %v\n%s", format, mode, budget, err, got)
				}
			}
		}
	}
}

func wellFormed(format CatalogFormat, s string) error {
	if format == FormatJSON {
		var v []map[string]any
		return json.Unmarshal([]byte(s), &v)
	}
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func TestCatalogJSONRoundTrips(t *testing.T) {
	desc := "Quotes \" \\ tab\t newline\n CR\r ctrl\x01\x1f LS\u2028 PS\u2029 <&> é 中"
	got := mustCatalog(t, []Skill{{ID: "x", Name: "x", Description: desc}}, CatalogOptions{Format: FormatJSON})
	var entries []skill.Entry
	if err := json.Unmarshal([]byte(got), &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0] != (skill.Entry{Name: "x", Description: desc, Location: "/skills/x/SKILL.md"}) {
		t.Errorf("decoded %+v", entries)
	}
	if strings.ContainsAny(got, "\u2028\u2029\x01") {
		t.Errorf("unescaped separators or controls in %q", got)
	}
}

func TestCatalogInvalidOptions(t *testing.T) {
	for _, opts := range []CatalogOptions{{Format: "yaml"}, {Mode: "short"}, {Budget: -1}} {
		_, err := Catalog(catalogSkills(), opts)
		if skillerr.CodeOf(err) != skillerr.InvalidArgument {
			t.Errorf("%+v: got %v, want InvalidArgument", opts, err)
		}
		var e *skillerr.Error
		if !errors.As(err, &e) || e.Msg == "" {
			t.Errorf("%+v: no message in %v", opts, err)
		}
	}
}

func TestCatalogInvalidUTF8(t *testing.T) {
	got := mustCatalog(t, []Skill{{ID: "x", Name: "x", Description: "bad \xff byte"}}, CatalogOptions{Format: FormatJSON})
	want := "[\n{\"name\":\"x\",\"description\":\"bad \uFFFD byte\",\"location\":\"/skills/x/SKILL.md\"}\n]"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// typicalSkills are forty skills with names and descriptions as long as
// those of anthropics/skills and obra/superpowers.
func typicalSkills() []Skill {
	names := []string{
		"algorithmic-art", "brand-guidelines", "canvas-design", "docx", "frontend-design",
		"internal-comms", "mcp-builder", "pdf", "pptx", "skill-creator",
		"slack-gif-creator", "theme-factory", "webapp-testing", "xlsx", "web-artifacts-builder",
		"brainstorming", "dispatching-parallel-agents", "executing-plans", "finishing-a-development-branch", "receiving-code-review",
		"requesting-code-review", "subagent-driven-development", "systematic-debugging", "test-driven-development", "using-git-worktrees",
		"verification-before-completion", "writing-plans", "writing-skills", "weather", "translate",
		"git-commit", "code-review", "web-research", "changelog", "release-notes",
		"sql-explorer", "csv-analyzer", "image-resize", "meeting-notes", "email-drafting",
	}
	skills := make([]Skill, len(names))
	for i, n := range names {
		skills[i] = Skill{ID: n, Name: n, Description: "Guides the agent through " + strings.ReplaceAll(n, "-", " ") +
			" step by step, with scripts and reference material. Use when the user asks for " + strings.ReplaceAll(n, "-", " ") +
			" or a task close to it, and whenever the output must follow the team's conventions."}
	}
	return skills
}

// TestCatalogCost documents what a catalog of forty typical skills costs
// each turn, at about four characters a token: users of peers complain of
// 2–3k tokens a turn at forty skills.
func TestCatalogCost(t *testing.T) {
	for _, c := range []struct {
		mode       CatalogMode
		characters int
	}{
		{ModeFull, 14218}, // about 3,550 tokens
		{ModeNames, 1373}, // about 340 tokens
	} {
		got := mustCatalog(t, typicalSkills(), CatalogOptions{Mode: c.mode})
		if n := utf8.RuneCountInString(got); n != c.characters {
			t.Errorf("%s: %d characters, want %d", c.mode, n, c.characters)
		}
	}
	// When not even the list of every name fits: the first names, the
	// relevant ones first, and a note on the rest.
	got := mustCatalog(t, typicalSkills(), CatalogOptions{Budget: 600, Relevant: []string{"xlsx"}})
	m := regexp.MustCompile(`^<available_skills shown="(\d+)" described="0" total="40" locations="/skills/\{id\}/SKILL.md">\n` +
		`<other_skills>xlsx, algorithmic-art, [^<]*</other_skills>\n<more count="(\d+)">\d+ more skills are installed. [^<]*</more>\n</available_skills>$`).FindStringSubmatch(got)
	if m == nil || utf8.RuneCountInString(got) > 600 || m[1] == "0" || atoi(m[1])+atoi(m[2]) != 40 {
		t.Errorf("a cut catalog:\n%s", got)
	}
	if next := mustCatalog(t, typicalSkills(), CatalogOptions{Budget: 600 + 40, Relevant: []string{"xlsx"}}); !strings.Contains(next, "<more") || len(next) <= len(got) {
		t.Errorf("a larger budget does not name more:\n%s", next)
	}
	// A budget of 1,000 tokens keeps every name of the forty.
	if got := mustCatalog(t, typicalSkills(), CatalogOptions{Budget: 4000}); !strings.Contains(got, "email-drafting") || strings.Contains(got, "<more") {
		t.Errorf("a 4,000-character budget lost names:\n%s", got)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestCatalogSteps: the catalog of a thousand skills fitted to a budget
// gives the host turns (pace.Step) in its loop over the skills and
// between its renderings. Counted, not timed: BenchmarkCatalog1000 and
// web/bench/calls.mjs time it.
func TestCatalogSteps(t *testing.T) {
	skills := generatedSkills(1000)
	steps := 0
	defer pacetest.Observe(func() { steps++ })()
	mustCatalog(t, skills, CatalogOptions{Budget: 8000})
	if want := len(skills)/16 + 2; steps < want {
		t.Errorf("the catalog of %d skills stepped %d times, want %d or more", len(skills), steps, want)
	}
}

// TestSnapshotSteps: a session's snapshot of a thousand skills steps in
// each of its four loops over them (their ids, the visible ones, what the
// pure functions read of them, their names), as TestCatalogSteps.
func TestSnapshotSteps(t *testing.T) {
	list := make([]registry.Meta, 1000)
	for i := range list {
		list[i] = registry.Meta{ID: fmt.Sprintf("s-%d", i), Name: fmt.Sprintf("s-%d", i), Description: "Does things.", Enabled: true}
	}
	steps := 0
	defer pacetest.Observe(func() { steps++ })()
	if sn := newSnapshot(1, nil, list); len(sn.skills) != len(list) {
		t.Fatalf("the snapshot shows %d skills of %d", len(sn.skills), len(list))
	}
	if want := 4 * len(list) / 16; steps < want {
		t.Errorf("the snapshot of %d skills stepped %d times, want %d or more", len(list), steps, want)
	}
}
