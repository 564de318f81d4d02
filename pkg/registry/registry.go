package registry

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/vfs"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// DefaultMaxTextFile is the default limit of WriteFile.
const DefaultMaxTextFile = 1 << 20

// Options configure a Registry. The zero value is usable.
type Options struct {
	// Bus carries changes to and from the registries of other contexts
	// on the same database; nil means this registry is alone. In the
	// browser, give it NewBroadcastBus(databaseName).
	Bus Bus
	// Now returns the time stamped on records and edited files;
	// time.Now by default.
	Now func() time.Time
	// Limits bound the archives Import accepts (zipguard's defaults when
	// zero).
	Limits zipguard.Limits
	// MaxTextFile bounds what WriteFile accepts, in bytes;
	// DefaultMaxTextFile when zero or negative.
	MaxTextFile int64
	// Estimate reports the origin's storage use before an import;
	// vfs.Estimate by default.
	Estimate func(context.Context) (vfs.StorageEstimate, error)
	// RetainVersions and RetainBytes bound the versions kept for sessions
	// that started before a replace or an edit (DefaultRetainVersions,
	// DefaultRetainBytes when zero).
	RetainVersions int
	RetainBytes    int
}

// Registry keeps the installed skills of one database: their tree under
// /skills and their records in vfs.StoreMeta. It is safe for concurrent
// use, also with registries of other contexts on the same database.
type Registry struct {
	db      vfs.Backend
	fsys    *vfs.FS
	opts    Options
	subs    subscribers
	stopBus func()

	mu    sync.Mutex
	cache listCache
	// warming is closed when Warm's read is done; nil without Warm.
	warming chan struct{}
	// tools and mcp are what the host registered; nil until it does.
	tools, mcp []string
}

// lockName is the name of the lock every change holds.
const lockName = "skillfs-registry"

// revisionKey is the key of the revision in vfs.StoreState.
const revisionKey = "revision"

// Open returns the registry of db, which the caller keeps and closes. It
// asks the browser once to keep the origin's storage (vfs.Persist) and
// goes on without the answer: a refusal changes nothing.
func Open(ctx context.Context, db vfs.Backend, opts Options) (*Registry, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxTextFile <= 0 {
		opts.MaxTextFile = DefaultMaxTextFile
	}
	if opts.Estimate == nil {
		opts.Estimate = vfs.Estimate
	}
	fsys, err := vfs.New(db)
	if err != nil {
		return nil, err
	}
	r := &Registry{db: db, fsys: fsys.ReadOnly(), opts: opts}
	if opts.Bus != nil {
		r.stopBus = opts.Bus.Subscribe(r.heard)
	}
	// Asked, not awaited: the answer changes nothing, and waiting for it
	// cost every start a round trip to the browser.
	go vfs.Persist(context.Background())
	return r, nil
}

// Close stops listening to the bus. It does not close the database.
func (r *Registry) Close() error {
	if r.stopBus != nil {
		r.stopBus()
	}
	return nil
}

// FS returns the skills tree, read-only. Agent-facing readers must hide
// the skills that are not enabled; see Visible.
func (r *Registry) FS() *vfs.FS { return r.fsys }

// List returns every installed skill, enabled or not, sorted by id. It
// reads the records only, never the tree, and caches them; after a change
// of this or any other context it reads only the records that changed.
func (r *Registry) List(ctx context.Context) ([]Meta, error) {
	list, err := r.cachedList(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Meta, len(list))
	for i, m := range list {
		pace.StepAt(i)
		out[i] = m.clone()
	}
	return out, nil
}

// ListJSON returns what List returns as a JSON array, made of the stored
// records as they are: for callers that only pass the list on, such as the
// JavaScript bridge, it decodes nothing.
func (r *Registry) ListJSON(ctx context.Context) ([]byte, error) {
	c, err := r.current(ctx, true)
	if err != nil {
		return nil, err
	}
	n := 2
	for _, rec := range c.recs {
		n += len(rec.Value) + 1
	}
	out := make([]byte, 1, n)
	out[0] = '['
	for i, rec := range c.recs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, rec.Value...)
	}
	return append(out, ']'), nil
}

// Visible returns the enabled skills, sorted by id: the only ones agents
// may see.
func (r *Registry) Visible(ctx context.Context) ([]Meta, error) {
	list, err := r.List(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list, func(m Meta) bool { return !m.Enabled }), nil
}

// Get returns the record of skill id, or a SkillNotFound error.
func (r *Registry) Get(ctx context.Context, id string) (Meta, error) {
	r.mu.Lock()
	c := r.cache
	r.mu.Unlock()
	if c.valid && len(c.stale) == 0 {
		i, ok := findRecord(c.recs, id)
		switch {
		case !ok:
			return Meta{}, notInstalled(id)
		case c.metas != nil:
			return c.metas[i].clone(), nil
		}
		return decodeMeta(c.recs[i])
	}
	res, err := r.db.Read(ctx, vfs.Get(vfs.StoreMeta, id))
	if err != nil {
		return Meta{}, err
	}
	if len(res[0]) == 0 {
		return Meta{}, notInstalled(id)
	}
	return decodeMeta(res[0][0])
}

// Revision returns the revision of the last committed change, 0 before
// the first.
func (r *Registry) Revision(ctx context.Context) (int64, error) {
	res, err := r.db.Read(ctx, vfs.Get(vfs.StoreState, revisionKey))
	if err != nil {
		return 0, err
	}
	return decodeRevision(res[0])
}

// Subscribe calls fn after every change committed by this registry or, as
// the bus reports them, by the registries of other contexts, until cancel
// is called. Concurrent changes may arrive out of order; Change.Revision
// orders them.
func (r *Registry) Subscribe(fn func(Change)) (cancel func()) { return r.subs.add(fn) }

// heard handles a change committed by another context.
func (r *Registry) heard(c Change) {
	r.noteChange(c)
	r.subs.send(c)
}

func (r *Registry) noteChange(c Change) {
	r.mu.Lock()
	r.cache.noteChange(c)
	r.mu.Unlock()
}

// now returns the time to stamp, to the millisecond like the tree's times.
func (r *Registry) now() time.Time { return r.opts.Now().UTC().Truncate(time.Millisecond) }

// decodeRevision returns the revision stored in found, the result of a
// Get of revisionKey: decimal digits.
func decodeRevision(found []vfs.Record) (int64, error) {
	if len(found) == 0 {
		return 0, nil
	}
	rev, err := strconv.ParseInt(string(found[0].Value), 10, 64)
	if err != nil || rev < 0 {
		return 0, internal(revisionKey, err, "the stored revision is corrupt")
	}
	return rev, nil
}
