//go:build js && wasm

package registry

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/vfs"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// testOutside is the browser's Outside, on a JavaScript copy of data.
func testOutside(_ testing.TB, data []byte) zipguard.Outside {
	return zipguard.Browser(external.Hold(data).Value())
}

// testBackends are the backends of this platform: memory, and IndexedDB
// with a BroadcastChannel bus.
var testBackends = []backendCase{memoryCase, {
	name: "indexeddb",
	open: func(tb testing.TB) *testDB {
		name := fmt.Sprintf("skillfs-registry-test-%d", dbCount.Add(1))
		return &testDB{Reopener: openIDB(tb, name), name: name}
	},
	again: func(tb testing.TB, db *testDB) vfs.Backend { return openIDB(tb, db.name) },
	join: func(tb testing.TB, db *testDB) Bus {
		b, err := NewBroadcastBus(db.name)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { b.Close() })
		return b
	},
}}

// dbCount numbers the databases: each test gets its own, in a browser
// profile that starts empty.
var dbCount atomic.Int64

func openIDB(tb testing.TB, name string) *vfs.IndexedDB {
	db, err := vfs.OpenIndexedDB(context.Background(), name)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
