package skill

import (
	"encoding/json"
	"math"
	"strings"

	"gopkg.in/yaml.v3"
)

const (
	costLow    = "low"
	costMedium = "medium"
	costHigh   = "high"
)

// rawBudget caps the nodes visited while reading one skill's values. YAML
// aliases can make a small document a huge or even cyclic tree.
const rawBudget = 10000

// specKeys are the frontmatter keys the open specification defines, in the
// order its validator lists them.
var specKeys = []string{"allowed-tools", "compatibility", "description", "license", "metadata", "name"}

// field stores the value of a key given in canonical (kebab-case) form;
// snake_case spellings are the same key. It reports whether the key is
// known and whether a non-empty value was stored.
func (d *decoder) field(canon, key string, v *yaml.Node, s *Skill) (known, stored bool) {
	switch canon {
	case "name":
		return true, d.str(key, v, &s.Name, true)
	case "description":
		return true, d.str(key, v, &s.Description, true)
	case "license":
		return true, d.str(key, v, &s.License, false)
	case "compatibility":
		return true, d.str(key, v, &s.Compatibility, false)
	case "metadata":
		return true, d.metadata(key, v, s)
	case "allowed-tools":
		return true, d.list(key, v, &s.AllowedTools, splitNames)
	case "disallowed-tools":
		return true, d.list(key, v, &s.DisallowedTools, splitNames)
	case "version":
		return true, d.str(key, v, &s.Version, false)
	case "author":
		return true, d.str(key, v, &s.Author, false)
	case "disable-model-invocation":
		return true, d.bool(key, v, &s.DisableModelInvocation)
	case "user-invocable":
		return true, d.bool(key, v, &s.UserInvocable)
	case "argument-hint":
		return true, d.argumentHint(key, v, s)
	case "arguments":
		return true, d.list(key, v, &s.Arguments, splitNames)
	case "when-to-use":
		return true, d.str(key, v, &s.WhenToUse, false)
	case "model":
		return true, d.str(key, v, &s.Model, false)
	case "effort":
		return true, d.str(key, v, &s.Effort, false)
	case "context":
		return true, d.str(key, v, &s.Context, false)
	case "agent":
		return true, d.str(key, v, &s.Agent, false)
	case "shell":
		return true, d.str(key, v, &s.Shell, false)
	case "hooks":
		return true, d.rawField(key, v, &s.Hooks)
	case "paths":
		return true, d.list(key, v, &s.Paths, splitNames)
	case "triggers":
		return true, d.list(key, v, &s.Triggers, splitPhrases)
	case "anti-triggers":
		return true, d.list(key, v, &s.AntiTriggers, splitPhrases)
	case "cost-hint":
		return true, d.costHint(key, v, s)
	case "always":
		return true, d.bool(key, v, &s.Always)
	case "parallel-safe":
		return true, d.bool(key, v, &s.ParallelSafe)
	case "tool-dependencies":
		return true, d.list(key, v, &s.ToolDependencies, splitNames)
	case "mcp-dependencies":
		return true, d.list(key, v, &s.MCPDependencies, splitNames)
	case "skill-dependencies":
		return true, d.list(key, v, &s.SkillDependencies, splitNames)
	case "prerequisites":
		return true, d.rawField(key, v, &s.Prerequisites)
	case "permissions":
		return true, d.rawField(key, v, &s.Permissions)
	case "entrypoints":
		return true, d.rawField(key, v, &s.Entrypoints)
	}
	return false, false
}

// canonicalKey maps a key to its kebab-case spelling.
func canonicalKey(key string) string { return strings.ReplaceAll(key, "_", "-") }

// isSpecKey reports whether key is spelled exactly as the specification
// defines one of its keys.
func isSpecKey(key string) bool {
	for _, k := range specKeys {
		if k == key {
			return true
		}
	}
	return false
}

