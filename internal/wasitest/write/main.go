// write tries to change its skill's files and to use a scratch directory,
// and reports what each attempt got, as JSON.
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	got := map[string]string{}
	try := func(what string, err error) {
		if err != nil {
			got[what] = "error: " + err.Error()
		} else {
			got[what] = "ok"
		}
	}
	try("write /skill/SKILL.md", os.WriteFile("/skill/SKILL.md", []byte("changed"), 0o644))
	try("create /skill/new.txt", os.WriteFile("/skill/new.txt", []byte("new"), 0o644))
	try("mkdir /skill/made", os.Mkdir("/skill/made", 0o755))
	try("remove /skill/references/data.txt", os.Remove("/skill/references/data.txt"))
	try("rename /skill/references/data.txt", os.Rename("/skill/references/data.txt", "/skill/moved.txt"))
	// A file opened for reading is truncated through its descriptor
	// (fd_filestat_set_size), which needs no write right in WASI.
	if f, err := os.Open("/skill/SKILL.md"); err == nil {
		try("truncate /skill/SKILL.md", f.Truncate(0))
		f.Close()
	}
	if b, err := os.ReadFile("/skill/SKILL.md"); err == nil {
		got["size /skill/SKILL.md"] = fmt.Sprint(len(b))
	}
	try("write /scratch/out.txt", os.WriteFile("/scratch/out.txt", []byte("scratch"), 0o644))
	if b, err := os.ReadFile("/scratch/out.txt"); err == nil {
		got["read /scratch/out.txt"] = string(b)
	}
	_ = json.NewEncoder(os.Stdout).Encode(got)
}
