package vfs

import (
	"context"
	"sync"
)

// locks is a table of named in-process locks. Each is a one-slot channel
// rather than a sync.Mutex so that waiting for it honours ctx. Names are
// few (a registry uses one or two), so entries are never removed.
type locks struct {
	mu    sync.Mutex
	slots map[string]chan struct{}
}

func (l *locks) run(ctx context.Context, name string, fn func(context.Context) error) error {
	l.mu.Lock()
	if l.slots == nil {
		l.slots = make(map[string]chan struct{})
	}
	slot, ok := l.slots[name]
	if !ok {
		slot = make(chan struct{}, 1)
		l.slots[name] = slot
	}
	l.mu.Unlock()

	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		return ctxErr("lock "+name, ctx.Err())
	}
	defer func() { <-slot }()
	return fn(ctx)
}
