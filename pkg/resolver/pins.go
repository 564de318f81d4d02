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

// PinResult is a context's pins (seed 001's pinnedSkillIds): skills
// activated on every turn of that context.
type PinResult struct {
	Pinned []string `json:"pinned"`
	// Dropped are pins removed because their skill was removed or
	// disabled, one diagnostic each (Code "pin-dropped", Field the id).
	Dropped []skill.Diagnostic `json:"dropped"`
}

// Turn is what a session contributes to one turn of its context.
type Turn struct {
	// Blocks are the pinned skills visible in the session, activated.
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
	if s.isChanged(id) {
		return PinResult{}, errStale(id)
	}
	res, err := s.r.updatePins(ctx, s.contextID, func(pins []string) []string {
		if !slices.Contains(pins, id) {
			pins = append(pins, id)
		}
		return pins
	})
	if err == nil {
		s.activate(id)
	}
	return res, err
}

// Unpin removes id from the context's pins. The skill stays activated in
// this session; later sessions of the context no longer activate it.
func (s *Session) Unpin(ctx context.Context, id string) (PinResult, error) {
	if _, err := s.current(); err != nil {
		return PinResult{}, err
	}
	return s.r.updatePins(ctx, s.contextID, func(pins []string) []string {
		return slices.DeleteFunc(pins, func(p string) bool { return p == id })
	})
}

// Pinned returns the context's pins, dropping (and persisting the drop
// of) those whose skill was removed or disabled.
func (s *Session) Pinned(ctx context.Context) (PinResult, error) {
	if _, err := s.current(); err != nil {
		return PinResult{}, err
	}
	return s.r.pinned(ctx, s.contextID)
}

// Turn returns the blocks of the context's pinned skills for this turn,
// activating them: seed 001 injects pinned skills on every run. Pins of
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
	for _, id := range pins.Pinned {
		if sn.metas[id] == nil {
			continue
		}
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
// disabled skills. The common case, nothing to drop, is one read without
// the lock.
func (r *Resolver) pinned(ctx context.Context, contextID string) (PinResult, error) {
	pins, err := r.readPins(ctx, contextID)
	if err != nil {
		return PinResult{}, err
	}
	res, err := r.judgePins(ctx, pins)
	if err != nil || len(res.Dropped) == 0 {
		return res, err
	}
	return r.updatePins(ctx, contextID, func(p []string) []string { return p })
}

// updatePins changes the pins of contextID with edit, under the lock, and
// drops those of removed or disabled skills in the same commit.
func (r *Resolver) updatePins(ctx context.Context, contextID string, edit func([]string) []string) (PinResult, error) {
	var res PinResult
	err := r.db.Lock(ctx, pinsLock, func(ctx context.Context) error {
		pins, err := r.readPins(ctx, contextID)
		if err != nil {
			return err
		}
		before := slices.Clone(pins)
		if res, err = r.judgePins(ctx, edit(pins)); err != nil {
			return err
		}
		if slices.Equal(before, res.Pinned) {
			return nil
		}
		op := vfs.Delete(vfs.StorePins, contextID)
		if len(res.Pinned) > 0 {
			b, err := json.Marshal(res.Pinned)
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
func (r *Resolver) readPins(ctx context.Context, contextID string) ([]string, error) {
	res, err := r.db.Read(ctx, vfs.Get(vfs.StorePins, contextID))
	if err != nil {
		return nil, err
	}
	pins := []string{}
	if len(res[0]) == 1 {
		if err := json.Unmarshal(res[0][0].Value, &pins); err != nil {
			return nil, skillerr.Wrap(skillerr.Internal, contextID, err, "the stored pins are corrupt")
		}
	}
	return pins, nil
}

// judgePins splits pins into those kept and a diagnostic for each of a
// removed or disabled skill. It asks the registry, not a snapshot: pins
// belong to the context, not to one session.
func (r *Resolver) judgePins(ctx context.Context, pins []string) (PinResult, error) {
	res := PinResult{Pinned: []string{}, Dropped: []skill.Diagnostic{}}
	for _, id := range pins {
		m, err := r.reg.Get(ctx, id)
		why := ""
		switch {
		case skillerr.CodeOf(err) == skillerr.SkillNotFound:
			why = "was removed"
		case err != nil:
			return PinResult{}, err
		case !m.Enabled:
			why = "is disabled"
		}
		switch {
		case why != "":
			res.Dropped = append(res.Dropped, skill.Diagnostic{Code: DiagPinDropped, Severity: skill.SeverityWarning, Field: id,
				Message: fmt.Sprintf("The pinned skill '%s' %s, so it was unpinned.", id, why)})
		case !slices.Contains(res.Pinned, id):
			res.Pinned = append(res.Pinned, id)
		}
	}
	return res, nil
}
