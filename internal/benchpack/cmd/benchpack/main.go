// Command benchpack writes the benchmark archives to a folder, for the
// benchmarks that run outside Go (web/bench).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillfs/skillfs/internal/benchpack"
)

func main() {
	out := flag.String("o", ".", "the folder to write pack.zip, files9000.zip, large.zip, small1000.zip and small10000.zip to")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for name, data := range map[string][]byte{"pack.zip": benchpack.Pack(), "files9000.zip": benchpack.Files(9000), "large.zip": benchpack.Sized(28_000_000), "small1000.zip": benchpack.Small(1000), "small10000.zip": benchpack.Small(10000)} {
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
