package registry

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/skillfs/skillfs/internal/realrepos"
)

// testImportOutside: an import whose files are inflated and held outside
// Go (ImportOptions.Outside; in the browser, by the browser) installs
// exactly what the same import in Go installs: records, digests, every
// file byte for byte; renamed copies included, and a skill already
// installed is recognised as such.
func testImportOutside(t *testing.T, bc backendCase) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(14, 2026))
	big := make([]byte, 200<<10)
	for i := range big {
		big[i] = "skill font slide \n"[rng.IntN(18)]
	}
	pack := zipOf(t, "pack", append(skillFiles("a", "a"), file{"a/ref/big.md", string(big)}, file{"a/run.sh", "echo\n"},
		file{"b/SKILL.md", mdOf("b", "B.") + string(big[:40<<10])}, file{"b/c.md", "c"})...)
	for name, data := range map[string][]byte{"generated download": realrepos.Generated(), "pack": pack} {
		t.Run(name, func(t *testing.T) {
			inGo, outside := newEnv(t, bc), newEnv(t, bc)
			for round := range 2 { // the second imports renamed copies
				want := inGo.importZip(t, data, ImportOptions{Copy: true})
				got := outside.importZip(t, nil, ImportOptions{Copy: true, Outside: testOutside(t, data)})
				if jsonOf(t, withoutInstances(got)) != jsonOf(t, withoutInstances(want)) {
					t.Fatalf("round %d:\n got %s\nwant %s", round, jsonOf(t, got), jsonOf(t, want))
				}
				for _, m := range want.Skills {
					a, err := inGo.reg.ExportZip(ctx, m.ID)
					if err != nil {
						t.Fatal(err)
					}
					b, err := outside.reg.ExportZip(ctx, m.ID)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(a, b) {
						t.Errorf("round %d: %s exports differently", round, m.ID)
					}
				}
			}
			res := outside.importZip(t, nil, ImportOptions{Outside: testOutside(t, data)})
			if len(res.Skills) != 0 || len(res.AlreadyInstalled) == 0 {
				t.Errorf("the same archive again: %s", jsonOf(t, res))
			}
		})
	}
}

// withoutInstances returns res with every Meta.Instance cleared: random.
func withoutInstances(res *ImportResult) ImportResult {
	out := *res
	out.Skills = slices.Clone(res.Skills)
	for i := range out.Skills {
		out.Skills[i].Instance = fmt.Sprint(i)
	}
	return out
}
