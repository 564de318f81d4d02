package resolver

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

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
	want := `<available_skills>
<skill name="alpha" location="/skills/a-1/SKILL.md"/>
<skill name="alpha" location="/skills/a-2/SKILL.md"/>
<skill name="docx" location="/skills/docx/SKILL.md"/>
<skill name="pdf-tools" location="/skills/pdf-tools/SKILL.md"/>
<skill name="weather" location="/skills/weather/SKILL.md"/>
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
{"name":"alpha","location":"/skills/a-1/SKILL.md"},
{"name":"alpha","location":"/skills/a-2/SKILL.md"},
{"name":"docx","location":"/skills/docx/SKILL.md"},
{"name":"pdf-tools","location":"/skills/pdf-tools/SKILL.md"},
{"name":"weather","location":"/skills/weather/SKILL.md"}
]`
	if got != want {
		t.Errorf("names: got\n%s\nwant\n%s", got, want)
	}
}

// TestCatalogDegrades walks the budget down through every level.
func TestCatalogDegrades(t *testing.T) {
	entry := func(name, desc, id string) string {
		return "<skill>\n<name>\n" + name + "\n</name>\n<description>\n" + desc + "\n</description>\n<location>\n/skills/" + id + "/SKILL.md\n</location>\n</skill>\n"
	}
	firstSentences := "<available_skills>\n" +
		entry("alpha", "First alpha &#x27;quoted&#x27;.", "a-1") +
		entry("alpha", "Second alpha &lt;b&gt;.", "a-2") +
		entry("docx", "Create &amp; edit Word documents, e.g. reports.", "docx") +
		entry("pdf-tools", "Extract text and tables from PDF files.", "pdf-tools") +
		entry("weather", "查询城市天气。", "weather") +
		"</available_skills>"
	truncated := "<available_skills>\n" +
		entry("alpha", "First alpha…", "a-1") +
		entry("alpha", "Second alpha &lt;b&gt;.", "a-2") +
		entry("docx", "Create &amp; edit Word…", "docx") +
		entry("pdf-tools", "Extract text and…", "pdf-tools") +
		entry("weather", "查询城市天气。", "weather") +
		"</available_skills>"
	names := mustCatalog(t, catalogSkills(), CatalogOptions{Mode: ModeNames})
	more := func(lines string, n int) string {
		return "<available_skills>\n" + lines + fmt.Sprintf("<more count=\"%d\">%d more skills are installed. Ask for a skill by name or describe the task to find one.</more>\n", n, n) + "</available_skills>"
	}
	twoNames := "<skill name=\"alpha\" location=\"/skills/a-1/SKILL.md\"/>\n<skill name=\"alpha\" location=\"/skills/a-2/SKILL.md\"/>\n"
	full := mustCatalog(t, catalogSkills(), CatalogOptions{})
	for _, c := range []struct {
		budget int
		want   string
	}{
		{utf8.RuneCountInString(full) - 1, firstSentences},
		{utf8.RuneCountInString(firstSentences), firstSentences},
		// The shortest descriptions allowed: 20 characters, "…" included.
		{713, truncated},
		{712, names},
		{utf8.RuneCountInString(names), names},
		{utf8.RuneCountInString(names) - 1, more(twoNames+"<skill name=\"docx\" location=\"/skills/docx/SKILL.md\"/>\n", 2)},
		{256, more(twoNames, 3)},
		{148, more("", 5)},
		{147, ""},
		{1, ""},
	} {
		if got := mustCatalog(t, catalogSkills(), CatalogOptions{Budget: c.budget}); got != c.want {
			t.Errorf("budget %d: got\n%s\nwant\n%s", c.budget, got, c.want)
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

// TestCatalogWidths checks the escaped widths the budget arithmetic uses
// against the renderers, for every value of every element.
func TestCatalogWidths(t *testing.T) {
	runes := []rune("é中…\u2028\u2029\U0001F600")
	for r := range rune(128) {
		runes = append(runes, r)
	}
	for _, f := range []catalogFormat{xmlFormat{}, jsonFormat{}} {
		for _, el := range []struct {
			name  string
			write func(*strings.Builder, skill.Entry)
			set   func(*skill.Entry, string)
		}{
			{"entry name", f.writeEntry, func(e *skill.Entry, v string) { e.Name = v }},
			{"entry description", f.writeEntry, func(e *skill.Entry, v string) { e.Description = v }},
			{"entry location", f.writeEntry, func(e *skill.Entry, v string) { e.Location = v }},
			{"name name", f.writeName, func(e *skill.Entry, v string) { e.Name = v }},
			{"name location", f.writeName, func(e *skill.Entry, v string) { e.Location = v }},
		} {
			empty := elementLen(el.write, skill.Entry{})
			for _, r := range runes {
				var e skill.Entry
				el.set(&e, string(r))
				if got, want := elementLen(el.write, e)-empty, int(f.widths().of(r)); got != want {
					t.Errorf("%T %s: %U renders %d characters wide, widths say %d", f, el.name, r, got, want)
				}
			}
		}
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
		{ModeNames, 3048}, // about 760 tokens
	} {
		got := mustCatalog(t, typicalSkills(), CatalogOptions{Mode: c.mode})
		if n := utf8.RuneCountInString(got); n != c.characters {
			t.Errorf("%s: %d characters, want %d", c.mode, n, c.characters)
		}
	}
	// A budget of 1,000 tokens keeps every name of the forty.
	if got := mustCatalog(t, typicalSkills(), CatalogOptions{Budget: 4000}); !strings.Contains(got, "email-drafting") || strings.Contains(got, "<more") {
		t.Errorf("a 4,000-character budget lost names:\n%s", got)
	}
}
