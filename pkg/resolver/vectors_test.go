package resolver

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/routing"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// toyEmbed is a deterministic embedder for the tests: one axis per
// concept, a text scoring on each concept one of whose words it holds.
func toyEmbed(text string) []float32 {
	concepts := [][]string{{"ledger", "tally", "sheet", "ledger-keeper"}, {"crash", "bug", "fault"}, {"letter", "memo"}}
	v := make([]float32, len(concepts)+1)
	v[len(concepts)] = 0.1 // never the zero vector
	for i, words := range concepts {
		for _, w := range words {
			if strings.Contains(strings.ToLower(text), w) {
				v[i]++
			}
		}
	}
	return v
}

// TestSessionVectors: the host embeds what VectorsNeeded lists, once per
// version of a skill; Route then recalls by meaning, and the embedding is
// removed with the skill.
func TestSessionVectors(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		ctx := context.Background()
		e := newEnv(t, bc)
		e.install(t,
			file{"ledger-keeper/SKILL.md", "---\nname: ledger-keeper\ndescription: Keeps the accounts in a sheet.\n---\nBody.\n"},
			file{"fault-finder/SKILL.md", "---\nname: fault-finder\ndescription: Finds the cause of a crash.\n---\nBody.\n"},
		)
		s := e.open(t, SessionOptions{})
		need, err := s.VectorsNeeded(ctx, "toy")
		if err != nil || len(need) != 2 {
			t.Fatalf("VectorsNeeded = %+v, %v", need, err)
		}
		var vs []SkillVector
		for _, n := range need {
			vs = append(vs, SkillVector{ID: n.ID, Digest: n.Digest, Vector: toyEmbed(n.Text)})
		}
		if err := s.PutVectors(ctx, "toy", vs); err != nil {
			t.Fatal(err)
		}
		if need, _ := s.VectorsNeeded(ctx, "toy"); len(need) != 0 {
			t.Errorf("computed once: still needed %+v", need)
		}
		if need, _ := s.VectorsNeeded(ctx, "other-model"); len(need) != 2 {
			t.Errorf("another model needs its own: %+v", need)
		}
		q := "tally what we spent"
		res, err := s.Route(ctx, q, RouteOptions{QueryVector: toyEmbed(q), Model: "toy"})
		if err != nil || len(res.Candidates) == 0 || res.Candidates[0].ID != "ledger-keeper" || res.Candidates[0].Source != routing.SourceSemantic {
			t.Fatalf("semantic route = %+v, %v", res, err)
		}
		if res, _ := s.Route(ctx, q, RouteOptions{}); len(res.Candidates) != 0 {
			t.Errorf("without an embedding, lexical alone: %+v", res.Candidates)
		}
		// Bad vectors store nothing.
		for _, bad := range [][]SkillVector{
			{{ID: "nope", Digest: vs[0].Digest, Vector: []float32{1}}},
			{{ID: vs[0].ID, Digest: "sha256:old", Vector: []float32{1}}},
			{{ID: vs[0].ID, Digest: vs[0].Digest, Vector: nil}},
			{vs[0], {ID: vs[1].ID, Digest: vs[1].Digest, Vector: []float32{1, 2}}},
		} {
			if err := s.PutVectors(ctx, "toy2", bad); skillerr.CodeOf(err) != skillerr.InvalidArgument {
				t.Errorf("PutVectors(%+v) = %v", bad, err)
			}
		}
		if err := s.PutVectors(ctx, "", vs); skillerr.CodeOf(err) != skillerr.InvalidArgument {
			t.Errorf("no model: %v", err)
		}
		// Removed with the skill.
		if err := e.reg.Remove(ctx, "ledger-keeper"); err != nil {
			t.Fatal(err)
		}
		recs, err := e.db.Read(ctx, vfs.GetPrefix(vfs.StoreVectors, ""))
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, r := range recs[0] {
			keys = append(keys, r.Key)
		}
		if !slices.Equal(keys, []string{"fault-finder"}) {
			t.Errorf("vectors left: %v", keys)
		}
	})
}
