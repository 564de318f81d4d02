// Package toolrule decides whether an allowed-tools pattern admits a tool
// call: which tool the pattern names, and whether its specifier admits the
// call's input — a path, a URL, or a shell command line, which is parsed
// with a real shell parser (mvdan.cc/sh) and decided on its syntax tree.
// docs/architecture.md explains where tool rules sit among sessions and
// their tool policies, and what a pattern admits and why (Tool patterns).
package toolrule

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"mvdan.cc/sh/v3/syntax"
)

// Reasons carried by the ToolNotAllowed errors of Check.
const (
	// ReasonToolNotListed: no allowed-tools pattern names the tool.
	ReasonToolNotListed = "tool-not-listed"
	// ReasonInputNotMatched: patterns name the tool, but none admits the
	// call's input.
	ReasonInputNotMatched = "input-not-matched"
	// ReasonCommandSubstitution: the command has $(…), `…`, <(…) or >(…),
	// whose inner command no pattern can vet.
	ReasonCommandSubstitution = "command-substitution"
	// ReasonUnsupportedShell: the command has shell syntax that the
	// checker does not model and that could run something no pattern
	// vets (expansions other than a plain $name or ${name}, arithmetic,
	// a here-document with $ in it and an unquoted delimiter, control
	// structures, functions, assignments…), or that does not parse.
	ReasonUnsupportedShell = "unsupported-shell-syntax"
	// ReasonInputTooLong: the call's input is longer than MaxInput, and
	// none of it is read.
	ReasonInputTooLong = "input-too-long"
	// ReasonRedirection: the command redirects to or from a file that no
	// pattern lists: a Write or Edit path pattern for output, a Read one
	// for input (/dev/null and descriptor copies such as 2>&1 are free).
	ReasonRedirection = "redirection"
	// ReasonPrefixNotAtEnd: patterns name the tool, but none admits the
	// call's input, and one of them has ":*" before its end, which admits
	// nothing (see commandSpec): most likely the one meant to admit it.
	ReasonPrefixNotAtEnd = "prefix-not-at-end"
)

// MaxInput bounds, in bytes, the input that Check reads when patterns vet
// it: a longer one is refused with ReasonInputTooLong before any of it is
// parsed or matched, so that what an agent sends costs at most time
// linear in MaxInput (times the patterns), and nests no deeper than the
// browser's call stack takes (see MaxNesting). A command line with a
// file's text in it (a here-document, a long commit message) fits. A path is bounded by MaxPath.
const MaxInput = 24 << 10

// MaxPath bounds, as MaxInput does, the input of a tool whose input is a
// path (see fileTool): 4 KB, Linux's PATH_MAX. Matching a path costs the
// specifier's length times the path's, where a command line's cost is
// linear in its length.
const MaxPath = 4 << 10

// inputLimit is the most of name's input that Check reads.
func inputLimit(name string) int {
	if fileTool(name) {
		return MaxPath
	}
	return MaxInput
}

// TooLong stands, in CheckInput's input, for a string the caller did not
// pass because it is longer than the caller's own limit (js/bridge.ts
// sends no string over an agent call's limit, pkg/callargs): a vetted
// field given so is refused with ReasonInputTooLong, saying the limit,
// rather than as a field missing.
type TooLong struct {
	// Bytes is the string's length, Limit the caller's, in bytes.
	Bytes, Limit int
}

// DecodeInput decodes raw, the JSON text of name's structured input as a
// caller sends it, for CheckInput. A caller that does not pass a string
// longer than its own limit (limit bytes) sends {"tooLong": its length}
// in its place (js/bridge.ts's checkedInput, within an agent call's
// limits, pkg/callargs): a top-level value so becomes TooLong, which
// CheckInput refuses as too long to check, not as a field missing.
func DecodeInput(name string, raw []byte, limit int) (map[string]any, error) {
	var input map[string]any
	if err := json.Unmarshal(raw, &input); err != nil {
		return nil, skillerr.Wrap(skillerr.InvalidArgument, name, err, "the tool input is not a JSON object")
	}
	for k, v := range input {
		if m, ok := v.(map[string]any); ok {
			if n, ok := m["tooLong"].(float64); ok {
				input[k] = TooLong{Bytes: int(n), Limit: limit}
			}
		}
	}
	return input, nil
}

