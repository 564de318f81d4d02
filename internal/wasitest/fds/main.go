// fds opens its SKILL.md SKILL_INPUT {"cycles": c} times, closing each,
// then {"n": n} times without closing any, and reports as JSON the number
// the last of the first kind got, how many of the second succeeded and
// the first error.
package main

import (
	"encoding/json"
	"os"
)

func main() {
	var in struct{ Cycles, N int }
	_ = json.Unmarshal([]byte(os.Getenv("SKILL_INPUT")), &in)
	got := map[string]any{}
	for range in.Cycles {
		f, err := os.Open("/skill/SKILL.md")
		if err != nil {
			got["error"] = err.Error()
			break
		}
		got["fd"] = f.Fd()
		f.Close()
	}
	var files []*os.File
	for range in.N {
		f, err := os.Open("/skill/SKILL.md")
		if err != nil {
			got["error"] = err.Error()
			break
		}
		files = append(files, f)
	}
	got["opened"] = len(files)
	_ = json.NewEncoder(os.Stdout).Encode(got)
}
