package toolrule

import (
	"errors"
	"net/url"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// isPathSpec reports whether a specifier of the tool is a path (see
// Check). A shell's (Bash: its DefaultFields field is "command") never
// is: its input is a command line whatever the specifier's shape, and
// matched as a path Bash(./scripts/**) admitted
// "./scripts/x'/..'/..'/..'/y.sh", which the shell runs as ../y.sh, and
// Bash(~/bin/x) a home directory.
func isPathSpec(tool, spec string) bool {
	if strings.HasPrefix(spec, "domain:") || DefaultFields[tool] == "command" {
		return false
	}
	return fileTool(tool) || strings.Contains(spec, "/") && !strings.ContainsAny(spec, " \t") && !strings.HasSuffix(spec, ":*")
}

// fileTool reports whether the tool's input is a path: its field in
// DefaultFields is one. Read(*.md) is then a path, never a command line
// (as one, it admitted "../../x.md" and "/etc/x.md").
func fileTool(tool string) bool {
	switch DefaultFields[tool] {
	case "file_path", "notebook_path", "path", "pattern":
		return true
	}
	return false
}

// commandSpec reads a command specifier as bash reads the command it
// stands for, and returns it as a commandPattern — its words as
// written, joined by one space — or false when it admits nothing: when it
// is not one simple command of words, or when a command written as it is
// would run something that depends on what the shell expands, which
// skillfs cannot know. Each word may hold literals and quotes ('…', "…")
// only: no parameter of any kind ($name, ${name}, $1, $@, $?, $$…, a
// host's placeholder such as ${CLAUDE_PLUGIN_ROOT} above all), no command
// or process substitution, arithmetic, $'…' or extended glob, no tilde
// that the shell would turn into a home directory (~/x, PREFIX=~/x), and
// no glob character (?, […]); a * is the specifier's own wildcard, as in
// Claude Code's permission rules, in a prefix before ":*" or " *" too
// (git log * --oneline:*, ls *.md:*). Brace expansion ({a,b}) is left: it
// depends on nothing. A ":*" before the end, whose * is a wildcard
// (Bash(git:* push)), is errPrefixNotAtEnd: Claude Code's rules take
// ":*" only at the end and match nothing with it elsewhere, and read as a
// ':' and a wildcard it would admit "git:x push", never the "git push"
// its author meant. Any other specifier that admits nothing is
// errAdmitsNothing.
func commandSpec(spec string) (commandPattern, error) {
	body, prefix := strings.CutSuffix(spec, ":*")
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(body), "")
	if err != nil || len(f.Stmts) != 1 {
		return commandPattern{}, errAdmitsNothing
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 || len(st.Redirs) > 0 || st.Negated || st.Background || st.Coprocess || st.Disown {
		return commandPattern{}, errAdmitsNothing
	}
	words := make([]string, len(call.Args))
	for i, w := range call.Args {
		words[i] = source(w, body)
	}
	// "p *" is "p:*", as Claude Code reads it: p, alone or followed by
	// more words.
	if !prefix && len(words) > 1 && words[len(words)-1] == "*" {
		words, prefix = words[:len(words)-1], true
	}
	// The wildcards: the * that the shell would read as a glob, neither
	// quoted nor escaped, at their offsets in the words joined.
	var text strings.Builder
	var stars []int
	for i, w := range call.Args[:len(words)] {
		if !literalWord(w, true) {
			return commandPattern{}, errAdmitsNothing
		}
		if i > 0 {
			text.WriteByte(' ')
		}
		for _, part := range w.Parts {
			if _, lit := part.(*syntax.Lit); lit {
				v := source(part, body)
				for j := 0; j < len(v); j++ {
					if v[j] == '\\' {
						j++
					} else if v[j] == '*' {
						if j > 0 && v[j-1] == ':' {
							return commandPattern{}, errPrefixNotAtEnd
						}
						stars = append(stars, text.Len()+j)
					}
				}
			}
			text.WriteString(source(part, body))
		}
	}
	p := commandPattern{text: cutAt(text.String(), stars)}
	if prefix {
		p.more = cutAt(text.String()+" *", append(stars, text.Len()+1))
	}
	// Which * stand in the program's name or in a word (see matches).
	t := text.String()
	for k, at := range stars {
		if k > 0 && at == stars[k-1]+1 {
			continue // one * with the one before
		}
		end := at
		for _, next := range stars[k+1:] {
			if next != end+1 {
				break
			}
			end = next
		}
		p.checked = append(p.checked, at < len(words[0]) || at > 0 && t[at-1] != ' ' || end+1 < len(t) && t[end+1] != ' ')
	}
	return p, nil
}

// Why commandSpec finds that a specifier admits nothing.
var (
	errPrefixNotAtEnd = errors.New(`":*" before the end`)
	errAdmitsNothing  = errors.New("not a plain simple command")
)

// commandPattern is a command specifier as commandSpec reads it: its words
// as written, joined by one space (text, where each * stands for
// anything), and for "p:*" and "p *" the same followed by a space and
// anything (more), so that p alone or followed by more words matches.
// checked says which * stand in a word (see matches).
type commandPattern struct {
	text, more wildcard
	checked    []bool
}

// matches reports whether the command (its words joined by one space)
// matches p. A * that stands in the program's name or in a word of p
// (./scripts/*, *.md, test*) stands for no "..", quote, escape, expansion,
// glob or brace in the word of the command where it begins, which the
// shell could make a parent or another name: "./scripts/../../bin/rm"
// runs no script of scripts/, and neither does "./scripts/x'/..'/..'/y"
// nor "./scripts/.{.,}/.{.,}/bin/rm". A * that is a word of its own past
// the program's name (git * main) stands for any words. Each * is judged
// where the leftmost match puts it, which keeps a match linear in the
// command's length.
func (p commandPattern) matches(command string) bool {
	start, end, ok := -1, -1, false // the word last checked, and its verdict
	plain := func(star, at int) bool {
		if star >= len(p.checked) || !p.checked[star] {
			return true
		}
		if at < start || at > end { // each word is read once: the * come in order
			start = strings.LastIndexByte(command[:at], ' ') + 1
			end = strings.IndexByte(command[at:], ' ')
			if end < 0 {
				end = len(command) - at
			}
			end += at
			word := command[start:end]
			ok = !strings.ContainsAny(word, "'\"\\$`*?[{~") && !slices.Contains(strings.Split(word, "/"), "..")
		}
		return ok
	}
	return p.text.match(command, nil, plain) || p.more != nil && p.more.match(command, nil, plain)
}

// literalWord reports whether the shell reads w as the same text whatever
// its environment and file system hold: literals and quotes only, no
// tilde prefix and no glob character; with wild, a * is a wildcard of the
// specifier's and stands for no glob.
func literalWord(w *syntax.Word, wild bool) bool {
	var glob strings.Builder // w as a glob pattern, quoted text as x
	// bash expands a tilde that begins a word, and one after = or : in a
	// word it takes for an assignment (make PREFIX=~/x, PATH=/bin:~/bin):
	// here any word whose first literal holds "=", a few more than bash's.
	// Not scp's host:~/x.
	first, _ := w.Parts[0].(*syntax.Lit)
	assignment := first != nil && strings.Contains(first.Value, "=")
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") || assignment && (strings.Contains(p.Value, "=~") || strings.Contains(p.Value, ":~")) {
				return false
			}
			v := p.Value
			if wild {
				v = strings.ReplaceAll(v, "*", "x")
			}
			glob.WriteString(v)
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
			glob.WriteString("x")
		case *syntax.DblQuoted:
			if p.Dollar || slices.ContainsFunc(p.Parts, func(q syntax.WordPart) bool { _, lit := q.(*syntax.Lit); return !lit }) {
				return false
			}
			glob.WriteString("x")
		default:
			return false
		}
	}
	return !pattern.HasMeta(glob.String(), 0)
}

