//go:build !(js && wasm)

package registry

import (
	"bytes"
	"slices"
	"testing"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// testBackends are the backends of this platform: memory only.
var testBackends = []backendCase{memoryCase}

// testOutside natively holds an import's files in Go copies, through the
// path an import held outside Go takes; the browser's is the real one.
func testOutside(_ testing.TB, data []byte) zipguard.Outside { return goOutside{bytes.NewReader(data)} }

type goOutside struct{ *bytes.Reader }

func (goOutside) Inflate(es []zipguard.EntryData) []external.Bytes {
	return make([]external.Bytes, len(es))
}
func (goOutside) Hold(b []byte) external.Bytes { return external.Go(slices.Clone(b)) }
