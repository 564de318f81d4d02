package resolver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// pinsLock serialises changes of the pins of every context, across every
// tab of the origin.
const pinsLock = "skillfs-pins"

// PinResult is a context's pins (docs/architecture.md, Pins): skills
// activated on every turn of that context.
type PinResult struct {
	Pinned []string `json:"pinned"`
	// Dropped are pins removed because their skill was removed (also when
	// another skill was installed under its id since) or disabled, one
	// diagnostic each (Code "pin-dropped", Field the id).
	Dropped []skill.Diagnostic `json:"dropped"`
}

// pin is a stored pin: a skill id and the installed instance of the skill
// that was pinned, its registry.Meta.Instance. An import that replaces the
// skill and every edit keep the instance; removing the skill and
// installing one under the same id gives a new one, however soon, so a pin
// never passes to another skill that merely took the id.
type pin struct {
	ID       string `json:"id"`
	Instance string `json:"instance"`
}

// Turn is what a session contributes to one turn of its context.
type Turn struct {
	// Blocks are the pinned skills visible in the session, then the
	// always: true ones, activated.
	Blocks  []SkillBlock       `json:"blocks"`
	Dropped []skill.Diagnostic `json:"dropped"`
}

// Pin pins the visible skill id to the session's context, so that every
// session of the context activates it on every turn, and activates it
// here. The pins are stored in vfs.StorePins under the context id.
func (s *Session) Pin(ctx context.Context, id string) (PinResult, error) {
	sn, err := s.current()
	if err != nil {
		return PinResult{}, err
	}
	if sn.metas[id] == nil {
		return PinResult{}, s.r.whyNot(ctx, id)
	}
	if err := s.unreadable(id); err != nil {
		return PinResult{}, err
	}
	// The instance pinned is the one this session sees, which must be
	// the one installed: a session that has not heard yet that the skill
	// was removed and another installed under its id cannot pin either.
	instance := sn.metas[id].Instance
	if m, err := s.r.reg.Get(ctx, id); err != nil || m.Instance != instance || !m.Enabled {
		if err != nil && skillerr.CodeOf(err) != skillerr.SkillNotFound {
			return PinResult{}, err
		}
		s.markChanged(sn, id)
		return PinResult{}, errStale(id)
	}
	full := false
	res, err := s.r.updatePins(ctx, s.contextID, func(pins []pin) []pin {
		if i := slices.IndexFunc(pins, func(p pin) bool { return p.ID == id }); i >= 0 {
			pins[i].Instance = instance // a pin of an older instance is renewed
			return pins
		}
		if full = len(pins) >= MaxPinsPerContext; full {
			return pins
		}
		return append(pins, pin{ID: id, Instance: instance})
	})
	if err != nil {
		return PinResult{}, err
	}
	if full {
		return PinResult{}, errLimit(id, "this context has %d pins already; unpin one first", MaxPinsPerContext)
	}
	if !slices.Contains(res.Pinned, id) { // removed or disabled meanwhile
		s.markChanged(sn, id)
		return PinResult{}, errStale(id)
	}
	s.activate(id)
	return res, nil
}

// Unpin removes id from the context's pins. The skill stays activated in
// this session; later sessions of the context no longer activate it.
func (s *Session) Unpin(ctx context.Context, id string) (PinResult, error) {
	if _, err := s.current(); err != nil {
		return PinResult{}, err
	}
	return s.r.updatePins(ctx, s.contextID, func(pins []pin) []pin {
		return slices.DeleteFunc(pins, func(p pin) bool { return p.ID == id })
	})
}

// Pinned returns the context's pins, dropping (and persisting the drop
// of) those whose skill was removed or disabled, including a pin whose
// skill was removed and another installed under its id.
func (s *Session) Pinned(ctx context.Context) (PinResult, error) {
	if _, err := s.current(); err != nil {
		return PinResult{}, err
	}
	return s.r.pinned(ctx, s.contextID)
}

// Turn returns the blocks for this turn, activating their skills: the
// context's pinned skills, then the visible skills with always: true
// (seed 004: in every turn whatever the model picks), each once. Pins of
// skills outside this session's snapshot are skipped.
func (s *Session) Turn(ctx context.Context) (Turn, error) {
	sn, err := s.current()
	if err != nil {
		return Turn{}, err
	}
	pins, err := s.r.pinned(ctx, s.contextID)
	if err != nil {
		return Turn{}, err
	}
	t := Turn{Blocks: []SkillBlock{}, Dropped: pins.Dropped}
	for _, id := range visibleOf(sn, slices.Concat(pins.Pinned, sn.always())) {
		start := time.Now()
		b, err := s.load(ctx, sn, id, "")
		s.r.audit.record(s, AuditEntry{Kind: AuditTurn, Skill: id, Digest: sn.metas[id].Digest, Path: skillMD}, start, err)
		if err != nil {
			return Turn{}, err
		}
		t.Blocks = append(t.Blocks, b)
	}
	return t, nil
}

