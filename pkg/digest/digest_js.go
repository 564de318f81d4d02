//go:build js && wasm

package digest

import (
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/external"
)

// subtle hashes lists[i] for each i of which into sums[i] with
// crypto.subtle.digest, all in one call into the import's JavaScript half
// (digest in js/outside.ts), reporting false where the platform has none
// (an insecure context) or any digest fails. It blocks its goroutine until
// they are done, so it must not be called from a JavaScript callback.
func subtle(lists [][]external.Bytes, which []int, sums []Sum) bool {
	if c := js.Global().Get("crypto"); c.Type() != js.TypeObject || c.Get("subtle").Type() != js.TypeObject {
		return false
	}
	counts := make([]int32, len(which))
	var parts []external.Bytes
	for k, i := range which {
		counts[k] = int32(len(lists[i]))
		parts = append(parts, lists[i]...)
	}
	p := external.PackOf(parts)
	res, ok := external.Await(external.Host().Call("digest", external.Int32s(counts), p.JS()))
	if !ok {
		return false
	}
	all := make([]byte, 32*len(which))
	if js.CopyBytesToGo(all, res) != len(all) {
		return false
	}
	for k, i := range which {
		copy(sums[i][:], all[32*k:])
	}
	return true
}
