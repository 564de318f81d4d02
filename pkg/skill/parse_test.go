package skill

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

const minimal = "---\nname: my-skill\ndescription: A test skill\n---\n"

// diagCodes lists every diagnostic as "severity code:field", in order.
func diagCodes(diags []Diagnostic) []string {
	out := []string{}
	for _, d := range diags {
		out = append(out, string(d.Severity)+" "+d.Code+":"+d.Field)
	}
	return out
}

// parseCase is a SKILL.md and what each mode must say about it.
type parseCase struct {
	name    string
	src     string
	dir     string
	lenient []string // diagnostics in Lenient mode, as diagCodes writes them
	strict  []string // diagnostics in Strict mode
}

var parseCases = []parseCase{
	{name: "minimal", src: minimal + "Body\n", dir: "my-skill", lenient: []string{}, strict: []string{}},
	{name: "empty file", src: "", lenient: []string{"error frontmatter-missing:"}, strict: []string{"error frontmatter-missing:"}},
	{name: "only whitespace", src: " \n\r\n\t", lenient: []string{"error frontmatter-missing:"}, strict: []string{"error frontmatter-missing:"}},
	{name: "no frontmatter", src: "# Title\n\nname: x\n", lenient: []string{"error frontmatter-missing:"}, strict: []string{"error frontmatter-missing:"}},
	{name: "leading blank line", src: "\n" + minimal, lenient: []string{"error frontmatter-missing:"}, strict: []string{"error frontmatter-missing:"}},
	{name: "opening line with trailing text", src: "--- x\nname: a\n---\n", lenient: []string{"error frontmatter-missing:"}, strict: []string{"error frontmatter-missing:"}},
	{name: "unclosed", src: "---\nname: a\ndescription: b", lenient: []string{"error frontmatter-unclosed:"}, strict: []string{"error frontmatter-unclosed:"}},
	{name: "closing must be a whole line", src: "---\nname: a\ndescription: b ---\n--- \n", lenient: []string{"error frontmatter-unclosed:"}, strict: []string{"error frontmatter-unclosed:"}},
	{name: "not utf-8", src: "---\nname: a\ndescription: caf\xe9\n---\n", lenient: []string{"error not-utf8:"}, strict: []string{"error not-utf8:"}},
	{name: "not utf-8 in body", src: minimal + "\xff\xfe", lenient: []string{"error not-utf8:"}, strict: []string{"error not-utf8:"}},
	{name: "empty frontmatter", src: "---\n---\nBody", lenient: []string{"error name-missing:name", "error description-missing:description"},
		strict: []string{"error name-missing:name", "error description-missing:description"}},
	{name: "scalar frontmatter", src: "---\njust text\n---\n", lenient: []string{"error frontmatter-not-mapping:"}, strict: []string{"error frontmatter-not-mapping:"}},
	{name: "tab indentation", src: "---\nname: a\nmetadata:\n\tk: v\n---\n", lenient: []string{"error yaml-invalid:"}, strict: []string{"error yaml-invalid:"}},
	{name: "tab after colon", src: "---\nname:\tmy-skill\ndescription:\tA\ttest\n---\n", dir: "my-skill", lenient: []string{}, strict: []string{}},
	{name: "description is a list", src: "---\nname: my-skill\ndescription:\n  - one\n  - two\n---\n",
		lenient: []string{"error wrong-type:description"}, strict: []string{"error wrong-type:description"}},
	{name: "name is a mapping", src: "---\nname: {a: b}\ndescription: d\n---\n",
		lenient: []string{"error wrong-type:name"}, strict: []string{"error wrong-type:name"}},
	{name: "empty description", src: "---\nname: my-skill\ndescription: \"  \"\n---\n",
		lenient: []string{"error description-missing:description"}, strict: []string{"error description-missing:description"}},
	{name: "name missing, directory known", src: "---\ndescription: d\n---\n", dir: "pdf-tools",
		lenient: []string{"warning name-missing:name"}, strict: []string{"error name-missing:name"}},
	{name: "name mismatch", src: minimal, dir: "other",
		lenient: []string{"warning name-mismatch:name"}, strict: []string{"error name-mismatch:name"}},
	{name: "long name", src: "---\nname: " + strings.Repeat("ab", 33) + "\ndescription: d\n---\n",
		lenient: []string{"warning name-too-long:name"}, strict: []string{"error name-too-long:name"}},
	{name: "name with every fault", src: "---\nname: -Bad__name--\ndescription: d\n---\n",
		lenient: []string{"warning name-not-lowercase:name", "warning name-edge-hyphen:name", "warning name-consecutive-hyphens:name", "warning name-invalid-chars:name"},
		strict:  []string{"error name-not-lowercase:name", "error name-edge-hyphen:name", "error name-consecutive-hyphens:name", "error name-invalid-chars:name"}},
	{name: "combining mark is not alphanumeric", src: "---\nname: नमस्ते\ndescription: d\n---\n",
		lenient: []string{"warning name-invalid-chars:name"}, strict: []string{"error name-invalid-chars:name"}},
	{name: "1024 code points", src: "---\nname: a\ndescription: " + strings.Repeat("é", 1024) + "\n---\n", lenient: []string{}, strict: []string{}},
	{name: "1025 code points", src: "---\nname: a\ndescription: " + strings.Repeat("é", 1025) + "\n---\n",
		lenient: []string{"warning description-too-long:description"}, strict: []string{"error description-too-long:description"}},
	{name: "duplicate key", src: "---\nname: a\ndescription: first\ndescription: second\n---\n",
		lenient: []string{"warning duplicate-key:description"}, strict: []string{"error duplicate-key:description"}},
	{name: "snake and kebab spellings of one key", src: "---\nname: a\ndescription: d\nwhen_to_use: x\nwhen-to-use: y\n---\n",
		lenient: []string{"warning duplicate-key:when-to-use"},
		strict:  []string{"error unknown-field:when_to_use", "error unknown-field:when-to-use"}},
	{name: "unknown field", src: "---\nname: a\ndescription: d\nflavour: vanilla\n---\n",
		lenient: []string{"warning unknown-field:flavour"}, strict: []string{"error unknown-field:flavour"}},
	{name: "extension fields", src: "---\nname: a\ndescription: d\ndisable-model-invocation: true\ntriggers: [pdf]\n---\n",
		lenient: []string{}, strict: []string{"error unknown-field:disable-model-invocation", "error unknown-field:triggers"}},
	{name: "snake_case spec key", src: "---\nname: a\ndescription: d\nallowed_tools: Read\n---\n",
		lenient: []string{}, strict: []string{"error unknown-field:allowed_tools"}},
	{name: "unquoted colon", src: "---\nname: a\ndescription: Use when: the user asks\n---\n",
		lenient: []string{"warning yaml-unquoted-colon:description"}, strict: []string{"error yaml-invalid:"}},
	{name: "broken yaml", src: "---\nname: a\ndescription: \"open\n---\n",
		lenient: []string{"error yaml-invalid:"}, strict: []string{"error yaml-invalid:"}},
	{name: "metadata not a map", src: "---\nname: a\ndescription: d\nmetadata: [x]\n---\n",
		lenient: []string{"warning metadata-not-map:metadata"}, strict: []string{"warning metadata-not-map:metadata"}},
	{name: "nested metadata", src: "---\nname: a\ndescription: d\nmetadata:\n  tags: [a, b]\n---\n",
		lenient: []string{"warning metadata-value-not-string:metadata"}, strict: []string{"warning metadata-value-not-string:metadata"}},
	{name: "license list", src: "---\nname: a\ndescription: d\nlicense: [MIT]\n---\n",
		lenient: []string{"warning wrong-type:license"}, strict: []string{"error wrong-type:license"}},
	{name: "bad bool and cost hint", src: "---\nname: a\ndescription: d\nalways: maybe\ncost_hint: huge\n---\n",
		lenient: []string{"warning invalid-value:always", "warning invalid-value:cost_hint"},
		strict:  []string{"error unknown-field:always", "error unknown-field:cost_hint"}},
	{name: "list with a mapping item", src: "---\nname: a\ndescription: d\nallowed-tools:\n  - Read\n  - {x: y}\n---\n",
		lenient: []string{"warning wrong-type:allowed-tools"}, strict: []string{"error wrong-type:allowed-tools"}},
	{name: "alias cycle", src: "---\nname: a\ndescription: d\nhooks: &h [*h]\n---\n",
		lenient: []string{"warning too-complex:hooks"}, strict: []string{"error unknown-field:hooks"}},
	{name: "unknown alias", src: "---\nname: *nope\ndescription: d\n---\n",
		lenient: []string{"error yaml-invalid:"}, strict: []string{"error yaml-invalid:"}},
}

