// Package pace keeps long work in the browser from stalling the page.
//
// Go's WebAssembly runs on the thread of the page (or worker) that hosts
// it and returns to its event loop only when every goroutine waits, so a
// 10 MB import would hold the page for hundreds of milliseconds in one
// task. Work that loops calls Step between pieces; in the browser, Step
// yields to the event loop once Slice has passed since the last yield.
// Natively nothing stalls, and Step does nothing.
package pace

import "time"

// Slice is how long work runs between yields: well under the 50 ms the
// browser counts as a long task.
const Slice = 15 * time.Millisecond

// Pacer paces one piece of work. Its zero value is ready, and counts from
// its first Step.
type Pacer struct{ last time.Time }

// Step yields to the event loop when Slice has passed since the last
// yield (or the first Step).
func (p *Pacer) Step() {
	if !yields {
		return
	}
	now := time.Now()
	switch {
	case p.last.IsZero():
		p.last = now
	case now.Sub(p.last) >= Slice:
		yield()
		p.last = time.Now()
	}
}
