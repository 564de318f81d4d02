package realskills

import (
	"testing"

	"github.com/skillfs/skillfs/internal/realrepos"
)

// TestLoad: every skill of the downloads parses (263 in the six known
// ones).
func TestLoad(t *testing.T) {
	repos := realrepos.Require(t)
	skills, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, s := range skills {
		per[s.Repo]++
	}
	for _, r := range repos {
		if r.Skills > 0 && per[r.Name] != r.Skills {
			t.Errorf("%s: %d skills parsed, want %d", r.Name, per[r.Name], r.Skills)
		}
	}
}
