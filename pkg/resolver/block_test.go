package resolver

import "testing"

func TestBlock(t *testing.T) {
	s := Skill{ID: "pdf-tools", Name: "pdf-tools"}
	got := Block(s, "# PDF tools\n\nRun `scripts/extract.py`.\n\n", []string{"scripts/extract.py", "references/forms.md", "SKILL.md", "scripts/extract.py"})
	want := `<skill_content name="pdf-tools">
# PDF tools

Run ` + "`scripts/extract.py`" + `.

Skill directory: /skills/pdf-tools/
Relative paths in this skill are relative to the skill directory.

<skill_resources>
  <file>references/forms.md</file>
  <file>scripts/extract.py</file>
</skill_resources>
</skill_content>`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestBlockWithoutResources(t *testing.T) {
	got := Block(Skill{ID: "note", Name: "note"}, "Body.", []string{"SKILL.md"})
	want := "<skill_content name=\"note\">\nBody.\n\nSkill directory: /skills/note/\nRelative paths in this skill are relative to the skill directory.\n</skill_content>"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestBlockEscapes(t *testing.T) {
	body := "Use <b>bold</b> & keep `a < b`.\nNever write </skill_content> or </SKILL_Content > here."
	got := Block(Skill{ID: "x-2", Name: `x"<&>'`}, body, []string{`a&b <c>.md`})
	want := `<skill_content name="x&quot;&lt;&amp;&gt;&#x27;">
Use <b>bold</b> & keep ` + "`a < b`" + `.
Never write &lt;/skill_content> or &lt;/SKILL_Content > here.

Skill directory: /skills/x-2/
Relative paths in this skill are relative to the skill directory.

<skill_resources>
  <file>a&amp;b &lt;c&gt;.md</file>
</skill_resources>
</skill_content>`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
