// flood writes far more than a run keeps: SKILL_INPUT {"stdout": n,
// "stderr": m} bytes, in 64 KiB writes, then exits 0.
package main

import (
	"bytes"
	"encoding/json"
	"os"
)

func main() {
	var in struct{ Stdout, Stderr int }
	_ = json.Unmarshal([]byte(os.Getenv("SKILL_INPUT")), &in)
	chunk := bytes.Repeat([]byte("0123456789abcde\n"), 4096)
	for _, f := range []struct {
		w *os.File
		n int
	}{{os.Stdout, in.Stdout}, {os.Stderr, in.Stderr}} {
		for left := f.n; left > 0; left -= len(chunk) {
			_, _ = f.w.Write(chunk[:min(left, len(chunk))])
		}
	}
}
