package resolver

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations end in a period that does not end a sentence.
var abbreviations = []string{"e.g.", "i.e.", "vs."}

// firstSentence returns the first sentence of s, with each run of white
// space made one space. A sentence ends at ".", "!" or "?" followed by
// white space, or at "。", "！" or "？".
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	end := len(s)
	for i, r := range s {
		if r == '。' || r == '！' || r == '？' {
			end = i + utf8.RuneLen(r)
			break
		}
		if (r == '.' || r == '!' || r == '?') && i+1 < len(s) && isSpaceByte(s[i+1]) && !endsWithAbbreviation(s[:i+1]) {
			end = i + 1
			break
		}
	}
	return collapseSpace(s[:end])
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// collapseSpace makes each run of white space in s one space, allocating
// only when that changes something.
func collapseSpace(s string) string {
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		space := isSpaceByte(c)
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += size - 1
		}
		if space && (c != ' ' || prevSpace) {
			return strings.Join(strings.Fields(s), " ")
		}
		prevSpace = space
	}
	return s
}

func endsWithAbbreviation(s string) bool {
	for _, a := range abbreviations {
		if rest, ok := strings.CutSuffix(s, a); ok && (rest == "" || strings.HasSuffix(rest, " ") || strings.HasSuffix(rest, "(")) {
			return true
		}
	}
	return false
}

// truncate returns s if it has at most limit runes, and otherwise its
// first limit-1 runes, cut back to a word boundary when one is in the
// second half, ending in "…". The result never has more runes than limit.
func truncate(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	cut := 0
	for n := 0; n < limit-1; n++ {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	t := s[:cut]
	if sp := strings.LastIndexByte(t, ' '); sp > len(t)/2 {
		t = t[:sp]
	}
	return strings.TrimRight(t, " ,;:") + "…"
}