// tooLong refuses name's call whose field (the vetted one, or its base)
// was too long to pass: at most the smaller of the caller's limit and
// Check's could have been checked.
func tooLong(name, field string, t TooLong) error {
	return &skillerr.Error{Code: skillerr.ToolNotAllowed, Reason: ReasonInputTooLong, Subject: name,
		Msg: fmt.Sprintf("the call's %s is %d bytes, too long to check: the active skills' patterns for this tool are checked on at most %d", field, t.Bytes, min(t.Limit, inputLimit(name)))}
}

// MaxSpec bounds, in bytes, the specifiers that admit anything: a longer
// one (no real one comes near) admits nothing, and so does one that opens
// more than MaxNesting constructs, which the shell parser would descend
// into as it does into a command line's. Matching a path costs up to the
// specifier's length times the input's, so this and MaxInput bound what
// one check of a path costs.
const MaxSpec = 1 << 10

// MCPPrefix begins the names of MCP tools: mcp__server__tool.
const MCPPrefix = "mcp__"

// Rule is a parsed allowed-tools pattern.
type Rule struct {
	Source string // as written, for messages
	Tool   string
	Spec   string // the specifier in parentheses, "" when none
	Whole  bool   // no specifier, or "*": every call of the tool
}

// Parse parses patterns, dropping malformed ones such as "Bash(" or
// "Bash()".
func Parse(patterns []string) []Rule {
	rules := make([]Rule, 0, len(patterns))
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		open := strings.IndexByte(p, '(')
		if open < 0 {
			if p != "" {
				rules = append(rules, Rule{Source: p, Tool: p, Whole: true})
			}
			continue
		}
		spec, ok := strings.CutSuffix(p[open+1:], ")")
		if spec = strings.TrimSpace(spec); open == 0 || !ok || spec == "" {
			continue
		}
		rules = append(rules, Rule{Source: p, Tool: strings.TrimSpace(p[:open]), Spec: spec, Whole: spec == "*"})
	}
	return rules
}

// Names reports whether the rule is about the tool: the same name, or a
// tool of the MCP server the rule names ("mcp__github", "mcp__github__*").
func (r Rule) Names(tool string) bool {
	if r.Tool == tool {
		return true
	}
	server, ok := strings.CutPrefix(r.Tool, MCPPrefix)
	if !ok {
		return false
	}
	server = strings.TrimSuffix(server, "__*")
	return server != "" && !strings.Contains(server, "__") && strings.HasPrefix(tool, MCPPrefix+server+"__")
}

