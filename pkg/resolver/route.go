package resolver

import "github.com/skillfs/skillfs/pkg/routing"

// Routing lives in pkg/routing; sessions pass these through.
type (
	RouteOptions = routing.Options
	Result       = routing.Result
	Stats        = routing.Stats
)

// Route finds the skills a message needs (see routing.Index.Route). The
// resolver adds what it owns, the invocation syntax: a skill the message
// names explicitly (ParseInvocation's forms, "$name" anywhere, "use the
// name skill", "使用 name 技能") is forced, provided it is user-invocable.
// When the message starts with an invocation, the other skills are matched
// against its arguments only, since the invocation's own words are about
// the forced skill.
func (ix *Index) Route(query string, opts RouteOptions) (Result, error) {
	opts.Forced = ""
	if name, args, ok := ParseInvocation(query); ok {
		if doc, ok := ix.invocable(name, opts); ok {
			opts.Forced, query = ix.skills[doc].ID, args
		}
	}
	if opts.Forced == "" {
		for _, name := range mentions(query) {
			if doc, ok := ix.invocable(name, opts); ok {
				opts.Forced = ix.skills[doc].ID
				break
			}
		}
	}
	return ix.route.Route(query, opts)
}

// invocable returns the position of the user-invocable skill called name
// (as Index.Resolve resolves it; an ambiguous name calls none).
func (ix *Index) invocable(name string, opts RouteOptions) (int, bool) {
	doc, _ := ix.names.resolve(name)
	if doc < 0 || !ix.skills[doc].UserInvocable || opts.Exclude != nil && opts.Exclude(ix.skills[doc].ID) {
		return -1, false
	}
	return doc, true
}

// routingSkill is what routing knows of s.
func routingSkill(s Skill) routing.Skill {
	return routing.Skill{
		ID: s.ID, Name: s.Name, Description: s.Description, WhenToUse: s.WhenToUse, Headings: s.Headings,
		Triggers: s.Triggers, AntiTriggers: s.AntiTriggers, CostHint: s.CostHint, ParallelSafe: s.ParallelSafe,
		DisableModelInvocation: s.DisableModelInvocation,
	}
}
