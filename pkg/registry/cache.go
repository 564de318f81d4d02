package registry

import (
	"context"
	"slices"
	"strings"

	"github.com/skillfs/skillfs/pkg/vfs"
)

// listCache holds List's records between changes. Decoding a thousand
// records costs tens of milliseconds in the browser, and every change
// names the skills it touched, so after a change only those records are
// read again — when nothing else changed in between, which the revision
// read with them tells. Otherwise, or after a gap in the changes heard,
// the whole store is read again.
type listCache struct {
	list  []Meta // sorted by id
	rev   int64  // the revision list reflects
	valid bool
	// stale are the ids changed since rev, by the changes up to want.
	stale []string
	want  int64
	// epoch counts the changes noted, so that a List whose read raced with
	// a change does not cache what it read.
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

// cachedList returns the records, reading what the cache lacks.
func (r *Registry) cachedList(ctx context.Context) ([]Meta, error) {
	r.mu.Lock()
	c := r.cache
	c.stale = slices.Clone(c.stale)
	r.mu.Unlock()
	if c.valid && len(c.stale) == 0 {
		return c.list, nil
	}
	next, ok, err := r.patchList(ctx, c)
	if err != nil {
		return nil, err
	}
	if !ok {
		if next, err = r.readList(ctx); err != nil {
			return nil, err
		}
	}
	r.mu.Lock()
	if r.cache.epoch == c.epoch {
		next.epoch = c.epoch
		r.cache = next
	}
	r.mu.Unlock()
	return next.list, nil
}

// readList reads every record and the revision they reflect.
func (r *Registry) readList(ctx context.Context) (listCache, error) {
	res, err := r.db.Read(ctx, vfs.GetPrefix(vfs.StoreMeta, ""), vfs.Get(vfs.StoreState, revisionKey))
	if err != nil {
		return listCache{}, err
	}
	list, err := decodeMetas(res[0])
	if err != nil {
		return listCache{}, err
	}
	rev, err := decodeRevision(res[1])
	return listCache{list: list, rev: rev, valid: true}, err
}

// patchList reads the stale records of c and applies them, reporting
// false when c cannot be patched: nothing cached, or another change
// committed since the ones c knows of.
func (r *Registry) patchList(ctx context.Context, c listCache) (listCache, bool, error) {
	if !c.valid {
		return c, false, nil
	}
	ids := slices.Compact(slices.Sorted(slices.Values(c.stale)))
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
	list := slices.Clone(c.list)
	for i, id := range ids {
		at, found := slices.BinarySearchFunc(list, id, func(m Meta, id string) int { return strings.Compare(m.ID, id) })
		if len(res[i]) == 0 {
			if found {
				list = slices.Delete(list, at, at+1)
			}
			continue
		}
		m, err := decodeMeta(res[i][0])
		if err != nil {
			return c, false, err
		}
		if found {
			list[at] = m
		} else {
			list = slices.Insert(list, at, m)
		}
	}
	return listCache{list: list, rev: c.want, valid: true}, true, nil
}