func anyCommandMatches(patterns []commandPattern, command string) bool {
	for _, p := range patterns {
		if p.matches(command) {
			return true
		}
	}
	return false
}

// pathMatches matches a path against a path specifier, one without "/"
// at any depth (Read(*.md) is Read(**/*.md)). A path that
// climbs out of where it starts ("../x") matches nothing, and neither
// does an absolute path ("/etc/passwd") or one from a home directory
// ("~/.ssh/id_rsa", which shells and agents' file tools read as $HOME's)
// unless the specifier starts the same way: a wildcard stands for names
// below where the specifier starts, not for the root or a home. With a
// working directory dir (see CheckDir), a relative specifier matches an
// absolute path below dir as the path relative to it, and none outside.
func pathMatches(spec, input, dir string) bool {
	p, s := path.Clean(input), path.Clean(spec)
	if !strings.Contains(s, "/") {
		s = "**/" + s
	}
	if input == "" {
		return false
	}
	if dir != "" && path.IsAbs(p) && !rooted(s) {
		rel, ok := below(dir, p)
		if !ok {
			return false
		}
		p = rel
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return false
	}
	if path.IsAbs(p) != path.IsAbs(s) || strings.HasPrefix(p, "~") && !strings.HasPrefix(s, "~") {
		return false
	}
	return matchSegments(strings.Split(s, "/"), strings.Split(p, "/"))
}

