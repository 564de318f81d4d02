package registry

import (
	"context"
	"runtime"
	"slices"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// listCache holds the records between changes. Every change names the
// skills it touched, so after a change only those records are read again —
// when nothing else changed in between, which the revision read with them
// tells. Otherwise, or after a gap in the changes heard, the whole store is
// read again.
//
// The records are kept as stored, JSON, and decoded only when Go needs
// them: ListJSON hands them to JavaScript as they are, which is what a
// side panel's list costs (decoding a thousand records costs tens of
// milliseconds in the browser; JSON.parse does it several times faster).
type listCache struct {
	recs  []vfs.Record // sorted by key, the skill's id
	metas []Meta       // recs decoded, nil until List needs them
	rev   int64        // the revision recs reflect
	valid bool
	// stale are the ids changed since rev, by the changes up to want.
	stale []string
	want  int64
	// epoch counts the changes noted, so that a read that raced with a
	// change does not cache what it read.
	epoch uint64
}

// noteChange records change c, committed here or heard from another
// context. Callers hold r.mu.
func (c *listCache) noteChange(ch Change) {
	c.epoch++
	cur := c.rev
	if len(c.stale) > 0 {
		cur = c.want
	}
	switch {
	case !c.valid || ch.Revision <= cur:
		// Nothing cached, or the cache already reflects the change.
	case ch.Revision == cur+1:
		c.stale = append(c.stale, ch.IDs...)
		c.want = ch.Revision
	default:
		*c = listCache{epoch: c.epoch}
	}
}

// Warm begins reading the list into the cache, for a host that lists
// first, as the bridge's do: the read goes on beside the rest of the
// host's start, and a list asked for meanwhile waits for it rather than
// reading again. An error leaves the cache empty; the next list reads
// again and reports it.
func (r *Registry) Warm() {
	r.mu.Lock()
	if r.warming != nil {
		r.mu.Unlock()
		return
	}
	done := make(chan struct{})
	r.warming = done
	r.mu.Unlock()
	go func() {
		defer close(done)
		r.refresh(context.Background(), false)
	}()
	// In WebAssembly, one thread: the read is issued now, by the goroutine
	// running until it waits for IndexedDB, not once the caller blocks.
	runtime.Gosched()
}

// current returns the cache brought up to date, reading what it lacks,
// once Warm's read, if any, is done. With check, a cache current as far as
// the changes heard tell is also held to the revision stored, one read: a
// context closed between its commit and its broadcast leaves no other
// change to tell of it, and the list would stay behind until the next
// change heard (docs/architecture.md, Start and list). A caller that reads
// the revision itself (readLocked) does without.
func (r *Registry) current(ctx context.Context, check bool) (listCache, error) {
	r.mu.Lock()
	warming := r.warming
	r.mu.Unlock()
	if warming != nil {
		select {
		case <-warming:
		case <-ctx.Done():
			return listCache{}, skillerr.Wrap(skillerr.Timeout, "list", ctx.Err(), "the list was not read in time")
		}
	}
	return r.refresh(ctx, check)
}

// refresh returns the cache brought up to date, reading what it lacks,
// and with check held to the stored revision (see current).
func (r *Registry) refresh(ctx context.Context, check bool) (listCache, error) {
	r.mu.Lock()
	c := r.cache
	c.stale = slices.Clone(c.stale)
	r.mu.Unlock()
	var next listCache
	ok := false
	if c.valid && len(c.stale) == 0 {
		if !check {
			return c, nil
		}
		res, err := r.db.Read(ctx, vfs.Get(vfs.StoreState, revisionKey))
		if err != nil {
			return listCache{}, err
		}
		switch rev, err := decodeRevision(res[0]); {
		case err != nil:
			return listCache{}, err
		case rev == c.rev:
			return c, nil
		}
		// Which records the unheard changes touched is unknown: all are
		// read again.
	} else {
		var err error
		if next, ok, err = r.patchList(ctx, c); err != nil {
			return listCache{}, err
		}
	}
	if !ok {
		var err error
		if next, err = r.readList(ctx); err != nil {
			return listCache{}, err
		}
	}
	next.epoch = c.epoch // what it was read at, which keep compares
	r.keep(c.epoch, next)
	return next, nil
}

// keep caches c, read or decoded while the cache was at epoch, unless a
// change was noted since.
func (r *Registry) keep(epoch uint64, c listCache) {
	r.mu.Lock()
	// Two reads at one epoch (changes unheard, read whole) keep the
	// newer, not the later to arrive.
	if r.cache.epoch == epoch && (!r.cache.valid || c.rev >= r.cache.rev) {
		c.epoch = epoch
		r.cache = c
	}
	r.mu.Unlock()
}

// cachedList returns the records decoded.
func (r *Registry) cachedList(ctx context.Context) ([]Meta, error) {
	c, err := r.current(ctx, true)
	if err != nil || c.metas != nil {
		return c.metas, err
	}
	if c.metas, err = decodeMetas(c.recs); err != nil {
		return nil, err
	}
	r.keep(c.epoch, c)
	return c.metas, nil
}

// readList reads every record and the revision they reflect.
func (r *Registry) readList(ctx context.Context) (listCache, error) {
	res, err := r.db.Read(ctx, vfs.GetPrefix(vfs.StoreMeta, ""), vfs.Get(vfs.StoreState, revisionKey))
	if err != nil {
		return listCache{}, err
	}
	rev, err := decodeRevision(res[1])
	return listCache{recs: res[0], rev: rev, valid: true}, err
}

// maxPatch is the most stale records patchList reads one by one: each is
// a request of its own, all issued in one task of the host (IndexedDB
// ends a transaction at the end of a task that issued nothing), and the
// records of thousands (an import, a batch) cost more that way than all
// of them read in one request.
const maxPatch = 256

// patchList reads the stale records of c and applies them, reporting
// false when c cannot be patched: nothing cached, another change
// committed since the ones c knows of, or more than maxPatch records to
// read.
func (r *Registry) patchList(ctx context.Context, c listCache) (listCache, bool, error) {
	if !c.valid {
		return c, false, nil
	}
	ids := slices.Compact(slices.Sorted(slices.Values(c.stale)))
	if len(ids) > maxPatch {
		return c, false, nil
	}
	qs := make([]vfs.Query, 0, len(ids)+1)
	for _, id := range ids {
		qs = append(qs, metaQuery(id))
	}
	res, err := r.db.Read(ctx, append(qs, vfs.Get(vfs.StoreState, revisionKey))...)
	if err != nil {
		return c, false, err
	}
	if rev, err := decodeRevision(res[len(ids)]); err != nil || rev != c.want {
		return c, false, err
	}
	// One merge of the two sorted lists: a change of thousands of skills
	// (a batch delete) patched one by one moved the whole list for each,
	// with no turn for the host between (its pings went unanswered).
	next := listCache{recs: make([]vfs.Record, 0, len(c.recs)+len(ids)), rev: c.want, valid: true}
	if c.metas != nil {
		next.metas = make([]Meta, 0, len(c.recs)+len(ids))
	}
	for i, j := 0, 0; i < len(c.recs) || j < len(ids); {
		pace.StepAt(i + j)
		if j == len(ids) || i < len(c.recs) && c.recs[i].Key < ids[j] {
			next.recs = append(next.recs, c.recs[i])
			if next.metas != nil {
				next.metas = append(next.metas, c.metas[i])
			}
			i++
			continue
		}
		if i < len(c.recs) && c.recs[i].Key == ids[j] {
			i++ // replaced or removed
		}
		if len(res[j]) > 0 {
			rec := res[j][0]
			next.recs = append(next.recs, rec)
			if next.metas != nil {
				m, err := decodeMeta(rec)
				if err != nil {
					return c, false, err
				}
				next.metas = append(next.metas, m)
			}
		}
		j++
	}
	return next, true, nil
}
