//go:build !(js && wasm)

package digest

import "github.com/skillfs/skillfs/pkg/external"

func subtle([]external.Bytes, int) ([32]byte, bool) { return [32]byte{}, false }
