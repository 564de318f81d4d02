package resolver

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/skill"
)

// Codes of the diagnostics a snapshot reports about its selection.
const (
	// A selected skill, or a dependency, that is missing or disabled:
	// one code and one message for both, since sessions serve agents,
	// which must not learn which skills are installed but disabled.
	DiagSelectedNotInstalled   = "selected-not-installed"
	DiagDependencyNotInstalled = "dependency-not-installed"
	DiagPinDropped             = "pin-dropped"
)

// snapshot is stage 1 of the staged loading (docs/architecture.md, Sessions): the skills a session
// may see, fixed when it is built. It is immutable once built, so sessions
// opened at the same revision with the same selection share one, and its
// routing index is built at most once.
type snapshot struct {
	// revision is the registry's revision read before the skills were
	// listed: every change after it has a higher revision, so a change
	// event can be judged against it (conservatively: a change the list
	// already saw may still mark a session stale, never the reverse).
	revision int64
	// heard is the resolver's change count when the build began: the
	// changes heard after it are replayed to the sessions that take the
	// snapshot.
	heard uint64
	// all is true when no selection was given: every enabled skill.
	all bool
	// ids are the visible skills: the selection, then their skill
	// dependencies (breadth first), or every enabled skill sorted by id.
	ids   []string
	metas map[string]*registry.Meta
	// skills are ids as resolver Skills, in the same order.
	skills []Skill
	pos    map[string]int // id → position in ids
	// names resolves names and ids to positions in ids, as
	// Index.Resolve does.
	names *nameTable
	// wanted are skills outside the snapshot whose arrival (an import, an
	// enable) would change it: selected or depended on, but missing or
	// disabled.
	wanted map[string]bool
	diags  []skill.Diagnostic

	indexOnce sync.Once
	index     *Index
}

// newSnapshot computes the visible skills of a selection (nil: all) from
// list, the registry's records read at revision rev or later.
//
// The dependency closure is walked here, over the same list, rather than
// with Registry.Closure: one list is one consistent view, and a disabled
// skill is never walked through, so it cannot pull its own dependencies
// into the session.
func newSnapshot(rev int64, selection []string, list []registry.Meta) *snapshot {
	sn := &snapshot{
		revision: rev, all: selection == nil,
		metas: make(map[string]*registry.Meta), pos: make(map[string]int), wanted: make(map[string]bool),
	}
	// Thousands of skills: every loop over them steps.
	byID := make(map[string]*registry.Meta, len(list))
	for i := range list {
		pace.StepAt(i)
		byID[list[i].ID] = &list[i]
	}
	add := func(m *registry.Meta) {
		if _, seen := sn.pos[m.ID]; !seen {
			sn.pos[m.ID] = len(sn.ids)
			sn.ids = append(sn.ids, m.ID)
			sn.metas[m.ID] = m
		}
	}
	if sn.all {
		for i := range list {
			pace.StepAt(i)
			if list[i].Enabled {
				add(&list[i])
			}
		}
	} else {
		for _, id := range selection {
			switch m := byID[id]; {
			case m == nil || !m.Enabled:
				sn.miss(id, DiagSelectedNotInstalled, "skills", "The selected skill '%s' is not installed (or not enabled).", id)
			default:
				add(m)
			}
		}
		for i := 0; i < len(sn.ids); i++ {
			from := sn.ids[i]
			for _, d := range sn.metas[from].Dependencies.Skills {
				switch m := byID[d]; {
				case m == nil || !m.Enabled:
					sn.miss(d, DiagDependencyNotInstalled, "skill_dependencies",
						"'%s' depends on '%s', which is not installed (or not enabled).", from, d)
				default:
					add(m)
				}
			}
		}
	}
	sn.skills = make([]Skill, len(sn.ids))
	for i, id := range sn.ids {
		pace.StepAt(i)
		sn.skills[i] = skillOf(sn.metas[id])
	}
	sn.names = newNameTable(sn.skills, sortedOrder(sn.skills, func(Skill) bool { return true }))
	return sn
}

// miss records a skill the selection wants but cannot show, with one
// diagnostic however many skills want it.
func (sn *snapshot) miss(id, code, field, format string, args ...any) {
	if sn.wanted[id] {
		return
	}
	sn.wanted[id] = true
	sn.diags = append(sn.diags, skill.Diagnostic{Code: code, Severity: skill.SeverityWarning, Field: field,
		Message: fmt.Sprintf(format, args...)})
}

// skillOf maps a registry record onto what the pure functions need.
func skillOf(m *registry.Meta) Skill {
	return Skill{
		ID: m.ID, Name: m.Name, Description: m.Description, WhenToUse: m.WhenToUse, Headings: m.Headings,
		DisableModelInvocation: m.DisableModelInvocation, UserInvocable: m.UserInvocable,
		AllowedTools: m.AllowedTools, ToolDeps: m.Dependencies.Tools, MCPDeps: m.Dependencies.MCP,
		Triggers: m.Triggers, AntiTriggers: m.AntiTriggers, CostHint: m.CostHint, ParallelSafe: m.ParallelSafe,
	}
}

// find returns the id of the visible skill that name names, as
// Index.Resolve resolves it, or "" when none does. An ambiguous name is a
// Conflict error (ReasonAmbiguousName).
func (sn *snapshot) find(name string) (string, error) {
	i, candidates := sn.names.resolve(name)
	if len(candidates) > 0 {
		return "", errAmbiguous(name, idsAt(sn.skills, candidates))
	}
	if i < 0 {
		return "", nil
	}
	return sn.ids[i], nil
}

// skill returns the visible skill id.
func (sn *snapshot) skill(id string) Skill { return sn.skills[sn.pos[id]] }

// routing returns the snapshot's Index, built on first use: building one
// over a thousand skills takes milliseconds, which sessions that never
// route should not pay.
func (sn *snapshot) routing() *Index {
	sn.indexOnce.Do(func() { sn.index = NewIndex(sn.skills) })
	return sn.index
}

// closure returns the skills of ids and their skill dependencies, each
// once, breadth first, keeping only visible ones (a dependency outside the
// snapshot is missing or disabled, and was reported when it was built).
func (sn *snapshot) closure(ids []string) []Skill {
	var out []Skill
	seen := make(map[string]bool, len(ids))
	queue := slices.Clone(ids)
	for i := 0; i < len(queue); i++ {
		id := queue[i]
		m := sn.metas[id]
		if m == nil || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, sn.skill(id))
		queue = append(queue, m.Dependencies.Skills...)
	}
	return out
}

// selectionKey identifies a selection for sharing snapshots.
func selectionKey(selection []string) string {
	if selection == nil {
		return "*"
	}
	return "=" + strings.Join(selection, "\x00")
}

// cleanSelection trims the ids of a selection and drops empty and
// repeated ones, keeping nil (every enabled skill) apart from an empty
// selection (none).
func cleanSelection(ids []string) []string {
	if ids == nil {
		return nil
	}
	out := make([]string, 0, min(len(ids), MaxSelection))
	seen := make(map[string]bool, len(out))
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
