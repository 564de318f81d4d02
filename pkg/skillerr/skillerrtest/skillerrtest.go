// Package skillerrtest checks, in tests, the errors of packages that return
// *skillerr.Error.
package skillerrtest

import (
	"errors"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// Want reports through t, as about what, unless err is a *skillerr.Error
// with code (and reason, when reason is not "") and a message for a
// person. It returns the error found, or nil.
func Want(t testing.TB, what string, err error, code skillerr.Code, reason string) *skillerr.Error {
	t.Helper()
	var e *skillerr.Error
	if !errors.As(err, &e) {
		t.Errorf("%s: error %v (%T) is not a *skillerr.Error", what, err, err)
		return nil
	}
	if e.Code != code || (reason != "" && e.Reason != reason) {
		t.Errorf("%s: got %s/%s (%v), want %s/%s", what, e.Code, e.Reason, err, code, reason)
	}
	if e.Msg == "" {
		t.Errorf("%s: the error has no message", what)
	}
	return e
}