// decoder turns YAML values into Skill fields, recording problems.
type decoder struct {
	mode Mode
	// sidecar is set while reading skill.yaml, whose problems are warnings.
	sidecar bool
	// budget is how many more nodes rawValue may visit.
	budget int
	// badType holds the SKILL.md keys whose value had the wrong type.
	badType map[string]bool
	diags   []Diagnostic
	// yamlLine is SKILL.md's line of the frontmatter's first YAML line;
	// keyLines maps each canonical key to the line it is on; line, when
	// set, is the line of the key being read. See add.
	yamlLine int
	keyLines map[string]int
	line     int
}

// severity is the severity of a problem that Strict mode rejects and
// Lenient mode tolerates.
func (d *decoder) severity() Severity {
	if d.mode == Strict && !d.sidecar {
		return SeverityError
	}
	return SeverityWarning
}

// fatal is the severity of a problem no mode tolerates in SKILL.md.
func (d *decoder) fatal() Severity {
	if d.sidecar {
		return SeverityWarning
	}
	return SeverityError
}

// where names the file being read, for messages.
func (d *decoder) where() string {
	if d.sidecar {
		return "skill.yaml"
	}
	return "the frontmatter"
}

// decodeFrontmatter stores every key of SKILL.md's frontmatter mapping.
func (p *parser) decodeFrontmatter(root *yaml.Node, s *Skill) {
	if root == nil {
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		p.line = p.yamlLine + k.Line - 1
		key, ok := p.scalar(k)
		if !ok {
			p.add("unknown-field", p.severity(), "", "A key in the frontmatter is a %s, not a name; it is ignored.", kindName(k))
			continue
		}
		if p.mode == Strict && !isSpecKey(key) {
			p.add("unknown-field", SeverityError, key,
				"Unexpected field '%s' in the frontmatter: the specification allows only %s.", key, strings.Join(specKeys, ", "))
			continue
		}
		canon := canonicalKey(key)
		prev, dup := p.given[canon]
		known, stored := p.field(canon, key, v, s)
		if !known {
			p.add("unknown-field", SeverityWarning, key, "Unknown field '%s' in the frontmatter is ignored.", key)
			continue
		}
		if dup {
			p.add("duplicate-key", p.severity(), key, "The key '%s' is given twice (first as '%s'); the last value is used.", key, prev)
		}
		p.given[canon] = key
		p.set[canon] = stored
	}
	p.line = 0
}

// scalar returns the text of a scalar node, following an alias.
func (d *decoder) scalar(n *yaml.Node) (string, bool) {
	if n.Kind == yamlAlias && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yamlScalar {
		return "", false
	}
	return n.Value, true
}

// wrongType records that key's value has the wrong shape.
func (d *decoder) wrongType(key string, v *yaml.Node, want string, sev Severity) {
	if v.Kind == yamlAlias && v.Alias != nil {
		v = v.Alias
	}
	d.add("wrong-type", sev, key, "Field '%s' in %s must be %s, not a %s.", key, d.where(), want, kindName(v))
	if !d.sidecar {
		d.badType[canonicalKey(key)] = true
	}
}

// str stores a string field. A wrong type is fatal for required fields.
func (d *decoder) str(key string, v *yaml.Node, dst *string, required bool) bool {
	text, ok := d.scalar(v)
	if !ok {
		sev := d.severity()
		if required {
			sev = d.fatal()
		}
		d.wrongType(key, v, "a string", sev)
		return false
	}
	*dst = text
	return pyStrip(text) != ""
}

// MaxListItems bounds a list field (triggers, allowed-tools, dependencies,
// arguments…): real ones hold a few dozen items; more are left out with a
// "list-truncated" warning.
const MaxListItems = 256

