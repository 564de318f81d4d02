//go:build !(js && wasm)

package digest

import "github.com/skillfs/skillfs/pkg/external"

func subtle([][]external.Bytes, []int, []Sum) bool { return false }
