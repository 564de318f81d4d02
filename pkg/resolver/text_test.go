package resolver

import (
	"slices"
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

func TestTerms(t *testing.T) {
	var got []string
	for _, tm := range terms(fold("Extract the PDFs with pdf-tools: 查一下天气 的 A 3 libraries' ＡＰＩ")) {
		got = append(got, tm.text)
	}
	want := []string{"extract", "pdf", "pdf", "tool", "查一", "下天", "天气", "3", "library", "api"}
	if !slices.Equal(got, want) {
		t.Errorf("terms = %q, want %q", got, want)
	}
}

func TestPhraseMatch(t *testing.T) {
	skills := []Skill{
		{ID: "a", Triggers: []string{"pr", "天气", "c++", "Pull  Request", "git"}, AntiTriggers: []string{"天气 api"}},
		{ID: "b", Triggers: []string{"pdf"}},
		{ID: "hidden", Triggers: []string{"print"}, DisableModelInvocation: true},
	}
	idx := newPhraseIndex(skills)
	for _, c := range []struct {
		query    string
		triggers []string // of skill a
		anti     bool
		b        bool
	}{
		{"print this", nil, false, false},
		{"open a pr now", []string{"pr"}, false, false},
		{"pr", []string{"pr"}, false, false},
		{"pr-123", []string{"pr"}, false, false},
		{"明天天气怎么样", []string{"天气"}, false, false},
		{"天气 api 文档", []string{"天气"}, true, false},
		{"write c++ code", []string{"c++"}, false, false},
		{"review the pull request", []string{"pull request"}, false, false},
		{"github actions", nil, false, false},
		{"git pr", []string{"git", "pr"}, false, false},
		{"pdf文件", nil, false, true},
		{"pdfs", nil, false, false},
	} {
		hits := idx.match(fold(c.query))
		var triggers []string
		anti := false
		if h := hits[0]; h != nil {
			triggers, anti = h.triggers, h.anti
		}
		if !slices.Equal(triggers, c.triggers) || anti != c.anti || (hits[1] != nil) != c.b || hits[2] != nil {
			t.Errorf("%q: triggers %q anti %v, b %v, hidden %v", c.query, triggers, anti, hits[1] != nil, hits[2] != nil)
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
