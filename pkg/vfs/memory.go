package vfs

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Memory is a Backend that keeps everything in process memory. It behaves
// like the IndexedDB backend — same stores, key rules, ordering, atomic
// commits and fault injection — so logic tests run natively.
type Memory struct {
	db     *memDB
	closed atomic.Bool
}

// memDB is the data every handle of one memory database shares.
type memDB struct {
	mu     sync.RWMutex
	tables map[string]*memTable
	locks  locks
}

// memTable keeps its keys sorted so that prefix queries read only the
// matching range.
type memTable struct {
	keys []string
	vals map[string][]byte
}

// NewMemory returns an empty memory backend.
func NewMemory() *Memory {
	db := &memDB{tables: make(map[string]*memTable, len(stores))}
	for _, s := range stores {
		db.tables[s] = &memTable{vals: make(map[string][]byte)}
	}
	return &Memory{db: db}
}

const memSubject = "memory database"

// Read implements Backend.
func (m *Memory) Read(ctx context.Context, qs ...Query) ([][]Record, error) {
	if m.closed.Load() {
		return nil, errClosed(memSubject)
	}
	if err := checkQueries(qs); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxErr(memSubject, err)
	}
	m.db.mu.RLock()
	defer m.db.mu.RUnlock()
	out := make([][]Record, len(qs))
	for i, q := range qs {
		t := m.db.tables[q.Store]
		if !q.Prefix {
			if v, ok := t.vals[q.Key]; ok {
				out[i] = []Record{{Key: q.Key, Value: slices.Clone(v)}}
			}
			continue
		}
		lo, hi := t.prefixRange(q.Key)
		for _, k := range t.keys[lo:hi] {
			out[i] = append(out[i], Record{Key: k, Value: slices.Clone(t.vals[k])})
		}
	}
	return out, nil
}

// Commit implements Backend. It applies ops to the live tables while
// logging what each one replaced, and replays the log backwards on an
// injected failure, so a rollback is really exercised.
func (m *Memory) Commit(ctx context.Context, ops ...Op) error {
	if m.closed.Load() {
		return errClosed(memSubject)
	}
	if err := checkOps(ops); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return ctxErr(memSubject, err)
	}
	issue, fail := injectedFailure(ctx, len(ops))
	m.db.mu.Lock()
	defer m.db.mu.Unlock()
	var undo []Op
	for _, op := range ops[:issue] {
		t := m.db.tables[op.Store]
		keys := []string{op.Key}
		if op.Kind == OpDeletePrefix {
			lo, hi := t.prefixRange(op.Key)
			keys = slices.Clone(t.keys[lo:hi])
		}
		for _, k := range keys {
			if old, ok := t.vals[k]; ok {
				undo = append(undo, Put(op.Store, k, old))
			} else {
				undo = append(undo, Delete(op.Store, k))
			}
			if op.Kind == OpPut {
				t.put(k, slices.Clone(op.value()))
			} else {
				t.delete(k)
			}
		}
	}
	if !fail {
		return nil
	}
	for _, op := range slices.Backward(undo) {
		if op.Kind == OpPut {
			m.db.tables[op.Store].put(op.Key, op.Value)
		} else {
			m.db.tables[op.Store].delete(op.Key)
		}
	}
	return errInjected(memSubject, issue)
}

// Lock implements Backend with an in-process lock shared by every handle
// of this database.
func (m *Memory) Lock(ctx context.Context, name string, fn func(context.Context) error) error {
	if m.closed.Load() {
		return errClosed(memSubject)
	}
	return m.db.locks.run(ctx, name, fn)
}

// Close implements Backend.
func (m *Memory) Close() error {
	m.closed.Store(true)
	return nil
}

// Reopen implements Reopener: it closes m and returns a new handle on the
// same data.
func (m *Memory) Reopen(context.Context) (Backend, error) {
	if m.closed.Swap(true) {
		return nil, errClosed(memSubject)
	}
	return &Memory{db: m.db}, nil
}

// prefixRange returns the bounds of the keys starting with prefix.
func (t *memTable) prefixRange(prefix string) (lo, hi int) {
	lo, _ = slices.BinarySearch(t.keys, prefix)
	hi = lo
	for hi < len(t.keys) && strings.HasPrefix(t.keys[hi], prefix) {
		hi++
	}
	return lo, hi
}

func (t *memTable) put(k string, v []byte) {
	if _, ok := t.vals[k]; !ok {
		i, _ := slices.BinarySearch(t.keys, k)
		t.keys = slices.Insert(t.keys, i, k)
	}
	t.vals[k] = v
}

func (t *memTable) delete(k string) {
	if _, ok := t.vals[k]; !ok {
		return
	}
	i, _ := slices.BinarySearch(t.keys, k)
	t.keys = slices.Delete(t.keys, i, i+1)
	delete(t.vals, k)
}
