package resolver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// Defaults of Options.
const (
	DefaultAuditLimit  = 1000
	DefaultMaxSessions = 64
	// DefaultAuditBatch and DefaultAuditDelay say when buffered audit
	// entries are written: once this many wait, or this long after the
	// first of them, whichever comes first.
	DefaultAuditBatch = 32
	DefaultAuditDelay = 250 * time.Millisecond
)

// Options configure a Resolver. The zero value is usable.
type Options struct {
	// Now returns the time stamped on audit entries; time.Now by
	// default.
	Now func() time.Time
	// AuditLimit bounds the audit log kept in vfs.StoreAudit, in entries
	// (DefaultAuditLimit when zero or negative). Older entries are
	// overwritten.
	AuditLimit int
	// AuditBatch and AuditDelay bound how long audit entries wait in
	// memory (DefaultAuditBatch, DefaultAuditDelay when zero).
	AuditBatch int
	AuditDelay time.Duration
	// CacheBytes bounds the skill content kept in memory
	// (DefaultCacheBytes when zero or negative).
	CacheBytes int64
	// MaxSessions bounds the open sessions (DefaultMaxSessions when zero
	// or negative): opening one more closes the least recently used.
	MaxSessions int
}

// Resolver serves the installed skills to agents through sessions. It
// reads skill content only through the registry's read-only vfs.FS and
// keeps its own records (pins, usage statistics, the audit log) in the
// same database; it never executes anything. It is safe for concurrent
// use.
type Resolver struct {
	reg   *registry.Registry
	db    vfs.Backend
	fsys  *vfs.FS
	opts  Options
	cache *contentCache
	audit *auditLog
	stop  func()

	mu       sync.Mutex
	sessions map[string]*Session
	// execs are the module runs prepared and not finished (execute.go).
	execs map[string]*execution
	clock uint64 // counts session uses, for eviction
	// epoch counts the changes heard. recent are the latest of them,
	// replayed to a session whose snapshot was built while they arrived.
	epoch  uint64
	recent []heardChange
	// snaps shares snapshots between sessions with the same selection;
	// any change drops them.
	snaps  map[string]*snapshot
	closed bool
	// holder names this context to the registry when it holds retained
	// versions; held are the versions it holds (retain.go).
	holder  string
	held    map[string]bool
	holding sync.WaitGroup // holds under way
}

// heardChange is a change and the epoch it was heard at.
type heardChange struct {
	epoch uint64
	c     registry.Change
}

// recentChanges bounds Resolver.recent; maxSnaps bounds Resolver.snaps.
const (
	recentChanges = 64
	maxSnaps      = 16
)

// New returns a resolver over the skills of reg, keeping its own records
// in db, the database reg was opened on. Close it when done.
func New(_ context.Context, reg *registry.Registry, db vfs.Backend, opts Options) (*Resolver, error) {
	if reg == nil || db == nil {
		return nil, skillerr.New(skillerr.InvalidArgument, "", "a resolver needs a registry and its database")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AuditLimit <= 0 {
		opts.AuditLimit = DefaultAuditLimit
	}
	if opts.AuditBatch <= 0 {
		opts.AuditBatch = DefaultAuditBatch
	}
	if opts.AuditDelay <= 0 {
		opts.AuditDelay = DefaultAuditDelay
	}
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = DefaultCacheBytes
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	r := &Resolver{
		reg: reg, db: db, fsys: reg.FS(), opts: opts,
		cache:    newContentCache(opts.CacheBytes),
		audit:    newAuditLog(db, opts),
		sessions: make(map[string]*Session),
		snaps:    make(map[string]*snapshot),
		holder:   newID(), held: make(map[string]bool),
	}
	r.stop = reg.Subscribe(r.changed)
	return r, nil
}

// Close closes every session, stops listening to the registry and writes
// the audit entries still buffered. It does not close the registry or the
// database.
func (r *Resolver) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	sessions := make([]*Session, 0, len(r.sessions))
	for _, s := range r.sessions {
		sessions = append(sessions, s)
	}
	clear(r.sessions)
	r.mu.Unlock()
	r.stop()
	for _, s := range sessions {
		s.shut()
	}
	ctx, cancel := context.WithTimeout(context.Background(), holdTimeout)
	defer cancel()
	r.release(ctx) // bounded: a tab that closes must not wait on another's lock
	return r.audit.close(context.Background())
}

