package resolver

import (
	"errors"
	"slices"
	"strings"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/toolrule"
)

// ToolSet is what a turn may offer the model.
type ToolSet struct {
	// Tools are names from SessionOptions.AvailableTools, unchanged and
	// in their order.
	Tools []string `json:"tools"`
	// MCPServers are the MCP servers the activated skills depend on.
	MCPServers []string `json:"mcpServers"`
}

// ToolDecision is IsToolAllowed's answer.
type ToolDecision struct {
	Allowed bool `json:"allowed"`
	// Reason is a stable token (toolrule.ReasonToolNotListed, …) when the
	// call is refused, and Message says why in words.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// activeSkills returns the activated skills and their skill-dependency
// closure within the snapshot: stage 3 starts from what was activated,
// never from what is merely visible.
// visible are the snapshot's skills, which stage 3 reads too.
func (s *Session) activeSkills() (active, visible []Skill, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, errSessionClosed(s.id)
	}
	return s.snap.closure(s.activated), s.snap.skills, nil
}

// ActiveTools returns the tools and MCP servers of the session's next
// turn (docs/architecture.md, Sessions). When an activated skill declares
// allowed-tools, the tools are the available ones that the activated
// skills' (and their dependencies') allowed-tools, tool dependencies and
// MCP dependencies name, plus the base tools; otherwise every available
// tool. MCP servers are those the activated skills depend on, among
// SessionOptions.MCPServers when the host listed them: none before a
// skill is activated.
//
// It only decides: the names come from the host's own list, unchanged,
// and the host runs the calls through its own routing.
func (s *Session) ActiveTools() (ToolSet, error) {
	active, visible, err := s.activeSkills()
	if err != nil {
		return ToolSet{}, err
	}
	return s.toolSet(active, visible), nil
}

// toolSet is ActiveTools over the skills active.
func (s *Session) toolSet(active, visible []Skill) ToolSet {
	set := ToolSet{Tools: ActiveTools(active, visible, s.available, s.base)}
	if s.mcp != nil {
		set.MCPServers = ActiveMCP(active, s.mcp)
	} else {
		set.MCPServers = []string{}
		for _, sk := range active {
			set.MCPServers = append(set.MCPServers, sk.MCPDeps...)
		}
		set.MCPServers = dedupe(set.MCPServers)
	}
	return set
}

// offers reports whether the turn offers the tool name: it is one of
// Tools, or a tool ("mcp__server__tool") of one of MCPServers.
func (ts ToolSet) offers(name string) bool {
	if slices.Contains(ts.Tools, name) {
		return true
	}
	rest, ok := strings.CutPrefix(name, toolrule.MCPPrefix)
	if !ok {
		return false
	}
	server, tool, ok := strings.Cut(rest, "__")
	return ok && server != "" && tool != "" && slices.Contains(ts.MCPServers, server)
}

// CheckTool returns nil when the session allows calling tool name with
// input, and otherwise a ToolNotAllowed error. A call is allowed only
// when ActiveTools offers the tool (ReasonToolNotActive otherwise) and,
// when an activated skill declares allowed-tools, toolrule.Check admits
// it over the session's tool policy (toolrule.ReasonToolNotListed,
// toolrule.ReasonInputNotMatched, …). It never runs the tool.
func (s *Session) CheckTool(name, input string) error {
	return s.checkTool(name, func(p ToolPolicy) error { return p.Check(name, input) })
}

// CheckToolInput is CheckTool for the structured input agent frameworks
// pass: the policy is checked on the field fields (else
// toolrule.DefaultFields) names for the tool (see toolrule.CheckInput).
func (s *Session) CheckToolInput(name string, input map[string]any, fields map[string]string) error {
	return s.checkTool(name, func(p ToolPolicy) error { return p.CheckInput(name, input, fields) })
}

func (s *Session) checkTool(name string, policy func(ToolPolicy) error) error {
	active, visible, err := s.activeSkills()
	if err != nil {
		return err
	}
	// The policy first: a restricted policy that does not name the tool
	// is why ActiveTools leaves it out, and says so more precisely.
	p := NewToolPolicy(active, s.base)
	p.WorkingDir = s.workingDir
	if err := policy(p); err != nil {
		return err
	}
	if !s.toolSet(active, visible).offers(name) {
		return &skillerr.Error{Code: skillerr.ToolNotAllowed, Reason: ReasonToolNotActive, Subject: name,
			Msg: "this tool is not offered this turn: the host did not list it as available, " +
				"or only a skill not yet activated needs it, " +
				"or it belongs to an MCP server that no activated skill depends on"}
	}
	return nil
}

// IsToolAllowed is CheckTool as a decision rather than an error.
func (s *Session) IsToolAllowed(name, input string) (ToolDecision, error) {
	return Decide(s.CheckTool(name, input))
}

// Decide turns a CheckTool or CheckToolInput error into a decision; an
// error that is no refusal is returned as it is.
func Decide(err error) (ToolDecision, error) {
	var e *skillerr.Error
	switch {
	case err == nil:
		return ToolDecision{Allowed: true}, nil
	case errors.As(err, &e) && e.Code == skillerr.ToolNotAllowed:
		return ToolDecision{Reason: e.Reason, Message: e.Msg}, nil
	}
	return ToolDecision{}, err
}
