//go:build js && wasm

package vfs

import (
	"context"
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// webLock runs fn while holding the Web Lock called name
// (navigator.locks.request). The lock is held for as long as the promise
// its callback returns is pending, so the callback hands that promise's
// resolve function to Go and fn runs outside any JavaScript callback,
// where it may await IndexedDB.
func webLock(ctx context.Context, name string, fn func(context.Context) error) error {
	subject := "lock " + name
	locks := js.Global().Get("navigator").Get("locks")
	if !locks.Truthy() {
		return &skillerr.Error{Code: skillerr.Internal, Reason: ReasonUnavailable, Subject: subject,
			Msg: "the Web Locks API is not available (it needs a secure context)"}
	}
	granted := make(chan js.Value, 1) // the resolve function that releases the lock
	failed := make(chan js.Value, 1)
	var executor js.Func
	callback := js.FuncOf(func(js.Value, []js.Value) any {
		executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
			granted <- args[0]
			return nil
		})
		return js.Global().Get("Promise").New(executor)
	})
	onReject := js.FuncOf(func(_ js.Value, args []js.Value) any {
		failed <- args[0]
		return nil
	})
	defer onReject.Release()
	ctrl := js.Global().Get("AbortController").New()
	opts := map[string]any{"signal": ctrl.Get("signal")}
	locks.Call("request", name, opts, callback).Call("then", js.Undefined(), onReject)
	// Cancelling before the grant rejects the request; after it, the
	// abort is ignored and the grant still arrives.
	stop := context.AfterFunc(ctx, func() { ctrl.Call("abort") })
	defer stop()

	select {
	case release := <-granted:
		callback.Release()
		executor.Release()
		defer release.Invoke()
		return fn(ctx)
	case reason := <-failed:
		callback.Release()
		if err := ctx.Err(); err != nil {
			return ctxErr(subject, err)
		}
		return skillerr.Wrap(skillerr.Internal, subject, domError{reason}, "could not take the lock")
	}
}
