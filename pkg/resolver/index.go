package resolver

import (
	"fmt"
	"strings"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/routing"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// ReasonNotUserInvocable is the Reason of Index.Invoke's PermissionDenied
// error.
const ReasonNotUserInvocable = "not-user-invocable"

// ReasonModelInvocationDisabled is the Reason of Session.Activate's
// PermissionDenied error for a skill with disable-model-invocation.
const ReasonModelInvocationDisabled = "model-invocation-disabled"

// Index holds a set of skills prepared for lookup and routing. Build one
// per snapshot of the visible, enabled skills with NewIndex; it is
// read-only afterwards, so one Index may serve concurrent calls.
type Index struct {
	skills []Skill    // sorted by name, then ID
	names  *nameTable // name or ID → position in skills
	route  *routing.Index
}

// NewIndex indexes skills. Disabled or invisible skills must be left out
// by the caller: whatever is indexed can be routed to.
//
// Skills with DisableModelInvocation are indexed for Lookup and forced
// invocation only: routing never recalls them on its own.
func NewIndex(skills []Skill) *Index {
	order := sortedOrder(skills, func(Skill) bool { return true })
	ix := &Index{skills: make([]Skill, len(skills))}
	for k, i := range order {
		ix.skills[k] = skills[i]
	}
	ix.names = newNameTable(ix.skills, nil)
	rs := make([]routing.Skill, len(ix.skills))
	for i, s := range ix.skills {
		rs[i] = routingSkill(s)
	}
	ix.route = routing.NewIndex(rs)
	return ix
}

// Lookup returns the skill whose name, or else ID, is name (see
// Resolve). It reports false when no skill has that name, and also when
// name is ambiguous: it matches several skills only once case and Unicode
// width are ignored.
func (ix *Index) Lookup(name string) (Skill, bool) {
	s, err := ix.Resolve(name)
	return s, err == nil
}

// Resolve returns the skill that name names. An exact match wins: the
// first skill (by name, then ID) whose name is name, or else the skill
// whose ID is name. Only without one are case and Unicode width ignored,
// and then only a match that is unique counts: first among names, then
// among IDs. The errors are SkillNotFound when no skill matches and
// Conflict with ReasonAmbiguousName, naming the candidates, when several
// match only that way — "pdf-tools" never resolves to "PDF-tools" while
// "pdf-tools" itself is there, and "Pdf-Tools" to neither of the two.
func (ix *Index) Resolve(name string) (Skill, error) {
	i, candidates := ix.names.resolve(name)
	if len(candidates) > 0 {
		return Skill{}, errAmbiguous(name, idsAt(ix.skills, candidates))
	}
	if i < 0 {
		return Skill{}, skillerr.New(skillerr.SkillNotFound, name, "no skill has this name")
	}
	return ix.skills[i], nil
}

// Invoke returns the skill the user invoked by name (see ParseInvocation
// and Resolve): a SkillNotFound error when no skill has that name or ID, a
// Conflict error (ReasonAmbiguousName) when the name is ambiguous, and
// PermissionDenied with ReasonNotUserInvocable when the skill is not
// user-invocable.
func (ix *Index) Invoke(name string) (Skill, error) {
	s, err := ix.Resolve(name)
	if err != nil {
		return Skill{}, err
	}
	if !s.UserInvocable {
		return Skill{}, &skillerr.Error{Code: skillerr.PermissionDenied, Reason: ReasonNotUserInvocable, Subject: name,
			Msg: "this skill can only be used by the model, not invoked by name"}
	}
	return s, nil
}

// nameTable resolves names and IDs to skills as Index.Resolve says.
// Sessions use it too, so that a name resolves the same way whether or
// not the full Index was built.
type nameTable struct {
	exactName, exactID map[string]int   // → the first position
	foldName, foldID   map[string][]int // folded → every position, in order
}

// newNameTable indexes skills, taking them in the order of order (their
// positions; nil: as they are), which must sort them by name, then ID.
func newNameTable(skills []Skill, order []int) *nameTable {
	t := &nameTable{
		exactName: make(map[string]int, len(skills)), exactID: make(map[string]int, len(skills)),
		foldName: make(map[string][]int, len(skills)), foldID: make(map[string][]int, len(skills)),
	}
	n := 0
	add := func(i int) {
		pace.StepAt(n) // a name folded and two maps grown, thousands of times
		n++
		s := skills[i]
		for _, k := range []struct {
			key    string
			exact  map[string]int
			folded map[string][]int
		}{{s.Name, t.exactName, t.foldName}, {s.ID, t.exactID, t.foldID}} {
			if k.key == "" {
				continue
			}
			if _, dup := k.exact[k.key]; !dup {
				k.exact[k.key] = i
			}
			f := routing.Fold(k.key)
			k.folded[f] = append(k.folded[f], i)
		}
	}
	if order == nil {
		for i := range skills {
			add(i)
		}
	} else {
		for _, i := range order {
			add(i)
		}
	}
	return t
}

// resolve returns the position of the skill name names, or -1; when name
// matches several skills only folded, it returns -1 and their positions.
func (t *nameTable) resolve(name string) (int, []int) {
	name = strings.TrimSpace(name)
	if i, ok := t.exactName[name]; ok {
		return i, nil
	}
	if i, ok := t.exactID[name]; ok {
		return i, nil
	}
	f := routing.Fold(name)
	for _, folded := range []map[string][]int{t.foldName, t.foldID} {
		switch list := folded[f]; len(list) {
		case 0:
		case 1:
			return list[0], nil
		default:
			return -1, list
		}
	}
	return -1, nil
}

// idsAt returns the IDs of the skills at positions.
func idsAt(skills []Skill, positions []int) []string {
	ids := make([]string, len(positions))
	for k, i := range positions {
		ids[k] = skills[i].ID
	}
	return ids
}

// errAmbiguous is the error of a name that matches the skills ids only
// once case and width are ignored.
func errAmbiguous(name string, ids []string) error {
	return &skillerr.Error{Code: skillerr.Conflict, Reason: ReasonAmbiguousName, Subject: name,
		Msg: fmt.Sprintf("no skill is called exactly this, and it matches several skills but for case or width: %s; "+
			"write the exact name", strings.Join(ids, ", "))}
}
