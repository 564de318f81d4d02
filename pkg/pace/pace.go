// Package pace keeps long work in the browser from stalling the page.
//
// Go's WebAssembly runs on the thread of the page (or worker) that hosts
// it and returns to its event loop only when every goroutine waits, so a
// 10 MB import would hold the page for hundreds of milliseconds in one
// task. Work calls Step between pieces; in the browser, Step yields to the
// event loop once Slice has passed since Go last yielded. Natively nothing
// stalls, and Step does nothing.
package pace

import (
	"time"

	"github.com/skillfs/skillfs/pkg/pace/internal/hook"
)

// Slice is how long work runs between yields: well under the 50 ms the
// browser counts as a long task, since the page may get no turn between
// two slices (Chromium runs the message that wakes Go before a timer that
// fell due during the slice), nor between Go's and JavaScript's.
const Slice = 10 * time.Millisecond

// last is when Go last came back from a yield. Every loop measures from it,
// not from its own start: the work before a loop (another loop, a call
// that cannot be paced, JavaScript that ran before Go was called) belongs
// to the same task. Go's WebAssembly has one thread, so one clock serves.
var last time.Time

// Step yields to the event loop when Slice has passed since Go last
// yielded. Its first call after Go has been idle yields at once, since Go
// cannot tell how long the task that called it has run.
func Step() {
	if hook.Step != nil { // a test's (pacetest.Observe)
		hook.Step()
	}
	if !yields {
		return
	}
	if time.Since(last) >= Slice {
		yield()
		last = time.Now()
	}
}

// stride is how many iterations of a loop of cheap ones run between two
// reads of the clock (StepAt).
const stride = 16

// StepAt is Step for iteration i of a loop whose iterations each take a
// few microseconds (a path checked, a record described): it steps on
// every stride-th one only, from the first, since reading the clock — a
// crossing into JavaScript — costs about as much as one of them.
func StepAt(i int) {
	if i%stride == 0 {
		Step()
	}
}
