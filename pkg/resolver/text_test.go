package resolver

import (
	"testing"
	"unicode/utf8"
)

func TestFirstSentence(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"One. Two.", "One."},
		{"Handles files, e.g. PDFs. Then more.", "Handles files, e.g. PDFs."},
		{"Compare A vs. B! Then.", "Compare A vs. B!"},
		{"Version 1.2 is out? Yes.", "Version 1.2 is out?"},
		{"Line one\r\n  line two.\tNext", "Line one line two."},
		{"查询天气。支持预报。", "查询天气。"},
		{"真的吗？是的", "真的吗？"},
		{"No end", "No end"},
		{"Ends with a dot.", "Ends with a dot."},
		{"", ""},
	} {
		if got := firstSentence(c.in); got != c.want {
			t.Errorf("firstSentence(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit int
		want  string
	}{
		{"short", 20, "short"},
		{"exactly twenty chars", 20, "exactly twenty chars"},
		{"Extract text and tables from PDF files.", 20, "Extract text and…"},
		{"Create & edit, Word documents", 16, "Create & edit…"},
		{"Supercalifragilistic expialidocious", 20, "Supercalifragilisti…"},
		{"查询城市天气和未来三天的天气预报", 8, "查询城市天气和…"},
	} {
		got := truncate(c.in, c.limit)
		if got != c.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.in, c.limit, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > c.limit {
			t.Errorf("truncate(%q, %d) has %d runes", c.in, c.limit, n)
		}
	}
}

func TestCollapseSpace(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a b c", "a b c"},
		{"a  b", "a b"},
		{"a\tb", "a b"},
		{"a\u00a0b\u3000c", "a b c"},
		{"中文 a", "中文 a"},
		{"", ""},
	} {
		if got := collapseSpace(c.in); got != c.want {
			t.Errorf("collapseSpace(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
