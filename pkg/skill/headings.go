package skill

import (
	"strings"
	"unicode/utf8"
)

// Limits on Headings: real skills have a few dozen sections, with titles
// of a few words.
const (
	MaxHeadings     = 40
	maxHeadingBytes = 120
)

// Headings returns the titles of body's Markdown ATX headings ("## Merge
// PDFs"), in order, outside fenced code blocks (where "#" starts a shell
// comment), at most MaxHeadings, each cut to 120 bytes. Routing reads
// them: a skill's sections name what it does in words its description
// may not use.
func Headings(body string) []string {
	var out []string
	var fence string // the fence that opened the current code block
	for line := range strings.Lines(body) {
		l := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(l, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			fence = l[:3]
			continue
		}
		level := len(l) - len(strings.TrimLeft(l, "#"))
		if level == 0 || level > 6 || len(l) > level && l[level] != ' ' && l[level] != '\t' {
			continue
		}
		title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(l[level:]), "#"))
		if len(title) > maxHeadingBytes {
			cut := maxHeadingBytes
			for cut > 0 && !utf8.RuneStart(title[cut]) {
				cut--
			}
			title = title[:cut]
		}
		if title != "" {
			if out = append(out, title); len(out) == MaxHeadings {
				break
			}
		}
	}
	return out
}
