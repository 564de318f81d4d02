// fill writes SKILL_INPUT {"files": k, "mib": m}: k files of m MiB each
// into /scratch, and reports as JSON what each write got.
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	var in struct{ Files, MiB int }
	_ = json.Unmarshal([]byte(os.Getenv("SKILL_INPUT")), &in)
	data := make([]byte, in.MiB<<20)
	got := []string{}
	for i := range in.Files {
		if err := os.WriteFile(fmt.Sprintf("/scratch/%d.bin", i), data, 0o644); err != nil {
			got = append(got, "error: "+err.Error())
		} else {
			got = append(got, "ok")
		}
	}
	_ = json.NewEncoder(os.Stdout).Encode(got)
}
