package resolver

import (
	"slices"

	"github.com/skillfs/skillfs/pkg/toolrule"
)

// ReasonToolNotActive (sessions only), beside toolrule's reasons: the
// tool is not among those ActiveTools offers this turn — not in
// SessionOptions.AvailableTools, a tool only skills not yet activated
// depend on, or a tool of an MCP server that no activated skill depends
// on.
const ReasonToolNotActive = "tool-not-active"

// ToolPolicy says which tool calls a turn allows.
type ToolPolicy struct {
	// Restricted is false when no active skill declares allowed-tools;
	// the policy admits every call then (a session still allows only the
	// tools its ActiveTools offers).
	Restricted bool
	// Rules are the allowed-tools patterns in force when Restricted, in
	// order, without duplicates.
	Rules []string
	// WorkingDir is the agent's working directory, which relative path
	// patterns are relative to ("" when the host did not say: see
	// toolrule.Check).
	WorkingDir string
}

// NewToolPolicy returns the tool policy of a turn. activated are the
// skills activated so far plus their skill-dependency closure; base are
// tools the host always keeps.
//
// When any activated skill declares allowed-tools the policy is
// restricted to the union of the activated skills' allowed-tools (each
// with its skill's directory in place of the placeholders for it:
// Skill.inDir) and tool dependencies, the tools of the MCP servers they
// depend on (as "mcp__server", which admits every tool of that server, as
// dependencies come in once a skill is activated) and the base tools.
// Otherwise nothing is restricted: a skill that says nothing about tools
// does not take any away.
func NewToolPolicy(activated []Skill, base []string) ToolPolicy {
	if !slices.ContainsFunc(activated, func(s Skill) bool { return len(s.AllowedTools) > 0 }) {
		return ToolPolicy{}
	}
	var rules []string
	for _, s := range activated {
		for _, r := range s.AllowedTools {
			rules = append(rules, s.inDir(r))
		}
		rules = append(rules, s.ToolDeps...)
		for _, server := range s.MCPDeps {
			rules = append(rules, toolrule.MCPPrefix+server)
		}
	}
	rules = append(rules, base...)
	return ToolPolicy{Restricted: true, Rules: dedupe(rules)}
}

// Check returns nil when the policy allows calling the tool name with
// input, and otherwise toolrule.Check's error.
func (p ToolPolicy) Check(name, input string) error {
	if !p.Restricted {
		return nil
	}
	return toolrule.Check(p.Rules, name, input, p.WorkingDir)
}

// CheckInput is Check for structured input (see toolrule.CheckInput).
func (p ToolPolicy) CheckInput(name string, input map[string]any, fields map[string]string) error {
	if !p.Restricted {
		return nil
	}
	return toolrule.CheckInput(p.Rules, name, input, fields, p.WorkingDir)
}

// ActiveTools returns the tools of available that a turn may offer the
// model, in available's order: when the policy of
// NewToolPolicy(activated, base) is not restricted, every one but those
// only a dormant skill needs, and otherwise those one of its rules names;
// "Bash(git:*)" names Bash, and each call is then vetted by
// ToolPolicy.Check (see toolrule.Check).
//
// visible are the skills the session sees. A tool that some visible
// skill names as a tool dependency, and that neither an activated skill
// nor base names, is dormant: following seed 002's stage 3 it is offered
// only once a skill that declares it is activated.
func ActiveTools(activated, visible []Skill, available, base []string) []string {
	p := NewToolPolicy(activated, base)
	if !p.Restricted {
		dormant := map[string]bool{}
		for _, s := range visible {
			for _, t := range s.ToolDeps {
				dormant[t] = true
			}
		}
		for _, s := range activated {
			for _, t := range s.ToolDeps {
				delete(dormant, t)
			}
		}
		for _, t := range base {
			delete(dormant, t)
		}
		active := []string{}
		for _, tool := range available {
			if !dormant[tool] {
				active = append(active, tool)
			}
		}
		return active
	}
	rules := toolrule.Parse(p.Rules)
	active := []string{}
	for _, tool := range available {
		if slices.ContainsFunc(rules, func(r toolrule.Rule) bool { return r.Names(tool) }) {
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
