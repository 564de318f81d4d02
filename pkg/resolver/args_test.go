package resolver

import (
	"slices"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	for _, c := range []struct {
		args string
		want []string
	}{
		{"", []string{}},
		{"  \t\n ", []string{}},
		{"a b  c", []string{"a", "b", "c"}},
		{`"a b" 'c d' e`, []string{"a b", "c d", "e"}},
		{`a\ b`, []string{"a b"}},
		{`x"y z"w 'p'q`, []string{"xy zw", "pq"}},
		{`"" ''`, []string{"", ""}},
		{`'a\b "c"'`, []string{`a\b "c"`}},
		{`"a\"b \\ \$HOME \x"`, []string{`a"b \ $HOME \x`}},
		{`$HOME ~ * $(ls)`, []string{"$HOME", "~", "*", "$(ls)"}},
		{"a\\\nb", []string{"ab"}},
		{"a \\\n b", []string{"a", "b"}},
		{`"unterminated quote`, []string{"unterminated quote"}},
		{`'unterminated`, []string{"unterminated"}},
		{`trailing\`, []string{`trailing\`}},
		{`\\ \'`, []string{`\`, `'`}},
		{"中文 参数", []string{"中文", "参数"}},
	} {
		if got := SplitArgs(c.args); !slices.Equal(got, c.want) || got == nil {
			t.Errorf("SplitArgs(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

func TestSubstitute(t *testing.T) {
	named := []string{"file", "mode"}
	dir := "/skills/pdf-tools/"
	for _, c := range []struct {
		body, args, want string
	}{
		{"Run on $ARGUMENTS.", `a.pdf "b c.pdf"`, `Run on a.pdf "b c.pdf".`},
		{"First $0, second $1, third $2.", `a.pdf "b c.pdf"`, "First a.pdf, second b c.pdf, third ."},
		{"$ARGUMENTS[1] then $ARGUMENTS[0]", "x y", "y then x"},
		{"File $file in $mode mode.", "report.pdf fast", "File report.pdf in fast mode."},
		{"File $file in $mode mode.", "report.pdf", "File report.pdf in  mode."},
		// $10 is word 10; $ARGUMENTS[1]0 is word 1, then "0".
		{"$10|$ARGUMENTS[1]0|$1x", "a b c d e f g h i j k", "k|b0|bx"},
		{"$99999999999999999999", "a", ""},
		{"Cost: \\$5, not $5.", "a b c d e f", "Cost: $5, not f."},
		{"\\$ARGUMENTS stays", "x", "$ARGUMENTS stays\n\nARGUMENTS: x"},
		{`a\b \\$0`, "x", `a\b \$0` + "\n\nARGUMENTS: x"},
		{"Unknown $HOME, ${OTHER}, $, $ at end $", "x", "Unknown $HOME, ${OTHER}, $, $ at end $\n\nARGUMENTS: x"},
		{"$ARGUMENTSX and $ARGUMENTS[x] and $ARGUMENTS[", "p q", "$ARGUMENTSX and p q[x] and p q["},
		{"Scripts: ${SKILL_DIR}scripts, ${CLAUDE_SKILL_DIR}x, ${SKILL_DIR", "", "Scripts: /skills/pdf-tools/scripts, /skills/pdf-tools/x, ${SKILL_DIR"},
		{"Dir ${SKILL_DIR} only", "a b", "Dir /skills/pdf-tools/ only\n\nARGUMENTS: a b"},
		{"No placeholder.", "", "No placeholder."},
		{"No placeholder.", "  ", "No placeholder."},
		{"No placeholder.", `"quoted arg"`, "No placeholder.\n\nARGUMENTS: \"quoted arg\""},
		{"Missing $0 and $file.", "", "Missing  and ."},
		{"中文 $0。", "北京", "中文 北京。"},
	} {
		if got, err := Substitute(c.body, c.args, named, dir); err != nil || got != c.want {
			t.Errorf("Substitute(%q, %q) =\n%q\nwant\n%q", c.body, c.args, got, c.want)
		}
	}
}
