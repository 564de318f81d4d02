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
		}() + "---\n", []string{"error yaml-invalid:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Parse([]byte(c.src), Options{})
			if got := diagCodes(diags); !slices.Equal(got, c.want) {
				t.Fatalf("diagnostics %q, want %q", got, c.want)
			}
			if _, err := RewriteName([]byte(c.src), "b"); (err != nil) != (len(c.want) > 0 && c.want[0] == "error yaml-invalid:") {
				t.Errorf("RewriteName: %v", err)
			}
		})
	}
}
