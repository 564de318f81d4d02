package resolver

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/skillfs/skillfs/pkg/confusable"
)

// What a model reads as a tag is not only the exact ASCII: "<\u200b/skill_content>",
// "</skill_\u0441ontent>" (Cyrillic с), a fullwidth "＜/skill_content＞",
// "</ skill_content>" or a soft hyphen inside all read as the closing tag.
// So text that would frame the model's reading is compared the way a
// reader sees it: each character in NFKC, reduced to its confusable
// skeleton and lower-cased, with white space and characters that render as
// nothing left out (docs/architecture.md, "Framing").

// readsAs returns how character r reads, for comparing text with a tag:
// "" for white space and default-ignorable characters.
func readsAs(r rune) string {
	if r < utf8.RuneSelf {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f':
			return ""
		case 'A' <= r && r <= 'Z':
			return string(r + 'a' - 'A')
		}
		return asciiReads()[r]
	}
	if unicode.IsSpace(r) || confusable.IsDefaultIgnorable(r) {
		return ""
	}
	return strings.ToLower(confusable.Skeleton(norm.NFKC.String(string(r))))
}

// asciiReads is readsAs of the ASCII characters other than letters and
// blanks, computed once: the skeleton maps a few ("0" to "o", "1" to "l").
// It and angles are computed when first needed rather than at the
// module's start, which they would lengthen by milliseconds
// (docs/architecture.md, "Start and list").
var asciiReads = sync.OnceValue(func() *[utf8.RuneSelf]string {
	var t [utf8.RuneSelf]string
	for r := rune(0); r < utf8.RuneSelf; r++ {
		t[r] = strings.ToLower(confusable.Skeleton(string(r)))
	}
	return &t
})

// angles are the characters other than ASCII "<" and ">" that read as
// them: their confusables and their compatibility forms (fullwidth, small).
// Only these can start a tag, so only they need reading character by
// character; everything else is skipped at the cost of a map look-up.
var angles = sync.OnceValue(func() map[rune]rune {
	m := map[rune]rune{'\uff1c': '<', '\ufe64': '<', '\uff1e': '>', '\ufe65': '>'}
	for _, a := range "<>" {
		for _, r := range confusable.LookAlikes(string(a)) {
			m[r] = a
		}
	}
	return m
})

// disarmTag returns s with every place that reads as tag (an ASCII tag
// starting with "<", as readsAs reads it) disarmed: the character that
// reads as its "<" is replaced by "&lt;". It is linear in len(s): only a
// character that reads as "<" starts a comparison, and a comparison reads
// no more characters than the tag has (blanks and invisible characters
// aside).
func disarmTag(s, tag string) string {
	want := readTag(tag)
	angles := angles()
	var b strings.Builder
	last := 0
	for i, r := range s {
		if r != '<' && (r < utf8.RuneSelf || angles[r] != '<') || !readsFrom(s[i:], want) {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s) + 8)
		}
		b.WriteString(s[last:i])
		b.WriteString("&lt;")
		last = i + utf8.RuneLen(r)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// readTag is how tag reads.
func readTag(tag string) string {
	var b strings.Builder
	for _, r := range tag {
		b.WriteString(readsAs(r))
	}
	return b.String()
}

// readsFrom reports whether s, read from its start, begins with want.
func readsFrom(s, want string) bool {
	got := 0
	for _, r := range s {
		rd := readsAs(r)
		if !strings.HasPrefix(want[got:], rd) {
			return strings.HasPrefix(rd, want[got:])
		}
		if got += len(rd); got == len(want) {
			return true
		}
	}
	return false
}

// plainAngles replaces the characters that read as "<" or ">" but are not
// ASCII by the ASCII ones, which the catalog's escaping then escapes:
// catalog values cannot hold look-alike tags, and text without such
// characters is left as it is (the skills-ref form stays byte-identical).
func plainAngles(s string) string {
	// Every one is outside ASCII (as disarmTag assumes): ASCII text, most
	// descriptions, is passed by a scan of its bytes, not a map look-up a
	// character (thousands of skills' catalog spent most of its time there).
	ascii := 0
	for ascii < len(s) && s[ascii] < utf8.RuneSelf {
		ascii++
	}
	angles := angles()
	if !strings.ContainsFunc(s[ascii:], func(r rune) bool { return angles[r] != 0 }) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if a := angles[r]; a != 0 {
			return a
		}
		return r
	}, s)
}
