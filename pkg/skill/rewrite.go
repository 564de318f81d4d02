package skill

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// RewriteName returns skillMD with the frontmatter's name set to newName,
// every other byte kept, so an import renamed from "x" to "x-v2" keeps its
// author's formatting. The value keeps its quoting style; a plain value is
// double-quoted when newName would not read back as the same string. A
// frontmatter without a name gets a "name:" line first.
//
// Errors are *skillerr.Error: InvalidArgument (Reason "invalid-name") when
// newName is empty, has surrounding spaces or control characters;
// InvalidManifest when skillMD has no readable frontmatter (Reason is the
// Diagnostic code) or its name is written in a form this function does not
// edit, such as a block scalar (Reason "name-not-rewritable").
func RewriteName(skillMD []byte, newName string) ([]byte, error) {
	if !utf8.ValidString(newName) || newName == "" || pyStrip(newName) != newName ||
		strings.IndexFunc(newName, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }) >= 0 {
		return nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "invalid-name", Subject: newName,
			Msg: "a skill name must be non-empty text on one line without surrounding spaces"}
	}
	fm, d := splitFrontmatter(skillMD)
	if d != nil {
		return nil, &skillerr.Error{Code: skillerr.InvalidManifest, Reason: d.Code, Msg: d.Message}
	}
	root, repaired, err := parseYAML(fm.yaml, true)
	if err != nil {
		return nil, &skillerr.Error{Code: skillerr.InvalidManifest, Reason: "yaml-invalid",
			Msg: "the frontmatter is not valid YAML: " + yamlMessage(err)}
	}
	if root != nil && root.Kind != yamlMapping {
		return nil, &skillerr.Error{Code: skillerr.InvalidManifest, Reason: "frontmatter-not-mapping",
			Msg: "the frontmatter is not a YAML mapping"}
	}
	notRewritable := &skillerr.Error{Code: skillerr.InvalidManifest, Reason: "name-not-rewritable",
		Msg: "the frontmatter's name is written in a form that cannot be edited in place"}
	val := nameValue(root)
	var start, end int // the bytes of skillMD to replace
	var repl string
	switch {
	case val == nil:
		start, end = fm.start, fm.start
		repl = "name: " + quoteName(newName, 0) + fm.eol
	case slices.Contains(repaired, "name") || val.Kind != yamlScalar:
		return nil, notRewritable
	default:
		at, ok := offsetOf(fm.yaml, val.Line, val.Column)
		if !ok {
			return nil, notRewritable
		}
		n := scalarLen(fm.yaml[at:], val)
		if n < 0 {
			return nil, notRewritable
		}
		start, end = fm.start+at, fm.start+at+n
		repl = quoteName(newName, val.Style)
		if n == 0 && at > 0 && fm.yaml[at-1] == ':' {
			repl = " " + repl // "name:" had no value at all
		}
	}
	out := make([]byte, 0, len(skillMD)+len(repl))
	out = append(out, skillMD[:start]...)
	out = append(out, repl...)
	out = append(out, skillMD[end:]...)
	// Check the edit the way every reader will see it.
	if fm2, d := splitFrontmatter(out); d == nil {
		if root2, _, err := parseYAML(fm2.yaml, true); err == nil {
			if v := nameValue(root2); v != nil && v.Kind == yamlScalar && v.Value == newName {
				return out, nil
			}
		}
	}
	return nil, notRewritable
}

// nameValue returns the value of the mapping's last "name" key, which is the
// one YAML readers keep, or nil.
func nameValue(root *yaml.Node) *yaml.Node {
	if root == nil {
		return nil
	}
	var val *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Kind == yamlScalar && k.Value == "name" {
			val = root.Content[i+1]
		}
	}
	return val
}

// offsetOf converts yaml.v3's 1-based line and column (in runes) to a byte
// offset, counting line breaks as YAML does: CRLF, CR, LF, NEL, LS and PS.
func offsetOf(text []byte, line, col int) (int, bool) {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexAny(text[off:], "\r\n\u0085\u2028\u2029")
		if i < 0 {
			return 0, false
		}
		off += i
		_, w := utf8.DecodeRune(text[off:])
		if text[off] == '\r' && off+1 < len(text) && text[off+1] == '\n' {
			w = 2
		}
		off += w
	}
	for c := 1; c < col; c++ {
		if off >= len(text) {
			return 0, false
		}
		_, w := utf8.DecodeRune(text[off:])
		off += w
	}
	return off, off <= len(text)
}

// scalarLen returns the length in bytes of the scalar val written at the
// start of text, or -1 when it is not a form RewriteName edits.
func scalarLen(text []byte, val *yaml.Node) int {
	switch val.Style {
	case yaml.DoubleQuotedStyle:
		if len(text) == 0 || text[0] != '"' {
			return -1
		}
		for i := 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case yaml.SingleQuotedStyle:
		if len(text) == 0 || text[0] != '\'' {
			return -1
		}
		for i := 1; i < len(text); i++ {
			if text[i] == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					i++
					continue
				}
				return i + 1
			}
		}
	case 0: // plain, on one line
		l, _ := line(text, 0)
		if i := bytes.IndexAny(l, "\r\u0085\u2028\u2029"); i >= 0 {
			l = l[:i]
		}
		for _, c := range []string{" #", "\t#"} {
			if i := bytes.Index(l, []byte(c)); i >= 0 {
				l = l[:i]
			}
		}
		l = bytes.TrimRight(l, " \t")
		if string(l) == val.Value || len(l) == 0 && val.ShortTag() == "!!null" {
			return len(l)
		}
	}
	return -1
}

// yamlWords are plain scalars some YAML readers take for booleans or null.
var yamlWords = []string{"true", "false", "yes", "no", "on", "off", "y", "n", "null"}

// quoteName writes name as a YAML scalar in the given style. A plain name
// is kept plain only when it is a word every YAML reader reads as that
// string: letters first, then letters, digits, '-', '_' or '.'.
func quoteName(name string, style yaml.Style) string {
	switch style {
	case yaml.SingleQuotedStyle:
		return "'" + strings.ReplaceAll(name, "'", "''") + "'"
	case 0:
		first, _ := utf8.DecodeRuneInString(name)
		plain := unicode.IsLetter(first) && !slices.Contains(yamlWords, strings.ToLower(name)) &&
			strings.IndexFunc(name, func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.'
			}) < 0
		if plain {
			return name
		}
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`
}
