package resolver

import (
	"container/list"
	"sync"
)

// DefaultCacheBytes is how many bytes of skill content a Resolver keeps in
// memory unless Options.CacheBytes says otherwise.
const DefaultCacheBytes = 16 << 20

// The kinds of value the content cache holds.
const (
	cacheFile   byte = 'f' // a file's bytes
	cacheParsed byte = 'p' // a skill's parsed body and resource list
)

// cacheKey names a value derived from one version of one skill. The digest
// is part of the key, so a value of one version can never answer for
// another: a new version simply misses.
type cacheKey struct {
	kind   byte
	id     string
	digest string
	path   string
}

// contentCache is a least-recently-used cache of immutable values, bounded
// by the bytes they hold. It is shared by every session of a Resolver,
// which is safe because a key pins the version. Values are never changed
// once stored; readers copy what they hand out.
type contentCache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	order *list.List // front: most recently used
	items map[cacheKey]*list.Element
}

// entryOverhead approximates the memory an entry costs besides its value
// and key: the list element, the map slot and the entry itself.
const entryOverhead = 160

type cacheEntry struct {
	key  cacheKey
	val  any
	size int64
}

func newContentCache(max int64) *contentCache {
	return &contentCache{max: max, order: list.New(), items: make(map[cacheKey]*list.Element)}
}

// get returns the value stored under k.
func (c *contentCache) get(k cacheKey) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).val, true
}

// put stores v, which holds size bytes, under k, evicting the least
// recently used values until the cache fits. A value larger than a quarter
// of the cache is not kept: one font file must not flush every skill's
// instructions.
func (c *contentCache) put(k cacheKey, v any, size int64) {
	// The key and the bookkeeping count too, so that many empty files
	// cannot grow the cache without bound.
	size += int64(len(k.id)+len(k.digest)+len(k.path)) + entryOverhead
	if size > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.used -= e.Value.(*cacheEntry).size
		c.order.Remove(e)
	}
	c.items[k] = c.order.PushFront(&cacheEntry{key: k, val: v, size: size})
	c.used += size
	for c.used > c.max {
		last := c.order.Back()
		ent := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.items, ent.key)
		c.used -= ent.size
	}
}

// purge empties the cache.
func (c *contentCache) purge() {
	c.mu.Lock()
	c.order.Init()
	clear(c.items)
	c.used = 0
	c.mu.Unlock()
}

// bytes returns how many bytes the cache holds.
func (c *contentCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
