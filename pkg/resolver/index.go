package resolver

import "github.com/skillfs/skillfs/pkg/skillerr"

// ReasonNotUserInvocable is the Reason of Index.Invoke's PermissionDenied
// error.
const ReasonNotUserInvocable = "not-user-invocable"

// Index holds a set of skills prepared for lookup and routing. Build one
// per snapshot of the visible, enabled skills with NewIndex; it is
// read-only afterwards, so one Index may serve concurrent calls.
type Index struct {
	skills  []Skill        // sorted by name, then ID
	keys    map[string]int // folded name or ID → position in skills
	phrases phraseIndex
	lex     lexicon
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
	ix.keys = lookupKeys(ix.skills)
	ix.phrases = newPhraseIndex(ix.skills)
	ix.lex = newLexicon(ix.skills)
	return ix
}

// Lookup returns the skill whose name, or else ID, is name, ignoring case
// and Unicode width.
func (ix *Index) Lookup(name string) (Skill, bool) {
	i, ok := ix.keys[fold(name)]
	if !ok {
		return Skill{}, false
	}
	return ix.skills[i], true
}

// Invoke returns the skill the user invoked by name (see ParseInvocation):
// a SkillNotFound error when no skill has that name or ID, PermissionDenied
// with ReasonNotUserInvocable when the skill is not user-invocable.
func (ix *Index) Invoke(name string) (Skill, error) {
	s, ok := ix.Lookup(name)
	if !ok {
		return Skill{}, skillerr.New(skillerr.SkillNotFound, name, "no skill has this name")
	}
	if !s.UserInvocable {
		return Skill{}, &skillerr.Error{Code: skillerr.PermissionDenied, Reason: ReasonNotUserInvocable, Subject: name,
			Msg: "this skill can only be used by the model, not invoked by name"}
	}
	return s, nil
}

// lookupKeys maps the folded name and ID of each of skills, which are
// sorted, to its position, as Lookup finds them: names win over IDs, and
// earlier skills over later ones. Sessions use it too, so that a name
// resolves the same way whether or not the full Index was built.
func lookupKeys(skills []Skill) map[string]int {
	keys := make(map[string]int, 2*len(skills))
	key := func(i int, k string) {
		if k = fold(k); k != "" {
			if _, dup := keys[k]; !dup {
				keys[k] = i
			}
		}
	}
	for i, s := range skills {
		key(i, s.Name)
	}
	for i, s := range skills {
		key(i, s.ID)
	}
	return keys
}
