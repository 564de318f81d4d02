package skill

import (
	"strings"
)

// Entry is one skill in the catalog shown to the model.
type Entry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Location is where the model reads the skill, such as
	// "/skills/pdf-tools/SKILL.md".
	Location string `json:"location"`
}

// CatalogEntries returns the catalog entries of skills, in order, leaving
// out nil skills and those with disable-model-invocation: the model must
// not see them, though the user may still invoke them. location gives
// each skill's Location.
func CatalogEntries(skills []*Skill, location func(*Skill) string) []Entry {
	entries := make([]Entry, 0, len(skills))
	for _, s := range skills {
		if s == nil || s.DisableModelInvocation {
			continue
		}
		entries = append(entries, Entry{Name: s.Name, Description: s.Description, Location: location(s)})
	}
	return entries
}

// htmlEscaper escapes like Python's html.escape(s, quote=True).
var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")

// ToPrompt renders the <available_skills> block byte for byte as
// skills-ref's to-prompt does: one tag or value per line, values escaped
// like HTML, no final newline. With no entries it returns an empty block;
// whether to show that to the model at all is the caller's choice.
func ToPrompt(entries []Entry) string {
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	for _, e := range entries {
		b.WriteString("<skill>\n")
		for _, f := range [...]struct{ tag, value string }{
			{"name", e.Name}, {"description", e.Description}, {"location", e.Location},
		} {
			b.WriteString("<" + f.tag + ">\n")
			htmlEscaper.WriteString(&b, f.value)
			b.WriteString("\n</" + f.tag + ">\n")
		}
		b.WriteString("</skill>\n")
	}
	b.WriteString("</available_skills>")
	return b.String()
}

// Properties are a skill's specification fields as skills-ref's
// read-properties prints them (its to_dict): empty optional fields are
// left out, and allowed-tools is one space-separated string.
type Properties struct {
	Name          string            `json:"name"`
	Description   string            `json:"description"`
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	AllowedTools  string            `json:"allowed-tools,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
}

// Properties returns the skill's specification fields.
func (s *Skill) Properties() Properties {
	return Properties{
		Name:          s.Name,
		Description:   s.Description,
		License:       s.License,
		Compatibility: s.Compatibility,
		AllowedTools:  strings.Join(s.AllowedTools, " "),
		Metadata:      s.Metadata,
	}
}
