package registry

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// afterReadDB holds, once armed, the result of the next read of every
// record (a list's whole read) after the read is done: the records it
// returns are those of the moment it read.
type afterReadDB struct {
	vfs.Backend
	mu    sync.Mutex
	armed bool
	read  chan struct{} // closed once the held read has read
	gate  chan struct{}
}

func (h *afterReadDB) Read(ctx context.Context, qs ...vfs.Query) ([][]vfs.Record, error) {
	res, err := h.Backend.Read(ctx, qs...)
	h.mu.Lock()
	hold := h.armed && len(qs) > 0 && qs[0].Prefix && qs[0].Store == vfs.StoreMeta
	if hold {
		h.armed = false
	}
	h.mu.Unlock()
	if hold {
		close(h.read)
		<-h.gate
	}
	return res, err
}

// Two lists in a context that heard nothing, each reading the records
// whole after the revision moved on unheard, read at the same epoch: the
// cache keeps the newer read, not the later to arrive. Else a list that
// read before a removal but ended after one that read after it left the
// removed skill in the cache, and Get (which takes the cache as it is)
// said it is installed after List said it is gone.
func TestCacheKeepsNewerRead(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, memoryCase)
	e.importZip(t, packOf(t, "a"), ImportOptions{})
	held := &afterReadDB{Backend: memoryCase.again(t, e.db), read: make(chan struct{}), gate: make(chan struct{})}
	b := openReg(t, held, Options{}) // hears no one
	mustList(t, b)
	a := openReg(t, memoryCase.again(t, e.db), Options{}) // tells no one
	if _, err := a.Import(ctx, packOf(t, "y"), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	held.mu.Lock()
	held.armed = true
	held.mu.Unlock()
	first := make(chan []Meta)
	go func() {
		l, err := b.List(ctx)
		if err != nil {
			t.Error(err)
		}
		first <- l
	}()
	<-held.read // the first list has read a and y
	if err := a.Remove(ctx, "y"); err != nil {
		t.Fatal(err)
	}
	second := mustList(t, b)
	if got := ids(second); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("the list after y's removal: %v", got)
	}
	close(held.gate)
	<-first
	// The second list finished last as seen by its caller; y is gone.
	if m, err := b.Get(ctx, "y"); skillerr.CodeOf(err) != skillerr.SkillNotFound {
		t.Errorf("Get(y) after a list without y = %+v, %v; want SkillNotFound", m.ID, err)
	}
}

// A list that read the records afresh (here, after a change unheard)
// keeps their decoding, in a registry that has noted changes before:
// else every List decoded them all again (tens of milliseconds for a
// thousand in the browser).
func TestCacheKeepsDecoding(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, memoryCase)
	e.importZip(t, packOf(t, "a"), ImportOptions{}) // e.reg notes it: epoch 1
	mustList(t, e.reg)
	other := openReg(t, memoryCase.again(t, e.db), Options{}) // tells no one
	if _, err := other.Import(ctx, packOf(t, "y"), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := e.reg.List(ctx)
	if got := ids(list); err != nil || !slices.Equal(got, []string{"a", "y"}) {
		t.Fatalf("list: %v, %v", got, err)
	}
	e.reg.mu.Lock()
	decoded := e.reg.cache.metas != nil
	e.reg.mu.Unlock()
	if !decoded {
		t.Error("the list decoded the records it read, and did not keep the decoding")
	}
}
