//go:build js && wasm

package pace

import (
	"sync"
	"syscall/js"
)

const yields = true

// port carries the messages that wake yield: a message is a task of its
// own, without the 4 ms that browsers add to nested timers.
var (
	once   sync.Once
	port   js.Value
	wakeup = make(chan struct{}, 1)
	// mu keeps one message in flight, so that the handler's send never
	// blocks (a blocked JavaScript callback would stop the program).
	mu sync.Mutex
)

// yield returns to the event loop and comes back in a later task.
func yield() {
	mu.Lock()
	defer mu.Unlock()
	once.Do(func() {
		ch := js.Global().Get("MessageChannel").New()
		ch.Get("port1").Set("onmessage", js.FuncOf(func(js.Value, []js.Value) any {
			wakeup <- struct{}{}
			return nil
		}))
		port = ch.Get("port2")
	})
	port.Call("postMessage", nil)
	<-wakeup
}
