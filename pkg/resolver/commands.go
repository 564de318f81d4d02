package resolver

import "context"

// Command is a skill the user may invoke by name, as a slash menu shows
// it.
type Command struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Invocation is what the user types: "/skill:<name>".
	Invocation   string `json:"invocation"`
	ArgumentHint string `json:"argumentHint"`
	// DisableModelInvocation says only the user can run the skill: the
	// catalog leaves it out and Activate refuses it.
	DisableModelInvocation bool `json:"disableModelInvocation"`
}

// Commands lists the session's visible skills that the user may invoke
// by name (not user-invocable: false), disable-model-invocation ones
// included, sorted by name and then id: a host's slash menu.
func (s *Session) Commands() ([]Command, error) {
	sn, err := s.current()
	if err != nil {
		return nil, err
	}
	order := sortedOrder(sn.skills, func(k Skill) bool { return k.UserInvocable })
	out := make([]Command, 0, len(order))
	for _, i := range order {
		k := sn.skills[i]
		out = append(out, Command{ID: k.ID, Name: k.Name, Description: k.Description, Invocation: invocationPrefix + k.Name,
			ArgumentHint: sn.metas[k.ID].ArgumentHint, DisableModelInvocation: k.DisableModelInvocation})
	}
	return out, nil
}

// Always returns the blocks of the session's visible skills with
// always: true, sorted by name and then id, and activates them: seed
// 004's skills that belong in every turn, whatever the model picks. Turn
// includes them after the pinned skills; a host that builds its prompt
// otherwise calls Always each turn, and AlreadyActive tells it which
// blocks it holds already.
func (s *Session) Always(ctx context.Context) ([]SkillBlock, error) {
	sn, err := s.current()
	if err != nil {
		return nil, err
	}
	ids := sn.always()
	out := make([]SkillBlock, 0, len(ids))
	for _, id := range ids {
		b, err := s.load(ctx, sn, id, "")
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// always returns the ids of the visible skills with always: true, sorted
// by name and then id.
func (sn *snapshot) always() []string {
	var ids []string
	for _, i := range sortedOrder(sn.skills, func(k Skill) bool { return sn.metas[k.ID].Always }) {
		ids = append(ids, sn.skills[i].ID)
	}
	return ids
}
