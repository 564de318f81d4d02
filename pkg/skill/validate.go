package skill

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The specification's limits, in code points.
const (
	MaxNameLength          = 64
	MaxDescriptionLength   = 1024
	MaxCompatibilityLength = 500
)

// validate checks the required fields and the specification's limits, and
// normalizes Name and Description. It follows skills-ref's validator rule
// for rule, so Strict mode gives its verdicts.
func (p *parser) validate(s *Skill, opts Options) {
	p.validateName(s, opts)
	raw := s.Description
	s.Description = pyStrip(raw)
	switch {
	case s.Description == "" && p.badType["description"]:
		// already reported as wrong-type
	case s.Description == "" && p.given["description"] != "":
		p.add("description-missing", SeverityError, "description", "Field 'description' must be a non-empty string.")
	case s.Description == "":
		p.add("description-missing", SeverityError, "description", "Missing required field in frontmatter: description.")
	case utf8.RuneCountInString(raw) > MaxDescriptionLength:
		p.add("description-too-long", p.severity(), "description",
			"Description exceeds %d character limit (%d chars).", MaxDescriptionLength, utf8.RuneCountInString(raw))
	}
	if n := utf8.RuneCountInString(s.Compatibility); n > MaxCompatibilityLength {
		p.add("compatibility-too-long", p.severity(), "compatibility",
			"Compatibility exceeds %d character limit (%d chars).", MaxCompatibilityLength, n)
	}
	s.Compatibility = pyStrip(s.Compatibility)
	s.License = pyStrip(s.License)
}

// validateName checks and normalizes the name: NFKC after trimming, at most
// 64 code points, lowercase, letters (any script), digits and single inner
// hyphens, equal to the NFKC form of the directory's name.
func (p *parser) validateName(s *Skill, opts Options) {
	name := normName(s.Name)
	if name == "" {
		switch {
		case p.badType["name"]:
			return // already reported as wrong-type
		case p.mode == Lenient && opts.DirName != "":
			name = norm.NFKC.String(opts.DirName)
			p.add("name-missing", SeverityWarning, "name", "The frontmatter has no name; the directory name '%s' is used.", opts.DirName)
		case p.given["name"] != "":
			p.add("name-missing", SeverityError, "name", "Field 'name' must be a non-empty string.")
			return
		default:
			p.add("name-missing", SeverityError, "name", "Missing required field in frontmatter: name.")
			return
		}
	}
	s.Name = name
	sev := p.severity()
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		p.add("name-too-long", sev, "name", "Skill name '%s' exceeds %d character limit (%d chars).", name, MaxNameLength, n)
	}
	if !isLower(name) {
		p.add("name-not-lowercase", sev, "name", "Skill name '%s' must be lowercase.", name)
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		p.add("name-edge-hyphen", sev, "name", "Skill name '%s' cannot start or end with a hyphen.", name)
	}
	if strings.Contains(name, "--") {
		p.add("name-consecutive-hyphens", sev, "name", "Skill name '%s' cannot contain consecutive hyphens.", name)
	}
	if !validNameChars(name) {
		p.add("name-invalid-chars", sev, "name",
			"Skill name '%s' contains invalid characters. Only letters, digits, and hyphens are allowed.", name)
	}
	if opts.DirName != "" && norm.NFKC.String(opts.DirName) != name {
		p.add("name-mismatch", sev, "name", "Directory name '%s' must match skill name '%s'.", opts.DirName, name)
	}
}

// normName is the form names are compared and stored in.
func normName(name string) string { return norm.NFKC.String(pyStrip(name)) }

// isLower reports whether lowercasing leaves name unchanged, like Python's
// name == name.lower().
func isLower(name string) bool {
	for _, r := range name {
		if unicode.ToLower(r) != r {
			return false
		}
	}
	return true
}

// validNameChars reports whether every rune is a hyphen or, like Python's
// str.isalnum, a letter or a number of any script.
func validNameChars(name string) bool {
	for _, r := range name {
		if r != '-' && !unicode.IsLetter(r) && !unicode.IsNumber(r) {
			return false
		}
	}
	return true
}

// isPySpace is Python's str.isspace for one rune: Unicode White_Space plus
// the information separators U+001C..U+001F.
func isPySpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1C && r <= 0x1F }

// pyStrip trims like Python's str.strip().
func pyStrip(s string) string { return strings.TrimFunc(s, isPySpace) }