// Check returns nil when the allowedTools patterns admit a call of the
// tool name with input, and otherwise a ToolNotAllowed error whose Reason
// is one of the Reason constants and whose Subject is name.
//
// A pattern is a tool name, alone or with a specifier in parentheses:
//
//	Bash                    every call of Bash; so does Bash(*)
//	mcp__github             every tool of the MCP server github; so does mcp__github__*
//	mcp__github__get_issue  that tool
//	Bash(npm run test)      exactly that command (words as written, quotes included)
//	Bash(git:*)             git alone or followed by more words: "git status", not "gitx"
//	Bash(git *)             the same
//	Bash(npm * --fix)       * matches anything
//	Bash(git log * --oneline:*)  * matches anything in a prefix too
//	Read(./docs/**)         a path: * within a segment, ** any number of segments
//	WebFetch(domain:example.com)    a URL on that host; domain:*.example.com for its subdomains
//
// "domain:" means a URL. Every other specifier of a tool whose input is
// a path (Read, Write, Edit, Glob…: see fileTool) means a path, and so
// does, for any tool but Bash, one without blanks that contains "/" and
// does not end in ":*" (cleaned, so "./a" is "a"; a leading "/" is
// absolute; one without "/", such as Read(*.md), matches at any depth
// below, as in a .gitignore). A path's wildcards never match
// ;&|`$<>\:{}, a newline or a NUL, and a path that climbs out of where
// it starts ("../x"), or starts at the root or a home directory when the
// specifier does not, matches nothing.
//
// Anything else means a shell command line, parsed as bash parses it (see
// commands): every simple command in it must be admitted by some pattern,
// so that Bash(git:*) does not let "git status; rm -rf ~" through, and
// anything the checker does not model is refused, and, unparsed, one
// deeper than MaxNesting (quoted text, which nests nothing, aside). A *
// in the program's name or in a word (./scripts/*, *.md) stands for no
// "..", quote, escape, expansion, glob or brace (see
// commandPattern.matches); a quoted or escaped one is text. Any input
// longer than MaxInput (a path: MaxPath) is refused unread.
//
// A specifier that depends on what a shell would expand admits nothing,
// and the tool stays named: a command one whose words hold a parameter
// ($HOME, $1, $@…), a tilde or a glob (see commandSpec), a path or domain
// one that holds $… or `…` (see expands); so does one longer than MaxSpec.
//
// A relative path specifier is relative to the agent's working directory:
// dir, absolute and clean (CheckDir), when the host says which it is, and
// "" when not. With dir, an absolute path below it (a redirection's target
// too) is matched as the path relative to it, and one outside it matches
// no relative specifier; without, a relative specifier matches only a
// relative path. Specifiers from / or ~ match as they do without dir.
// docs/architecture.md (Tool patterns) says why.
func Check(allowedTools []string, name, input, dir string) error {
	rules := Parse(allowedTools)
	var named []Rule
	for _, r := range rules {
		if !r.Names(name) {
			continue
		}
		if r.Whole {
			return nil
		}
		named = append(named, r)
	}
	if len(named) == 0 {
		return notListed(name)
	}
	if limit := inputLimit(name); len(input) > limit {
		return &skillerr.Error{Code: skillerr.ToolNotAllowed, Reason: ReasonInputTooLong, Subject: name,
			Msg: fmt.Sprintf("the input is %d bytes; the active skills' patterns for this tool read at most %d", len(input), limit)}
	}
	reason, what, dead, misplaced := inputAllowed(name, named, rules, input, dir)
	if reason == "" {
		return nil
	}
	if reason == ReasonInputNotMatched && len(misplaced) > 0 {
		reason = ReasonPrefixNotAtEnd
	}
	var live []string
	relative := false // a live path pattern is relative, where input is not
	for _, r := range named {
		if !slices.Contains(dead, r.Source) && !slices.Contains(misplaced, r.Source) {
			live = append(live, r.Source)
			relative = relative || isPathSpec(name, r.Spec) && !rooted(r.Spec) && rooted(input)
		}
	}
	msg := "the active skills allow this tool only as " + skillerr.Clip(strings.Join(live, ", "))
	if len(live) == 0 {
		msg = "the active skills name this tool, but none of their patterns for it admits anything"
	}
	switch _, in := below(dir, path.Clean(input)); {
	case !relative:
	case dir == "":
		msg += "; a relative pattern is relative to the working directory, which skillfs is not told, " +
			"and admits a path only as relative to it, never one from / or ~"
	case strings.HasPrefix(input, "~"):
		msg += "; a relative pattern is relative to the working directory " + skillerr.Clip(dir) + ", never to ~"
	case !in:
		msg += "; a relative pattern is relative to the working directory " + skillerr.Clip(dir) + ", and the path is outside it"
	}
	if len(dead) == 1 {
		msg += "; " + skillerr.Clip(dead[0]) + " admits nothing: it depends on what a shell would expand, or is too long or deep to read"
	} else if len(dead) > 1 {
		msg += "; " + skillerr.Clip(strings.Join(dead, ", ")) + " admit nothing: they depend on what a shell would expand, or are too long or deep to read"
	}
	if len(misplaced) > 0 {
		admit := " admits nothing"
		if len(misplaced) > 1 {
			admit = " admit nothing"
		}
		msg += "; " + skillerr.Clip(strings.Join(misplaced, ", ")) + admit + `: ":*" stands for "and anything after it" only at the end of a pattern; ` +
			"elsewhere write * alone: Bash(git * push), not Bash(git:* push)"
	}
	if what != "" {
		msg = "the command has " + what + ", which no allowed-tools pattern vets; " + msg
	}
	return &skillerr.Error{Code: skillerr.ToolNotAllowed, Reason: reason, Subject: name, Msg: msg}
}

func notListed(name string) error {
	return &skillerr.Error{Code: skillerr.ToolNotAllowed, Reason: ReasonToolNotListed, Subject: name,
		Msg: "the active skills do not allow this tool"}
}

