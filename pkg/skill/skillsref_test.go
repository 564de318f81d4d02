package skill

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// refVector is one test of skills-ref, the specification's reference
// validator (agentskills/agentskills, skills-ref/tests/test_parser.py,
// test_validator.py and test_prompt.py), ported: the same input, the same
// verdict and the same field flagged. tmp_path becomes an fstest.MapFS.
type refVector struct {
	name string // the skills-ref test function
	// call is the skills-ref function the test calls:
	//   parse_frontmatter: Parse(content) in both modes
	//   read_properties, validate: Load(files, dir, Options{Mode: Strict})
	//   find_skill_md: FindSkillMD(files, dir)
	//   to_prompt: Load(files, d, Options{Mode: Lenient}) for each d in dirs, then ToPrompt
	call    string
	content string
	files   fstest.MapFS
	dir     string
	dirs    []string
	// want lists the error diagnostics as "code:field", in order; empty
	// means the skill is valid.
	want  []string
	check func(t *testing.T, r refResult)
}

type refResult struct {
	skill  *Skill
	diags  []Diagnostic
	found  string // find_skill_md
	prompt string // to_prompt
}

// skillDir is a tmp_path holding one file, dir/name.
func skillDir(dir, name, content string) fstest.MapFS {
	return fstest.MapFS{dir + "/" + name: {Data: []byte(content)}}
}

func skillMD(dir, content string) fstest.MapFS { return skillDir(dir, "SKILL.md", content) }

