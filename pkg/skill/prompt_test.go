package skill

import (
	"testing"
)

func TestToPrompt(t *testing.T) {
	got := ToPrompt([]Entry{
		{Name: "a", Description: `Say "hi" & 'bye' <now>`, Location: "/skills/a/SKILL.md"},
		{Name: "b", Description: "Two\nlines", Location: "/skills/b/SKILL.md"},
	})
	want := "<available_skills>\n" +
		"<skill>\n<name>\na\n</name>\n<description>\nSay &quot;hi&quot; &amp; &#x27;bye&#x27; &lt;now&gt;\n</description>\n<location>\n/skills/a/SKILL.md\n</location>\n</skill>\n" +
		"<skill>\n<name>\nb\n</name>\n<description>\nTwo\nlines\n</description>\n<location>\n/skills/b/SKILL.md\n</location>\n</skill>\n" +
		"</available_skills>"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := ToPrompt(nil); got != "<available_skills>\n</available_skills>" {
		t.Errorf("empty: %q", got)
	}
}

func TestCatalogEntriesHidesDisableModelInvocation(t *testing.T) {
	visible, _ := mustParse(t, "---\nname: visible\ndescription: Shown.\n---\n", Options{})
	hidden, _ := mustParse(t, "---\nname: hidden\ndescription: Not shown.\ndisable-model-invocation: true\n---\n", Options{})
	got := CatalogEntries([]*Skill{hidden, visible, nil}, func(s *Skill) string { return "/skills/" + s.Name + "/SKILL.md" })
	if len(got) != 1 || got[0] != (Entry{Name: "visible", Description: "Shown.", Location: "/skills/visible/SKILL.md"}) {
		t.Errorf("entries = %+v", got)
	}
	if !hidden.UserInvocable {
		t.Errorf("a hidden skill stays user-invocable")
	}
}
