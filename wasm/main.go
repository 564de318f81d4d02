//go:build js && wasm

// Command wasm is the skillfs WebAssembly module. It is a thin translation:
// it opens the registry and the resolver over the browser's IndexedDB and
// maps JavaScript calls onto them; js/bridge.ts is its typed face.
//
// The bridge starts it with argv ["skillfs", "--global=NAME", "--db=DB"],
// after setting globalThis[NAME] to {resolve, reject, onChange}. The module
// opens database DB and calls resolve with its API object, or reject with
// an Error:
//
//	call(method, capability, argsJSON, bytes?, onProgress?) → Promise<[resultJSON, bytes?]>
//
// Changes (from this context or another) are passed to onChange as
// {revision, kind, ids}.
package main

import (
	"context"
	"maps"
	"os"
	"strings"
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/resolver"
	"github.com/skillfs/skillfs/pkg/vfs"
)

func init() { maps.Copy(methods, sessionMethods) }

func main() {
	// Two fixed arguments from the bridge; the flag package would cost
	// 85 KB of the module for them.
	global, db := "", "skillfs"
	for _, a := range os.Args[1:] {
		if v, ok := strings.CutPrefix(a, "--global="); ok {
			global = v
		} else if v, ok := strings.CutPrefix(a, "--db="); ok {
			db = v
		}
	}
	if global == "" {
		js.Global().Get("console").Call("error", "skillfs: started without --global; load it through js/bridge.ts")
		return
	}
	boot := js.Global().Get(global)
	js.Global().Delete(global)
	m, err := open(context.Background(), db, boot.Get("onChange"))
	if err != nil {
		boot.Call("reject", jsError(err))
		return
	}
	boot.Call("resolve", m.api())
	select {}
}

// module is one open skillfs: what every call works on.
type module struct {
	reg *registry.Registry
	res *resolver.Resolver
}

func open(ctx context.Context, name string, onChange js.Value) (*module, error) {
	db, err := vfs.OpenIndexedDB(ctx, name)
	if err != nil {
		return nil, err
	}
	bus, err := registry.NewBroadcastBus(name)
	if err != nil {
		return nil, err
	}
	reg, err := registry.Open(ctx, db, registry.Options{Bus: bus})
	if err != nil {
		return nil, err
	}
	res, err := resolver.New(ctx, reg, db, resolver.Options{})
	if err != nil {
		return nil, err
	}
	reg.Subscribe(func(c registry.Change) { notify(onChange, jsValueOf(c)) })
	return &module{reg: reg, res: res}, nil
}
