package skill

import (
	"slices"
	"strings"
)

// Prerequisite is something a skill needs from its host before it can
// run (skill.yaml's prerequisites; seed 004: a skill is available when
// all of them are satisfied). A browser host can provide tools and MCP
// servers, which it registers; those are the kinds routing checks.
type Prerequisite struct {
	Kind string `json:"kind"` // PrereqTool or PrereqMCP
	Name string `json:"name"`
}

// Kinds of Prerequisite.
const (
	PrereqTool = "tool"
	PrereqMCP  = "mcp"
)

// maxPrerequisites caps how many prerequisites a skill keeps; real skills
// list a handful.
const maxPrerequisites = 64

// prereqKinds maps the keys a prerequisite may be written with to its
// kind.
var prereqKinds = map[string]string{
	"tool": PrereqTool, "tools": PrereqTool,
	"mcp": PrereqMCP, "mcp-server": PrereqMCP, "mcp_server": PrereqMCP, "mcpserver": PrereqMCP, "mcp-servers": PrereqMCP, "mcp_servers": PrereqMCP,
}

// PrerequisitesOf returns the tool and MCP-server prerequisites in raw, a
// Skill's Prerequisites field, each once, in the order written (the keys
// of one mapping in sorted order). The field is read as skill.yaml writes it: a
// list whose items are a tool's name, or a mapping such as {tool: Read},
// {mcp: github} or {tools: [Read, Grep]}. Other kinds (a shell command,
// an environment variable) name nothing a browser host can provide or
// check, so they are left out rather than counted as missing.
func PrerequisitesOf(raw any) []Prerequisite {
	var out []Prerequisite
	add := func(kind string, v any) {
		var names []any
		switch v := v.(type) {
		case string:
			names = []any{v}
		case []any:
			names = v
		}
		for _, n := range names {
			name, ok := n.(string)
			p := Prerequisite{Kind: kind, Name: strings.TrimSpace(name)}
			if ok && p.Name != "" && len(out) < maxPrerequisites && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	items, ok := raw.([]any)
	if !ok {
		items = []any{raw}
	}
	for _, it := range items {
		switch it := it.(type) {
		case string:
			add(PrereqTool, it)
		case map[string]any:
			keys := make([]string, 0, len(it))
			for k := range it {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if kind, ok := prereqKinds[strings.ToLower(k)]; ok {
					add(kind, it[k])
				}
			}
		}
	}
	return out
}
