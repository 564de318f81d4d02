package registry

import (
	"slices"
	"sync"
)

// The kinds of Change.
const (
	KindImport       = "import"
	KindReplace      = "replace" // an import that replaced at least one installed skill
	KindEnable       = "enable"
	KindDisable      = "disable"
	KindRemove       = "remove"
	KindEdit         = "edit" // WriteFile, Mkdir, RemovePath or Rename
	KindDependencies = "dependencies"
	// KindOrigin: only the skills' origins changed, to follow the download
	// they were last compared with (CheckDownload); nothing a session sees.
	KindOrigin = "origin"
)

// Change describes one committed change of the registry.
type Change struct {
	// Revision is the registry's revision after the change. Revisions
	// grow by one per change, across every context sharing the database,
	// so they order changes that arrive out of order.
	Revision int64    `json:"revision"`
	Kind     string   `json:"kind"`
	IDs      []string `json:"ids"`
}

// Bus carries changes between the registries of different contexts (tabs,
// workers, an extension's side panel) that share one database. Like a
// BroadcastChannel object, a Bus delivers what is published through it to
// the subscribers of every other Bus on the same channel, never to its own:
// a registry tells its own subscribers itself.
type Bus interface {
	Publish(Change)
	// Subscribe calls fn for every change published by another Bus of
	// the channel until cancel is called.
	Subscribe(fn func(Change)) (cancel func())
}

// LocalChannel is an in-process channel. Each Bus that Join returns is one
// participant; natively it stands in for a BroadcastChannel.
type LocalChannel struct {
	mu      sync.Mutex
	members []*localBus
}

// NewLocalChannel returns a channel with no participants.
func NewLocalChannel() *LocalChannel { return &LocalChannel{} }

// Join returns a new participant of c.
func (c *LocalChannel) Join() Bus {
	b := &localBus{ch: c}
	c.mu.Lock()
	c.members = append(c.members, b)
	c.mu.Unlock()
	return b
}

type localBus struct {
	ch   *LocalChannel
	subs subscribers
}

// Publish delivers ch synchronously to the other participants.
func (b *localBus) Publish(ch Change) {
	b.ch.mu.Lock()
	members := b.ch.members
	b.ch.mu.Unlock()
	for _, m := range members {
		if m != b {
			m.subs.send(ch)
		}
	}
}

func (b *localBus) Subscribe(fn func(Change)) func() { return b.subs.add(fn) }

// subscribers is a list of callbacks for changes, called in the order they
// subscribed.
type subscribers struct {
	mu   sync.Mutex
	next int
	list []subscriber
}

type subscriber struct {
	id int
	fn func(Change)
}

// add registers fn and returns the function that removes it.
func (s *subscribers) add(fn func(Change)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.next
	s.next++
	s.list = append(s.list, subscriber{id, fn})
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.list = slices.DeleteFunc(s.list, func(x subscriber) bool { return x.id == id })
	}
}

// send calls every callback with c, outside the lock so that a callback may
// subscribe or cancel.
func (s *subscribers) send(c Change) {
	s.mu.Lock()
	list := slices.Clone(s.list)
	s.mu.Unlock()
	for _, x := range list {
		x.fn(c)
	}
}
