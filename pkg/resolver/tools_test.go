package resolver

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

func TestToolPolicy(t *testing.T) {
	skills := fixture()
	byID := func(ids ...string) []Skill {
		var out []Skill
		for _, s := range skills {
			if slices.Contains(ids, s.ID) {
				out = append(out, s)
			}
		}
		return out
	}
	// weather declares no allowed-tools: nothing is restricted.
	if p := NewToolPolicy(byID("weather", "translate"), []string{"exec_command"}); p.Restricted || p.Rules != nil {
		t.Errorf("unrestricted policy: %+v", p)
	}
	if err := NewToolPolicy(byID("weather"), nil).Check("Bash", "rm -rf /"); err != nil {
		t.Errorf("unrestricted Check: %v", err)
	}
	p := NewToolPolicy(byID("git-commit", "weather", "web-research"), []string{"exec_command", "Read"})
	// In the order of activation (byID keeps the fixture's), without duplicates.
	want := ToolPolicy{Restricted: true, Rules: []string{
		"mcp__weather-mcp", "Bash(git:*)", "Read", "Grep", "WebFetch", "WebSearch", "mcp__search-mcp", "exec_command",
	}}
	if p.Restricted != want.Restricted || !slices.Equal(p.Rules, want.Rules) {
		t.Errorf("policy %+v, want %+v", p, want)
	}
	if err := p.Check("mcp__weather-mcp__forecast", ""); err != nil {
		t.Errorf("an MCP dependency's tool: %v", err)
	}
	if err := p.Check("Bash", "git push"); err != nil {
		t.Errorf("git push: %v", err)
	}
	if err := p.Check("Bash", "curl x"); skillerr.CodeOf(err) != skillerr.ToolNotAllowed {
		t.Errorf("curl: %v", err)
	}
}

func TestActiveTools(t *testing.T) {
	skills := fixture()
	available := []string{"exec_command", "Read", "Write", "Bash", "Grep", "WebFetch", "mcp__search-mcp__query", "mcp__github__pr", "write_stdin"}
	base := []string{"exec_command", "write_stdin", "close_context"}
	var gitCommit, weather Skill
	for _, s := range skills {
		switch s.ID {
		case "git-commit":
			gitCommit = s
		case "weather":
			weather = s
		}
	}
	for _, c := range []struct {
		activated []Skill
		want      []string
	}{
		// Stage 3: Grep, which only git-commit needs, waits for it.
		{nil, without(available, "Grep")},
		{[]Skill{weather}, without(available, "Grep")},
		{[]Skill{{ID: "x", ToolDeps: []string{"Grep"}}}, available},
		// Bash(git:*) admits Bash; Grep is a tool dependency; close_context is not available.
		{[]Skill{gitCommit, weather}, []string{"exec_command", "Read", "Bash", "Grep", "write_stdin"}},
		{[]Skill{{ID: "x", AllowedTools: []string{"Nothing"}}}, []string{"exec_command", "write_stdin"}},
		{[]Skill{{ID: "x", AllowedTools: []string{"Read"}, MCPDeps: []string{"search-mcp"}}}, []string{"exec_command", "Read", "mcp__search-mcp__query", "write_stdin"}},
	} {
		got := ActiveTools(c.activated, skills, available, base)
		if !slices.Equal(got, c.want) || got == nil {
			t.Errorf("ActiveTools(%d skills) = %q, want %q", len(c.activated), got, c.want)
		}
	}
}

// without returns list without drop, in a new slice.
func without(list []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return slices.Contains(drop, s) })
}

func TestActiveMCP(t *testing.T) {
	servers := []string{"weather-mcp", "github", "search-mcp"}
	for _, c := range []struct {
		activated []Skill
		want      []string
	}{
		{nil, []string{}},
		{[]Skill{{ID: "x"}}, []string{}},
		{[]Skill{{ID: "a", MCPDeps: []string{"search-mcp", "missing"}}, {ID: "b", MCPDeps: []string{"weather-mcp", "search-mcp"}}}, []string{"weather-mcp", "search-mcp"}},
	} {
		if got := ActiveMCP(c.activated, servers); !slices.Equal(got, c.want) || got == nil {
			t.Errorf("ActiveMCP = %q, want %q", got, c.want)
		}
	}
}

// TestToolPolicySkillDir: patterns about the skill's own directory, in
// the placeholders real skills write (trailofbits' firebase-apk-scanner:
// "Bash({baseDir}/scanner.sh:*)"), admit what is in that directory and
// nothing else. TestRealAllowedTools checks the real lines. A pattern
// that, once the directory is in place, still depends on what a shell
// expands ($1, ~) admits nothing; a $ the shell takes as text stays.
func TestToolPolicySkillDir(t *testing.T) {
	s := Skill{ID: "apk-scanner", AllowedTools: []string{
		"Bash({baseDir}/scanner.sh:*)", "Bash(${CLAUDE_SKILL_DIR}/scripts/run.py:*)", "Read(${SKILL_DIR}/references/**)", "Bash(apktool:*)",
		// The plugin's directory, which skillfs does not install: nothing.
		"Bash(${CLAUDE_PLUGIN_ROOT}/scripts/setup-skill-improver.sh:*)",
		// A positional parameter and a home directory: the shell's, not the skill's.
		"Bash(${SKILL_DIR}/bin/$1:*)", "Bash(~/bin/apk-tool:*)",
		// Single quotes: a pattern the script reads, not the shell.
		"Bash(${CLAUDE_SKILL_DIR}/grep.sh '$PATTERN':*)",
	}}
	p := NewToolPolicy([]Skill{s}, nil)
	for _, c := range [][2]string{
		{"Bash", "/skills/apk-scanner/scanner.sh app.apk"},
		{"Bash", "/skills/apk-scanner/scripts/run.py --all"},
		{"Read", "/skills/apk-scanner/references/vulnerabilities.md"},
		{"Bash", "apktool d app.apk"},
		{"Bash", "/skills/apk-scanner/grep.sh '$PATTERN' app.apk"},
		// A here-document's text, code and all, to an allowed program.
		{"Bash", "apktool d app.apk <<'EOF'\n" + strings.Repeat("f(x[1], {2})\n", 300) + "EOF"},
	} {
		if err := p.Check(c[0], c[1]); err != nil {
			t.Errorf("%s %q: %v", c[0], c[1], err)
		}
		// As Claude Code's tools give their input.
		field := map[string]string{"Bash": "command", "Read": "file_path"}[c[0]]
		if err := p.CheckInput(c[0], map[string]any{field: c[1]}, nil); err != nil {
			t.Errorf("%s {%s: %q}: %v", c[0], field, c[1], err)
		}
	}
	for _, c := range [][2]string{
		{"Bash", "{baseDir}/scanner.sh app.apk"},
		{"Bash", "${CLAUDE_PLUGIN_ROOT}/scripts/setup-skill-improver.sh"},
		{"Bash", "${CLAUDE_SKILL_DIR}/scripts/run.py"},
		{"Bash", "/skills/other/scanner.sh app.apk"},
		{"Bash", "/skills/apk-scanner/evil.sh"},
		{"Read", "/skills/other/references/a.md"},
		{"Bash", "/skills/apk-scanner/bin/$1 x"},
		{"Bash", "~/bin/apk-tool x"},
		{"Bash", "/skills/apk-scanner/grep.sh $PATTERN app.apk"},
	} {
		if err := p.Check(c[0], c[1]); skillerr.CodeOf(err) != skillerr.ToolNotAllowed {
			t.Errorf("%s %q: %v, want ToolNotAllowed", c[0], c[1], err)
		}
	}
}