// refVectors are the 40 tests of skills-ref's plain parser/validator/prompt
// suites, plus the five of the stored copy at commit 00d5a46 that agree with
// reading every scalar as a string (lists for allowed-tools, escaping in
// locations). Left out: that copy's two tests expecting `allowed-tools: 123`
// (and a list item 123) to be rejected, which contradict strictyaml's
// all-strings reading that skills-ref's parser itself uses. Tests of
// read_properties and validate run Load in Strict mode.
var refVectors = []refVector{
	// test_parser.py
	{name: "test_valid_frontmatter", call: "parse_frontmatter",
		content: "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n\nInstructions here.\n",
		check: func(t *testing.T, r refResult) {
			if r.skill.Name != "my-skill" || r.skill.Description != "A test skill" || !strings.Contains(r.skill.Body, "# My Skill") {
				t.Errorf("got name %q, description %q, body %q", r.skill.Name, r.skill.Description, r.skill.Body)
			}
		}},
	{name: "test_missing_frontmatter", call: "parse_frontmatter", content: "# No frontmatter here",
		want: []string{"frontmatter-missing:"}},
	{name: "test_unclosed_frontmatter", call: "parse_frontmatter", content: "---\nname: my-skill\ndescription: A test skill\n",
		want: []string{"frontmatter-unclosed:"}},
	{name: "test_invalid_yaml", call: "parse_frontmatter", content: "---\nname: [invalid\ndescription: broken\n---\nBody here\n",
		want: []string{"yaml-invalid:"}},
	{name: "test_non_dict_frontmatter", call: "parse_frontmatter", content: "---\n- just\n- a\n- list\n---\nBody\n",
		want: []string{"frontmatter-not-mapping:"}},
	{name: "test_read_valid_skill", call: "read_properties", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\nlicense: MIT\n---\n# My Skill\n"),
		check: func(t *testing.T, r refResult) {
			want := Properties{Name: "my-skill", Description: "A test skill", License: "MIT"}
			if got := r.skill.Properties(); !equalProps(got, want) {
				t.Errorf("Properties() = %+v, want %+v", got, want)
			}
		}},
	{name: "test_read_with_metadata", call: "read_properties", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\nmetadata:\n  author: Test Author\n  version: 1.0\n---\nBody\n"),
		check: func(t *testing.T, r refResult) {
			if m := r.skill.Metadata; len(m) != 2 || m["author"] != "Test Author" || m["version"] != "1.0" {
				t.Errorf("Metadata = %#v, want author and version 1.0 as strings", m)
			}
		}},
	{name: "test_missing_skill_md", call: "read_properties", dir: ".", files: fstest.MapFS{},
		want: []string{"skill-md-missing:"}},
	{name: "test_missing_name", call: "read_properties", dir: "my-skill",
		files: skillMD("my-skill", "---\ndescription: A test skill\n---\nBody\n"),
		want:  []string{"name-missing:name"}},
	{name: "test_missing_description", call: "read_properties", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\n---\nBody\n"),
		want:  []string{"description-missing:description"}},
	{name: "test_find_skill_md_prefers_uppercase", call: "find_skill_md", dir: "my-skill",
		files: fstest.MapFS{"my-skill/SKILL.md": {Data: []byte("uppercase")}, "my-skill/skill.md": {Data: []byte("lowercase")}},
		check: func(t *testing.T, r refResult) {
			if r.found != "my-skill/SKILL.md" {
				t.Errorf("found %q", r.found)
			}
		}},
	{name: "test_find_skill_md_accepts_lowercase", call: "find_skill_md", dir: "my-skill",
		files: skillDir("my-skill", "skill.md", "lowercase"),
		check: func(t *testing.T, r refResult) {
			if r.found != "my-skill/skill.md" {
				t.Errorf("found %q", r.found)
			}
		}},
	{name: "test_find_skill_md_returns_none_when_missing", call: "find_skill_md", dir: "my-skill",
		files: fstest.MapFS{"my-skill": {Mode: fs.ModeDir | 0o755}},
		want:  []string{"skill-md-missing:"}},
	{name: "test_read_properties_with_lowercase_skill_md", call: "read_properties", dir: "my-skill",
		files: skillDir("my-skill", "skill.md", "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n"),
		check: func(t *testing.T, r refResult) {
			if r.skill.Name != "my-skill" || r.skill.Description != "A test skill" {
				t.Errorf("got %q, %q", r.skill.Name, r.skill.Description)
			}
		}},
	{name: "test_read_with_allowed_tools", call: "read_properties", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)\n---\nBody\n"),
		check: func(t *testing.T, r refResult) {
			if got := r.skill.Properties().AllowedTools; got != "Bash(jq:*) Bash(git:*)" {
				t.Errorf("allowed-tools = %q", got)
			}
			if !slices.Equal(r.skill.AllowedTools, []string{"Bash(jq:*)", "Bash(git:*)"}) {
				t.Errorf("AllowedTools = %q", r.skill.AllowedTools)
			}
		}},
	{name: "test_read_with_allowed_tools_inline_list", call: "read_properties", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\nallowed-tools: [Read, Write, Bash]\n---\nBody\n"),
		check: func(t *testing.T, r refResult) {
			if got := r.skill.Properties().AllowedTools; got != "Read Write Bash" {
				t.Errorf("allowed-tools = %q", got)
			}
		}},
	{name: "test_read_with_allowed_tools_block_list", call: "read_properties", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\nallowed-tools:\n  - Read\n  - Bash\n  - Grep\n---\nBody\n"),
		check: func(t *testing.T, r refResult) {
			if got := r.skill.Properties().AllowedTools; got != "Read Bash Grep" {
				t.Errorf("allowed-tools = %q", got)
			}
		}},

	// test_validator.py
	{name: "test_valid_skill", call: "validate", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n")},
	{name: "test_nonexistent_path", call: "validate", dir: "nonexistent", files: fstest.MapFS{},
		want: []string{"path-not-found:"}},
	{name: "test_not_a_directory", call: "validate", dir: "file.txt",
		files: fstest.MapFS{"file.txt": {Data: []byte("test")}},
		want:  []string{"not-a-directory:"}},
	{name: "test_missing_skill_md", call: "validate", dir: "my-skill",
		files: fstest.MapFS{"my-skill": {Mode: fs.ModeDir | 0o755}},
		want:  []string{"skill-md-missing:"}},
	{name: "test_invalid_name_uppercase", call: "validate", dir: "MySkill",
		files: skillMD("MySkill", "---\nname: MySkill\ndescription: A test skill\n---\nBody\n"),
		want:  []string{"name-not-lowercase:name"}},
	{name: "test_name_too_long", call: "validate", dir: strings.Repeat("a", 70),
		files: skillMD(strings.Repeat("a", 70), "---\nname: "+strings.Repeat("a", 70)+"\ndescription: A test skill\n---\nBody\n"),
		want:  []string{"name-too-long:name"}},
	{name: "test_name_leading_hyphen", call: "validate", dir: "-my-skill",
		files: skillMD("-my-skill", "---\nname: -my-skill\ndescription: A test skill\n---\nBody\n"),
		want:  []string{"name-edge-hyphen:name"}},
	{name: "test_name_consecutive_hyphens", call: "validate", dir: "my--skill",
		files: skillMD("my--skill", "---\nname: my--skill\ndescription: A test skill\n---\nBody\n"),
		want:  []string{"name-consecutive-hyphens:name"}},
	{name: "test_name_invalid_characters", call: "validate", dir: "my_skill",
		files: skillMD("my_skill", "---\nname: my_skill\ndescription: A test skill\n---\nBody\n"),
		want:  []string{"name-invalid-chars:name"}},
	{name: "test_name_directory_mismatch", call: "validate", dir: "wrong-name",
		files: skillMD("wrong-name", "---\nname: correct-name\ndescription: A test skill\n---\nBody\n"),
		want:  []string{"name-mismatch:name"}},
	{name: "test_unexpected_fields", call: "validate", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\nunknown_field: should not be here\n---\nBody\n"),
		want:  []string{"unknown-field:unknown_field"}},
	{name: "test_valid_with_all_fields", call: "validate", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: Test\n---\nBody\n")},
	{name: "test_allowed_tools_accepted", call: "validate", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)\n---\nBody\n")},
	{name: "test_allowed_tools_inline_list_accepted", call: "validate", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\nallowed-tools: [Read, Write, Edit, Bash]\n---\nBody\n")},
	{name: "test_allowed_tools_block_list_accepted", call: "validate", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\nallowed-tools:\n  - Read\n  - Bash\n  - Grep\n---\nBody\n")},
	{name: "test_i18n_chinese_name", call: "validate", dir: "技能",
		files: skillMD("技能", "---\nname: 技能\ndescription: A skill with Chinese name\n---\nBody\n")},
	{name: "test_i18n_russian_name_with_hyphens", call: "validate", dir: "мой-навык",
		files: skillMD("мой-навык", "---\nname: мой-навык\ndescription: A skill with Russian name\n---\nBody\n")},
	{name: "test_i18n_russian_lowercase_valid", call: "validate", dir: "навык",
		files: skillMD("навык", "---\nname: навык\ndescription: A skill with Russian lowercase name\n---\nBody\n")},
	{name: "test_i18n_russian_uppercase_rejected", call: "validate", dir: "НАВЫК",
		files: skillMD("НАВЫК", "---\nname: НАВЫК\ndescription: A skill with Russian uppercase name\n---\nBody\n"),
		want:  []string{"name-not-lowercase:name"}},
	{name: "test_description_too_long", call: "validate", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: "+strings.Repeat("x", 1100)+"\n---\nBody\n"),
		want:  []string{"description-too-long:description"}},
	{name: "test_valid_compatibility", call: "validate", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\ncompatibility: Requires Python 3.11+\n---\nBody\n")},
	{name: "test_compatibility_too_long", call: "validate", dir: "my-skill",
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\ncompatibility: "+strings.Repeat("x", 550)+"\n---\nBody\n"),
		want:  []string{"compatibility-too-long:compatibility"}},
	// The directory uses the composed "café", SKILL.md the decomposed one.
	{name: "test_nfkc_normalization", call: "validate", dir: "caf\u00e9",
		files: skillMD("caf\u00e9", "---\nname: cafe\u0301\ndescription: A test skill\n---\nBody\n"),
		check: func(t *testing.T, r refResult) {
			if r.skill.Name != "caf\u00e9" {
				t.Errorf("Name = %q, want the NFKC form", r.skill.Name)
			}
		}},

	// test_prompt.py
	{name: "test_empty_list", call: "to_prompt", files: fstest.MapFS{},
		check: func(t *testing.T, r refResult) {
			if r.prompt != "<available_skills>\n</available_skills>" {
				t.Errorf("prompt = %q", r.prompt)
			}
		}},
	{name: "test_single_skill", call: "to_prompt", dirs: []string{"my-skill"},
		files: skillMD("my-skill", "---\nname: my-skill\ndescription: A test skill\n---\nBody\n"),
		check: func(t *testing.T, r refResult) {
			want := "<available_skills>\n<skill>\n<name>\nmy-skill\n</name>\n<description>\nA test skill\n</description>\n" +
				"<location>\n/tmp/my-skill/SKILL.md\n</location>\n</skill>\n</available_skills>"
			if r.prompt != want {
				t.Errorf("prompt =\n%s\nwant\n%s", r.prompt, want)
			}
		}},
	{name: "test_multiple_skills", call: "to_prompt", dirs: []string{"skill-a", "skill-b"},
		files: fstest.MapFS{
			"skill-a/SKILL.md": {Data: []byte("---\nname: skill-a\ndescription: First skill\n---\nBody\n")},
			"skill-b/SKILL.md": {Data: []byte("---\nname: skill-b\ndescription: Second skill\n---\nBody\n")},
		},
		check: func(t *testing.T, r refResult) {
			if strings.Count(r.prompt, "<skill>") != 2 || strings.Count(r.prompt, "</skill>") != 2 ||
				strings.Index(r.prompt, "\nskill-a\n") > strings.Index(r.prompt, "\nskill-b\n") {
				t.Errorf("prompt = %q", r.prompt)
			}
		}},
	{name: "test_special_characters_escaped", call: "to_prompt", dirs: []string{"special-skill"},
		files: skillMD("special-skill", "---\nname: special-skill\ndescription: Use <foo> & <bar> tags\n---\nBody\n"),
		check: func(t *testing.T, r refResult) {
			if !strings.Contains(r.prompt, "<description>\nUse &lt;foo&gt; &amp; &lt;bar&gt; tags\n</description>") ||
				strings.Contains(r.prompt, "<foo>") || strings.Contains(r.prompt, "<bar>") {
				t.Errorf("prompt = %q", r.prompt)
			}
		}},
	// Lenient, as to_prompt does not validate: the name does not match the
	// directory, which is only a warning there.
	{name: "test_special_characters_escaped_in_location", call: "to_prompt", dirs: []string{"special-location-&-<>"},
		files: skillMD("special-location-&-<>", "---\nname: special-location\ndescription: Test skill with special characters in path\n---\nBody\n"),
		check: func(t *testing.T, r refResult) {
			if !strings.Contains(r.prompt, "<location>\n/tmp/special-location-&amp;-&lt;&gt;/SKILL.md\n</location>") ||
				strings.Contains(r.prompt, "special-location-&-<>") {
				t.Errorf("prompt = %q", r.prompt)
			}
		}},
}

func equalProps(a, b Properties) bool {
	return a.Name == b.Name && a.Description == b.Description && a.License == b.License &&
		a.Compatibility == b.Compatibility && a.AllowedTools == b.AllowedTools && len(a.Metadata) == len(b.Metadata)
}

// errorCodes lists the error diagnostics as "code:field".
func errorCodes(diags []Diagnostic) []string {
	var out []string
	for _, d := range diags {
		if d.Severity == SeverityError {
			out = append(out, d.Code+":"+d.Field)
		}
	}
	return out
}

func TestSkillsRefVectors(t *testing.T) {
	if len(refVectors) != 45 {
		t.Fatalf("%d vectors, want 45 (40 + 5)", len(refVectors))
	}
	for _, v := range refVectors {
		t.Run(v.name, func(t *testing.T) {
			var runs []refResult
			switch v.call {
			case "parse_frontmatter":
				for _, mode := range []Mode{Lenient, Strict} {
					s, diags := Parse([]byte(v.content), Options{Mode: mode})
					runs = append(runs, refResult{skill: s, diags: diags})
				}
			case "read_properties", "validate":
				s, diags := Load(v.files, v.dir, Options{Mode: Strict})
				runs = append(runs, refResult{skill: s, diags: diags})
			case "find_skill_md":
				found, err := FindSkillMD(v.files, v.dir)
				r := refResult{found: found}
				if err != nil {
					r.diags = []Diagnostic{{Code: skillerr.ReasonOf(err), Severity: SeverityError}}
				}
				runs = append(runs, r)
			case "to_prompt":
				var skills []*Skill
				for _, d := range v.dirs {
					s, diags := Load(v.files, d, Options{Mode: Lenient})
					if s == nil {
						t.Fatalf("Load(%q): %v", d, diags)
					}
					skills = append(skills, s)
				}
				i := 0
				entries := CatalogEntries(skills, func(*Skill) string { i++; return "/tmp/" + v.dirs[i-1] + "/SKILL.md" })
				runs = append(runs, refResult{prompt: ToPrompt(entries)})
			default:
				t.Fatalf("unknown call %q", v.call)
			}
			for _, r := range runs {
				if got := errorCodes(r.diags); !slices.Equal(got, v.want) {
					t.Fatalf("errors = %q, want %q (diagnostics %v)", got, v.want, r.diags)
				}
				if len(v.want) == 0 && v.call != "find_skill_md" && v.call != "to_prompt" && r.skill == nil {
					t.Fatalf("no skill returned")
				}
				if len(v.want) > 0 && r.skill != nil {
					t.Fatalf("a skill was returned despite errors")
				}
				if v.check != nil {
					v.check(t, r)
				}
			}
		})
	}
}
