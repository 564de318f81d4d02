package resolver

import (
	"context"
	"testing"

	"github.com/skillfs/skillfs/pkg/routing"
)

// A skill's prerequisites (skill.yaml's, seed 004) feed its readiness: the
// share the host has, by what it registered with the registry or gave the
// session; short of all of them the skill is unavailable and its score
// halved.
func TestRoutePrerequisites(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.install(t, skillFiles("ocr", "# OCR", "triggers: [scanned page]",
			"prerequisites:", "  - tool: Tesseract", "  - mcp: github", "  - command: pdftotext")...)
		ctx := context.Background()
		route := func(s *Session) routing.Candidate {
			t.Helper()
			res, err := s.Route(ctx, "read the text of this scanned page", RouteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Candidates) != 1 {
				t.Fatalf("candidates %+v", res.Candidates)
			}
			return res.Candidates[0]
		}
		// Registered: github but not Tesseract (the command is nothing a
		// browser host provides, so it is not counted).
		lacking := route(e.open(t, SessionOptions{}))
		if lacking.Breakdown.Readiness != 0.5 {
			t.Errorf("readiness %v, want 0.5 (one of two)", lacking.Breakdown.Readiness)
		}
		e.reg.RegisterTools([]string{"Read", "Tesseract"})
		ready := route(e.open(t, SessionOptions{}))
		if ready.Breakdown.Readiness != 1 {
			t.Errorf("readiness %v once Tesseract is registered, want 1", ready.Breakdown.Readiness)
		}
		// Halved: the weighted sum at readiness 0.5 is 0.05 lower, then
		// halved.
		if want := (ready.Score - 0.05) / 2; lacking.Score < want-0.0002 || lacking.Score > want+0.0002 {
			t.Errorf("score without Tesseract %v, want %v (with it %v)", lacking.Score, want, ready.Score)
		}
		// What the session was given wins over what was registered.
		if got := route(e.open(t, SessionOptions{AvailableTools: []string{"Read"}})); got.Breakdown.Readiness != 0.5 {
			t.Errorf("session without Tesseract: readiness %v, want 0.5", got.Breakdown.Readiness)
		}
	})
}
