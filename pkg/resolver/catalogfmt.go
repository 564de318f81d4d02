package resolver

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skillfs/skillfs/pkg/skill"
)

// moreNote tells the model what to do about skills the catalog had no
// room for.
const moreNote = "%d more skills are installed. Ask for a skill by name or describe the task to find one."

// catalogFormat renders a catalog.
type catalogFormat interface {
	// frame returns what opens the catalog, separates two elements and
	// ends it.
	frame() (open, sep, end string)
	// entries renders a catalog of skills with descriptions.
	entries(es []skill.Entry) string
	// writeEntry and writeName write one element of a catalog of skills
	// with and without descriptions.
	writeEntry(b *strings.Builder, e skill.Entry)
	writeName(b *strings.Builder, e skill.Entry)
	// more renders the note about n skills left out.
	more(n int) string
	// widths gives the lengths of runes once escaped in a value.
	widths() *widthTable
}

// widthTable holds the escaped length of every ASCII rune and of U+2028
// and U+2029; every other rune is left as it is by both formats.
type widthTable struct {
	ascii    [utf8.RuneSelf]int32
	lineSeps [2]int32
}

// newWidthTable measures escape, which returns a rune as rendered.
func newWidthTable(escape func(rune) string) *widthTable {
	t := &widthTable{}
	for r := range rune(utf8.RuneSelf) {
		t.ascii[r] = int32(utf8.RuneCountInString(escape(r)))
	}
	for i, r := range []rune{'\u2028', '\u2029'} {
		t.lineSeps[i] = int32(utf8.RuneCountInString(escape(r)))
	}
	return t
}

// of returns the escaped length of r.
func (t *widthTable) of(r rune) int32 {
	switch {
	case r < utf8.RuneSelf:
		return t.ascii[r]
	case r == '\u2028' || r == '\u2029':
		return t.lineSeps[r-'\u2028']
	}
	return 1
}

// join renders a catalog in format f with one element per entry, and the
// note about more skills when more >= 0.
func join(f catalogFormat, es []skill.Entry, write func(*strings.Builder, skill.Entry), more int) string {
	open, sep, end := f.frame()
	var b strings.Builder
	b.Grow(128 * (len(es) + 1))
	b.WriteString(open)
	for i, e := range es {
		if i > 0 {
			b.WriteString(sep)
		}
		write(&b, e)
	}
	if more >= 0 {
		if len(es) > 0 {
			b.WriteString(sep)
		}
		b.WriteString(f.more(more))
	}
	b.WriteString(end)
	return b.String()
}

// elementLen returns the length of the element write writes for e.
func elementLen(write func(*strings.Builder, skill.Entry), e skill.Entry) int {
	var b strings.Builder
	write(&b, e)
	return runeLen(b.String())
}

// xmlEscaper escapes as skill.ToPrompt does (Python's html.escape).
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")

const (
	xmlOpen = "<available_skills>\n"
	xmlEnd  = "</available_skills>"
)

// xmlFormat is skills-ref's <available_skills>.
type xmlFormat struct{}

func (xmlFormat) frame() (string, string, string) { return xmlOpen, "", xmlEnd }

func (xmlFormat) entries(es []skill.Entry) string { return skill.ToPrompt(es) }

// writeEntry writes one skill cut out of skill.ToPrompt.
func (xmlFormat) writeEntry(b *strings.Builder, e skill.Entry) {
	s := skill.ToPrompt([]skill.Entry{e})
	b.WriteString(s[len(xmlOpen) : len(s)-len(xmlEnd)])
}

func (xmlFormat) writeName(b *strings.Builder, e skill.Entry) {
	b.WriteString(`<skill name="`)
	xmlEscaper.WriteString(b, e.Name)
	b.WriteString(`" location="`)
	xmlEscaper.WriteString(b, e.Location)
	b.WriteString("\"/>\n")
}

func (xmlFormat) more(n int) string {
	return `<more count="` + strconv.Itoa(n) + `">` + fmt.Sprintf(moreNote, n) + "</more>\n"
}

var xmlWidths = newWidthTable(func(r rune) string { return xmlEscaper.Replace(string(r)) })

func (xmlFormat) widths() *widthTable { return xmlWidths }

// jsonFormat is a JSON array with one object per line.
type jsonFormat struct{}

func (jsonFormat) frame() (string, string, string) { return "[\n", ",\n", "\n]" }

func (f jsonFormat) entries(es []skill.Entry) string { return join(f, es, f.writeEntry, -1) }

func (jsonFormat) writeEntry(b *strings.Builder, e skill.Entry) {
	b.WriteString(`{"name":`)
	writeJSONString(b, e.Name)
	b.WriteString(`,"description":`)
	writeJSONString(b, e.Description)
	b.WriteString(`,"location":`)
	writeJSONString(b, e.Location)
	b.WriteString("}")
}

func (jsonFormat) writeName(b *strings.Builder, e skill.Entry) {
	b.WriteString(`{"name":`)
	writeJSONString(b, e.Name)
	b.WriteString(`,"location":`)
	writeJSONString(b, e.Location)
	b.WriteString("}")
}

func (jsonFormat) more(n int) string {
	var b strings.Builder
	b.WriteString(`{"more":` + strconv.Itoa(n) + `,"note":`)
	writeJSONString(&b, fmt.Sprintf(moreNote, n))
	b.WriteString("}")
	return b.String()
}

var jsonWidths = newWidthTable(func(r rune) string {
	if e, ok := jsonEscape(r); ok {
		return e
	}
	return string(r)
})

func (jsonFormat) widths() *widthTable { return jsonWidths }

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
			start = i + utf8.RuneLen(r)
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
