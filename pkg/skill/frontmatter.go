package skill

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

const (
	yamlMapping  = yaml.MappingNode
	yamlSequence = yaml.SequenceNode
	yamlScalar   = yaml.ScalarNode
	yamlAlias    = yaml.AliasNode
)

var bom = []byte("\xEF\xBB\xBF")

// frontmatter is a SKILL.md split at its delimiter lines.
type frontmatter struct {
	yaml  []byte // the text between the delimiter lines
	start int    // offset of yaml in the source
	body  []byte // everything after the closing delimiter line
	eol   string // the opening line's line ending: "\n" or "\r\n"
}

// splitFrontmatter finds the frontmatter line by line: the first line (after
// an optional byte order mark) must be exactly "---", and the frontmatter
// ends at the next line that is exactly "---", so a "---" inside a YAML
// value or in the body is not taken for a delimiter. A CR before a line's
// LF is tolerated.
func splitFrontmatter(src []byte) (frontmatter, *Diagnostic) {
	if !utf8.Valid(src) {
		off := 0
		for off < len(src) {
			r, n := utf8.DecodeRune(src[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return frontmatter{}, &Diagnostic{Code: "not-utf8", Severity: SeverityError, Line: 1 + bytes.Count(src[:off], []byte("\n")),
			Message: fmt.Sprintf("SKILL.md is not UTF-8 text (invalid byte 0x%02X at offset %d).", src[off], off)}
	}
	start := 0
	if bytes.HasPrefix(src, bom) {
		start = len(bom)
	}
	if len(bytes.TrimSpace(src[start:])) == 0 {
		return frontmatter{}, &Diagnostic{Code: "frontmatter-missing", Severity: SeverityError, Line: 1,
			Message: "SKILL.md is empty; it must start with YAML frontmatter between '---' lines."}
	}
	first, next := line(src, start)
	if string(first) != "---" {
		return frontmatter{}, &Diagnostic{Code: "frontmatter-missing", Severity: SeverityError, Line: 1,
			Message: "SKILL.md must start with YAML frontmatter: its first line must be '---'."}
	}
	fm := frontmatter{start: next, eol: string(src[start+len(first) : next])}
	for pos := next; pos < len(src); {
		l, after := line(src, pos)
		if string(l) == "---" {
			fm.yaml = src[next:pos]
			fm.body = src[after:]
			return fm, nil
		}
		pos = after
	}
	return frontmatter{}, &Diagnostic{Code: "frontmatter-unclosed", Severity: SeverityError, Line: 1,
		Message: "The frontmatter is not closed: no line '---' follows the opening one."}
}

// line returns the line starting at pos without its line ending, and the
// offset after the line ending.
func line(src []byte, pos int) (text []byte, next int) {
	end := len(src)
	next = end
	if i := bytes.IndexByte(src[pos:], '\n'); i >= 0 {
		end = pos + i
		next = end + 1
	}
	text = src[pos:end]
	if len(text) > 0 && text[len(text)-1] == '\r' {
		text = text[:len(text)-1]
	}
	return text, next
}

// parseYAML decodes frontmatter text into its root node, nil for an empty
// document. With repair set, a failure because of an unquoted value holding
// ": " (YAML's "mapping values are not allowed") is retried once with such
// values quoted, as the specification's client guidance suggests; repaired
// then names the keys whose values were quoted.
func parseYAML(text []byte, repair bool) (root *yaml.Node, repaired []string, err error) {
	root, err = decodeYAML(text)
	if err == nil || !repair || !strings.Contains(err.Error(), "mapping values are not allowed") {
		return root, nil, err
	}
	fixed, keys := quoteColonValues(text)
	if len(keys) == 0 {
		return nil, nil, err
	}
	root, err2 := decodeYAML(fixed)
	if err2 != nil {
		return nil, nil, err // the original error describes what the author wrote
	}
	return root, keys, nil
}

// Bounds checked before yaml.v3 sees frontmatter text, so that no input
// can make the parser run out of stack (yaml.v3 recurses once per level and
// stops only at 10,000, but in the browser the JavaScript engine's call
// stack runs out at about 4,000 and kills the whole module) or build an
// unbounded node tree. Real frontmatter is a few KB, a few levels deep and
// a few hundred nodes at most.
const (
	// MaxFrontmatter bounds the frontmatter's bytes.
	MaxFrontmatter = 64 << 10
	maxNesting     = 1000
	maxNodes       = 20_000
)

var (
	errTooDeep    = errors.New("it is nested too deeply")
	errTooComplex = errors.New("it has more than " + strconv.Itoa(maxNodes) + " values")
)

// errTooLarge reports frontmatter over MaxFrontmatter.
type errTooLarge int

func (n errTooLarge) Error() string {
	return fmt.Sprintf("it is %d bytes; at most %d are read", int(n), MaxFrontmatter)
}

// decodeYAML parses one YAML document into a node tree.
func decodeYAML(text []byte) (root *yaml.Node, err error) {
	if len(text) > MaxFrontmatter {
		return nil, errTooLarge(len(text))
	}
	depth, nodes := yamlBounds(text)
	switch {
	case depth > maxNesting:
		return nil, errTooDeep
	case nodes > maxNodes:
		return nil, errTooComplex
	}
	// yaml.v3 has had panics on hostile input; Parse promises not to.
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("the YAML parser failed: %v", r)
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// yamlBounds over-estimates, without parsing, how deeply the YAML text
// nests and how many nodes it makes, in one pass.
//
// Lines are split where YAML splits them (LF, CR, CRLF, and NEL, LS and PS,
// which yaml.v3 also takes for line breaks). Depth counts two levels (a
// mapping and a sequence) for each indentation level and for each "- ",
// "? " or ": " that opens a compact collection at the start of a line,
// plus the open brackets. Brackets are counted even inside quoted scalars,
// where YAML does not nest them: deciding what is quoted would mean
// parsing, and an over-estimate only refuses what no real skill writes.
// Nodes are at most one per line and one per separator that can start a
// node ("- ", ": ", "? ", ",", "[", "{").
func yamlBounds(text []byte) (depth, nodes int) {
	var indents []int // the indentation columns of the enclosing lines
	flow := 0
	for pos := 0; pos < len(text); {
		l, next := yamlLine(text, pos)
		pos = next
		nodes++
		rest := bytes.TrimLeft(l, " ")
		if len(rest) == 0 || rest[0] == '#' {
			continue
		}
		indent := len(l) - len(rest)
		for len(indents) > 0 && indents[len(indents)-1] >= indent {
			indents = indents[:len(indents)-1]
		}
		indents = append(indents, indent)
		block := len(indents)
		for len(rest) > 0 && (rest[0] == '-' || rest[0] == '?' || rest[0] == ':') &&
			(len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t') {
			block++
			rest = bytes.TrimLeft(rest[1:], " \t")
		}
		depth = max(depth, 2*block+flow)
		for i, c := range l {
			switch c {
			case '[', '{':
				flow++
				nodes++
				depth = max(depth, 2*block+flow)
			case ']', '}':
				if flow > 0 {
					flow--
				}
			case ',':
				nodes++
			case '-', '?', ':':
				if i+1 == len(l) || l[i+1] == ' ' || l[i+1] == '\t' {
					nodes++
				}
			}
		}
	}
	return depth, nodes
}

// yamlLine returns the line starting at pos as YAML splits lines, without
// its line break, and the offset after the break.
func yamlLine(src []byte, pos int) (text []byte, next int) {
	for i := pos; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\n':
			return src[pos:i], i + 1
		case c == '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				return src[pos:i], i + 2
			}
			return src[pos:i], i + 1
		case c == 0xC2 && i+1 < len(src) && src[i+1] == 0x85: // NEL
			return src[pos:i], i + 2
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9): // LS, PS
			return src[pos:i], i + 3
		}
	}
	return src[pos:], len(src)
}