func TestParseDiagnostics(t *testing.T) {
	for _, c := range parseCases {
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range []Mode{Lenient, Strict} {
				want := c.lenient
				if mode == Strict {
					want = c.strict
				}
				s, diags := Parse([]byte(c.src), Options{Mode: mode, DirName: c.dir})
				if got := diagCodes(diags); !slices.Equal(got, want) {
					t.Errorf("%v: diagnostics %q, want %q\n%v", mode, got, want, diags)
				}
				if (s == nil) != HasErrors(diags) {
					t.Errorf("%v: skill %v with diagnostics %v", mode, s != nil, diags)
				}
				for _, d := range diags {
					if d.Message == "" || !strings.HasSuffix(d.Message, ".") {
						t.Errorf("%v: %s has no sentence for a message: %q", mode, d.Code, d.Message)
					}
				}
			}
		})
	}
}

func mustParse(t *testing.T, src string, opts Options) (*Skill, []Diagnostic) {
	t.Helper()
	s, diags := Parse([]byte(src), opts)
	if s == nil {
		t.Fatalf("Parse failed: %v", diags)
	}
	return s, diags
}

func TestLineEndingsAndBOM(t *testing.T) {
	for name, src := range map[string]string{
		"crlf":     "---\r\nname: my-skill\r\ndescription: A test skill\r\n---\r\n# Title\r\n\r\nText\r\n",
		"bom":      "\xEF\xBB\xBF---\nname: my-skill\ndescription: A test skill\n---\n# Title\r\n\r\nText\n",
		"bom+crlf": "\xEF\xBB\xBF---\r\nname: my-skill\r\ndescription: A test skill\r\n---\r\n# Title\r\n\r\nText",
	} {
		t.Run(name, func(t *testing.T) {
			s, diags := mustParse(t, src, Options{Mode: Strict, DirName: "my-skill"})
			if len(diags) != 0 || s.Name != "my-skill" || s.Description != "A test skill" || s.Body != "# Title\r\n\r\nText" {
				t.Errorf("got %q %q %q %v", s.Name, s.Description, s.Body, diags)
			}
		})
	}
}

