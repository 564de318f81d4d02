package resolver

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skill"
)

// moreNote tells the model what to do about skills the catalog had no
// room for.
const moreNote = "%d more skills are installed. Ask for a skill by name or describe the task to find one."

// locations tells the model where a skill of a degraded catalog is, which
// its compact tiers leave out.
const locations = "/skills/{id}/SKILL.md"

// catalogFormat renders a catalog.
type catalogFormat interface {
	// entries renders the full catalog of skills with descriptions, in the
	// order given.
	entries(es []skill.Entry) string
	// open and end frame a degraded catalog; sep separates its elements.
	open(shown, described, total int) string
	end() string
	sep() string
	// write writes the element of e at tier t (not tierList).
	write(b *strings.Builder, e entry, t tier)
	// list frames the names at tierList and separates them.
	list() (open, sep, end string)
	// listName writes one name of the list.
	listName(b *strings.Builder, e entry)
	// more renders the note about n skills left out.
	more(n int) string
}

// render renders a degraded catalog of entries at levels, out of total
// visible skills: elements by tier, most said first, then the list, then
// the note on the skills left out, if any. A cut catalog (total above
// the entries) lists its names in the entries' order: the most relevant
// are the ones it kept.
func render(f catalogFormat, entries []entry, levels []tier, total int) string {
	// Fitting a budget renders the catalog again and again: each in a
	// task of its own (with thousands of skills, milliseconds each).
	pace.Step()
	cutting := total > len(entries)
	described := 0
	for _, t := range levels {
		if t >= tierSentence {
			described++
		}
	}
	var b strings.Builder
	b.Grow(64 * (len(entries) + 2))
	// The frame opens with what the catalog did: in JSON an object of its
	// own, so every element that follows is preceded by a separator.
	b.WriteString(f.open(len(entries), described, total))
	next := func() { b.WriteString(f.sep()) }
	// Full descriptions come most relevant first; the other tiers sorted,
	// so that a name is where the model expects it.
	sorted := make([]int, len(entries))
	for i := range sorted {
		sorted[i] = i
	}
	if !cutting {
		slices.SortStableFunc(sorted, func(i, j int) int {
			return cmp.Or(strings.Compare(entries[i].Name, entries[j].Name), strings.Compare(idOf(entries[i]), idOf(entries[j])))
		})
	}
	for i, e := range entries {
		if levels[i] == tierFull {
			next()
			f.write(&b, e, tierFull)
		}
	}
	for t := tierSentence; t > tierList; t-- {
		for _, i := range sorted {
			if levels[i] == t {
				next()
				f.write(&b, entries[i], t)
			}
		}
	}
	open, sep, end := f.list()
	inList := 0
	for _, i := range sorted {
		e := entries[i]
		if levels[i] != tierList {
			continue
		}
		if inList == 0 {
			next()
			b.WriteString(open)
		} else {
			b.WriteString(sep)
		}
		f.listName(&b, e)
		inList++
	}
	if inList > 0 {
		b.WriteString(end)
	}
	if more := total - len(entries); more > 0 {
		next()
		b.WriteString(f.more(more))
	}
	b.WriteString(f.end())
	return b.String()
}

// listLabel is how a name appears in the list: with its ID when that
// differs.
func listLabel(e entry) string {
	if e.id != "" {
		return e.Name + " (" + e.id + ")"
	}
	return e.Name
}

// xmlEscaper escapes as skill.ToPrompt does (Python's html.escape).
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")

const xmlEnd = "</available_skills>"

// xmlFormat is skills-ref's <available_skills>.
type xmlFormat struct{}

func (xmlFormat) entries(es []skill.Entry) string { return skill.ToPrompt(es) }

func (xmlFormat) open(shown, described, total int) string {
	return fmt.Sprintf(`<available_skills shown="%d" described="%d" total="%d" locations="%s">`+"\n", shown, described, total, locations)
}

