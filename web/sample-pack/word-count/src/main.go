// The word-count skill's module: a WASI (preview 1) program that skillfs
// runs in a Worker. make builds it into the sample pack's
// word-count/wasm/skill.wasm (GOOS=wasip1 GOARCH=wasm).
package main

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"unicode"
)

type count struct {
	Word  string `json:"word"`
	Count int    `json:"count"`
}

func main() {
	var input struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(os.Getenv("SKILL_INPUT")), &input); err != nil {
		os.Stderr.WriteString("the input must be {\"text\": \"...\"}: " + err.Error() + "\n")
		os.Exit(2)
	}
	stop := map[string]bool{}
	if b, err := os.ReadFile("/skill/references/stopwords.txt"); err == nil {
		for _, w := range strings.Fields(string(b)) {
			stop[w] = true
		}
	}
	words := strings.FieldsFunc(strings.ToLower(input.Text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	seen := map[string]int{}
	for _, w := range words {
		seen[w]++
	}
	var top []count
	for w, n := range seen {
		if !stop[w] && n > 1 {
			top = append(top, count{w, n})
		}
	}
	sort.Slice(top, func(i, j int) bool {
		if top[i].Count != top[j].Count {
			return top[i].Count > top[j].Count
		}
		return top[i].Word < top[j].Word
	})
	if len(top) > 5 {
		top = top[:5]
	}
	if top == nil {
		top = []count{}
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"words": len(words), "unique": len(seen), "top": top})
}