func TestDelimiterInsideBodyAndValues(t *testing.T) {
	src := "---\nname: a\ndescription: |\n  uses --- as a rule\n  ---\n---\nbody one\n---\nbody two\n---\n"
	s, _ := mustParse(t, src, Options{})
	if s.Description != "uses --- as a rule\n---" {
		t.Errorf("Description = %q", s.Description)
	}
	if s.Body != "body one\n---\nbody two\n---" {
		t.Errorf("Body = %q", s.Body)
	}
	s, _ = mustParse(t, "---\nname: a\ndescription: b\n---", Options{})
	if s.Body != "" {
		t.Errorf("frontmatter only: Body = %q", s.Body)
	}
}

func TestScalarsStayStrings(t *testing.T) {
	src := "---\nname: \"007\"\ndescription: true\nlicense: 2024\ncompatibility: null\nversion: 1.0\nmetadata:\n  n: 0x1F\n  f: 1.50\n  b: yes\n  e:\n---\n"
	s, _ := mustParse(t, src, Options{})
	got := []string{s.Name, s.Description, s.License, s.Compatibility, s.Version, s.Metadata["n"], s.Metadata["f"], s.Metadata["b"], s.Metadata["e"]}
	want := []string{"007", "true", "2024", "null", "1.0", "0x1F", "1.50", "yes", ""}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestBlockScalars(t *testing.T) {
	src := "---\nname: a\ndescription: >\n  Folded\n  lines.\n\n  New paragraph.\ncompatibility: |\n  line one\n  line two\n---\n"
	s, _ := mustParse(t, src, Options{Mode: Strict})
	if s.Description != "Folded lines.\nNew paragraph." || s.Compatibility != "line one\nline two" {
		t.Errorf("got %q and %q", s.Description, s.Compatibility)
	}
}

func TestWrongTypeMessage(t *testing.T) {
	_, diags := Parse([]byte("---\nname: a\ndescription: [x, y]\n---\n"), Options{})
	if len(diags) != 1 || diags[0].Message != "Field 'description' in the frontmatter must be a string, not a list." {
		t.Errorf("diags = %v", diags)
	}
	_, diags = Parse([]byte("---\nname: a\ndescription: caf\xC3\n---\n"), Options{})
	if len(diags) != 1 || diags[0].Message != "SKILL.md is not UTF-8 text (invalid byte 0xC3 at offset 28)." {
		t.Errorf("diags = %v", diags)
	}
}

func TestUnquotedColonRepair(t *testing.T) {
	src := "---\nname: a\ndescription: Use when: it's late # why\nmetadata:\n  note: a: b\nlicense: |\n  key: a: b\n---\n"
	s, diags := mustParse(t, src, Options{})
	if s.Description != "Use when: it's late" || s.Metadata["note"] != "a: b" || s.License != "key: a: b" {
		t.Errorf("got %q, %q, %q", s.Description, s.Metadata["note"], s.License)
	}
	if got := diagCodes(diags); !slices.Equal(got, []string{"warning yaml-unquoted-colon:description", "warning yaml-unquoted-colon:note"}) {
		t.Errorf("diagnostics %q", got)
	}
}

func TestAllFields(t *testing.T) {
	src := `---
name: pdf-tools
description: Work with PDFs.
license: Apache-2.0
compatibility: Needs poppler
version: 2.1
author: Jane
metadata:
  team: docs
allowed-tools: Bash(git add:*), Read Grep
disallowed_tools: [WebFetch]
disable-model-invocation: "true"
user-invocable: no
argument-hint: [file]
arguments: path pages
when_to_use: When a PDF is attached.
model: sonnet
effort: high
context: fork
agent: Explore
shell: bash
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: ./check.sh
          timeout: 30
          enabled: true
          ratio: 0.5
          huge: .inf
paths: "src/**/*.{ts,tsx}, docs/*.md"
triggers: extract text, fill a form
anti-triggers:
  - image editing
cost-hint: High
always: on
parallel_safe: True
tool-dependencies: [pdftotext]
mcp_dependencies: files
skill-dependencies: [ocr, "  "]
prerequisites:
  - command: pdftotext
permissions:
  network: {outbound: false}
entrypoints: [{name: extract, script: scripts/extract.py}]
---
Body`
	s, diags := mustParse(t, src, Options{DirName: "pdf-tools"})
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	want := &Skill{
		Name: "pdf-tools", Description: "Work with PDFs.", License: "Apache-2.0", Compatibility: "Needs poppler",
		Metadata:     map[string]string{"team": "docs"},
		AllowedTools: []string{"Bash(git add:*)", "Read", "Grep"}, DisallowedTools: []string{"WebFetch"},
		Version: "2.1", Author: "Jane",
		DisableModelInvocation: true, UserInvocable: false, ArgumentHint: "[file]", Arguments: []string{"path", "pages"},
		WhenToUse: "When a PDF is attached.", Model: "sonnet", Effort: "high", Context: "fork", Agent: "Explore", Shell: "bash",
		Hooks: map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{
			"type": "command", "command": "./check.sh", "timeout": int64(30), "enabled": true, "ratio": 0.5, "huge": ".inf"}}}}},
		Paths:    []string{"src/**/*.{ts,tsx}", "docs/*.md"},
		Triggers: []string{"extract text", "fill a form"}, AntiTriggers: []string{"image editing"},
		CostHint: "high", Always: true, ParallelSafe: true,
		ToolDependencies: []string{"pdftotext"}, MCPDependencies: []string{"files"}, SkillDependencies: []string{"ocr"},
		Prerequisites: []any{map[string]any{"command": "pdftotext"}},
		Permissions:   map[string]any{"network": map[string]any{"outbound": false}},
		Entrypoints:   []any{map[string]any{"name": "extract", "script": "scripts/extract.py"}},
		Body:          "Body",
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got\n%#v\nwant\n%#v", s, want)
	}
	if _, err := json.Marshal(s); err != nil {
		t.Errorf("the skill is not JSON-encodable: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	s, _ := mustParse(t, minimal, Options{})
	if !s.UserInvocable || s.DisableModelInvocation || s.CostHint != "medium" || s.Always || s.ParallelSafe {
		t.Errorf("defaults: %+v", s)
	}
	s, _ = mustParse(t, "---\nname: a\ndescription: d\nuser-invocable:\ncost_hint:\n---\n", Options{})
	if !s.UserInvocable || s.CostHint != "medium" {
		t.Errorf("empty values must keep defaults: %+v", s)
	}
	got, _ := json.Marshal(s)
	if want := `{"name":"a","description":"d","disableModelInvocation":false,"userInvocable":true,"costHint":"medium","always":false,"parallelSafe":false}`; string(got) != want {
		t.Errorf("JSON %s\nwant %s", got, want)
	}
}

func TestMetadataNested(t *testing.T) {
	s, diags := mustParse(t, "---\nname: a\ndescription: d\nmetadata:\n  tags: [a, 1]\n  plain: x\n---\n", Options{Mode: Strict})
	if s.Metadata["tags"] != `["a",1]` || s.Metadata["plain"] != "x" {
		t.Errorf("Metadata = %#v", s.Metadata)
	}
	if len(diags) != 1 || diags[0].Message != "The value of 'metadata.tags' is a list, not a string; it is kept as its JSON text." {
		t.Errorf("diags = %v", diags)
	}
}

func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: a\ndescription: d\nx0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		b.WriteString("x" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("hooks: *a9\nmetadata:\n  k: *a9\n---\n")
	s, diags := Parse([]byte(b.String()), Options{})
	if s == nil || s.Hooks != nil {
		t.Fatalf("skill %v, hooks kept", s)
	}
	codes := diagCodes(diags)
	if !slices.Contains(codes, "warning too-complex:hooks") || !slices.Contains(codes, "warning too-complex:metadata") {
		t.Errorf("diagnostics %q", codes)
	}
}

func TestSkillYAML(t *testing.T) {
	sidecar := "name: other-name\ndescription: From skill.yaml.\nversion: 0.3.0\nauthor: SmartBot\ntriggers: [pdf, extract]\ncost_hint: low\nparallel_safe: true\nlicense: MIT\nspec:\n  type: script\nexecution_policy: {timeout: 120}\nalways: sometimes\n"
	md := "---\nname: pdf-tools\ndescription: From SKILL.md.\nlicense: Apache-2.0\n---\nBody"
	s, diags := mustParse(t, md, Options{DirName: "pdf-tools", SkillYAML: []byte(sidecar)})
	if s.Name != "pdf-tools" || s.Description != "From SKILL.md." || s.License != "Apache-2.0" {
		t.Errorf("SKILL.md must win: %q %q %q", s.Name, s.Description, s.License)
	}
	if s.Version != "0.3.0" || s.Author != "SmartBot" || !slices.Equal(s.Triggers, []string{"pdf", "extract"}) || s.CostHint != "low" || !s.ParallelSafe || s.Always {
		t.Errorf("skill.yaml must fill the rest: %+v", s)
	}
	want := []string{"warning skill-yaml-conflict:name", "warning skill-yaml-conflict:description", "warning invalid-value:always"}
	if got := diagCodes(diags); !slices.Equal(got, want) {
		t.Errorf("diagnostics %q, want %q", got, want)
	}
	if !strings.Contains(diags[2].Message, "skill.yaml") {
		t.Errorf("message does not say which file: %q", diags[2].Message)
	}

	// Lenient: skill.yaml supplies a missing description. Strict: SKILL.md
	// must stand alone.
	md = "---\nname: pdf-tools\n---\n"
	if s, _ := mustParse(t, md, Options{SkillYAML: []byte(sidecar)}); s.Description != "From skill.yaml." {
		t.Errorf("Description = %q", s.Description)
	}
	if _, diags := Parse([]byte(md), Options{Mode: Strict, SkillYAML: []byte(sidecar)}); !slices.Contains(diagCodes(diags), "error description-missing:description") {
		t.Errorf("strict diagnostics %v", diags)
	}

	for name, bad := range map[string]string{"invalid": "a: [", "list": "- a\n", "not utf-8": "a: \xff"} {
		s, diags := Parse([]byte(minimal), Options{SkillYAML: []byte(bad)})
		if s == nil || !slices.Equal(diagCodes(diags), []string{"warning skill-yaml-invalid:"}) {
			t.Errorf("%s: %v %v", name, s, diags)
		}
	}
}

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"skills/pdf-tools/SKILL.md":   {Data: []byte("---\nname: pdf-tools\ndescription: d\n---\n")},
		"skills/pdf-tools/skill.yaml": {Data: []byte("triggers: [pdf]\n")},
		"SKILL.md":                    {Data: []byte("---\nname: root-skill\ndescription: d\n---\n")},
	}
	s, diags := Load(fsys, "skills/pdf-tools", Options{Mode: Strict})
	if s == nil || len(diags) != 0 || !slices.Equal(s.Triggers, []string{"pdf"}) {
		t.Errorf("Load: %+v %v", s, diags)
	}
	// "." has no name to match.
	if s, diags := Load(fsys, ".", Options{Mode: Strict}); s == nil || s.Name != "root-skill" || len(diags) != 0 {
		t.Errorf("Load(.): %v %v", s, diags)
	}
	// A file system rooted at the skill passes its directory's name.
	if _, diags := Load(fsys, ".", Options{Mode: Strict, DirName: "other"}); !slices.Equal(diagCodes(diags), []string{"error name-mismatch:name"}) {
		t.Errorf("Load(., DirName other): %v", diags)
	}
	if _, diags := Load(fsys, "/skills", Options{Mode: Lenient}); !slices.Equal(diagCodes(diags), []string{"error path-invalid:"}) {
		t.Errorf("Load(/skills): %v", diags)
	}
}

