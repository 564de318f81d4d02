//go:build js && wasm

package digest

import (
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/external"
)

// subtle hashes lists[i] for each i of which into sums[i] with
// crypto.subtle.digest, all at once, reporting false where the platform
// has none (an insecure context) or any digest fails. It blocks its
// goroutine until the Promises settle, so it must not be called from a
// JavaScript callback.
func subtle(lists [][]external.Bytes, which []int, sums []Sum) bool {
	g := js.Global()
	crypto := g.Get("crypto")
	if crypto.Type() != js.TypeObject || crypto.Get("subtle").Type() != js.TypeObject {
		return false
	}
	digests := make([]any, len(which))
	for k, i := range which {
		parts := lists[i]
		buf := g.Get("Uint8Array").New(size(parts))
		off := 0
		for _, p := range parts {
			switch p := p.(type) {
			case external.JS:
				buf.Call("set", p.Value(), off)
			default:
				if b := p.Copy(); len(b) > 0 {
					js.CopyBytesToJS(buf.Call("subarray", off, off+len(b)), b)
				}
			}
			off += p.Len()
		}
		digests[k] = crypto.Get("subtle").Call("digest", "SHA-256", buf)
	}
	done := make(chan js.Value, 1)
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any { done <- args[0]; return nil })
	onErr := js.FuncOf(func(js.Value, []js.Value) any { done <- js.Null(); return nil })
	defer onOK.Release()
	defer onErr.Release()
	g.Get("Promise").Call("all", digests).Call("then", onOK, onErr)
	res := <-done
	if res.IsNull() {
		return false
	}
	for k, i := range which {
		if js.CopyBytesToGo(sums[i][:], g.Get("Uint8Array").New(res.Index(k))) != len(sums[i]) {
			return false
		}
	}
	return true
}
