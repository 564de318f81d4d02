package skill

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// An editor marks each diagnostic at its line of SKILL.md.
func TestDiagnosticLines(t *testing.T) {
	for _, tc := range []struct {
		name, src, dir, sidecar string
		mode                    Mode
		want                    []string // "code@line"
	}{
		// Broken YAML is marked where yaml.v3 says (for some errors, the
		// line before the problem), counted from the delimiter.
		{name: "broken yaml at its line", src: "---\nname: x\ndescription: ok\nlicense: \"unclosed\n---\nbody\n", dir: "x",
			want: []string{"yaml-invalid@4"}},
		{name: "broken yaml after a byte order mark and CRLF", src: "\ufeff---\r\nname: x\r\ndescription: ok\r\nlicense: \"unclosed\r\n---\r\n", dir: "x",
			want: []string{"yaml-invalid@4"}},
		{name: "field problems at their keys", src: "---\nname: X\n\ndescription: ok\ncost-hint: huge\nfoo: 1\n---\n", dir: "x",
			want: []string{"invalid-value@5", "unknown-field@6", "name-not-lowercase@2", "name-mismatch@2"}},
		{name: "a missing field at the opening delimiter", src: "---\nname: x\n---\n", dir: "x",
			want: []string{"description-missing@1"}},
		{name: "no frontmatter", src: "# Title\n", want: []string{"frontmatter-missing@1"}},
		{name: "unclosed", src: "---\nname: x\n", want: []string{"frontmatter-unclosed@1"}},
		{name: "not utf-8 on line 3", src: "---\nname: x\ndescription: \xff\n---\n", want: []string{"not-utf8@3"}},
		{name: "unquoted colon at its key", src: "---\nname: x\ndescription: a: b\n---\n", dir: "x",
			want: []string{"yaml-unquoted-colon@3"}},
		{name: "strict unknown key", src: "---\nname: x\ndescription: d\nversion: 1\n---\n", dir: "x", mode: Strict,
			want: []string{"unknown-field@4"}},
		{name: "skill.yaml's problems have no line", src: "---\nname: x\ndescription: d\n---\n", dir: "x", sidecar: "name: y\n",
			want: []string{"skill-yaml-conflict@0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := Parse([]byte(tc.src), Options{Mode: tc.mode, DirName: tc.dir, SkillYAML: []byte(tc.sidecar)})
			var got []string
			for _, d := range diags {
				got = append(got, fmt.Sprintf("%s@%d", d.Code, d.Line))
				if d.Code == "yaml-invalid" && !strings.Contains(d.Message, fmt.Sprintf("at line %d of SKILL.md: ", d.Line)) {
					t.Errorf("the message does not name the line of SKILL.md: %q", d.Message)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("diagnostics %v, want %v", got, tc.want)
			}
		})
	}
}
