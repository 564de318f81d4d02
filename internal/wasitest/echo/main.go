// echo reads a reference file of its skill and writes what it got as
// JSON: the environment skillfs gives a module, and the file's text.
package main

import (
	"encoding/json"
	"os"
)

func main() {
	ref, err := os.ReadFile("/skill/references/data.txt")
	if err != nil {
		os.Stderr.WriteString(err.Error())
		os.Exit(3)
	}
	var input any
	_ = json.Unmarshal([]byte(os.Getenv("SKILL_INPUT")), &input)
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
		"id": os.Getenv("SKILL_ID"), "name": os.Getenv("SKILL_NAME"), "input": input,
		"timeoutMs": os.Getenv("TIMEOUT_MS"), "seed": os.Getenv("RANDOM_SEED"), "reference": string(ref),
	})
	os.Stderr.WriteString("echo: done\n")
}