// inputAllowed returns "" when one of the patterns named admits input,
// and otherwise the reason for refusing it, for a command line what in it
// was refused, and the patterns (as written) that admit nothing at all:
// those with ":*" before their end (misplaced), and the others (dead).
// name is the tool; rules are all the patterns in force, for the paths a
// command may redirect to.
func inputAllowed(name string, named, rules []Rule, input, dir string) (reason, what string, dead, misplaced []string) {
	var commandSpecs []commandPattern
	for _, r := range named {
		spec := r.Spec
		switch {
		case tooBig(spec):
			dead = append(dead, r.Source)
		case strings.HasPrefix(spec, "domain:"):
			if expands(spec) {
				dead = append(dead, r.Source)
			} else if domainMatches(spec[len("domain:"):], input) {
				return "", "", nil, nil
			}
		case isPathSpec(name, spec):
			if expands(spec) {
				dead = append(dead, r.Source)
			} else if pathMatches(spec, input, dir) {
				return "", "", nil, nil
			}
		default:
			switch c, err := commandSpec(spec); err {
			case nil:
				commandSpecs = append(commandSpecs, c)
			case errPrefixNotAtEnd:
				misplaced = append(misplaced, r.Source)
			default:
				dead = append(dead, r.Source)
			}
		}
	}
	if len(commandSpecs) == 0 {
		return ReasonInputNotMatched, "", dead, misplaced
	}
	cmds, refused := commands(input, redirectionRules(rules, dir))
	if refused != nil {
		return refused.reason, refused.what, dead, misplaced
	}
	if len(cmds) == 0 {
		return ReasonInputNotMatched, "", dead, misplaced
	}
	for _, c := range cmds {
		if !anyCommandMatches(commandSpecs, c) {
			return ReasonInputNotMatched, "", dead, misplaced
		}
	}
	return "", "", nil, nil
}

// expands reports whether a path or domain specifier holds what a shell
// would expand — $name, ${…}, $1, $(…), `…`, $((…)) — read as a shell
// reads a here-document, where quotes are plain characters: a placeholder
// its host was meant to put a value in place of, such as Claude Code's
// ${CLAUDE_PLUGIN_ROOT} (the directory of the plugin a skill came in,
// which skillfs does not install), left as written. Such a specifier
// admits nothing: it names no path of its own, and a command's
// redirection that writes the placeholder goes where the shell's
// environment says. Command specifiers are read by commandSpec.
func expands(spec string) bool {
	w, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(spec))
	if err != nil {
		return true
	}
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			return true
		}
	}
	return false
}

// tooBig reports whether spec is beyond MaxSpec or MaxNesting.
func tooBig(spec string) bool { return len(spec) > MaxSpec || openings(spec) > MaxNesting }

// redirectionRules collects the path specifiers a command's redirections
// may use: those of Write and Edit patterns for output, of Read for input;
// relative ones are relative to dir (see Check).
func redirectionRules(rules []Rule, dir string) (places places) {
	places.dir = dir
	for _, r := range rules {
		if r.Whole || tooBig(r.Spec) || !isPathSpec(r.Tool, r.Spec) || expands(r.Spec) {
			continue
		}
		switch r.Tool {
		case "Write", "Edit", "MultiEdit":
			places.write = append(places.write, r.Spec)
		case "Read":
			places.read = append(places.read, r.Spec)
		}
	}
	return places
}

// Reasons for structured input (CheckInput), beside those of Check.
const (
	// ReasonNoInputField: patterns vet the tool's input, but no field of
	// its input is known to hold what they vet; tell CheckInput which one.
	ReasonNoInputField = "input-field-unknown"
	// ReasonInputFieldMissing: the field the patterns vet is absent from
	// the call's input, or is not a string.
	ReasonInputFieldMissing = "input-field-missing"
)

// DefaultFields name, for the tools agents commonly have, the field of a
// call's structured input that allowed-tools specifiers are about.
var DefaultFields = map[string]string{
	"Bash":         "command",
	"Read":         "file_path",
	"Write":        "file_path",
	"Edit":         "file_path",
	"MultiEdit":    "file_path",
	"NotebookRead": "notebook_path",
	"NotebookEdit": "notebook_path",
	"Glob":         "pattern",
	"Grep":         "path",
	"LS":           "path",
	"WebFetch":     "url",
	"WebSearch":    "query",
}

