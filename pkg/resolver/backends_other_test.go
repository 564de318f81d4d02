//go:build !(js && wasm)

package resolver

import (
	"testing"

	"github.com/skillfs/skillfs/pkg/vfs"
)

// testBackends are the backends of this platform: memory only.
var testBackends = []backendCase{{name: "memory", open: func(testing.TB) vfs.Backend { return vfs.NewMemory() }}}

// benchBackend is the backend benchmarks run on.
func benchBackend(tb testing.TB) vfs.Backend { return vfs.NewMemory() }