// Session returns the open session id, for callers such as the wasm
// module that hold sessions by id.
func (r *Resolver) Session(id string) (*Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sessions[id]
	if !ok {
		return nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonNoSession, Subject: id,
			Msg: "no open session has this id: it was closed, or closed to make room for newer ones"}
	}
	r.clock++
	s.lastUse = r.clock
	return s, nil
}

// snapshot returns the snapshot of selection at the registry's current
// revision, shared with other sessions when one was built already and no
// change was heard since.
func (r *Resolver) snapshot(ctx context.Context, selection []string) (*snapshot, error) {
	// The epoch is taken first: a change heard after it may or may not
	// be in what the registry lists, and is replayed to the session.
	r.mu.Lock()
	epoch := r.epoch
	r.mu.Unlock()
	rev, err := r.reg.Revision(ctx)
	if err != nil {
		return nil, err
	}
	key := selectionKey(selection)
	r.mu.Lock()
	sn := r.snaps[key]
	r.mu.Unlock()
	if sn != nil && sn.revision == rev {
		return sn, nil
	}
	list, err := r.reg.List(ctx)
	if err != nil {
		return nil, err
	}
	sn = newSnapshot(rev, selection, list)
	sn.heard = epoch
	r.mu.Lock()
	if r.epoch == epoch {
		if len(r.snaps) >= maxSnaps {
			clear(r.snaps)
		}
		r.snaps[key] = sn
	}
	r.mu.Unlock()
	return sn, nil
}

// changed hears every committed change of the registry, from this
// context or, through the bus, another, and passes it to the sessions.
func (r *Resolver) changed(c registry.Change) {
	if c.Kind == registry.KindOrigin {
		// Where skills came from is nothing a session shows or reads
		// (see Sessions in docs/architecture.md): not a change to it.
		return
	}
	r.mu.Lock()
	r.epoch++
	clear(r.snaps)
	r.recent = append(r.recent, heardChange{r.epoch, c})
	if len(r.recent) > recentChanges {
		r.recent = r.recent[len(r.recent)-recentChanges:]
	}
	sessions := make([]*Session, 0, len(r.sessions))
	for _, s := range r.sessions {
		sessions = append(sessions, s)
	}
	r.mu.Unlock()
	for _, s := range sessions {
		s.noteChange(c)
	}
}

// install runs apply, which gives s a new snapshot, under r.mu, and then
// replays the changes heard while the snapshot was built: no change can
// fall between the snapshot and the session's watch.
func (r *Resolver) install(s *Session, apply func() *snapshot) {
	r.mu.Lock()
	sn := apply()
	missed, complete := r.heardSince(sn)
	r.mu.Unlock()
	if sn != nil {
		s.replay(sn, missed, complete)
	}
}

// heardSince returns the changes heard since sn's build began, and false
// when some of them were forgotten already. r.mu is held.
func (r *Resolver) heardSince(sn *snapshot) ([]registry.Change, bool) {
	if sn == nil {
		return nil, true
	}
	var out []registry.Change
	for _, h := range r.recent {
		if h.epoch > sn.heard {
			out = append(out, h.c)
		}
	}
	return out, uint64(len(out)) == r.epoch-sn.heard
}

// register adds s, whose snapshot is set, to the open sessions, closing
// the least recently used one when there are too many.
func (r *Resolver) register(s *Session) error {
	var evicted *Session
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return skillerr.New(skillerr.InvalidArgument, "", "the resolver is closed")
	}
	if len(r.sessions) >= r.opts.MaxSessions {
		for _, o := range r.sessions {
			if evicted == nil || o.lastUse < evicted.lastUse {
				evicted = o
			}
		}
		delete(r.sessions, evicted.id)
	}
	r.clock++
	s.lastUse = r.clock
	r.sessions[s.id] = s
	missed, complete := r.heardSince(s.snap)
	r.mu.Unlock()
	s.replay(s.snap, missed, complete)
	if evicted != nil {
		evicted.shut()
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), holdTimeout)
			defer cancel()
			r.release(ctx)
		}()
	}
	return nil
}

// forget removes s from the open sessions.
func (r *Resolver) forget(s *Session) {
	r.mu.Lock()
	if r.sessions[s.id] == s {
		delete(r.sessions, s.id)
	}
	r.mu.Unlock()
}

// newID returns a random session id: sessions are held by id across the
// wasm boundary, and one caller must not guess another's.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