// optionalFields name, for the tools whose DefaultFields field a call
// may leave out, what its absence means: Grep without a path searches the
// current directory, so Grep(./**) admits it and Grep(src/**) does not.
var optionalFields = map[string]string{"Grep": "."}

// baseFields name, for the tools whose DefaultFields field is relative to
// another field of their input, that other field: Glob matches its
// pattern below its path (the current directory when there is none), so
// that Glob(src/**) must not admit {pattern: "src/**", path: "/"}.
var baseFields = map[string]string{"Glob": "path"}

// CheckInput is Check for a call whose input is structured, as agent
// frameworks pass it: the patterns' specifiers are checked against the
// input's field that fields (else DefaultFields) names for the tool;
// the DefaultFields one below the tool's baseFields field when the input
// has one and the vetted field is not absolute. A tool the patterns name whole needs no field; otherwise an
// unknown field (ReasonNoInputField) or one absent or not a string in
// input (ReasonInputFieldMissing), or one the caller could not pass
// (TooLong: ReasonInputTooLong), is a refusal, never an empty input,
// but for a field the tool may leave out (optionalFields); so is a base
// field given as anything but a string or null. Only top-level string
// values are read. dir is the
// working directory, as Check takes it.
func CheckInput(allowedTools []string, name string, input map[string]any, fields map[string]string, dir string) error {
	named := false
	for _, r := range Parse(allowedTools) {
		if r.Names(name) {
			if r.Whole {
				return nil
			}
			named = true
		}
	}
	if !named {
		return notListed(name)
	}
	field, known := fields[name]
	if !known {
		field = DefaultFields[name]
	}
	if t, ok := input[field].(TooLong); ok && field != "" {
		return tooLong(name, field, t)
	}
	value, ok := input[field].(string)
	if dflt, optional := optionalFields[name]; optional && field == DefaultFields[name] && input[field] == nil {
		value, ok = dflt, true
	}
	switch {
	case field == "":
		return &skillerr.Error{Code: skillerr.ToolNotAllowed, Reason: ReasonNoInputField, Subject: name,
			Msg: "the active skills vet this tool's input, but which field of it holds what they vet is not known; name it in the field map"}
	case !ok:
		return &skillerr.Error{Code: skillerr.ToolNotAllowed, Reason: ReasonInputFieldMissing, Subject: name,
			Msg: "the active skills vet this tool's " + field + ", which the call does not give as a string"}
	}
	if bf := baseFields[name]; bf != "" && field == DefaultFields[name] {
		base, ok := input[bf].(string)
		if t, long := input[bf].(TooLong); long {
			return tooLong(name, bf, t)
		}
		if !ok && input[bf] != nil {
			// Read as no base, it would admit the pattern below any
			// directory; a caller that cannot pass it (js/bridge.ts, for
			// a string over the port's limit) passes a non-string.
			return &skillerr.Error{Code: skillerr.ToolNotAllowed, Reason: ReasonInputFieldMissing, Subject: name,
				Msg: "the active skills vet this tool's " + field + " below its " + bf + ", which the call does not give as a string"}
		}
		if ok && base != "" && !path.IsAbs(value) && !strings.HasPrefix(value, "~") {
			value = base + "/" + value
		}
	}
	return Check(allowedTools, name, value, dir)
}

// ReasonWorkingDirectory (InvalidArgument): a working directory that
// CheckDir refuses.
const ReasonWorkingDirectory = "working-directory"

// CheckDir returns nil when dir may be the working directory Check takes:
// "" (not known), or an absolute, clean path (as path.Clean leaves it) of
// at most MaxPath bytes without a NUL; otherwise an InvalidArgument error.
// Check compares paths with it as text, so "/a/./b" or "/a/" would never
// hold what they name.
func CheckDir(dir string) error {
	why := ""
	switch {
	case dir == "":
		return nil
	case len(dir) > MaxPath:
		why = fmt.Sprintf("is %d bytes; at most %d are accepted", len(dir), MaxPath)
	case !path.IsAbs(dir):
		why = "is not an absolute path (one from /)"
	case strings.ContainsRune(dir, 0):
		why = "holds a NUL"
	case path.Clean(dir) != dir:
		why = "is not clean: write it as " + skillerr.Clip(path.Clean(dir))
	default:
		return nil
	}
	return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonWorkingDirectory, Subject: "workingDirectory",
		Msg: "the working directory " + skillerr.Clip(dir) + " " + why}
}
