// Package skill reads the Agent Skills format: a SKILL.md with YAML
// frontmatter and a Markdown body, optionally with a skill.yaml beside it.
//
// Parse works on bytes and Load on an fs.FS; neither touches the host disk.
// Every problem found is a Diagnostic with a stable Code. Two modes decide
// which problems are fatal:
//
//   - Strict is the open specification exactly, as its reference validator
//     skills-ref checks it. Use it to validate skills being written or
//     published (`skills validate --strict`).
//   - Lenient (the zero Mode) is what an agent uses when it loads skills it
//     did not write, following the specification's client guidance: cosmetic
//     problems are warnings and the skill still loads; only a skill that
//     cannot be used (no description, unreadable frontmatter) is skipped.
//     Use it to load or import skills.
//
// Either way every YAML scalar is read as the string it is written as, as
// skills-ref does: `version: 1.0` is "1.0" and `007` stays "007".
package skill

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"gopkg.in/yaml.v3"
)

// Severity says whether a Diagnostic stops the skill from loading.
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Diagnostic is one problem found in a skill.
type Diagnostic struct {
	// Code is a stable kebab-case token such as "name-missing"; callers
	// switch on it.
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	// Field is the frontmatter key the problem is about, if any.
	Field string `json:"field"`
	// Message is a sentence for a person.
	Message string `json:"message"`
	// Line is the 1-based line of SKILL.md the problem is at, for an
	// editor to mark: the key's line for a field's problem, the opening
	// delimiter's for a required field that is missing, the parser's for
	// broken YAML. 0 when the problem has no place in SKILL.md (skill.yaml's,
	// the registry's own).
	Line int `json:"line,omitempty"`
}

// String formats d on one line for logs and the CLI.
func (d Diagnostic) String() string {
	if d.Field == "" {
		return fmt.Sprintf("%s %s: %s", d.Severity, d.Code, d.Message)
	}
	return fmt.Sprintf("%s %s (%s): %s", d.Severity, d.Code, d.Field, d.Message)
}

