package resolver

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillfs/skillfs/internal/realskills"
	"github.com/skillfs/skillfs/pkg/skill"
)

// TestCatalogRealSkills: with the 263 skills of the six real downloads,
// the default-budget catalog names every skill and gives the skills that
// matter to the user's message their descriptions. The generated
// counterpart is TestSessionCatalogDefaultBudget.
func TestCatalogRealSkills(t *testing.T) {
	real := realskills.Require(t)
	skills := make([]Skill, len(real))
	for i, s := range real {
		skills[i] = Skill{ID: s.ID, Name: s.ID, Description: s.Description, WhenToUse: s.WhenToUse, Headings: skill.Headings(s.Body), Triggers: s.Triggers,
			DisableModelInvocation: s.DisableModelInvocation, UserInvocable: true}
	}
	ix := NewIndex(skills)
	for _, c := range []struct{ query, want string }{
		{"merge these PDFs into one file", "pdf"},
		{"help me debug why this test fails", "systematic-debugging"},
		{"cluster single-cell RNA-seq data", "scanpy"},
	} {
		res, err := ix.Route(c.query, RouteOptions{TopK: catalogCandidates})
		if err != nil {
			t.Fatal(err)
		}
		var relevant []string
		for _, cand := range res.Candidates {
			relevant = append(relevant, cand.ID)
		}
		got := mustCatalog(t, skills, CatalogOptions{Budget: DefaultCatalogBudget, Relevant: relevant})
		if n := utf8.RuneCountInString(got); n > DefaultCatalogBudget {
			t.Fatalf("%q: %d characters", c.query, n)
		}
		visible := 0
		for _, s := range skills {
			if !s.DisableModelInvocation {
				visible++
			}
			if !s.DisableModelInvocation && !strings.Contains(got, s.Name) {
				t.Errorf("%q: the catalog does not name %s", c.query, s.Name)
			}
		}
		if !strings.Contains(got, "<name>\n"+c.want+"\n</name>\n<description>\n") {
			t.Errorf("%q: no full description for %s (candidates %v):\n%.600s", c.query, c.want, relevant, got)
		}
		t.Logf("%q: %d characters, names all %d skills the model may invoke (of %d), full description for %s; %s", c.query, utf8.RuneCountInString(got), visible, len(skills), c.want, got[:strings.Index(got, "\n")])
	}
}