// below returns the absolute, clean path p relative to the directory
// dir (absolute and clean: CheckDir), "." for dir itself, and false when
// p is outside dir.
func below(dir, p string) (string, bool) {
	if p == dir {
		return ".", true
	}
	if dir == "/" {
		return p[1:], true
	}
	rel, ok := strings.CutPrefix(p, dir+"/")
	return rel, ok
}

// rooted reports whether a path starts at the root or a home directory,
// as pathMatches reads it: such a path matches only a specifier that
// starts the same way.
func rooted(p string) bool { return path.IsAbs(p) || strings.HasPrefix(p, "~") }

// matchSegments matches path segments against pattern segments, where
// "**" matches any number of segments. It works backwards through the
// pattern, keeping for each suffix of segs whether the rest of the pattern
// matches it, so that several "**" cost no backtracking: at most a
// segment match for each pair of pattern segment and segment, each linear
// in the segment.
func matchSegments(pattern, segs []string) bool {
	matches := make([]bool, len(segs)+1) // the empty pattern matches only the empty suffix
	matches[len(segs)] = true
	prev := make([]bool, len(segs)+1)
	for i := len(pattern) - 1; i >= 0; i-- {
		prev, matches = matches, prev
		w := newWildcard(pattern[i])
		for j := len(segs); j >= 0; j-- {
			if pattern[i] == "**" {
				matches[j] = prev[j] || j < len(segs) && matches[j+1] && all(segs[j], pathWildOK)
			} else {
				matches[j] = j < len(segs) && prev[j+1] && w.match(segs[j], pathWildOK, nil)
			}
		}
	}
	return matches[0]
}

// pathWildOK reports whether a path wildcard may match c: not characters
// that would make a path a second shell command, nor those that Windows,
// or a tool that takes URLs, reads as a separator or a root ("..\\x",
// "C:/Windows", "file:///etc"), nor the braces of a pattern that Glob
// expands ("{..,src}/*.go" is "../*.go" too), nor a NUL, where a C string
// ends ("a/../..\x00b" is "b" to path.Clean, but ".." to open(2)).
func pathWildOK(c byte) bool { return !strings.ContainsRune(";&|`$<>\n\r/\\:{}\x00", rune(c)) }

// wildcard is a pattern split at its *: each * matches any run of bytes.
// A wildcard of one piece matches that text alone.
type wildcard []string

// newWildcard splits pattern at its *, consecutive ones as one.
func newWildcard(pattern string) wildcard {
	var stars []int
	for i := range len(pattern) {
		if pattern[i] == '*' {
			stars = append(stars, i)
		}
	}
	return cutAt(pattern, stars)
}

// cutAt splits pattern at the * at the offsets stars (ascending), which
// are its wildcards; consecutive ones are one.
func cutAt(pattern string, stars []int) wildcard {
	w, from := wildcard{}, 0
	for k, at := range stars {
		if k == 0 || at != stars[k-1]+1 {
			w = append(w, pattern[from:at])
		}
		from = at + 1
	}
	return append(w, pattern[from:])
}

// match reports whether s matches w where each * matches only bytes ok
// admits (any byte when ok is nil) and, when at is not nil, begins where
// at(k, offset in s) admits the kth *. Each piece between two * is taken
// at its leftmost place after the piece before, which leaves the most for
// the pieces after; so a match costs time linear in s, not in s times
// the pattern, as backtracking would.
func (w wildcard) match(s string, ok func(byte) bool, at func(star, offset int) bool) bool {
	if len(w) == 1 {
		return s == w[0]
	}
	if !strings.HasPrefix(s, w[0]) {
		return false
	}
	pos := len(w[0])
	for k, piece := range w[1 : len(w)-1] {
		i := strings.Index(s[pos:], piece)
		if i < 0 || !all(s[pos:pos+i], ok) || at != nil && !at(k, pos) {
			return false
		}
		pos += i + len(piece)
	}
	last := w[len(w)-1]
	return len(s)-pos >= len(last) && strings.HasSuffix(s, last) && all(s[pos:len(s)-len(last)], ok) && (at == nil || at(len(w)-2, pos))
}

// all reports whether ok admits every byte of s (any byte when ok is nil).
func all(s string, ok func(byte) bool) bool {
	if ok == nil {
		return true
	}
	for i := range len(s) {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// domainMatches reports whether the URL input is on domain, or on one of
// its subdomains when domain is "*.example.com".
func domainMatches(domain, input string) bool {
	if !strings.Contains(input, "://") {
		input = "https://" + input
	}
	u, err := url.Parse(input)
	if err != nil {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	domain = strings.ToLower(domain)
	if parent, ok := strings.CutPrefix(domain, "*."); ok {
		return strings.HasSuffix(host, "."+parent)
	}
	return host != "" && host == domain
}