// HasErrors reports whether any diagnostic has error severity.
func HasErrors(diags []Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// AsError returns nil when diags hold no error, and otherwise an
// InvalidManifest *skillerr.Error about subject whose Reason is the first
// error's Code and whose message is that error's message.
func AsError(subject string, diags []Diagnostic) error {
	for _, d := range diags {
		if d.Severity == SeverityError {
			return &skillerr.Error{Code: skillerr.InvalidManifest, Reason: d.Code, Subject: subject, Msg: d.Message}
		}
	}
	return nil
}

// Mode chooses how strictly a skill is checked.
type Mode int

// The modes; see the package documentation.
const (
	Lenient Mode = iota
	Strict
)

// String returns "strict" or "lenient".
func (m Mode) String() string {
	if m == Strict {
		return "strict"
	}
	return "lenient"
}

// Options tell Parse about the skill's surroundings.
type Options struct {
	Mode Mode
	// DirName is the name of the directory holding SKILL.md, which the
	// skill's name must match; "" when unknown, which skips that check.
	// In Lenient mode it also names a skill whose frontmatter has no name.
	DirName string
	// SkillYAML is the content of an optional skill.yaml beside SKILL.md.
	// Its values fill fields SKILL.md leaves empty; SKILL.md wins on
	// conflict. Its problems are warnings in both modes, and keys it has
	// that this package does not know are ignored, since skill.yaml is a
	// wider format.
	SkillYAML []byte
}

// Skill is a parsed skill. Lists and maps are nil when absent.
type Skill struct {
	// Name is the NFKC-normalized, trimmed name, so that two spellings of
	// one name are one skill.
	Name          string            `json:"name"`
	Description   string            `json:"description"`
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	// AllowedTools are the tools the skill may use, from a string split on
	// spaces and commas (outside parentheses, so "Bash(git add:*)" is one
	// tool) or from a YAML list.
	AllowedTools    []string `json:"allowedTools,omitempty"`
	DisallowedTools []string `json:"disallowedTools,omitempty"`

	Version string `json:"version,omitempty"`
	Author  string `json:"author,omitempty"`

	// DisableModelInvocation hides the skill from the model's catalog; the
	// user can still invoke it.
	DisableModelInvocation bool `json:"disableModelInvocation"`
	// UserInvocable is whether the user may invoke the skill by name
	// (/skill:name); true unless the frontmatter says false.
	UserInvocable bool     `json:"userInvocable"`
	ArgumentHint  string   `json:"argumentHint,omitempty"`
	Arguments     []string `json:"arguments,omitempty"`
	WhenToUse     string   `json:"whenToUse,omitempty"`
	Model         string   `json:"model,omitempty"`
	Effort        string   `json:"effort,omitempty"`
	Context       string   `json:"context,omitempty"`
	Agent         string   `json:"agent,omitempty"`
	Shell         string   `json:"shell,omitempty"`
	// Hooks is kept as written: maps, lists, strings, numbers, booleans
	// and nil, all JSON-encodable.
	Hooks any      `json:"hooks,omitempty"`
	Paths []string `json:"paths,omitempty"`

	// Routing hints.
	Triggers     []string `json:"triggers,omitempty"`
	AntiTriggers []string `json:"antiTriggers,omitempty"`
	// CostHint is "low", "medium" (the default) or "high".
	CostHint     string `json:"costHint"`
	Always       bool   `json:"always"`
	ParallelSafe bool   `json:"parallelSafe"`

	ToolDependencies  []string `json:"toolDependencies,omitempty"`
	MCPDependencies   []string `json:"mcpDependencies,omitempty"`
	SkillDependencies []string `json:"skillDependencies,omitempty"`

	// Prerequisites, Permissions and Entrypoints come from skill.yaml's
	// execution model and are kept as written, like Hooks.
	Prerequisites any `json:"prerequisites,omitempty"`
	Permissions   any `json:"permissions,omitempty"`
	Entrypoints   any `json:"entrypoints,omitempty"`

	// Body is the Markdown after the frontmatter, trimmed.
	Body string `json:"-"`
}

// Parse reads a SKILL.md. It returns the skill and every problem found; the
// skill is nil when any diagnostic is an error, so a caller loading skills
// skips it. Parse never panics, whatever the input.
func Parse(skillMD []byte, opts Options) (*Skill, []Diagnostic) {
	s, diags := Read(skillMD, opts)
	if HasErrors(diags) {
		return nil, diags
	}
	return s, diags
}

// Read is Parse for a caller that reports a skill rather than loading it:
// the skill is returned as far as it was read even when a diagnostic is
// an error (so that a broken skill can still be named), and is nil only
// when SKILL.md has no frontmatter mapping to read. A skill with errors
// must not be loaded.
func Read(skillMD []byte, opts Options) (*Skill, []Diagnostic) {
	p := &parser{
		decoder: decoder{mode: opts.Mode, budget: rawBudget, badType: map[string]bool{}, keyLines: map[string]int{}},
		given:   map[string]string{},
		set:     map[string]bool{},
	}
	s := p.parse(skillMD, opts)
	return s, mergeDiagnostics(p.diags)
}

// Bounds on the diagnostics of one skill: a frontmatter of 20,000 unknown
// keys would otherwise make as many diagnostics, stored in the skill's
// record and copied on every list. Codes are a fixed set, so the merged
// ones that follow the kept ones are few.
const (
	maxDiagnosticsPerCode = 5
	maxDiagnostics        = 80
)

// mergeDiagnostics keeps, in order, the first diagnostics of each code
// and at most maxDiagnostics of them, and for each code with more adds one
// "diagnostics-merged" diagnostic (Field: the code) that counts them, as
// severe as the worst of them, so that HasErrors says the same.
func mergeDiagnostics(diags []Diagnostic) []Diagnostic {
	if len(diags) <= maxDiagnosticsPerCode {
		return diags
	}
	seen := map[string]int{}
	type left struct {
		n   int
		sev Severity
	}
	omitted := map[string]*left{}
	var order []string
	kept := make([]Diagnostic, 0, min(len(diags), maxDiagnostics))
	for _, d := range diags {
		if seen[d.Code] < maxDiagnosticsPerCode && len(kept) < maxDiagnostics {
			seen[d.Code]++
			kept = append(kept, d)
			continue
		}
		o := omitted[d.Code]
		if o == nil {
			o = &left{sev: SeverityWarning}
			omitted[d.Code] = o
			order = append(order, d.Code)
		}
		o.n++
		if d.Severity == SeverityError {
			o.sev = SeverityError
		}
	}
	for _, code := range order {
		o := omitted[code]
		kept = append(kept, Diagnostic{Code: "diagnostics-merged", Severity: o.sev, Field: code,
			Message: fmt.Sprintf("%d more diagnostics like '%s' were left out.", o.n, code)})
	}
	return kept
}

// parser collects diagnostics while reading one skill.
type parser struct {
	decoder
	// given maps the canonical keys SKILL.md has to their spelling there.
	given map[string]string
	// set holds the canonical keys SKILL.md gave a non-empty value, which
	// skill.yaml must not override.
	set map[string]bool
}

func (p *parser) parse(src []byte, opts Options) *Skill {
	fm, d := splitFrontmatter(src)
	if d != nil {
		p.diags = append(p.diags, *d)
		return nil
	}
	// Lines of the YAML text are counted from the one after the opening
	// delimiter (which a byte order mark does not move).
	p.yamlLine = 1 + bytes.Count(src[:fm.start], []byte("\n"))
	root, repaired, err := parseYAML(fm.yaml, opts.Mode == Lenient)
	var tooLarge errTooLarge
	switch {
	case errors.As(err, &tooLarge):
		p.add("frontmatter-too-large", SeverityError, "", "The frontmatter is %d bytes; at most %d are read (real frontmatter is a few KB).", int(tooLarge), MaxFrontmatter)
		return nil
	case err != nil:
		msg := yamlMessage(err)
		if n := yamlErrorLine(err); n > 0 {
			// Name the line of SKILL.md, not of the frontmatter's text.
			p.line = p.yamlLine + n - 1
			if rest, ok := strings.CutPrefix(msg, fmt.Sprintf("line %d: ", n)); ok {
				p.add("yaml-invalid", SeverityError, "", "The frontmatter is not valid YAML at line %d of SKILL.md: %s.", p.line, rest)
				return nil
			}
		}
		p.add("yaml-invalid", SeverityError, "", "The frontmatter is not valid YAML: %s.", msg)
		return nil
	}
	p.noteKeyLines(root)
	for _, key := range repaired {
		p.add("yaml-unquoted-colon", SeverityWarning, key,
			"The value of '%s' contains ': ' and was read as one string; quote it so every YAML parser reads it.", key)
	}
	if root != nil && root.Kind != yamlMapping {
		p.add("frontmatter-not-mapping", SeverityError, "", "The frontmatter must be a YAML mapping of keys to values, not a %s.", kindName(root))
		return nil
	}
	s := &Skill{UserInvocable: true, CostHint: costMedium, Body: pyStrip(string(fm.body))}
	p.decodeFrontmatter(root, s)
	if opts.Mode == Strict {
		// The specification knows no skill.yaml: SKILL.md must stand alone.
		p.validate(s, opts)
		p.merge(s, opts.SkillYAML)
	} else {
		p.merge(s, opts.SkillYAML)
		p.validate(s, opts)
	}
	return s
}

// add records a diagnostic. One about SKILL.md is placed at d.line when
// set, else at its field's key, else (a field not written) at the opening
// delimiter.
func (d *decoder) add(code string, sev Severity, field, format string, args ...any) {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = skillerr.Clip(s) // a name, a key or a value SKILL.md wrote
		}
	}
	diag := Diagnostic{Code: code, Severity: sev, Field: field, Message: fmt.Sprintf(format, args...)}
	if !d.sidecar {
		diag.Line = d.line
		if diag.Line == 0 && field != "" {
			diag.Line = d.keyLines[canonicalKey(field)]
		}
		if diag.Line == 0 && field != "" {
			diag.Line = max(d.yamlLine-1, 1)
		}
	}
	d.diags = append(d.diags, diag)
}

// noteKeyLines records the SKILL.md line of each top-level key of root.
func (d *decoder) noteKeyLines(root *yaml.Node) {
	if root == nil || root.Kind != yamlMapping {
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Kind == yamlScalar {
			d.keyLines[canonicalKey(k.Value)] = d.yamlLine + k.Line - 1
		}
	}
}

// yamlErrorLine returns the line of the YAML text that a yaml.v3 syntax
// error names ("yaml: line 3: …"), 0 when it names none. yaml.v3 gives
// the line only in the error's text, and for some errors it is the line
// before the problem.
func yamlErrorLine(err error) int {
	rest, ok := strings.CutPrefix(err.Error(), "yaml: line ")
	if !ok {
		return 0
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
		if n > 1<<24 {
			return 0
		}
	}
	return n
}

// yamlMessage turns a yaml.v3 error into a clause: without its "yaml: "
// prefix and trailing punctuation, on one line.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.Join(strings.Fields(msg), " ")
	return strings.TrimRight(msg, ".")
}
