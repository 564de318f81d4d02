//go:build js && wasm

package digest

import (
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/external"
)

// subtle hashes parts with crypto.subtle.digest, reporting false where the
// platform has none (an insecure context) or it fails. It blocks its
// goroutine until the Promise settles, so it must not be called from a
// JavaScript callback.
func subtle(parts []external.Bytes, n int) (sum [32]byte, ok bool) {
	crypto := js.Global().Get("crypto")
	if crypto.Type() != js.TypeObject || crypto.Get("subtle").Type() != js.TypeObject {
		return sum, false
	}
	buf := js.Global().Get("Uint8Array").New(n)
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
	done := make(chan js.Value, 1)
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any { done <- args[0]; return nil })
	onErr := js.FuncOf(func(js.Value, []js.Value) any { done <- js.Null(); return nil })
	defer onOK.Release()
	defer onErr.Release()
	crypto.Get("subtle").Call("digest", "SHA-256", buf).Call("then", onOK, onErr)
	res := <-done
	if res.IsNull() {
		return sum, false
	}
	if js.CopyBytesToGo(sum[:], js.Global().Get("Uint8Array").New(res)) != len(sum) {
		return sum, false
	}
	return sum, true
}
