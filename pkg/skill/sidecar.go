package skill

import (
	"bytes"
	"unicode/utf8"
)

// merge fills the fields SKILL.md left empty from skill.yaml (the unified
// metadata of docs/architecture.md). SKILL.md wins on conflict; a disagreement about the
// name or the description is worth a warning, since agents see both.
func (p *parser) merge(s *Skill, src []byte) {
	if len(src) == 0 {
		return
	}
	p.sidecar = true
	defer func() { p.sidecar = false }()
	if !utf8.Valid(src) {
		p.add("skill-yaml-invalid", SeverityWarning, "", "skill.yaml is not UTF-8 text; it is ignored.")
		return
	}
	root, err := decodeYAML(bytes.TrimPrefix(src, bom))
	if err != nil {
		p.add("skill-yaml-invalid", SeverityWarning, "", "skill.yaml is not valid YAML (%s); it is ignored.", yamlMessage(err))
		return
	}
	if root == nil {
		return
	}
	if root.Kind != yamlMapping {
		p.add("skill-yaml-invalid", SeverityWarning, "", "skill.yaml must be a YAML mapping, not a %s; it is ignored.", kindName(root))
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, ok := p.scalar(root.Content[i])
		if !ok {
			continue
		}
		v := root.Content[i+1]
		canon := canonicalKey(key)
		if !p.set[canon] {
			p.field(canon, key, v, s) // unknown keys are skill.yaml's own
			continue
		}
		text, ok := p.scalar(v)
		switch {
		case !ok:
		case canon == "name" && normName(text) != normName(s.Name):
			p.add("skill-yaml-conflict", SeverityWarning, "name",
				"skill.yaml names the skill '%s' but SKILL.md names it '%s'; SKILL.md wins.", normName(text), normName(s.Name))
		case canon == "description" && pyStrip(text) != pyStrip(s.Description):
			p.add("skill-yaml-conflict", SeverityWarning, "description",
				"skill.yaml and SKILL.md give different descriptions; SKILL.md's is used.")
		}
	}
}
