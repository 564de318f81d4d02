package resolver

import (
	"slices"
	"strings"
)

const (
	blockOpen  = "<skill_content"
	blockClose = "</skill_content"
)

// Block renders level 2 of progressive disclosure: the body of an
// activated skill wrapped for the prompt, as the Agent Skills client
// guide does. For a skill with ID and name "pdf-tools":
//
//	<skill_content name="pdf-tools">
//	# PDF tools
//	…the body…
//
//	Skill directory: /skills/pdf-tools/
//	Relative paths in this skill are relative to the skill directory.
//
//	<skill_resources>
//	  <file>references/forms.md</file>
//	  <file>scripts/extract.py</file>
//	</skill_resources>
//	</skill_content>
//
// There is no final newline. The resources are paths relative to the
// skill's directory; they are sorted and deduplicated, "SKILL.md" itself
// is left out, and without any the <skill_resources> element is left out
// too. The name and the paths are escaped like the catalog's values.
//
// The body is Markdown the model must read as written, so it is not
// escaped, except that whatever reads as "</skill_content" — in any case,
// in look-alike letters, with invisible characters or blanks inside
// (disarmTag) — has its "<" written "&lt;": a body cannot end the block
// early and pass what follows off as something else. Its trailing white
// space is dropped.
func Block(s Skill, body string, resources []string) string {
	var b strings.Builder
	b.WriteString(blockOpen + ` name="` + xmlEscaper.Replace(s.Name) + "\">\n")
	writeBody(&b, strings.TrimRight(body, " \t\r\n"))
	b.WriteString("\n\nSkill directory: " + s.Dir() + "\n")
	b.WriteString("Relative paths in this skill are relative to the skill directory.\n")
	if files := resourceList(resources); len(files) > 0 {
		b.WriteString("\n<skill_resources>\n")
		for _, f := range files {
			b.WriteString("  <file>" + xmlEscaper.Replace(f) + "</file>\n")
		}
		b.WriteString("</skill_resources>\n")
	}
	b.WriteString(blockClose + ">")
	return b.String()
}

// writeBody writes body with every closing tag of the block disarmed,
// look-alike spellings included (disarmTag).
func writeBody(b *strings.Builder, body string) {
	b.WriteString(disarmTag(body, blockClose))
}

func resourceList(resources []string) []string {
	files := make([]string, 0, len(resources))
	for _, r := range resources {
		if r != "" && r != "SKILL.md" {
			files = append(files, r)
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}
