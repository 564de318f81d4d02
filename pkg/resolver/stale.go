package resolver

import (
	"slices"

	"github.com/skillfs/skillfs/pkg/registry"
)

// The kinds of Event.
const (
	// EventStale: skills visible in the session changed underneath it, or
	// a skill it would show appeared; Refresh moves it on.
	EventStale = "stale"
	// EventClosed: the session was closed.
	EventClosed = "closed"
)

// Event tells a session's subscribers that it went stale or was closed.
type Event struct {
	Kind    string `json:"kind"`
	Session string `json:"session"`
	// Skills are the visible skills that changed, when known.
	Skills []string `json:"skills"`
	// Revision is the registry revision of the change, 0 when a read
	// found the change first.
	Revision int64 `json:"revision"`
}

// Subscribe calls fn when the session goes stale (once for each skill
// found changed) and when it is closed, until cancel is called. fn runs
// on the goroutine that found the change and must not block.
func (s *Session) Subscribe(fn func(Event)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextSub
	s.nextSub++
	s.subs[id] = fn
	return func() {
		s.mu.Lock()
		delete(s.subs, id)
		s.mu.Unlock()
	}
}

// subscribers returns the callbacks in subscription order; s.mu is held.
func (s *Session) subscribers() []func(Event) {
	keys := make([]int, 0, len(s.subs))
	for k := range s.subs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]func(Event), len(keys))
	for i, k := range keys {
		out[i] = s.subs[k]
	}
	return out
}

// replay judges the changes heard while sn was built; when some were
// forgotten (a burst of changes during one build), the session is stale.
func (s *Session) replay(sn *snapshot, missed []registry.Change, complete bool) {
	if !complete {
		s.mu.Lock()
		s.announce(s.snap == sn && !s.closed, nil, 0)
	}
	for _, c := range missed {
		s.noteChange(c)
	}
}

// noteChange judges a registry change against the snapshot: one that
// touches a visible skill, or adds one the session would show, makes the
// session stale.
//
// A change no newer than the snapshot's revision is in it already, however
// late it is heard (another context's comes a little after its commit):
// the snapshot's list was read at that revision or later, since a list
// reads the stored revision first (docs/architecture.md, Snapshots).
func (s *Session) noteChange(c registry.Change) {
	s.mu.Lock()
	if s.closed || c.Revision <= s.snap.revision {
		s.mu.Unlock()
		return
	}
	sn := s.snap
	adds := c.Kind == registry.KindImport || c.Kind == registry.KindReplace || c.Kind == registry.KindEnable
	var visible []string
	touched := false
	for _, id := range c.IDs {
		switch {
		case sn.metas[id] != nil:
			visible = append(visible, id)
			touched = true
		case sn.wanted[id], sn.all && adds:
			touched = true
		}
	}
	if !touched {
		s.mu.Unlock()
		return
	}
	readable := c.Kind == registry.KindReplace || c.Kind == registry.KindEdit || c.Kind == registry.KindDependencies
	fresh := s.markLocked(visible, readable)
	var held []string
	if readable {
		for _, id := range visible {
			held = append(held, sn.metas[id].Digest)
		}
	}
	s.announce(true, fresh, c.Revision)
	s.r.hold(held)
}

// markLocked records the visible skills ids as changed — outdated when
// the session still reads its version of them (readable), unreadable
// otherwise — and returns those that were neither before; s.mu is held.
func (s *Session) markLocked(ids []string, readable bool) []string {
	var fresh []string
	for _, id := range ids {
		if !s.changed[id] && !s.outdated[id] {
			fresh = append(fresh, id)
		}
		if readable {
			s.outdated[id] = true
		} else {
			s.changed[id] = true
		}
	}
	return fresh
}

// markChanged records that a read through snapshot sn found skill id
// changed underneath the session.
func (s *Session) markChanged(sn *snapshot, id string) {
	s.mu.Lock()
	if s.closed || s.snap != sn {
		s.mu.Unlock()
		return
	}
	s.announce(true, s.markLocked([]string{id}, false), 0)
}

// announce makes the session stale when touched, and tells the
// subscribers when that is news. It releases s.mu, which the caller holds.
func (s *Session) announce(touched bool, fresh []string, rev int64) {
	if !touched || (s.stale && len(fresh) == 0) {
		s.mu.Unlock()
		return
	}
	s.stale = true
	subs := s.subscribers()
	s.mu.Unlock()
	ev := Event{Kind: EventStale, Session: s.id, Skills: append([]string{}, fresh...), Revision: rev}
	for _, fn := range subs {
		fn(ev)
	}
}

// unreadable returns the error of a read of skill id once it changed
// underneath the session beyond reading — Conflict, ReasonCollected when
// the session's version of it is no longer kept, ReasonStale otherwise —
// and nil while it can be read.
func (s *Session) unreadable(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.collected[id]:
		return errCollected(id)
	case s.changed[id]:
		return errStale(id)
	}
	return nil
}

// isChanged reports whether skill id changed underneath the session
// beyond reading.
func (s *Session) isChanged(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed[id]
}
