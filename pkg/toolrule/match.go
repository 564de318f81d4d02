package toolrule

import (
	"net/url"
	"path"
	"strings"
)

func isPathSpec(spec string) bool {
	return strings.Contains(spec, "/") && !strings.ContainsAny(spec, " \t") && !strings.HasSuffix(spec, ":*")
}

// normalizeCommand joins the words of a command specifier with one space.
func normalizeCommand(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' }), " ")
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
