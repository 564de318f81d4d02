//go:build js && wasm

// Command wasm is the skillfs WebAssembly module. It is a thin translation:
// it opens the registry and the resolver over the browser's IndexedDB and
// maps JavaScript calls onto them; js/bridge.ts is its typed face.
//
// The bridge starts it with argv ["skillfs", "--global=NAME", "--db=DB",
// "--timeout-ms=N"], after setting globalThis[NAME] to {resolve, reject,
// onChange, outside, opening} (outside: the module js/outside.ts, the
// import's JavaScript half; opening: a promise of database DB as the
// bridge opened it, or of null). The module opens or adopts database DB
// and calls resolve with its API object, or reject with an Error:
//
//	call(method, capability, argsJSON, bytes?, onProgress?) → Promise<[resultJSON, bytes?]>
//
// Each call, and opening the database, must finish within N milliseconds
// (defaultTimeout without the argument); one that does not fails with code
// Timeout. Changes (from this context or another) are passed to onChange as
// {revision, kind, ids}.
package main

import (
	"context"
	"maps"
	"os"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/resolver"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

func init() {
	maps.Copy(methods, sessionMethods)
	maps.Copy(methods, sourceMethods)
}

func main() {
	// Three fixed arguments from the bridge; the flag package would cost
	// 85 KB of the module for them.
	global, db, timeout := "", "skillfs", defaultTimeout
	for _, a := range os.Args[1:] {
		if v, ok := strings.CutPrefix(a, "--global="); ok {
			global = v
		} else if v, ok := strings.CutPrefix(a, "--db="); ok {
			db = v
		} else if v, ok := strings.CutPrefix(a, "--timeout-ms="); ok {
			if ms, err := strconv.Atoi(v); err == nil && ms > 0 {
				timeout = time.Duration(ms) * time.Millisecond
			}
		}
	}
	if global == "" {
		js.Global().Get("console").Call("error", "skillfs: started without --global; load it through js/bridge.ts")
		return
	}
	boot := js.Global().Get(global)
	js.Global().Delete(global)
	if err := external.SetHost(boot.Get("outside")); err != nil {
		boot.Call("reject", jsError(err))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	m, err := open(ctx, db, boot.Get("opening"), boot.Get("onChange"))
	err = timedOut(ctx, "open "+db, timeout, err)
	cancel()
	if err != nil {
		boot.Call("reject", jsError(err))
		if skillerr.CodeOf(err) == skillerr.Timeout {
			// The open goes on in IndexedDB; vfs closes the connection
			// when it arrives, which takes a live Go runtime. Without it
			// the connection would block every later upgrade or delete of
			// the database for the page's lifetime.
			select {}
		}
		return
	}
	m.timeout = timeout
	boot.Call("resolve", m.api())
	select {}
}

// defaultTimeout bounds a call when the bridge gives no --timeout-ms.
const defaultTimeout = 2 * time.Minute

// module is one open skillfs: what every call works on.
type module struct {
	reg *registry.Registry
	res *resolver.Resolver
	// timeout bounds each call.
	timeout time.Duration
}

func open(ctx context.Context, name string, opening, onChange js.Value) (_ *module, err error) {
	db, err := vfs.AdoptIndexedDB(ctx, name, opening)
	if err != nil {
		return nil, err
	}
	// A module that does not start returns from main, and a connection
	// left open would then block every later upgrade or deletion of the
	// database: its versionchange handler is Go's, which no longer runs.
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	bus, err := registry.NewBroadcastBus(name)
	if err != nil {
		return nil, err
	}
	reg, err := registry.Open(ctx, db, registry.Options{Bus: bus})
	if err != nil {
		return nil, err
	}
	reg.Warm() // a host's first call is a list
	res, err := resolver.New(ctx, reg, db, resolver.Options{})
	if err != nil {
		return nil, err
	}
	reg.Subscribe(func(c registry.Change) { notify(onChange, jsValueOf(c)) })
	return &module{reg: reg, res: res}, nil
}
