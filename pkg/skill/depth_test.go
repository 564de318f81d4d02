package skill

import (
	"slices"
	"strings"
	"testing"
)

// TestDeepNesting runs in the browser too, where the JavaScript call stack
// is much smaller than Go's: the deepest frontmatter accepted must parse,
// and deeper ones must be refused, not crash the module.
func TestDeepNesting(t *testing.T) {
	const head = "---\nname: a\ndescription: d\n"
	n := maxNesting - 4 // two block levels for "metadata:" and "k:"
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"deepest flow", head + "metadata:\n  k: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n---\n",
			[]string{"warning metadata-value-not-string:metadata"}},
		{"deepest block", head + "hooks:\n" + strings.Repeat("- ", maxNesting/2-2) + "x\n---\n", []string{}},
		{"too deep flow", head + "hooks: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n---\n",
			[]string{"error yaml-invalid:"}},
		{"too deep block", head + "hooks:\n" + strings.Repeat("- ", 9990) + "x\n---\n", []string{"error yaml-invalid:"}},
		{"too deep indentation", head + "hooks:\n" + func() string {
			var b strings.Builder
			for i := range 600 {
				b.WriteString(strings.Repeat(" ", i) + "k:\n")
			}
			return b.String()
		}() + "---\n", []string{"error frontmatter-too-large:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Parse([]byte(c.src), Options{})
			if got := diagCodes(diags); !slices.Equal(got, c.want) {
				t.Fatalf("diagnostics %q, want %q", got, c.want)
			}
			if _, err := RewriteName([]byte(c.src), "b"); (err != nil) != (len(c.want) > 0 && strings.HasPrefix(c.want[0], "error ")) {
				t.Errorf("RewriteName: %v", err)
			}
		})
	}
}

// TestFrontmatterBounds: frontmatter is bounded by bytes, by depth counted
// on every line break YAML knows, and by node count, before the YAML
// parser sees it. In the browser, where this test runs too, the deep ones
// ended the whole module with "Maximum call stack size exceeded".
func TestFrontmatterBounds(t *testing.T) {
	const head = "---\nname: a\ndescription: d\n"
	// 9,990 compact sequences on one line (20 KB), after a key whose line
	// ends with brk: the old check split lines at LF only, so with any
	// other break it never saw the "- " at the start of a line.
	stairs := func(brk string) string {
		return "hooks:" + brk + strings.Repeat("- ", 9990) + "x" + brk
	}
	for _, c := range []struct {
		name, fm string
		want     string
	}{
		{"CR staircase", stairs("\r"), "error yaml-invalid:"},
		{"NEL staircase", stairs("\u0085"), "error yaml-invalid:"},
		{"LS staircase", stairs("\u2028"), "error yaml-invalid:"},
		{"PS staircase", stairs("\u2029"), "error yaml-invalid:"},
		{"CRLF staircase", stairs("\r\n"), "error yaml-invalid:"},
		{"too large", "metadata:\n  k: '" + strings.Repeat("x", MaxFrontmatter) + "'\n", "error frontmatter-too-large:"},
		{"too many nodes", "hooks:\n" + strings.Repeat("-\n", maxNodes), "error yaml-invalid:"},
		{"too many flow nodes", "hooks: [" + strings.Repeat("a,", maxNodes) + "a]\n", "error yaml-invalid:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := head + c.fm + "\n---\nbody\n"
			_, diags := Parse([]byte(src), Options{})
			if got := diagCodes(diags); len(got) == 0 || got[0] != c.want {
				t.Fatalf("diagnostics %q, want %q first", got, c.want)
			}
		})
	}
	// Just inside every bound still parses.
	ok := head + "triggers:\n" + strings.Repeat("- ab\n", maxNodes/3) + "---\n"
	if _, diags := Parse([]byte(ok), Options{}); HasErrors(diags) {
		t.Fatalf("a long but bounded list was refused: %q", diagCodes(diags))
	}
}