// list stores a list of strings given as a YAML list or as one string cut
// by split, without repeats and at most MaxListItems. Items that are not
// strings are dropped.
func (d *decoder) list(key string, v *yaml.Node, dst *[]string, split func(string) []string) bool {
	if text, ok := d.scalar(v); ok {
		*dst = d.bounded(key, split(text))
		return len(*dst) > 0
	}
	if v.Kind == yamlAlias && v.Alias != nil {
		v = v.Alias
	}
	if v.Kind != yamlSequence {
		d.wrongType(key, v, "a string or a list of strings", d.severity())
		return false
	}
	var items []string
	bad := false
	for _, item := range v.Content {
		text, ok := d.scalar(item)
		if !ok {
			bad = true
			continue
		}
		if text = pyStrip(text); text != "" {
			items = append(items, text)
		}
	}
	if bad {
		d.add("wrong-type", d.severity(), key, "Field '%s' in %s must list only strings; the other items are dropped.", key, d.where())
	}
	*dst = d.bounded(key, items)
	return len(*dst) > 0
}

// bounded drops the repeats of items and keeps at most MaxListItems.
func (d *decoder) bounded(key string, items []string) []string {
	seen := make(map[string]bool, min(len(items), MaxListItems))
	out := items[:0]
	for _, it := range items {
		if seen[it] {
			continue
		}
		if len(out) == MaxListItems {
			d.add("list-truncated", SeverityWarning, key, "Field '%s' in %s lists more than %d different items; the rest are left out.", key, d.where(), MaxListItems)
			break
		}
		seen[it] = true
		out = append(out, it)
	}
	return out
}

// bool stores a boolean written as true/false, yes/no or on/off, quoted or
// not, in any case.
func (d *decoder) bool(key string, v *yaml.Node, dst *bool) bool {
	text, ok := d.scalar(v)
	if !ok {
		d.wrongType(key, v, "true or false", d.severity())
		return false
	}
	switch strings.ToLower(pyStrip(text)) {
	case "true", "yes", "on":
		*dst = true
	case "false", "no", "off":
		*dst = false
	case "":
		return false
	default:
		d.add("invalid-value", d.severity(), key, "Field '%s' in %s must be true or false, not '%s'; it is ignored.", key, d.where(), text)
		return false
	}
	return true
}

// costHint stores low, medium or high.
func (d *decoder) costHint(key string, v *yaml.Node, s *Skill) bool {
	text, ok := d.scalar(v)
	if !ok {
		d.wrongType(key, v, "low, medium or high", d.severity())
		return false
	}
	switch hint := strings.ToLower(pyStrip(text)); hint {
	case costLow, costMedium, costHigh:
		s.CostHint = hint
		return true
	case "":
		return false
	}
	d.add("invalid-value", d.severity(), key, "Field '%s' in %s must be low, medium or high, not '%s'; medium is used.", key, d.where(), text)
	return false
}

// argumentHint stores the hint. Authors often write `argument-hint: [file]`,
// which YAML reads as a list; it is put back as the text they meant.
func (d *decoder) argumentHint(key string, v *yaml.Node, s *Skill) bool {
	if v.Kind == yamlSequence {
		items := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			text, ok := d.scalar(item)
			if !ok {
				d.wrongType(key, v, "a string", d.severity())
				return false
			}
			items = append(items, text)
		}
		s.ArgumentHint = "[" + strings.Join(items, ", ") + "]"
		return true
	}
	return d.str(key, v, &s.ArgumentHint, false)
}