func TestFindSkillMDError(t *testing.T) {
	_, err := FindSkillMD(fstest.MapFS{"a/README.md": {}}, "a")
	var e *skillerr.Error
	if !errors.As(err, &e) || e.Code != skillerr.InvalidManifest || e.Reason != "skill-md-missing" || e.Subject != "a" {
		t.Errorf("err = %#v", err)
	}
	// A directory named SKILL.md is not a skill file.
	if _, err := FindSkillMD(fstest.MapFS{"a/SKILL.md/x": {}}, "a"); skillerr.ReasonOf(err) != "skill-md-missing" {
		t.Errorf("err = %v", err)
	}
}

func TestAsError(t *testing.T) {
	if err := AsError("x", []Diagnostic{{Code: "name-mismatch", Severity: SeverityWarning}}); err != nil {
		t.Errorf("warnings only: %v", err)
	}
	_, diags := Parse([]byte("---\nname: a\n---\n"), Options{})
	err := AsError("a.zip", diags)
	if skillerr.CodeOf(err) != skillerr.InvalidManifest || skillerr.ReasonOf(err) != "description-missing" ||
		err.Error() != "a.zip: Missing required field in frontmatter: description." {
		t.Errorf("err = %v", err)
	}
}

func TestDiagnosticJSON(t *testing.T) {
	got, _ := json.Marshal(Diagnostic{Code: "name-missing", Severity: SeverityError, Field: "name", Message: "m"})
	if string(got) != `{"code":"name-missing","severity":"error","field":"name","message":"m"}` {
		t.Errorf("JSON %s", got)
	}
}

