//go:build js && wasm

package vfs

import (
	"context"
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// Estimate returns navigator.storage.estimate() for this origin.
func Estimate(ctx context.Context) (StorageEstimate, error) {
	storage := js.Global().Get("navigator").Get("storage")
	if !storage.Truthy() || !storage.Get("estimate").Truthy() {
		return StorageEstimate{}, nil
	}
	v, err := awaitPromise(ctx, "storage estimate", storage.Call("estimate"))
	if err != nil {
		return StorageEstimate{}, err
	}
	return StorageEstimate{Known: true, Usage: int64(v.Get("usage").Float()), Quota: int64(v.Get("quota").Float())}, nil
}

// Persist asks the browser to keep this origin's storage under pressure
// (navigator.storage.persist()) and reports whether it agreed. Workers
// cannot ask; there it reports false.
func Persist(ctx context.Context) (bool, error) {
	storage := js.Global().Get("navigator").Get("storage")
	if !storage.Truthy() || !storage.Get("persist").Truthy() {
		return false, nil
	}
	v, err := awaitPromise(ctx, "storage persist", storage.Call("persist"))
	if err != nil {
		return false, err
	}
	return v.Bool(), nil
}

// awaitPromise waits for p to settle.
func awaitPromise(ctx context.Context, subject string, p js.Value) (js.Value, error) {
	settled := make(chan js.Value, 1)
	rejected := make(chan js.Value, 1)
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any {
		settled <- args[0]
		return nil
	})
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any {
		rejected <- args[0]
		return nil
	})
	p.Call("then", onOK, onErr)
	select {
	case v := <-settled:
		onOK.Release()
		onErr.Release()
		return v, nil
	case reason := <-rejected:
		onOK.Release()
		onErr.Release()
		return js.Value{}, skillerr.Wrap(skillerr.Internal, subject, domError{reason}, "the browser refused")
	case <-ctx.Done():
		// The functions stay allocated: the promise may still settle.
		return js.Value{}, ctxErr(subject, ctx.Err())
	}
}
