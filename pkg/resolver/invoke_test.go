package resolver

import (
	"slices"
	"testing"
)

func TestParseInvocation(t *testing.T) {
	for _, c := range []struct {
		text, name, args string
		ok               bool
	}{
		{"/skill:pdf-tools extract a.pdf", "pdf-tools", "extract a.pdf", true},
		{"  \n/skill:pdf-tools", "pdf-tools", "", true},
		{"/pdf-tools  merge a.pdf\tb.pdf  ", "pdf-tools", "merge a.pdf\tb.pdf", true},
		{"$pdf_tools2 x", "pdf_tools2", "x", true},
		{"/PDF-Tools x", "PDF-Tools", "x", true},
		{"/天气 北京", "天气", "北京", true},
		{"/commit -m \"fix\"\nsecond line", "commit", "-m \"fix\"\nsecond line", true},
		{"/usr/bin/env", "", "", false},    // a path, not a name
		{"/skill:", "", "", false},         // no name
		{"/skill: pdf", "", "", false},     // no name
		{"$5 for a coffee", "", "", false}, // names start with a letter
		{"/-x", "", "", false},             // names start with a letter
		{"/pdf, please", "", "", false},    // the name must end at a blank
		{"please /pdf", "", "", false},     // only at the start
		{"skill:pdf", "", "", false},       // no slash
		{"", "", "", false},
	} {
		name, args, ok := ParseInvocation(c.text)
		if name != c.name || args != c.args || ok != c.ok {
			t.Errorf("ParseInvocation(%q) = %q, %q, %v; want %q, %q, %v", c.text, name, args, ok, c.name, c.args, c.ok)
		}
	}
}

func TestMentions(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"/skill:pdf then $docx", []string{"docx"}},
		{"$pdf and $docx", []string{"pdf", "docx"}},
		{"Please use the pdf-tools skill on this", []string{"pdf-tools"}},
		{"USING docx SKILL now", []string{"docx"}},
		{"invoke weather skill", []string{"weather"}},
		{"使用 translate 技能翻译", []string{"translate"}},
		{"请使用pdf-tools技能", []string{"pdf-tools"}},
		{"调用天气skill", []string{"天气"}},
		{"(see $docx)", []string{"docx"}},
		{"costs US$5 or $ 6", nil},
		{"use the skill", nil},
		{"a skillful use", nil},
	} {
		if got := mentions(c.text); !slices.Equal(got, c.want) {
			t.Errorf("mentions(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