func TestPropertiesJSON(t *testing.T) {
	s, _ := mustParse(t, "---\nname: a\ndescription: d\nallowed-tools: [Read, Write]\nmetadata: {k: v}\n---\n", Options{Mode: Strict})
	got, _ := json.Marshal(s.Properties())
	if string(got) != `{"name":"a","description":"d","allowed-tools":"Read Write","metadata":{"k":"v"}}` {
		t.Errorf("JSON %s", got)
	}
}

func TestSplitNames(t *testing.T) {
	for in, want := range map[string][]string{
		"Read, Write  Bash(git add:*),Grep": {"Read", "Write", "Bash(git add:*)", "Grep"},
		"mcp__github__*  ,  ,":              {"mcp__github__*"},
		"a(b, (c d)) e)":                    {"a(b, (c d))", "e)"},
		"":                                  nil,
	} {
		if got := splitNames(in); !slices.Equal(got, want) {
			t.Errorf("splitNames(%q) = %q, want %q", in, got, want)
		}
	}
}

// A 75 KB SKILL.md (the largest in anthropics/skills is 74 KB) must parse
// in linear time; see BenchmarkParse for the numbers.
func largeSkill() []byte {
	var b strings.Builder
	b.WriteString("---\nname: big\ndescription: " + strings.Repeat("word ", 200) + "\nmetadata:\n")
	for i := range 200 {
		b.WriteString("  k" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + ": value\n")
	}
	b.WriteString("---\n")
	for b.Len() < 75<<10 {
		b.WriteString("Some body text with --- dashes and: colons.\r\n")
	}
	return []byte(b.String())
}

