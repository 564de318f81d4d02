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
// the reason for refusing it.
func inputAllowed(specs []string, input string) string {
	var commands []string
	for _, spec := range specs {
		switch {
		case strings.HasPrefix(spec, "domain:"):
			if domainMatches(spec[len("domain:"):], input) {
				return ""
			}
		case isPathSpec(spec):
			if pathMatches(spec, input) {
				return ""
			}
		default:
			commands = append(commands, normalizeCommand(spec))
		}
	}
	if len(commands) == 0 {
		return ReasonInputNotMatched
	}
	parts, ok := commandParts(input)
	if !ok {
		return ReasonCommandSubstitution
	}
	if len(parts) == 0 {
		return ReasonInputNotMatched
	}
	for _, part := range parts {
		if !anyCommandMatches(commands, part) {
			return ReasonInputNotMatched
		}
	}
	return ""
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

func normalizeCommand(s string) string { return strings.Join(strings.Fields(s), " ") }

// commandParts splits a shell command line at its unquoted control
// operators and returns the normalized, non-empty parts; ok is false when
// it has a command or process substitution.
func commandParts(s string) (parts []string, ok bool) {
	start := 0
	var quote byte
	cut := func(i int) {
		if part := normalizeCommand(s[start:i]); part != "" {
			parts = append(parts, part)
		}
		start = i + 1
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case c == '`', c == '$' && next == '(':
			return nil, false
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case (c == '<' || c == '>') && next == '(':
			return nil, false
		case c == '&' && (next == '>' || i > 0 && (s[i-1] == '>' || s[i-1] == '<')):
			// A redirection such as 2>&1 or &>file, not an operator.
		case c == ';' || c == '&' || c == '|' || c == '\n' || c == '\r':
			cut(i)
		}
	}
	cut(len(s))
	return parts, true
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
