package resolver

import (
	"net/url"
	"path"
	"strings"
)

const mcpPrefix = "mcp__"

// toolRule is a parsed allowed-tools pattern.
type toolRule struct {
	source string // as written, for messages
	tool   string
	spec   string
	whole  bool // no specifier, or "*": every call of the tool
}

// parseToolRules parses patterns, dropping malformed ones.
func parseToolRules(patterns []string) []toolRule {
	rules := make([]toolRule, 0, len(patterns))
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		open := strings.IndexByte(p, '(')
		if open < 0 {
			if p != "" {
				rules = append(rules, toolRule{source: p, tool: p, whole: true})
			}
			continue
		}
		spec, ok := strings.CutSuffix(p[open+1:], ")")
		if spec = strings.TrimSpace(spec); open == 0 || !ok || spec == "" {
			continue
		}
		rules = append(rules, toolRule{source: p, tool: strings.TrimSpace(p[:open]), spec: spec, whole: spec == "*"})
	}
	return rules
}

// names reports whether the rule is about the tool.
func (r toolRule) names(tool string) bool {
	if r.tool == tool {
		return true
	}
	server, ok := strings.CutPrefix(r.tool, mcpPrefix)
	if !ok {
		return false
	}
	server = strings.TrimSuffix(server, "__*")
	return server != "" && !strings.Contains(server, "__") && strings.HasPrefix(tool, mcpPrefix+server+"__")
}

// inputAllowed returns "" when a specifier admits input, and otherwise
// the reason for refusing it and, for a command line the splitter
// refuses, what it found there.
func inputAllowed(specs []string, input string) (reason, what string) {
	var commands []string
	for _, spec := range specs {
		switch {
		case strings.HasPrefix(spec, "domain:"):
			if domainMatches(spec[len("domain:"):], input) {
				return "", ""
			}
		case isPathSpec(spec):
			if pathMatches(spec, input) {
				return "", ""
			}
		default:
			commands = append(commands, normalizeCommand(spec))
		}
	}
	if len(commands) == 0 {
		return ReasonInputNotMatched, ""
	}
	parts, refused := commandParts(input)
	if refused != nil {
		return refused.reason, refused.what
	}
	if len(parts) == 0 {
		return ReasonInputNotMatched, ""
	}
	for _, part := range parts {
		if !anyCommandMatches(commands, part) {
			return ReasonInputNotMatched, ""
		}
	}
	return "", ""
}

func isPathSpec(spec string) bool {
	return strings.Contains(spec, "/") && !strings.ContainsAny(spec, " \t") && !strings.HasSuffix(spec, ":*")
}

func anyCommandMatches(specs []string, command string) bool {
	for _, spec := range specs {
		if commandMatches(spec, command) {
			return true
		}
	}
	return false
}

// commandMatches matches a normalized command against a normalized
// command specifier.
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

// normalizeCommand joins the words of a command, or of a command
// specifier, with one space. Words are split at the shell's blanks only,
// spaces and tabs: to the shell "git\vstatus" or "git\u00a0x" is one
// word, and no command named git.
func normalizeCommand(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' }), " ")
}

// refusal is why commandParts refuses a command line: a Reason constant
// and the construct, in words.
type refusal struct{ reason, what string }

