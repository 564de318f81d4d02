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
	start := time.Now()
	for len(ticks) < 3 && time.Since(start) < 10*time.Second {
		Step()
	}
	on = false
	if len(ticks) < 3 {
		t.Fatalf("the page's timer ran %d times during %v of work", len(ticks), time.Since(start))
	}
}

// TestStepYieldsAfterWork: work that ran a Slice before a loop's first
// Step (a call that cannot be paced, another loop) counts: that Step
// yields at once instead of starting a slice of its own.
func TestStepYieldsAfterWork(t *testing.T) {
	ran := messageThenWork(t)
	Step()
	if !*ran {
		t.Fatal("a Step after a Slice of work did not yield")
	}
}

// TestStepAtStride: StepAt reads the clock only on every stride-th
// iteration, so after a Slice of work an iteration between two of them
// does not yield and the next stride-th one does.
func TestStepAtStride(t *testing.T) {
	ran := messageThenWork(t)
	for i := 1; i < stride; i++ {
		StepAt(i)
	}
	if *ran {
		t.Fatal("StepAt yielded between two stride-th iterations")
	}
	StepAt(stride)
	if !*ran {
		t.Fatal("StepAt on a stride-th iteration after a Slice of work did not yield")
	}
}

// messageThenWork posts a message, then works a Slice without stepping,
// and returns whether the message has run: a message posted before a
// yield runs before the one the yield waits for, since both are messages,
// handled in order.
func messageThenWork(t *testing.T) *bool {
	ran := new(bool)
	ch := js.Global().Get("MessageChannel").New()
	onMessage := js.FuncOf(func(js.Value, []js.Value) any {
		*ran = true
		return nil
	})
	t.Cleanup(onMessage.Release)
	ch.Get("port1").Set("onmessage", onMessage)
	ch.Get("port2").Call("postMessage", nil)
	for start := time.Now(); time.Since(start) < Slice; {
		// work that does not step
	}
	return ran
}