// quoteColonValues single-quotes every plain value of a "key: value" line
// that holds ": " or ends in ":", outside block scalars, keeping a trailing
// comment and the line ending. It returns the new text and the keys whose
// values it quoted.
func quoteColonValues(text []byte) ([]byte, []string) {
	var out bytes.Buffer
	out.Grow(len(text) + 64)
	var keys []string
	blockIndent := -1 // indentation of the key owning the block scalar being skipped
	for pos := 0; pos < len(text); {
		l, next := line(text, pos)
		raw := text[pos:next]
		pos = next
		indent := len(l) - len(bytes.TrimLeft(l, " "))
		if blockIndent >= 0 {
			if len(bytes.TrimSpace(l)) == 0 || indent > blockIndent {
				out.Write(raw)
				continue
			}
			blockIndent = -1
		}
		key, valueAt, ok := keyLine(l)
		if !ok {
			out.Write(raw)
			continue
		}
		value := string(l[valueAt:])
		if value[0] == '|' || value[0] == '>' {
			blockIndent = indent
			out.Write(raw)
			continue
		}
		comment := ""
		if i := strings.Index(value, " #"); i >= 0 {
			value, comment = value[:i], value[i:]
		}
		value = strings.TrimRight(value, " \t")
		if strings.ContainsRune("'\"[{&*!%@`#", rune(value[0])) || !(strings.Contains(value, ": ") || strings.Contains(value, ":\t") || strings.HasSuffix(value, ":")) {
			out.Write(raw)
			continue
		}
		out.Write(l[:valueAt])
		out.WriteString("'" + strings.ReplaceAll(value, "'", "''") + "'" + comment)
		out.Write(raw[len(l):]) // the line ending
		keys = append(keys, key)
	}
	return out.Bytes(), keys
}

// keyLine recognizes a line "key: value" (possibly indented, possibly a
// list item "- key: value") with a simple key and a non-empty value. It
// returns the key and the offset of the value.
func keyLine(l []byte) (key string, valueAt int, ok bool) {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	if i+1 < len(l) && l[i] == '-' && l[i+1] == ' ' {
		i += 2
	}
	k := i
	for i < len(l) && isKeyByte(l[i]) {
		i++
	}
	if i == k || i+1 >= len(l) || l[i] != ':' || (l[i+1] != ' ' && l[i+1] != '\t') {
		return "", 0, false
	}
	key = string(l[k:i])
	i++
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if i == len(l) {
		return "", 0, false
	}
	return key, i, true
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// kindName names a node's kind for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yamlMapping:
		return "mapping"
	case yamlSequence:
		return "list"
	case yamlAlias:
		return "alias"
	}
	return "string"
}
