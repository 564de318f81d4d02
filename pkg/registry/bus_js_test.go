//go:build js && wasm

package registry

import (
	"fmt"
	"slices"
	"syscall/js"
	"testing"
)

// TestBroadcastBusIgnoresOtherMessages: a message on the channel whose
// ids are not all strings — a BigInt, null, a number, an array holding
// itself, all of which a BroadcastChannel carries — is not a change and
// is passed over; the change posted after them arrives. (A cycle or a
// BigInt made JSON.stringify throw in the bus's callback, which ended the
// Go program; a null was taken as the id "".)
func TestBroadcastBusIgnoresOtherMessages(t *testing.T) {
	name := fmt.Sprintf("skillfs-bus-test-%d", dbCount.Add(1))
	b, err := NewBroadcastBus(name)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := make(chan Change, 8)
	defer b.Subscribe(func(c Change) { got <- c })()

	other := js.Global().Get("BroadcastChannel").New("skillfs:" + name + ":changes")
	defer other.Call("close")
	array := js.Global().Get("Array")
	cyclic := array.New()
	cyclic.Call("push", cyclic)
	post := func(rev int, ids js.Value) {
		other.Call("postMessage", js.ValueOf(map[string]any{"revision": rev, "kind": KindEnable, "ids": ids}))
	}
	for _, ids := range []js.Value{cyclic, array.Call("of", js.Global().Call("BigInt", 1)), array.Call("of", js.Null()),
		array.Call("of", "a", 5)} {
		post(1, ids)
	}
	post(2, array.Call("of", "a", "<b>"))
	// One sender's messages arrive in the order posted.
	c := <-got
	if c.Revision != 2 || c.Kind != KindEnable || fmt.Sprint(c.IDs) != "[a <b>]" {
		t.Errorf("first change heard: %+v, want revision 2 naming a and <b>", c)
	}
}

// TestBroadcastBusCarriesBatches: changes published by one bus reach
// another on the same channel in order, each with its revision, kind and
// every id in its order: a batch of MaxBatch, ids JSON escapes, none.
func TestBroadcastBusCarriesBatches(t *testing.T) {
	name := fmt.Sprintf("skillfs-bus-test-%d", dbCount.Add(1))
	from, err := NewBroadcastBus(name)
	if err != nil {
		t.Fatal(err)
	}
	defer from.Close()
	to, err := NewBroadcastBus(name)
	if err != nil {
		t.Fatal(err)
	}
	defer to.Close()
	got := make(chan Change, 8)
	defer to.Subscribe(func(c Change) { got <- c })()
	batch := make([]string, MaxBatch)
	for i := range batch {
		batch[i] = fmt.Sprintf("skill-%04d", MaxBatch-i) // not sorted
	}
	sent := []Change{
		{Revision: 7, Kind: KindDisable, IDs: batch},
		{Revision: 8, Kind: KindEdit, IDs: []string{`a"b\c`, "<x>&", "é\u2028"}},
		{Revision: 9, Kind: KindRemove, IDs: []string{}},
	}
	for _, c := range sent {
		from.Publish(c)
	}
	for _, want := range sent {
		if c := <-got; c.Revision != want.Revision || c.Kind != want.Kind || !slices.Equal(c.IDs, want.IDs) {
			t.Errorf("heard revision %d %s with %d ids (%.40v), want revision %d %s with %d (%.40v)",
				c.Revision, c.Kind, len(c.IDs), c.IDs, want.Revision, want.Kind, len(want.IDs), want.IDs)
		}
	}
}
