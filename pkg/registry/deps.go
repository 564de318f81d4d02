package registry

import (
	"context"
	"fmt"
	"slices"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// RegisterTools tells the registry which tools the host has, replacing
// what it said before. SetDependencies checks tool dependencies against
// it. The list lives in memory, per registry.
func (r *Registry) RegisterTools(names []string) {
	r.mu.Lock()
	r.tools = append([]string{}, names...) // non-nil: registered, maybe empty
	r.mu.Unlock()
}

// RegisterMCPServers tells the registry which MCP servers the host has,
// like RegisterTools.
func (r *Registry) RegisterMCPServers(names []string) {
	r.mu.Lock()
	r.mcp = append([]string{}, names...)
	r.mu.Unlock()
}

// Registered returns the tools and MCP servers the host registered, for a
// UI to offer as dependencies; each is nil when the host has not said.
func (r *Registry) Registered() (tools, mcp []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.tools), slices.Clone(r.mcp)
}

// SetDependencies replaces the dependencies of skill id and returns its
// record. Every name must exist (see checkDependencies, the verdict an
// import and a save of SKILL.md get too).
func (r *Registry) SetDependencies(ctx context.Context, id string, deps Dependencies) (Meta, error) {
	deps = Dependencies{Tools: names(deps.Tools), MCP: names(deps.MCP), Skills: names(deps.Skills)}
	if err := r.checkDependencies(id, deps, func(string) bool { return true }); err != nil {
		return Meta{}, err
	}
	qs := []vfs.Query{metaQuery(id)}
	at := make(map[string]int, len(deps.Skills))
	for _, d := range deps.Skills {
		at[d] = len(qs)
		qs = append(qs, metaQuery(d))
	}
	var m Meta
	_, err := r.mutate(ctx, qs, func(read [][]vfs.Record) (*change, error) {
		var err error
		if m, err = installed(id, read[0]); err != nil {
			return nil, err
		}
		if err := r.checkDependencies(id, deps, func(d string) bool { return len(read[at[d]]) > 0 }); err != nil {
			return nil, err
		}
		if m.Dependencies.equal(deps) {
			return nil, nil
		}
		if err := checkNewDependencies(m, deps.Skills, read[1:]); err != nil {
			return nil, err
		}
		m.Dependencies, m.UpdatedAt = deps, r.now()
		op, err := metaOp(m)
		if err != nil {
			return nil, err
		}
		return &change{kind: KindDependencies, ids: []string{id}, ops: []vfs.Op{op}}, nil
	})
	if err != nil {
		return Meta{}, err
	}
	return m, nil
}

// checkDependencies is the one verdict on the dependencies skill id
// declares, whether SetDependencies sets them, an import brings them or a
// save of SKILL.md changes them (seed 002: a dependency must name
// something that exists): tools and MCP servers must have been registered
// with RegisterTools and RegisterMCPServers, and skills must be installed
// (installed says which are, the skills arriving in the same commit
// included) and not be id itself. Errors are InvalidArgument with Reason
// "unknown-tool", "unknown-mcp-server", "self-dependency",
// "unknown-skill", or "tools-not-registered" and "mcp-not-registered"
// when the host has not said what it has, since the names cannot be
// checked then.
func (r *Registry) checkDependencies(id string, deps Dependencies, installed func(string) bool) error {
	r.mu.Lock()
	tools, mcp := r.tools, r.mcp
	r.mu.Unlock()
	if err := checkRegistered(deps.Tools, tools, "tool", "registerTools", "tools-not-registered", "unknown-tool"); err != nil {
		return err
	}
	if err := checkRegistered(deps.MCP, mcp, "MCP server", "registerMcpServers", "mcp-not-registered", "unknown-mcp-server"); err != nil {
		return err
	}
	for _, d := range deps.Skills {
		switch {
		case d == id:
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "self-dependency", Subject: id,
				Msg: "a skill cannot depend on itself"}
		case !installed(d):
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "unknown-skill", Subject: d,
				Msg: fmt.Sprintf("'%s' depends on it, but no skill with this id is installed", id)}
		}
	}
	return nil
}

// checkRegistered checks that every name of want is in have, a list the
// host registered (nil when it did not). register names the bridge's
// method that registers them: the list lives in memory, so a host that
// forgot it on a load is told what to call.
func checkRegistered(want, have []string, what, register, notRegistered, unknown string) error {
	if len(want) == 0 {
		return nil
	}
	if have == nil {
		return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: notRegistered, Subject: want[0],
			Msg: fmt.Sprintf("the host has not registered its %ss, so %s dependencies cannot be checked: call registry.%s with the names of the host's %ss first (on every load: the list is kept in memory only)", what, what, register, what)}
	}
	for _, n := range want {
		if !slices.Contains(have, n) {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: unknown, Subject: n,
				Msg: fmt.Sprintf("the host has no %s of this name", what)}
		}
	}
	return nil
}

// Closure returns ids and the skills they depend on, directly or not
// (Dependencies.Skills), each once: first ids in the given order, then
// the dependencies in breadth-first discovery order, so a cycle ends where
// it comes back. Ids that are not installed are left out, wherever they
// appear; disabled skills are kept, for the caller to judge.
func (r *Registry) Closure(ctx context.Context, ids []string) ([]string, error) {
	list, err := r.List(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*Meta, len(list))
	for i := range list {
		byID[list[i].ID] = &list[i]
	}
	out := make([]string, 0, len(ids))
	seen := make(map[string]bool)
	add := func(id string) {
		if byID[id] != nil && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, id := range ids {
		add(id)
	}
	for i := 0; i < len(out); i++ {
		for _, d := range byID[out[i]].Dependencies.Skills {
			add(d)
		}
	}
	return out, nil
}
