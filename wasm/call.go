//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"syscall/js"
	"time"

	"github.com/skillfs/skillfs/pkg/callargs"
	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/pacedjson"
	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// capability is what the caller of a method may do, decided by whoever
// hosts the module (js/bridge.ts's serveSkillfs), never by the caller.
type capability string

const (
	// admin may do everything: extension pages.
	admin capability = "admin"
	// agent may only use sessions, read-only: content scripts.
	agent capability = "agent"
)

// request is one call's input.
type request struct {
	args   json.RawMessage
	limits *callargs.Limits // callargs.Agent for an agent's call; nil: none
	bytes  []byte
	// held is, instead of bytes, the call's bytes where they are, for
	// methods that keep them outside Go (method.outside).
	held     zipguard.Outside
	progress js.Value // a function, or undefined
	signal   js.Value // an AbortSignal, or undefined
}

// decode decodes the call's arguments into targets: every key must be
// exactly a field's JSON name, given once (see callargs), within the
// caller's limits.
func (r request) decode(targets ...any) error {
	return callargs.Decode(r.args, r.limits, targets...)
}

// result is one call's output: a value marshalled to JSON, and bytes that
// cross as a Uint8Array.
type result struct {
	value any
	// json, when set, is the value already encoded: sent as it is.
	json  []byte
	bytes []byte
}

// method is one entry of the API.
type method struct {
	// agent methods are open to the agent capability.
	agent bool
	// outside methods get their bytes in JavaScript (request.held).
	outside bool
	run     func(ctx context.Context, m *module, r request) (result, error)
}

// api returns the object handed to the bridge.
func (m *module) api() js.Value {
	call := js.FuncOf(func(_ js.Value, args []js.Value) any {
		return m.call(args)
	})
	return js.ValueOf(map[string]any{"call": call})
}

// call runs one method in its own goroutine and returns a Promise of
// [resultJSON, bytes]. The arguments are read at once, while the caller's
// buffers are as it passed them; one of the wrong kind rejects the Promise
// and leaves the module serving.
func (m *module) call(args []js.Value) js.Value {
	name, capArg, req, err := decodeCall(args)
	return newPromise(func() (js.Value, error) {
		if err != nil {
			return js.Value{}, err
		}
		meth, ok := methods[name]
		switch {
		case capArg != admin && capArg != agent:
			return js.Value{}, skillerr.New(skillerr.PermissionDenied, name, "the %q capability allows no call", capArg)
		case !ok:
			return js.Value{}, skillerr.New(skillerr.InvalidArgument, name, "no such method")
		case capArg != admin && !(capArg == agent && meth.agent):
			return js.Value{}, skillerr.New(skillerr.PermissionDenied, name,
				"the %q capability does not allow this call", capArg)
		}
		if capArg == agent {
			if req.bytes != nil {
				return js.Value{}, skillerr.New(skillerr.InvalidArgument, name, "an agent's call carries no bytes")
			}
			req.limits = &callargs.Agent
		}
		ctx, cancel := context.WithTimeout(context.Background(), m.timeout)
		defer cancel()
		defer onAbort(req.signal, cancel)()
		res, err := meth.run(ctx, m, req)
		if err != nil {
			return js.Value{}, timedOut(ctx, name, m.timeout, err)
		}
		out := res.json
		if out == nil {
			if out, err = pacedjson.Marshal(res.value); err != nil {
				return js.Value{}, skillerr.Wrap(skillerr.Internal, name, err, "cannot encode the result")
			}
		}
		// The result crosses (a JavaScript string made of megabytes of
		// JSON, for a list of thousands), and the caller's continuation
		// runs, in a task of their own when the method took most of this
		// one.
		pace.Step()
		pair := []any{string(out), nil}
		if res.bytes != nil {
			arr := js.Global().Get("Uint8Array").New(len(res.bytes))
			js.CopyBytesToJS(arr, res.bytes)
			pair[1] = arr
		}
		return js.ValueOf(pair), nil
	})
}

// decodeCall reads call's arguments: (method, capability, argsJSON,
// bytes?, onProgress?, signal?). It runs in the JavaScript callback, where a panic
// would end the Go program, so it checks every kind and recovers from
// anything it missed.
func decodeCall(args []js.Value) (name string, capArg capability, req request, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = skillerr.New(skillerr.InvalidArgument, name, "the call's arguments cannot be read: %v", p)
		}
	}()
	arg := func(i int) js.Value {
		if i < len(args) {
			return args[i]
		}
		return js.Undefined()
	}
	if a := arg(0); a.Type() == js.TypeString {
		name = a.String()
	}
	if a := arg(1); a.Type() == js.TypeString {
		capArg = capability(a.String())
	}
	req.progress = arg(4)
	req.signal = arg(5)
	switch a := arg(2); a.Type() {
	case js.TypeString:
		req.args = json.RawMessage(a.String())
	case js.TypeUndefined, js.TypeNull:
	default:
		return name, capArg, req, skillerr.New(skillerr.InvalidArgument, name, "the arguments must be a JSON string, not %s", a.Type())
	}
	var b js.Value
	b, err = bytesArg(name, arg(3))
	if err != nil || b.IsUndefined() {
		return name, capArg, req, err
	}
	if methods[name].outside {
		var v js.Value
		if v, err = outsideView(b); err == nil {
			req.held = zipguard.Browser(v)
		}
		return name, capArg, req, err
	}
	req.bytes = make([]byte, b.Get("byteLength").Int())
	js.CopyBytesToGo(req.bytes, b)
	return name, capArg, req, nil
}

