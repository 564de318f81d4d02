// Command wasmdata shrinks a Go-built WebAssembly module in place (see
// package wasmdata):
//
//	go run ./internal/wasmdata/cmd/wasmdata FILE.wasm
//
// A module it cannot shrink — another Go release may lay its tables out
// differently — is left as the linker wrote it, with one line saying so:
// the module works either way, and a newcomer's `make demo` must not fail
// on their Go. The package's tests (TestShrinkRuns) fail instead, so a
// layout change on the Go this project builds with is seen in CI.
package main

import (
	"fmt"
	"os"

	"github.com/skillfs/skillfs/internal/wasmdata"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: wasmdata FILE.wasm")
		os.Exit(2)
	}
	file := os.Args[1]
	b, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, _, err := wasmdata.Shrink(b)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s left as linked, not shrunk: %v\n", file, err)
		return
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
