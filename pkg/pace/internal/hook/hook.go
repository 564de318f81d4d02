// Package hook holds what pace.Step calls at every step besides yielding:
// nil in the module and the CLI; a test's counter, set through
// pace/pacetest. It is internal to pace, so that nothing but pacetest,
// which only tests import, can set it.
package hook

// Step, when set, is called by every pace.Step, whether it yields or not.
var Step func()
