package resolver

import (
	"slices"
	"strings"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// Reasons carried by the ToolNotAllowed errors of CheckTool.
const (
	// ReasonToolNotListed: no allowed-tools pattern names the tool.
	ReasonToolNotListed = "tool-not-listed"
	// ReasonInputNotMatched: patterns name the tool, but none admits the
	// call's input.
	ReasonInputNotMatched = "input-not-matched"
	// ReasonCommandSubstitution: the command has $(…), `…`, <(…) or >(…),
	// whose inner command no pattern can vet.
	ReasonCommandSubstitution = "command-substitution"
	// ReasonUnsupportedShell: the command has shell syntax that could
	// hide a second command and that the command splitter does not
	// model (here-documents, $'…' quotes, line continuations, subshells,
	// { …; } groups, unterminated quotes…), so no pattern can vet it.
	ReasonUnsupportedShell = "unsupported-shell-syntax"
	// ReasonToolNotActive (sessions only): the tool is not among those
	// ActiveTools offers this turn — not in SessionOptions.AvailableTools,
	// or a tool of an MCP server that no activated skill depends on.
	ReasonToolNotActive = "tool-not-active"
)

// ToolPolicy says which tool calls a turn allows.
type ToolPolicy struct {
	// Restricted is false when no active skill declares allowed-tools;
	// the policy admits every call then (a session still allows only the
	// tools its ActiveTools offers).
	Restricted bool
	// Rules are the allowed-tools patterns in force when Restricted, in
	// order, without duplicates.
	Rules []string
}

// NewToolPolicy returns the tool policy of a turn. activated are the
// skills activated so far plus their skill-dependency closure; base are
// tools the host always keeps.
//
// As in seed 001, when any activated skill declares allowed-tools the
// policy is restricted to the union of the activated skills'
// allowed-tools and tool dependencies, the tools of the MCP servers they
// depend on (as "mcp__server", which admits every tool of that server, as
// seed 002 injects dependencies once a skill is activated) and the base
// tools. Otherwise nothing is restricted: a skill that says nothing about
// tools does not take any away.
func NewToolPolicy(activated []Skill, base []string) ToolPolicy {
	if !slices.ContainsFunc(activated, func(s Skill) bool { return len(s.AllowedTools) > 0 }) {
		return ToolPolicy{}
	}
	var rules []string
	for _, s := range activated {
		rules = append(rules, s.AllowedTools...)
		rules = append(rules, s.ToolDeps...)
		for _, server := range s.MCPDeps {
			rules = append(rules, mcpPrefix+server)
		}
	}
	rules = append(rules, base...)
	return ToolPolicy{Restricted: true, Rules: dedupe(rules)}
}

// Check returns nil when the policy allows calling the tool name with
// input, and otherwise CheckTool's error.
func (p ToolPolicy) Check(name, input string) error {
	if !p.Restricted {
		return nil
	}
	return CheckTool(p.Rules, name, input)
}

// ActiveTools returns the tools of available that a turn may offer the
// model, in available's order: every one when the policy of
// NewToolPolicy(activated, base) is not restricted, and otherwise those
// one of its rules names; "Bash(git:*)" names Bash, and each call is then
// vetted by ToolPolicy.Check.
func ActiveTools(activated []Skill, available, base []string) []string {
	p := NewToolPolicy(activated, base)
	if !p.Restricted {
		return append([]string{}, available...)
	}
	rules := parseToolRules(p.Rules)
	active := []string{}
	for _, tool := range available {
		if slices.ContainsFunc(rules, func(r toolRule) bool { return r.names(tool) }) {
			active = append(active, tool)
		}
	}
	return active
}

// ActiveMCP returns the servers, in their order, that an activated skill
// depends on. With no such skill it returns none, not all: following seed
// 002, MCP servers are injected only once a skill that needs them is
// activated, so that unused servers cost nothing. Servers a host always
// wants belong outside the skill system.
func ActiveMCP(activated []Skill, servers []string) []string {
	active := []string{}
	for _, server := range servers {
		if slices.ContainsFunc(activated, func(s Skill) bool { return slices.Contains(s.MCPDeps, server) }) {
			active = append(active, server)
		}
	}
	return active
}

// CheckTool returns nil when the allowedTools patterns admit a call of the
// tool name with input, and otherwise a ToolNotAllowed error whose Reason
// is ReasonToolNotListed, ReasonInputNotMatched, ReasonCommandSubstitution
// or ReasonUnsupportedShell, and whose Subject is name.
//
// A pattern is a tool name, alone or with a specifier in parentheses:
//
//	Bash                    every call of Bash; so does Bash(*)
//	mcp__github             every tool of the MCP server github; so does mcp__github__*
//	mcp__github__get_issue  that tool
//	Bash(npm run test)      exactly that command (runs of blanks count as one)
//	Bash(git:*)             git alone or followed by a blank: "git status", not "gitx"
//	Bash(git *)             the same
//	Bash(npm * --fix)       * matches anything
//	Read(./docs/**)         a path: * within a segment, ** any number of segments
//	WebFetch(domain:example.com)    a URL on that host; domain:*.example.com for its subdomains
//
// The specifier's shape decides how input is read, whatever the tool:
// "domain:" means a URL; a specifier without blanks that contains "/" and
// does not end in ":*" means a path (cleaned, so "./a" is "a"; a leading
// "/" is absolute); anything else means a shell command line. A command
// line is read as bash and POSIX sh read it: it is split at unquoted ;,
// &, |, && and || (not the & of 2>&1) and newlines, words are separated
// by spaces and tabs only, and every part must be admitted by some
// pattern, so that Bash(git:*) does not let "git status; rm -rf ~"
// through. bash's "&>file" passes when nothing follows the file, which
// POSIX sh would run as a command. Comments (a # that begins a word, to
// the end of its line) are left out, and cannot hide the next line.
// $(…), `…`, <(…) and >(…) are refused (ReasonCommandSubstitution), and
// so is syntax the splitter does not model and that could hide a second
// command (ReasonUnsupportedShell): here-documents and here-strings (<<),
// $'…' and $[…], ${…} with quotes, escapes or expansions inside,
// backslash-newline continuations, parentheses, { …; } groups and
// unterminated quotes. Redirections stay part of a command. A path's
// wildcards never match ;&|`$<> or a newline, and a path that climbs out
// of where it starts ("../x") matches nothing. Malformed patterns, such as
// "Bash(" or "Bash()", admit nothing.
func CheckTool(allowedTools []string, name, input string) error {
	var specs, forms []string
	named := false
	for _, r := range parseToolRules(allowedTools) {
		if !r.names(name) {
			continue
		}
		if r.whole {
			return nil
		}
		named = true
		specs = append(specs, r.spec)
		forms = append(forms, r.source)
	}
	if !named {
		return &skillerr.Error{Code: skillerr.ToolNotAllowed, Reason: ReasonToolNotListed, Subject: name,
			Msg: "the active skills do not allow this tool"}
	}
	reason, what := inputAllowed(specs, input)
	if reason == "" {
		return nil
	}
	msg := "the active skills allow this tool only as " + strings.Join(forms, ", ")
	if what != "" {
		msg = "the command has " + what + ", which no allowed-tools pattern can vet; " + msg
	}
	return &skillerr.Error{Code: skillerr.ToolNotAllowed, Reason: reason, Subject: name, Msg: msg}
}

// IsToolAllowed reports whether CheckTool admits the call.
func IsToolAllowed(allowedTools []string, name, input string) bool {
	return CheckTool(allowedTools, name, input) == nil
}

// dedupe drops repeated strings, keeping the first of each.
func dedupe(s []string) []string {
	seen := make(map[string]bool, len(s))
	out := s[:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
