package resolver

import (
	"slices"
	"strconv"
	"strings"
)

// SplitArgs splits args into words as a POSIX shell would, without any
// expansion: blanks (space, tab, newline) separate words; 'single quotes'
// keep everything literally; "double quotes" keep everything but a
// backslash before $, `, ", \ or newline; outside quotes a backslash keeps
// the next character literally. Quoted parts join the word around them,
// "" is an empty word, and a backslash-newline pair disappears. An
// unterminated quote runs to the end, and a final lone backslash stays,
// since a user's text should not be refused for a missing quote.
func SplitArgs(args string) []string {
	words := []string{}
	var w strings.Builder
	inWord := false
	for i := 0; i < len(args); i++ {
		c := args[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(args[i+1:], '\'')
			if end < 0 {
				end = len(args) - i - 1
			}
			w.WriteString(args[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			i = doubleQuoted(&w, args, i+1)
		case c == '\\' && i+1 < len(args):
			i++
			if args[i] != '\n' {
				inWord = true
				w.WriteByte(args[i])
			}
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// doubleQuoted writes the double-quoted text starting at args[i] and
// returns the index of its closing quote (or len(args)).
func doubleQuoted(w *strings.Builder, args string, i int) int {
	for ; i < len(args); i++ {
		switch c := args[i]; {
		case c == '"':
			return i
		case c == '\\' && i+1 < len(args) && strings.IndexByte("$`\"\\\n", args[i+1]) >= 0:
			i++
			if args[i] != '\n' {
				w.WriteByte(args[i])
			}
		default:
			w.WriteByte(c)
		}
	}
	return i
}

// Substitute fills a skill body's placeholders with the arguments of an
// invocation, as Claude Code does:
//
//   - $ARGUMENTS is args as given;
//   - $ARGUMENTS[N] and $N are word N of args split by SplitArgs, from 0;
//     all the digits are read, so $10 is word 10 (write $ARGUMENTS[1]0
//     for word 1 then "0");
//   - $name, for a name in named (the skill's "arguments" field), is the
//     word at that name's position; names are read as [A-Za-z_][A-Za-z0-9_]*,
//     so a name with other characters is never matched;
//   - ${SKILL_DIR} and its alias ${CLAUDE_SKILL_DIR} are skillDir;
//   - \$ is a literal $ (a backslash before anything else stays).
//
// A word args does not have is "". Any other $ is left as is: an unknown
// $word, ${OTHER}, a $ before a space or at the end.
//
// When body has no argument placeholder (${SKILL_DIR} is not one) and args
// is not blank, "\n\nARGUMENTS: " and args are appended, so that the
// arguments reach the model anyway.
//
// The result may be at most MaxExpansion bytes longer than body; beyond,
// Substitute stops and returns a TooLarge error, having built no more.
func Substitute(body, args string, named []string, skillDir string) (string, error) {
	s := substitution{args: args, words: SplitArgs(args), named: named, dir: skillDir}
	var b strings.Builder
	b.Grow(len(body))
	limit := len(body) + MaxExpansion
	for i := 0; i < len(body); {
		if b.Len() > limit {
			return "", errLimit("arguments", "substituting the arguments would make the skill's instructions "+
				"more than %d bytes longer", MaxExpansion)
		}
		j := strings.IndexAny(body[i:], `\$`)
		if j < 0 {
			b.WriteString(body[i:])
			break
		}
		b.WriteString(body[i : i+j])
		i += j
		if body[i] == '\\' {
			if strings.HasPrefix(body[i:], `\$`) {
				b.WriteByte('$')
				i += 2
			} else {
				b.WriteByte('\\')
				i++
			}
			continue
		}
		value, n := s.placeholder(body[i:])
		if n == 0 {
			b.WriteByte('$')
			i++
			continue
		}
		b.WriteString(value)
		i += n
	}
	if !s.used && strings.TrimSpace(args) != "" {
		b.WriteString("\n\nARGUMENTS: " + args)
	}
	if b.Len() > limit {
		return "", errLimit("arguments", "substituting the arguments would make the skill's instructions "+
			"more than %d bytes longer", MaxExpansion)
	}
	return b.String(), nil
}

type substitution struct {
	args  string
	words []string
	named []string
	dir   string
	used  bool // whether an argument placeholder was seen
}

// placeholder reads the placeholder at the start of p, which begins with
// "$", and returns its value and length; length 0 means none.
func (s *substitution) placeholder(p string) (string, int) {
	rest := p[1:]
	if inner, ok := strings.CutPrefix(rest, "{"); ok {
		end := strings.IndexByte(inner, '}')
		if end < 0 {
			return "", 0
		}
		switch inner[:end] {
		case "SKILL_DIR", "CLAUDE_SKILL_DIR":
			return s.dir, end + 3
		}
		return "", 0
	}
	if n := digits(rest); n > 0 {
		s.used = true
		return s.word(rest[:n]), 1 + n
	}
	n := identLen(rest)
	switch ident := rest[:n]; {
	case n == 0:
		return "", 0
	case ident == "ARGUMENTS":
		s.used = true
		if idx, ok := strings.CutPrefix(rest[n:], "["); ok {
			if d := digits(idx); d > 0 && strings.HasPrefix(idx[d:], "]") {
				return s.word(idx[:d]), 1 + n + 1 + d + 1
			}
		}
		return s.args, 1 + n
	default:
		if pos := slices.Index(s.named, ident); pos >= 0 {
			s.used = true
			return s.wordAt(pos), 1 + n
		}
		return "", 0
	}
}

// word returns the word whose index is the decimal number d.
func (s *substitution) word(d string) string {
	i, err := strconv.Atoi(d)
	if err != nil { // too large to be a word
		return ""
	}
	return s.wordAt(i)
}

func (s *substitution) wordAt(i int) string {
	if i < len(s.words) {
		return s.words[i]
	}
	return ""
}

// digits returns how many ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// identLen returns the length of the [A-Za-z_][A-Za-z0-9_]* s starts with.
func identLen(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || n > 0 && c >= '0' && c <= '9' {
			n++
			continue
		}
		break
	}
	return n
}