// commandParts splits a shell command line, as bash and POSIX sh (sh -c)
// read it, at its unquoted control operators (;, &, |, newline) and
// returns the normalized, non-empty parts, comments left out. Any other
// byte, a carriage return or a vertical tab included, is part of a word,
// as it is to the shell.
//
// It models words, single and double quotes, backslash escapes,
// redirections (2>&1; bash's &>file, as POSIX sh reads it too), ${…}
// parameter expansions whose braces hold no quote, escape, expansion or
// parenthesis, and comments: a # that begins a word, outside quotes,
// runs to the newline, which still ends the command, and nothing in a
// comment can open a quote. Whatever else could make the shell see
// commands where the splitter does not is refused rather than guessed
// at: command and process substitution ($(…), `…`, <(…), >(…)) with
// ReasonCommandSubstitution; here-documents and here-strings (<<),
// ANSI-C quotes ($'…'), $[…], other ${…}, backslash-newline
// continuations, subshells and other parentheses, { …; } groups and
// unterminated quotes with ReasonUnsupportedShell.
func commandParts(s string) (parts []string, refused *refusal) {
	start := 0
	// target: the part begins after the & of bash's "&>file", which
	// POSIX sh reads as "&" and then a command ">file". A part that is
	// only that redirection runs nothing in either shell, and is left
	// out; anything more is a command to vet.
	target := false
	cut := func(i int) {
		part := normalizeCommand(s[start:i])
		if target && isRedirection(part) {
			part = ""
		}
		if part != "" {
			parts = append(parts, part)
		}
		start, target = i+1, false
	}
	unsupported := func(what string) ([]string, *refusal) {
		return nil, &refusal{ReasonUnsupportedShell, what}
	}
	var quote byte
	// wordStart: the next byte begins a word, where # begins a comment.
	// afterRedir: the previous byte was an unquoted < or >, so & is part
	// of a redirection (2>&1), not an operator.
	wordStart, afterRedir := true, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		redir := false
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\' && next == '\n':
			return unsupported("a backslash-newline line continuation")
		case c == '\\':
			i++
		case c == '`', c == '$' && next == '(':
			return nil, &refusal{ReasonCommandSubstitution, "a command substitution"}
		case c == '$' && next == '[':
			return unsupported("an arithmetic expansion $[...]")
		case c == '$' && next == '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 || strings.ContainsAny(s[i+2:i+2+end], "'\"`$\\{()\n") {
				return unsupported("a ${...} expansion with quotes, escapes or expansions inside")
			}
			i += 2 + end // the braces hold one literal word
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '$' && next == '\'':
			return unsupported("an ANSI-C quote $'...'")
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && wordStart:
			// A comment: left out of the part, up to the newline, which
			// the next round cuts at.
			cut(i)
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				end = len(s) - i
			}
			i += end - 1
			start = i + 1
			continue
		case (c == '<' || c == '>') && next == '(':
			return nil, &refusal{ReasonCommandSubstitution, "a process substitution"}
		case c == '<' && next == '<':
			return unsupported("a here-document or here-string (<<)")
		case c == '<' || c == '>':
			redir = true
		case c == '(' || c == ')':
			return unsupported("a subshell or other parentheses")
		case (c == '{' || c == '}') && wordStart && (next == 0 || strings.IndexByte(" \t\n;&|<>()", next) >= 0):
			return unsupported("a { ...; } command group")
		case c == '&' && afterRedir:
			// A redirection such as 2>&1, not an operator.
			redir = true
		case c == ';' || c == '&' || c == '|' || c == '\n':
			cut(i)
			target = c == '&' && next == '>'
		}
		afterRedir = redir
		// A word begins after a blank, a newline or an operator outside
		// quotes. An escaped byte was skipped with its backslash, which
		// begins none.
		wordStart = quote == 0 && strings.IndexByte(" \t\n;&|<>", c) >= 0
	}
	if quote != 0 {
		return unsupported("an unterminated quote")
	}
	cut(len(s))
	return parts, nil
}

// isRedirection reports whether the normalized part is only an output
// redirection to one word: ">file", ">> file".
func isRedirection(part string) bool {
	rest, ok := strings.CutPrefix(part, ">")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(strings.TrimPrefix(rest, ">"), " ")
	return rest != "" && !strings.ContainsAny(rest, " <>&")
}

// pathMatches matches a path against a path specifier. A path that
// climbs out of where it starts ("../x") matches nothing.
func pathMatches(spec, input string) bool {
	p := path.Clean(input)
	if input == "" || p == ".." || strings.HasPrefix(p, "../") {
		return false
	}
	return matchSegments(strings.Split(path.Clean(spec), "/"), strings.Split(p, "/"))
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