// pinned reads the pins of contextID and drops those of removed or
// disabled skills. The common case, nothing to drop or to record, is one
// read without the lock.
func (r *Resolver) pinned(ctx context.Context, contextID string) (PinResult, error) {
	pins, err := r.readPins(ctx, contextID)
	if err != nil {
		return PinResult{}, err
	}
	res, kept, err := r.judgePins(ctx, pins)
	if err != nil || samePins(pins, kept) {
		return res, err
	}
	return r.updatePins(ctx, contextID, func(p []pin) []pin { return p })
}

// updatePins changes the pins of contextID with edit, under the lock, and
// drops those of removed or disabled skills in the same commit.
func (r *Resolver) updatePins(ctx context.Context, contextID string, edit func([]pin) []pin) (PinResult, error) {
	var res PinResult
	err := r.db.Lock(ctx, pinsLock, func(ctx context.Context) error {
		pins, err := r.readPins(ctx, contextID)
		if err != nil {
			return err
		}
		before := slices.Clone(pins)
		var kept []pin
		if res, kept, err = r.judgePins(ctx, edit(pins)); err != nil {
			return err
		}
		if samePins(before, kept) {
			return nil
		}
		if len(before) == 0 && len(kept) > 0 {
			if err := r.roomForPins(ctx); err != nil {
				return err
			}
		}
		op := vfs.Delete(vfs.StorePins, contextID)
		if len(kept) > 0 {
			b, err := json.Marshal(kept)
			if err != nil {
				return skillerr.Wrap(skillerr.Internal, contextID, err, "cannot encode the pins")
			}
			op = vfs.Put(vfs.StorePins, contextID, b)
		}
		return r.db.Commit(ctx, op)
	})
	if err != nil {
		return PinResult{}, err
	}
	return res, nil
}

// readPins returns the stored pins of contextID.
func (r *Resolver) readPins(ctx context.Context, contextID string) ([]pin, error) {
	res, err := r.db.Read(ctx, vfs.Get(vfs.StorePins, contextID))
	if err != nil {
		return nil, err
	}
	pins := []pin{}
	if len(res[0]) == 1 {
		if err := json.Unmarshal(res[0][0].Value, &pins); err != nil {
			return nil, skillerr.Wrap(skillerr.Internal, contextID, err, "the stored pins are corrupt")
		}
	}
	return pins, nil
}

// judgePins splits pins into those kept, each once and with its instance,
// and a diagnostic for each of a removed or disabled skill, or of a skill
// installed in place of a removed one. It asks the registry, not a
// snapshot: pins belong to the context, not to one session.
func (r *Resolver) judgePins(ctx context.Context, pins []pin) (PinResult, []pin, error) {
	res := PinResult{Pinned: []string{}, Dropped: []skill.Diagnostic{}}
	kept := []pin{}
	for _, p := range pins {
		m, err := r.reg.Get(ctx, p.ID)
		why := ""
		switch {
		case skillerr.CodeOf(err) == skillerr.SkillNotFound:
			why = "was removed"
		case err != nil:
			return PinResult{}, nil, err
		case p.Instance != m.Instance:
			why = "was removed, and the skill installed under its id since is another one"
		case !m.Enabled:
			why = "is disabled"
		}
		switch {
		case why != "":
			res.Dropped = append(res.Dropped, skill.Diagnostic{Code: DiagPinDropped, Severity: skill.SeverityWarning, Field: p.ID,
				Message: fmt.Sprintf("The pinned skill '%s' %s, so it was unpinned.", p.ID, why)})
		case !slices.Contains(res.Pinned, p.ID):
			res.Pinned = append(res.Pinned, p.ID)
			kept = append(kept, pin{ID: p.ID, Instance: m.Instance})
		}
	}
	return res, kept, nil
}

// samePins reports whether a and b are the same pins, of the same
// instances, in the same order.
func samePins(a, b []pin) bool {
	return slices.Equal(a, b)
}

// roomForPins refuses a new context's first pin when MaxPinContexts
// contexts have pins already; pinsLock is held.
func (r *Resolver) roomForPins(ctx context.Context) error {
	res, err := r.db.Read(ctx, vfs.GetPrefix(vfs.StorePins, ""))
	if err != nil {
		return err
	}
	if len(res[0]) >= MaxPinContexts {
		return errLimit("pins", "%d contexts have pins already; an administrator can clear them", MaxPinContexts)
	}
	return nil
}

// ClearPins deletes the pins of every context: the management side's
// answer to pins it does not want kept.
func (r *Resolver) ClearPins(ctx context.Context) error {
	return r.db.Lock(ctx, pinsLock, func(ctx context.Context) error {
		return r.db.Commit(ctx, vfs.DeletePrefix(vfs.StorePins, ""))
	})
}
