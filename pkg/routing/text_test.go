package routing

import (
	"slices"
	"testing"
)

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Merge the PDFs":      "merge the pdfs",
		" Merge  the\tPDFs\n": "merge the pdfs",
		"ＰＤＦ\u3000files":      "pdf files",
		"a\u00a0b":            "a b",
		"":                    "",
		"   ":                 "",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTerms(t *testing.T) {
	var got []string
	for _, tm := range terms(Fold("Merging the PDFs with pdf-tools: 查一下天气 的 A 3 libraries' ＡＰＩ")) {
		got = append(got, tm.text)
	}
	want := []string{"merg", "pdf", "pdf", "tool", "查一", "下天", "天气", "3", "librari", "api"}
	if !slices.Equal(got, want) {
		t.Errorf("terms = %q, want %q", got, want)
	}
	// Question words say what is asked, not of what: none is a term.
	for _, q := range []string{"how", "what", "when", "where", "which", "who", "why"} {
		if ts := terms(Fold(q + " tests")); len(ts) != 1 || ts[0].text != "test" {
			t.Errorf("terms(%q) = %+v, want the one term test", q+" tests", ts)
		}
	}
	// What the English stemmer is for: one stem for a word's forms.
	for _, forms := range [][]string{{"merge", "merges", "merging", "merged"}, {"test", "tests", "testing"}, {"deploy", "deploying", "deployment"},
		// And an "-ure" noun that names its verb's act (ureNouns).
		{"fail", "failing", "failed", "failure", "failures"}, {"press", "pressure"}, {"configure", "configuring", "configuration"}} {
		for _, f := range forms[1:] {
			if stem(f) != stem(forms[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q", f, stem(f), forms[0], stem(forms[0]))
			}
		}
	}
	// Not its root's act ("posture" is no "post"), or not that suffix.
	for w, want := range map[string]string{"behaviour": "behaviour", "amateur": "amateur", "secure": "secur", "nature": "natur",
		"posture": "postur", "texture": "textur", "feature": "featur", "picture": "pictur", "measure": "measur"} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestPhraseMatch(t *testing.T) {
	skills := []Skill{
		{ID: "a", Triggers: []string{"pr", "天气", "c++", "Pull  Request", "git", "pr"}, AntiTriggers: []string{"天气 api"}},
		{ID: "b", Triggers: []string{"pdf"}},
		{ID: "hidden", Triggers: []string{"print"}, DisableModelInvocation: true},
	}
	trie := newPhraseTrie(skills)
	for _, c := range []struct {
		query    string
		triggers []string // of skill a
		anti     bool
		b        bool
	}{
		{"print this", nil, false, false},
		{"open a pr now", []string{"pr"}, false, false},
		{"pr", []string{"pr"}, false, false},
		{"pr-123 and pr-456", []string{"pr"}, false, false},
		{"明天天气怎么样", []string{"天气"}, false, false},
		{"天气 api 文档", []string{"天气"}, true, false},
		{"write c++ code", []string{"c++"}, false, false},
		{"review the pull request", []string{"pull request"}, false, false},
		{"github actions", nil, false, false},
		{"git pr", []string{"git", "pr"}, false, false},
		{"pdf文件", nil, false, true},
		{"pdfs", nil, false, false},
	} {
		hits := trie.match(Fold(c.query))
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

// TestPhraseLimits: phrases beyond a skill's first MaxPhrases, and longer
// ones than MaxPhraseUnits units, are not matched.
func TestPhraseLimits(t *testing.T) {
	var many []string
	for i := range MaxPhrases + 1 {
		many = append(many, "w"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	long := "x"
	for range MaxPhraseUnits / 2 {
		long += " x"
	}
	trie := newPhraseTrie([]Skill{{ID: "a", Triggers: append(many, long)}})
	last := many[MaxPhrases]
	if hits := trie.match(many[0] + " " + last + " " + long); len(hits[0].triggers) != 1 || hits[0].triggers[0] != many[0] {
		t.Errorf("hits %+v: want only the first phrase", hits[0])
	}
}
