package resolver

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// invocationPrefix starts the slash menu's invocations, "/skill:<name>".
const invocationPrefix = "/skill:"

// ParseInvocation recognises an explicit invocation at the start of text,
// after any white space:
//
//	/skill:name args   (Pi)
//	/name args         (Claude Code)
//	$name args         (Codex)
//
// A name starts with a letter and goes on with letters, digits, "-" and
// "_"; white space or the end of the text must follow it, so "/usr/bin"
// and "$5" are not invocations. args is the rest of the text without
// surrounding white space. The name is returned as written; Index.Resolve
// finds it exactly, or else in another case when only one skill has it so.
func ParseInvocation(text string) (name, args string, ok bool) {
	text = strings.TrimLeftFunc(text, unicode.IsSpace)
	var rest string
	switch {
	case strings.HasPrefix(text, invocationPrefix):
		rest = text[len(invocationPrefix):]
	case strings.HasPrefix(text, "/"), strings.HasPrefix(text, "$"):
		rest = text[1:]
	default:
		return "", "", false
	}
	n := nameLen(rest)
	if n == 0 {
		return "", "", false
	}
	if r, _ := utf8.DecodeRuneInString(rest[n:]); n < len(rest) && !unicode.IsSpace(r) {
		return "", "", false
	}
	return rest[:n], strings.TrimSpace(rest[n:]), true
}

// nameLen returns the length in bytes of the skill name s starts with.
func nameLen(s string) int {
	for i, r := range s {
		if i == 0 && !unicode.IsLetter(r) {
			return 0
		}
		if !isNameRune(r) {
			return i
		}
	}
	return len(s)
}

func isNameRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_'
}

// mentionPatterns find names that force a skill anywhere in a message,
// most explicit first. Compiled on first use, not at init: the Unicode
// classes make them the costliest part of the module's start.
var mentionPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// "$name" after white space or an opening bracket, not "US$5".
		regexp.MustCompile(`(?:^|[\s(（])\$(\p{L}[\p{L}\p{N}_-]*)`),
		regexp.MustCompile(`(?i)\b(?:use|using|invoke)\s+(?:the\s+)?(\p{L}[\p{L}\p{N}_-]*)\s+skill\b`),
		regexp.MustCompile(`(?i)(?:使用|调用|用)\s*(\p{L}[\p{L}\p{N}_-]*?)\s*(?:skill|技能)`),
	}
})

// mentions returns the names text asks for anywhere in it: "$name", then
// "use the name skill" and "使用 name 技能" forms.
func mentions(text string) []string {
	var names []string
	for _, re := range mentionPatterns() {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			if !strings.EqualFold(m[1], "the") { // "use the skill" names none
				names = append(names, m[1])
			}
		}
	}
	return names
}
