// Command wasmsize prints how a Go WebAssembly module's code divides among
// its packages:
//
//	go run ./internal/wasmsize/cmd/wasmsize [-top N] FILE.wasm PKGLIST
//
// FILE is built without -ldflags=-s (which drops the names); PKGLIST is
// `GOOS=js GOARCH=wasm go list -deps ./wasm` written to a file. The data
// section, which no function name covers, is divided by kind
// (wasmdata.Layout).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/skillfs/skillfs/internal/wasmdata"
	"github.com/skillfs/skillfs/internal/wasmsize"
)

func main() {
	top := flag.Int("top", 25, "rows to print; the rest are summed")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: wasmsize [-top N] FILE.wasm PKGLIST")
		os.Exit(2)
	}
	b, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	list, err := os.ReadFile(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s, err := wasmsize.Read(b, strings.Fields(string(list)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%-48s %6s %10s\n", "package (code bytes)", "funcs", "bytes")
	rest, restFuncs := 0, 0
	groups := map[string]int{}
	for i, p := range s.Packages {
		groups[group(p.Path)] += p.Bytes
		if i < *top {
			fmt.Printf("%-48s %6d %10d\n", p.Path, p.Funcs, p.Bytes)
			continue
		}
		rest += p.Bytes
		restFuncs += p.Funcs
	}
	if rest > 0 {
		fmt.Printf("%-48s %6d %10d\n", fmt.Sprintf("(%d more packages)", len(s.Packages)-*top), restFuncs, rest)
	}
	fmt.Printf("%-48s %6s %10d\n", "code section", "", s.Code)
	fmt.Printf("%-48s %6s %10d\n", "data section", "", s.Data)
	fmt.Printf("%-48s %6s %10d\n", "whole file (with names)", "", s.Total)
	parts, err := wasmdata.Layout(b)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("data section by kind (bytes its segments carry):")
	for _, p := range parts {
		fmt.Printf("  %-46s %17d\n", p.Name, p.Bytes)
	}
	fmt.Println("by origin (code bytes):")
	for _, g := range []string{"skillfs", "go runtime + std", "gopkg.in/yaml.v3", "golang.org/x", "github.com/hack-pad", "other modules", "(other)"} {
		if groups[g] > 0 {
			fmt.Printf("  %-46s %17d\n", g, groups[g])
		}
	}
}

// group sorts a package path into where it comes from.
func group(path string) string {
	first := path
	if i := strings.IndexByte(path, '/'); i >= 0 {
		first = path[:i]
	}
	switch {
	case strings.HasPrefix(path, "github.com/skillfs/"), path == "main":
		return "skillfs"
	case strings.HasPrefix(path, "gopkg.in/yaml.v3"):
		return "gopkg.in/yaml.v3"
	case strings.HasPrefix(path, "golang.org/x/"):
		return "golang.org/x"
	case strings.HasPrefix(path, "github.com/hack-pad/"):
		return "github.com/hack-pad"
	case path == "(other)":
		return path
	case !strings.Contains(first, "."):
		return "go runtime + std"
	}
	return "other modules"
}
