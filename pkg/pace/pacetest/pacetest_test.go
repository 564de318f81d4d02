package pacetest

import (
	"testing"

	"github.com/skillfs/skillfs/pkg/pace"
)

// TestObserve: fn sees every Step and every stride-th StepAt, and none
// once stopped.
func TestObserve(t *testing.T) {
	steps := 0
	stop := Observe(func() { steps++ })
	pace.Step()
	for i := range 32 {
		pace.StepAt(i)
	}
	stop()
	pace.Step()
	if steps != 3 {
		t.Errorf("%d steps observed, want 3", steps)
	}
}