func (xmlFormat) end() string { return xmlEnd }
func (xmlFormat) sep() string { return "" }

func (xmlFormat) write(b *strings.Builder, e entry, t tier) {
	if t == tierFull {
		// One skill cut out of skill.ToPrompt.
		s := skill.ToPrompt([]skill.Entry{e.Entry})
		b.WriteString(s[len("<available_skills>\n") : len(s)-len(xmlEnd)])
		return
	}
	b.WriteString(`<skill name="`)
	xmlEscaper.WriteString(b, e.Name)
	if e.id != "" {
		b.WriteString(`" id="`)
		xmlEscaper.WriteString(b, e.id)
	}
	if t == tierName {
		b.WriteString("\"/>\n")
		return
	}
	b.WriteString(`">`)
	xmlEscaper.WriteString(b, firstSentenceOf(e.Description))
	b.WriteString("</skill>\n")
}

func (xmlFormat) list() (string, string, string) { return "<other_skills>", ", ", "</other_skills>\n" }

func (xmlFormat) listName(b *strings.Builder, e entry) { xmlEscaper.WriteString(b, listLabel(e)) }

func (xmlFormat) more(n int) string {
	return `<more count="` + strconv.Itoa(n) + `">` + fmt.Sprintf(moreNote, n) + "</more>\n"
}

// jsonFormat is a JSON array with one object per line.
type jsonFormat struct{}

func (f jsonFormat) entries(es []skill.Entry) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i, e := range es {
		if i > 0 {
			b.WriteString(",\n")
		}
		f.write(&b, entry{Entry: e}, tierFull)
	}
	b.WriteString("\n]")
	return b.String()
}

func (jsonFormat) open(shown, described, total int) string {
	return fmt.Sprintf(`[`+"\n"+`{"shown":%d,"described":%d,"total":%d,"locations":"%s"}`, shown, described, total, locations)
}

func (jsonFormat) end() string { return "\n]" }
func (jsonFormat) sep() string { return ",\n" }

func (jsonFormat) write(b *strings.Builder, e entry, t tier) {
	b.WriteString(`{"name":`)
	writeJSONString(b, e.Name)
	if e.id != "" && t != tierFull {
		b.WriteString(`,"id":`)
		writeJSONString(b, e.id)
	}
	switch t {
	case tierFull:
		b.WriteString(`,"description":`)
		writeJSONString(b, e.Description)
		b.WriteString(`,"location":`)
		writeJSONString(b, e.Location)
	case tierSentence:
		b.WriteString(`,"description":`)
		writeJSONString(b, firstSentenceOf(e.Description))
	}
	b.WriteString("}")
}

func (jsonFormat) list() (string, string, string) { return `{"names":[`, ",", "]}" }

func (jsonFormat) listName(b *strings.Builder, e entry) { writeJSONString(b, listLabel(e)) }

func (jsonFormat) more(n int) string {
	var b strings.Builder
	b.WriteString(`{"more":` + strconv.Itoa(n) + `,"note":`)
	writeJSONString(&b, fmt.Sprintf(moreNote, n))
	b.WriteString("}")
	return b.String()
}

// writeJSONString writes s as a JSON string. Only what JSON requires is
// escaped, plus U+2028 and U+2029, which break JavaScript string literals;
// s must be valid UTF-8.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	start := 0
	for i, r := range s {
		if e, ok := jsonEscape(r); ok {
			b.WriteString(s[start:i])
			b.WriteString(e)
			start = i + len(string(r))
		}
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// jsonEscape returns the escape of r, if r needs one.
func jsonEscape(r rune) (string, bool) {
	switch r {
	case '"':
		return `\"`, true
	case '\\':
		return `\\`, true
	case '\n':
		return `\n`, true
	case '\r':
		return `\r`, true
	case '\t':
		return `\t`, true
	}
	if r < 0x20 || r == '\u2028' || r == '\u2029' {
		return fmt.Sprintf(`\u%04x`, r), true
	}
	return "", false
}
