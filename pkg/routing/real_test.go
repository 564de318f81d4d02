package routing

import (
	"math"
	"slices"
	"testing"
)

// TestRouteRealRequests routes requests a newcomer asked of the six real
// downloads' skills in one store: the skill expected first and the
// decision. TestRouteConflictWhy and TestRouteTieAtCap are the generated
// counterparts.
func TestRouteRealRequests(t *testing.T) {
	ix := NewIndex(realIndexSkills(t))
	for _, c := range []struct{ query, top, decision string }{
		// Ties at Intent's cap with skills that mention PDF: the request
		// names pdf.
		{"make a pdf from this report", "pdf", DecisionClear},
		{"make a PDF", "pdf", DecisionClear},
		{"fill in the fields of form.pdf", "pdf", DecisionClear},
		// No skill is named: vercel-react-native-skills is within the
		// margin even uncapped, so the user is asked.
		{"write a React component with good performance", "vercel-react-best-practices", DecisionClose},
	} {
		r, err := ix.Route(c.query, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Candidates) == 0 || r.Candidates[0].ID != c.top || r.Plan.Decision != c.decision {
			t.Errorf("%q: plan %+v, candidates %+v; want %s first, %s", c.query, r.Plan, r.Candidates[:min(3, len(r.Candidates))], c.top, c.decision)
		}
		// Only a candidate within the conflict margin of another (before
		// Conflict's own share of the score) says it scores about as well.
		for _, a := range r.Candidates {
			near := slices.ContainsFunc(r.Candidates, func(b Candidate) bool {
				return b.ID != a.ID && round4(conflictMargin+weightConflict-math.Abs(a.Score-b.Score)) >= 0
			})
			if slices.Contains(a.Why, "Another skill scores about as well.") && !near {
				t.Errorf("%q: %s (%.4f) says another scores about as well: %+v", c.query, a.ID, a.Score, r.Candidates)
			}
		}
	}
	// "failing" meets systematic-debugging's "test failure" (ureNouns):
	// among the three best, eighth before; "why", a question word, no
	// longer puts wycheproof first. Still no pick: test-driven-development
	// fits about as well, and no description has "know".
	r, err := ix.Route("my tests are failing and I don't know why", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Candidates[:min(3, len(r.Candidates))], func(c Candidate) bool { return c.ID == "systematic-debugging" }) || r.Candidates[0].ID == "wycheproof" || r.Plan.Decision != DecisionBelow {
		t.Errorf("failing tests: plan %+v, candidates %+v; want systematic-debugging among the first three, wycheproof not first, below", r.Plan, r.Candidates)
	}
}
