//go:build !(js && wasm)

package zipguard

import (
	"bytes"
	"slices"
	"testing"

	"github.com/skillfs/skillfs/pkg/external"
)

// testOutside natively is an Outside that inflates nothing, so that every
// entry takes ReadOutside's Go path; the browser's runs in Chromium.
func testOutside(_ testing.TB, data []byte) Outside { return goOutside{bytes.NewReader(data)} }

type goOutside struct{ *bytes.Reader }

func (goOutside) Inflate(es []EntryData) []external.Bytes { return make([]external.Bytes, len(es)) }
func (goOutside) Hold(b []byte) external.Bytes            { return external.Go(slices.Clone(b)) }