// metadata stores the string-to-string metadata map. A value that is not
// a string is kept as its JSON text, with a warning; a metadata that is not
// a mapping is dropped with a warning (skills-ref accepts both).
func (d *decoder) metadata(key string, v *yaml.Node, s *Skill) bool {
	if v.Kind == yamlAlias && v.Alias != nil {
		v = v.Alias
	}
	if v.Kind == yamlScalar && (v.Value == "" || v.ShortTag() == "!!null") {
		return false
	}
	if v.Kind != yamlMapping {
		d.add("metadata-not-map", SeverityWarning, key, "Field '%s' in %s must be a mapping of keys to strings, not a %s; it is ignored.", key, d.where(), kindName(v))
		return false
	}
	m := make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		mk, ok := d.scalar(v.Content[i])
		if !ok {
			d.add("metadata-value-not-string", SeverityWarning, key, "A key in '%s' is a %s, not a string; the entry is dropped.", key, kindName(v.Content[i]))
			continue
		}
		if text, ok := d.scalar(v.Content[i+1]); ok {
			m[mk] = text
			continue
		}
		val, ok := d.rawValue(v.Content[i+1], 0)
		if !ok {
			d.add("too-complex", SeverityWarning, key, "The value of '%s.%s' is too large to keep; it is dropped.", key, mk)
			continue
		}
		text, _ := json.Marshal(val) // rawValue returns only JSON-encodable values
		m[mk] = string(text)
		d.add("metadata-value-not-string", SeverityWarning, key, "The value of '%s.%s' is a %s, not a string; it is kept as its JSON text.", key, mk, kindName(v.Content[i+1]))
	}
	s.Metadata = m
	return len(m) > 0
}

// rawField stores a value kept as written.
func (d *decoder) rawField(key string, v *yaml.Node, dst *any) bool {
	val, ok := d.rawValue(v, 0)
	if !ok {
		d.add("too-complex", d.severity(), key, "Field '%s' in %s is too large or nested too deeply to keep; it is dropped.", key, d.where())
		return false
	}
	*dst = val
	return val != nil
}

// rawValue converts a node to plain Go values that encoding/json accepts:
// map[string]any, []any, string, int64, float64, bool and nil. Numbers
// outside JSON's range stay strings. It fails once the budget is spent.
// depth is n's nesting level; aliases count as a level, so a cyclic alias
// ends at maxNesting.
func (d *decoder) rawValue(n *yaml.Node, depth int) (any, bool) {
	if d.budget--; d.budget < 0 || depth > maxNesting {
		return nil, false
	}
	switch n.Kind {
	case yamlAlias:
		if n.Alias == nil {
			return nil, true
		}
		return d.rawValue(n.Alias, depth+1)
	case yamlMapping:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, ok := d.scalar(n.Content[i])
			if !ok {
				continue // JSON has only string keys
			}
			v, ok := d.rawValue(n.Content[i+1], depth+1)
			if !ok {
				return nil, false
			}
			m[k] = v
		}
		return m, true
	case yamlSequence:
		l := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, ok := d.rawValue(item, depth+1)
			if !ok {
				return nil, false
			}
			l = append(l, v)
		}
		return l, true
	case yamlScalar:
		switch n.ShortTag() {
		case "!!null":
			return nil, true
		case "!!bool":
			var b bool
			if n.Decode(&b) == nil {
				return b, true
			}
		case "!!int":
			var i int64
			if n.Decode(&i) == nil {
				return i, true
			}
		case "!!float":
			var f float64
			if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return f, true
			}
		}
		return n.Value, true
	}
	return nil, true
}

// splitNames cuts a list of names at spaces and commas, except inside
// brackets, so "Bash(git add:*), Read" and "src/*.{ts,tsx}" keep their
// items whole.
func splitNames(s string) []string {
	return splitOutside(s, func(r rune) bool { return r == ',' || isPySpace(r) })
}

// splitPhrases cuts a list of phrases at commas only.
func splitPhrases(s string) []string {
	return splitOutside(s, func(r rune) bool { return r == ',' })
}

// splitOutside cuts s at runes for which sep is true when they are outside
// (), [] and {}, dropping empty items.
func splitOutside(s string, sep func(rune) bool) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if item := pyStrip(s[start:end]); item != "" {
			out = append(out, item)
		}
	}
	for i, r := range s {
		switch {
		case r == '(' || r == '[' || r == '{':
			depth++
		case (r == ')' || r == ']' || r == '}') && depth > 0:
			depth--
		case depth == 0 && sep(r):
			flush(i)
			start = i + len(string(r))
		}
	}
	flush(len(s))
	return out
}