// outsideView returns a plain Uint8Array of the bytes the Uint8Array b
// views, for a method that reads them in JavaScript (method.outside): a
// view of the caller's buffer, not a copy (a copy of a 10 MB archive took
// 7-9 ms of the page's thread). zipguard.ReadOutside keeps only content
// it checked on bytes of its own, so bytes the caller changes meanwhile
// are refused, and bytes it detaches fail with a code of their own. A
// SharedArrayBuffer, which another thread may write at any moment, and a
// resizable ArrayBuffer, which DecompressionStream does not take, are
// copied.
func outsideView(b js.Value) (js.Value, error) {
	u8 := js.Global().Get("Uint8Array")
	buf := b.Get("buffer")
	switch {
	case buf.Get("detached").Truthy():
		return js.Undefined(), zipguard.ErrDetached
	case !buf.InstanceOf(js.Global().Get("ArrayBuffer")) || buf.Get("resizable").Truthy():
		return u8.New(b), nil
	}
	return u8.New(buf, b.Get("byteOffset"), b.Get("byteLength")), nil
}

// bytesArg returns the bytes argument of a call as a Uint8Array: given as
// one, an ArrayBuffer or another view of one (a DataView, an Int8Array,
// …); undefined for undefined or null.
func bytesArg(name string, b js.Value) (js.Value, error) {
	if b.IsUndefined() || b.IsNull() {
		return js.Undefined(), nil
	}
	g := js.Global()
	u8 := g.Get("Uint8Array")
	switch {
	case b.Type() != js.TypeObject:
	case b.InstanceOf(u8):
	case b.InstanceOf(g.Get("ArrayBuffer")):
		b = u8.New(b)
	case g.Get("ArrayBuffer").Call("isView", b).Bool():
		b = u8.New(b.Get("buffer"), b.Get("byteOffset"), b.Get("byteLength"))
	default:
		b = js.Undefined()
	}
	if b.Type() != js.TypeObject {
		return js.Undefined(), skillerr.New(skillerr.InvalidArgument, name,
			"the bytes must be a Uint8Array, an ArrayBuffer or another ArrayBuffer view")
	}
	return b, nil
}

// onAbort calls cancel when signal (an AbortSignal the caller passed)
// aborts, so a call its caller gave up on stops at its next context check
// instead of running to the deadline; the returned function unhooks it.
func onAbort(signal js.Value, cancel func()) func() {
	if signal.Type() != js.TypeObject || signal.Get("addEventListener").Type() != js.TypeFunction {
		return func() {}
	}
	if signal.Get("aborted").Truthy() {
		cancel()
		return func() {}
	}
	fn := js.FuncOf(func(js.Value, []js.Value) any { cancel(); return nil })
	signal.Call("addEventListener", "abort", fn)
	return func() {
		signal.Call("removeEventListener", "abort", fn)
		fn.Release()
	}
}

// timedOut gives err the Timeout code when the call's deadline ended it
// and no layer below said so already.
func timedOut(ctx context.Context, name string, limit time.Duration, err error) error {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || skillerr.CodeOf(err) != skillerr.Internal {
		return err
	}
	return skillerr.Wrap(skillerr.Timeout, name, err, "the call did not finish within %v", limit)
}

// newPromise runs fn in a goroutine and settles a Promise with its result.
// A panic in fn rejects the Promise with an Internal error and leaves the
// module serving.
func newPromise(fn func() (js.Value, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve, reject := args[0], args[1]
		executor.Release()
		go func() {
			defer func() {
				if p := recover(); p != nil {
					err := &skillerr.Error{Code: skillerr.Internal, Reason: "panic",
						Msg: fmt.Sprintf("internal error: %v", p)}
					js.Global().Get("console").Call("error", "skillfs: panic:", fmt.Sprint(p), string(debug.Stack()))
					reject.Invoke(jsError(err))
				}
			}()
			v, err := fn()
			if err != nil {
				reject.Invoke(jsError(err))
				return
			}
			resolve.Invoke(v)
		}()
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}

// jsError turns err into a JavaScript Error with the stable code, reason
// and subject of its *skillerr.Error and its message without the subject
// (msg, so that no caller parses the message), the diagnostics of a
// refused SKILL.md, and the skills an archive cannot install.
func jsError(err error) js.Value {
	e := js.Global().Get("Error").New(err.Error())
	e.Set("name", "SkillfsError")
	e.Set("code", string(skillerr.CodeOf(err)))
	var se *skillerr.Error
	if errors.As(err, &se) {
		e.Set("reason", se.Reason)
		e.Set("subject", se.Subject)
		e.Set("msg", se.Unsubjected())
	}
	var ie *registry.InvalidSkillsError
	if errors.As(err, &ie) {
		e.Set("invalid", jsValueOf(ie.Skills))
	}
	var me *registry.ManifestError
	if (ie == nil || len(ie.Skills) == 1) && errors.As(err, &me) {
		// One SKILL.md's diagnostics; several skills' are each in invalid.
		e.Set("diagnostics", jsValueOf(me.Diagnostics))
	}
	return e
}

// notify calls a caller's callback (onChange, onProgress). A callback that
// throws is the caller's bug: it is reported on the console and must not
// fail the call that reported to it, nor end the module.
func notify(fn js.Value, arg js.Value) {
	if fn.Type() != js.TypeFunction {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			js.Global().Get("console").Call("error", "skillfs: a callback threw:", fmt.Sprint(p))
		}
	}()
	fn.Invoke(arg)
}

// jsValueOf converts v to a plain JavaScript value through JSON.
func jsValueOf(v any) js.Value {
	b, err := json.Marshal(v)
	if err != nil {
		return js.Null()
	}
	return js.Global().Get("JSON").Call("parse", string(b))
}
