// escape tries to read outside its skill and reports what each attempt
// got, as JSON: the error, or the bytes it read.
package main

import (
	"encoding/json"
	"os"
)

func main() {
	got := map[string]string{}
	for _, p := range []string{"/etc/passwd", "../etc/passwd", "/skill/../etc/passwd", "/skill/../../etc/passwd", "/", "/skill/SKILL.md"} {
		b, err := os.ReadFile(p)
		if err != nil {
			got[p] = "error: " + err.Error()
		} else {
			got[p] = "read " + string(rune('0'+min(len(b), 9))) + "+ bytes"
		}
	}
	_ = json.NewEncoder(os.Stdout).Encode(got)
}
