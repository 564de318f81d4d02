//go:build js && wasm

package external_test

import (
	"errors"
	"strings"
	"syscall/js"
	"testing"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// A js/outside.ts from another build, without a function this build
// calls, is refused at start with a code that names the mismatch.
func TestSetHostRefusesAnotherBuild(t *testing.T) {
	older := js.Global().Get("Object").New()
	for _, name := range []string{"commit", "inflate", "digest"} {
		older.Set(name, js.Global().Get("Function").New())
	}
	for what, v := range map[string]js.Value{"an older module": older, "nothing": js.Undefined()} {
		err := external.SetHost(v)
		var e *skillerr.Error
		if !errors.As(err, &e) || e.Code != skillerr.InvalidArgument || e.Reason != "build-mismatch" {
			t.Errorf("%s: SetHost = %v", what, err)
		}
	}
	if err := external.SetHost(older); err == nil || !strings.Contains(err.Error(), "records") {
		t.Errorf("the error does not name the missing function: %v", err)
	}
}
