// Command wasmdata shrinks a Go-built WebAssembly module in place (see
// package wasmdata):
//
//	go run ./internal/wasmdata/cmd/wasmdata FILE.wasm
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
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, _, err := wasmdata.Shrink(b)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return os.WriteFile(file, out, 0o644)
}