func BenchmarkParse(b *testing.B) {
	src := largeSkill()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		Parse(src, Options{})
	}
}

// TestReadBroken: Read names a skill whose SKILL.md has errors, as far as
// it was read, while Parse leaves it out; a frontmatter that is not YAML
// gives nothing to name.
func TestReadBroken(t *testing.T) {
	for _, c := range []struct{ src, dir, name string }{
		{"---\nname: pdf\n---\n", "pdf", "pdf"},                   // no description
		{"---\nname: pdf\ndescription: [a, b]\n---\n", "", "pdf"}, // a description that is not a string
		{"---\ndescription: [x\n---\n", "pdf", ""},                // not YAML
	} {
		s, diags := Read([]byte(c.src), Options{Mode: Lenient, DirName: c.dir})
		if !HasErrors(diags) {
			t.Errorf("%q: no error in %v", c.src, diagCodes(diags))
		}
		name := ""
		if s != nil {
			name = s.Name
		}
		if name != c.name {
			t.Errorf("%q: Read names it %q, want %q", c.src, name, c.name)
		}
		if p, _ := Parse([]byte(c.src), Options{Mode: Lenient, DirName: c.dir}); p != nil {
			t.Errorf("%q: Parse = %+v, want nil", c.src, p)
		}
	}
}
