//go:build js && wasm

package registry

import (
	"encoding/json"
	"slices"
	"sync"
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// BroadcastBus is a Bus over a BroadcastChannel, which reaches every other
// context of the origin — tabs, workers, an extension's side panel — that
// opens a BroadcastBus for the same database. Messages are plain objects
// {revision, kind, ids}, so JavaScript can listen too.
type BroadcastBus struct {
	subs subscribers

	mu    sync.Mutex // guards ch and onMsg against Close
	ch    js.Value
	onMsg js.Func
}

// NewBroadcastBus opens the BroadcastChannel of the skills database called
// db ("skillfs:" + db + ":changes").
func NewBroadcastBus(db string) (*BroadcastBus, error) {
	ctor := js.Global().Get("BroadcastChannel")
	if !ctor.Truthy() {
		return nil, &skillerr.Error{Code: skillerr.Internal, Reason: "unavailable", Subject: db,
			Msg: "BroadcastChannel is not available in this context"}
	}
	b := &BroadcastBus{ch: ctor.New("skillfs:" + db + ":changes")}
	b.onMsg = js.FuncOf(func(_ js.Value, args []js.Value) any {
		c, ok := changeOf(args[0].Get("data"))
		if ok {
			// Subscribers may await IndexedDB, which a JavaScript
			// callback must not block on.
			go b.subs.send(c)
		}
		return nil
	})
	b.ch.Call("addEventListener", "message", b.onMsg)
	return b, nil
}

// Publish posts c to the channel. The message crosses into JavaScript as
// JSON, in one call: a batch names thousands of skills, and a crossing
// per id held the host's thread for tens of milliseconds.
func (b *BroadcastBus) Publish(c Change) {
	if c.IDs == nil {
		c.IDs = []string{} // an array, as changeOf requires
	}
	text, err := json.Marshal(c)
	if err != nil {
		return // strings and numbers: cannot fail
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch.IsUndefined() {
		return
	}
	b.ch.Call("postMessage", js.Global().Get("JSON").Call("parse", string(text)))
}

// Subscribe implements Bus.
func (b *BroadcastBus) Subscribe(fn func(Change)) func() { return b.subs.add(fn) }

// Close closes the channel; later Publish calls do nothing.
func (b *BroadcastBus) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch.IsUndefined() {
		return nil
	}
	b.ch.Call("removeEventListener", "message", b.onMsg)
	b.ch.Call("close")
	b.onMsg.Release()
	b.ch = js.Undefined()
	return nil
}

// changeOf reads a message posted by Publish; anything else on the
// channel is ignored.
func changeOf(v js.Value) (Change, bool) {
	if v.Type() != js.TypeObject || v.Get("revision").Type() != js.TypeNumber ||
		v.Get("kind").Type() != js.TypeString || !js.Global().Get("Array").Call("isArray", v.Get("ids")).Bool() {
		return Change{}, false
	}
	c := Change{Revision: int64(v.Get("revision").Float()), Kind: v.Get("kind").String()}
	// In one crossing, as Publish: ids that are not all strings are not a
	// change. A null (which json.Unmarshal leaves as "") is not one.
	text, ok := stringify(v.Get("ids"))
	var ids []*string
	if !ok || json.Unmarshal([]byte(text), &ids) != nil || slices.Contains(ids, nil) {
		return Change{}, false
	}
	c.IDs = make([]string, len(ids))
	for i, id := range ids {
		c.IDs[i] = *id
	}
	return c, true
}

// stringify returns JSON.stringify(v), or false where it throws: a message
// any context of the origin posted may hold what it cannot write (a
// BigInt, an array holding itself), and a panic in the bus's callback
// would end the Go program.
func stringify(v js.Value) (text string, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return js.Global().Get("JSON").Call("stringify", v).String(), true
}
