package toolrule

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// isPathSpec reports whether a specifier of the tool is a path (see
// Check).
func isPathSpec(tool, spec string) bool {
	if strings.HasPrefix(spec, "domain:") {
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
// stands for, and returns it as commandMatches takes it — its words as
// written, joined by one space — or false when it admits nothing: when it
// is not one simple command of words, or when a command written as it is
// would run something that depends on what the shell expands, which
// skillfs cannot know. Each word may hold literals and quotes ('…', "…")
// only: no parameter of any kind ($name, ${name}, $1, $@, $?, $$…, a
// host's placeholder such as ${CLAUDE_PLUGIN_ROOT} above all), no command
// or process substitution, arithmetic, $'…' or extended glob, no tilde
// that the shell would turn into a home directory (~/x, PREFIX=~/x), and
// no glob character (?, […], and * where it is not the specifier's own
// wildcard: in a prefix before ":*" or " *" a * is the shell's, matched
// as text). Brace expansion ({a,b}) is left: it depends on nothing.
func commandSpec(spec string) (string, bool) {
	body, suffix := spec, ""
	if p, ok := strings.CutSuffix(spec, ":*"); ok {
		body, suffix = p, ":*"
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(body), "")
	if err != nil || len(f.Stmts) != 1 {
		return "", false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 || len(st.Redirs) > 0 || st.Negated || st.Background || st.Coprocess || st.Disown {
		return "", false
	}
	words := make([]string, len(call.Args))
	for i, w := range call.Args {
		words[i] = source(w, body)
	}
	// Which * are wildcards, as commandMatches reads the specifier.
	last := len(words)
	wild := suffix == "" && strings.Contains(strings.Join(words, " "), "*")
	if suffix == "" && len(words) > 1 && words[len(words)-1] == "*" {
		last, wild = len(words)-1, false
	}
	for _, w := range call.Args[:last] {
		if !literalWord(w, wild) {
			return "", false
		}
	}
	return strings.Join(words, " ") + suffix, true
}

// literalWord reports whether the shell reads w as the same text whatever
// its environment and file system hold: literals and quotes only, no
// tilde prefix and no glob character; with wild, a * is a wildcard of the
// specifier's and stands for no glob.
func literalWord(w *syntax.Word, wild bool) bool {
	var glob strings.Builder // w as a glob pattern, quoted text as x
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			// A tilde prefix, or one after = or : in a word bash takes
			// for an assignment (make PREFIX=~/x); those after other
			// characters are refused as well, which costs nothing real.
			if i == 0 && strings.HasPrefix(p.Value, "~") || strings.Contains(p.Value, "=~") || strings.Contains(p.Value, ":~") {
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

func anyCommandMatches(specs []string, command string) bool {
	for _, spec := range specs {
		if commandMatches(spec, command) {
			return true
		}
	}
	return false
}

// commandMatches matches a command (its words joined by one space)
// against a normalized command specifier.
func commandMatches(spec, command string) bool {
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
		return hasWordPrefix(command, strings.TrimSpace(prefix))
	}
	if prefix, ok := strings.CutSuffix(spec, " *"); ok {
		return hasWordPrefix(command, prefix)
	}
	if strings.Contains(spec, "*") {
		return wildMatch(spec, command, func(byte) bool { return true })
	}
	return spec == command
}

func hasWordPrefix(command, prefix string) bool {
	return command == prefix || strings.HasPrefix(command, prefix+" ")
}

// pathMatches matches a path against a path specifier, one without "/"
// at any depth (Read(*.md) is Read(**/*.md)). A path that
// climbs out of where it starts ("../x") matches nothing, and neither
// does an absolute path ("/etc/passwd") or one from a home directory
// ("~/.ssh/id_rsa", which shells and agents' file tools read as $HOME's)
// unless the specifier starts the same way: a wildcard stands for names
// below where the specifier starts, not for the root or a home.
func pathMatches(spec, input string) bool {
	p, s := path.Clean(input), path.Clean(spec)
	if !strings.Contains(s, "/") {
		s = "**/" + s
	}
	if input == "" || p == ".." || strings.HasPrefix(p, "../") {
		return false
	}
	if path.IsAbs(p) != path.IsAbs(s) || strings.HasPrefix(p, "~") && !strings.HasPrefix(s, "~") {
		return false
	}
	return matchSegments(strings.Split(s, "/"), strings.Split(p, "/"))
}

// matchSegments matches path segments against pattern segments, where
// "**" matches any number of segments. It works backwards through the
// pattern, keeping for each suffix of segs whether the rest of the pattern
// matches it, so that several "**" cost no backtracking.
func matchSegments(pattern, segs []string) bool {
	matches := make([]bool, len(segs)+1) // the empty pattern matches only the empty suffix
	matches[len(segs)] = true
	for i := len(pattern) - 1; i >= 0; i-- {
		prev := matches
		matches = make([]bool, len(segs)+1)
		for j := len(segs); j >= 0; j-- {
			if pattern[i] == "**" {
				matches[j] = prev[j] || j < len(segs) && matches[j+1] && wildMatch("*", segs[j], pathWildOK)
			} else {
				matches[j] = j < len(segs) && prev[j+1] && wildMatch(pattern[i], segs[j], pathWildOK)
			}
		}
	}
	return matches[0]
}

// pathWildOK reports whether a path wildcard may match c: not characters
// that would make a path a second shell command.
func pathWildOK(c byte) bool { return !strings.ContainsRune(";&|`$<>\n\r/", rune(c)) }

// wildMatch matches s against pattern, in which * matches any run of
// bytes for which ok holds.
func wildMatch(pattern, s string, ok func(byte) bool) bool {
	p, i := 0, 0
	star, starEnd := -1, 0 // the last *, and where its match ends in s
	for p < len(pattern) || i < len(s) {
		if p < len(pattern) {
			if pattern[p] == '*' {
				star, starEnd = p, i
				p++
				continue
			}
			if i < len(s) && s[i] == pattern[p] {
				p++
				i++
				continue
			}
		}
		if star >= 0 && starEnd < len(s) && ok(s[starEnd]) {
			starEnd++
			p, i = star+1, starEnd
			continue
		}
		return false
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
