//go:build js && wasm

package resolver

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/vfs"
)

// testBackends are the backends of this platform: memory, and the
// browser's real IndexedDB with a fresh database per test.
var testBackends = []backendCase{
	{name: "memory", open: func(testing.TB) vfs.Backend { return vfs.NewMemory() }},
	{name: "indexeddb", open: func(tb testing.TB) vfs.Backend { return openIDB(tb) }},
}

// benchBackend is the backend benchmarks run on: IndexedDB, what the
// extension uses.
func benchBackend(tb testing.TB) vfs.Backend { return openIDB(tb) }

var dbCount atomic.Int64

// openIDB opens a database no other test uses, even when -count reruns
// the tests in one browser profile.
func openIDB(tb testing.TB) *vfs.IndexedDB {
	name := fmt.Sprintf("skillfs-resolver-test-%d-%d", time.Now().UnixNano(), dbCount.Add(1))
	db, err := vfs.OpenIndexedDB(context.Background(), name)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
