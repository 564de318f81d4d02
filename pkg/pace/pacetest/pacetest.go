// Package pacetest lets the tests of any package count pace's steps: a
// test counts the steps of a loop over thousands of items to know that it
// gives the host turns, without timing it (how long a slice takes is a
// benchmark's figure). Only tests import it, so the module and the CLI
// hold none of it; an export_test.go would serve pace's own tests only.
package pacetest

import "github.com/skillfs/skillfs/pkg/pace/internal/hook"

// Observe calls fn at every pace.Step (and every StepAt that steps),
// whether it yields or not, until stop is called. Not for use while other
// work runs.
func Observe(fn func()) (stop func()) {
	hook.Step = fn
	return func() { hook.Step = nil }
}
