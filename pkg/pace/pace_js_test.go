//go:build js && wasm

package pace

import (
	"syscall/js"
	"testing"
	"time"
)

// TestStepYields: a timer the page set runs while Go works through Steps,
// not only once the work is done.
func TestStepYields(t *testing.T) {
	var ticks []time.Time
	var tick js.Func
	on := true
	tick = js.FuncOf(func(js.Value, []js.Value) any {
		ticks = append(ticks, time.Now())
		if on {
			js.Global().Call("setTimeout", tick, 0)
		}
		return nil
	})
	defer tick.Release()
	js.Global().Call("setTimeout", tick, 0)
	// Work until the timer has run a few times: without yields it never
	// runs before the work ends. The bound is generous so that a loaded
	// machine (timers come late) does not fail the test.
	var p Pacer
	start := time.Now()
	for len(ticks) < 3 && time.Since(start) < 10*time.Second {
		p.Step()
	}
	on = false
	if len(ticks) < 3 {
		t.Fatalf("the page's timer ran %d times during %v of work", len(ticks), time.Since(start))
	}
}
