package routing

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/pace/pacetest"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

func TestRouteLimits(t *testing.T) {
	ix := NewIndex([]Skill{{ID: "pdf", Name: "pdf", Description: "PDF files."}})
	long := strings.Repeat("pdf ", MaxQueryBytes/4+1)
	for _, c := range []struct {
		name  string
		query string
		opts  Options
		code  skillerr.Code
	}{
		{"query", long, Options{}, skillerr.TooLarge},
		{"context", "pdf", Options{Context: long}, skillerr.TooLarge},
		{"history message", "pdf", Options{History: []string{long}}, skillerr.TooLarge},
		{"history length", "pdf", Options{History: make([]string, MaxHistory+1)}, skillerr.TooLarge},
		{"threshold", "pdf", Options{Threshold: 1.5}, skillerr.InvalidArgument},
		{"margin", "pdf", Options{Margin: -0.1}, skillerr.InvalidArgument},
		{"topK", "pdf", Options{TopK: MaxTopK + 1}, skillerr.InvalidArgument},
		{"negative topK", "pdf", Options{TopK: -1}, skillerr.InvalidArgument},
	} {
		if _, err := ix.Route(c.query, c.opts); skillerr.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	if _, err := ix.Route(long[:MaxQueryBytes], Options{History: make([]string, MaxHistory)}); err != nil {
		t.Errorf("at the limits: %v", err)
	}
}

// generatedSkills is a small catalog with the features of the real
// downloads that routing meets: byte-identical copies under two names
// (docx and docx-v2, as K-Dense's copies of anthropics' skills), CRLF and
// long descriptions, names that are the subject ("pdf") beside skills
// that mention it in passing, "Use when" descriptions, triggers in
// another language.
func generatedSkills() []Skill {
	long := strings.Repeat("Handles experiments, datasets, pipelines and reports for laboratories. ", 20)
	return []Skill{
		{ID: "pdf", Name: "pdf", Description: "Use this skill for PDF files: merging, splitting, extracting text and tables,\r\nfilling forms."},
		{ID: "canvas-design", Name: "canvas-design", Description: "Create visual art as .png and .pdf documents with a design philosophy."},
		{ID: "docx", Name: "docx", Description: "Create, read and edit Word documents (.docx) with tracked changes."},
		{ID: "docx-v2", Name: "docx", Description: "Create, read and edit Word documents (.docx) with tracked changes."},
		{ID: "xlsx", Name: "xlsx", Description: "Spreadsheets: formulas, pivot tables and charts in Excel workbooks."},
		{ID: "systematic-debugging", Name: "systematic-debugging", Description: "Use when encountering any bug, test failure or unexpected behavior, before proposing fixes."},
		{ID: "test-driven-development", Name: "test-driven-development", Description: "Use when implementing any feature or bugfix, before writing implementation code."},
		{ID: "lab-toolkit", Name: "lab-toolkit", Description: long},
		{ID: "weather", Name: "weather", Description: "Forecasts for a city.", Triggers: []string{"天气", "forecast"}},
	}
}

// TestGeneratedEvaluation is the always-running counterpart of
// TestEvaluation: the same measures on a generated catalog, where the
// router must pick right, never pick for a request no skill fits, and
// rank at least as well as BM25.
func TestGeneratedEvaluation(t *testing.T) {
	skills := generatedSkills()
	cases := []evalCase{
		{want: []string{"pdf"}, request: "merge these PDFs"},
		{want: []string{"pdf"}, request: "PDF"},
		{want: []string{"docx"}, request: "edit my Word document"},
		{want: []string{"xlsx"}, request: "build a pivot in Excel"},
		{want: []string{"systematic-debugging"}, request: "my tests fail and I don't know why, find the bug"},
		{want: []string{"test-driven-development"}, request: "implement the feature test first"},
		{want: []string{"weather"}, request: "明天天气怎么样"},
		{request: "tell me a joke"},
		{request: "book a table for two"},
		{request: "你好"},
	}
	ix := NewIndex(skills)
	router := evaluate(cases, routerRanker(ix))
	baseline := evaluate(cases, newBM25(skills).rank)
	t.Logf("router: %s", router)
	t.Logf("BM25:   %s", baseline)
	if router.top1 < baseline.top1 || router.falsePositive > 0 || router.right != router.picks {
		t.Errorf("router %s; BM25 %s", router, baseline)
	}
	// The copies of docx count once: one candidate naming the other.
	r, err := ix.Route("edit my Word document", Options{})
	if err != nil || len(r.Candidates) == 0 || r.Candidates[0].ID != "docx" || len(r.Candidates[0].Identical) != 1 || r.Plan.Primary != "docx" {
		t.Errorf("identical copies: %+v, %v", r, err)
	}
	// "PDF" alone names pdf's subject: pdf, not a skill that mentions it.
	if r, _ := ix.Route("PDF", Options{}); r.Candidates[0].ID != "pdf" {
		t.Errorf("PDF: %+v", r.Candidates)
	}
}

// TestRouteSemantic: with embeddings, a skill that shares no word with the
// request is recalled by meaning; without them, the lexical path alone.
func TestRouteSemantic(t *testing.T) {
	ix := NewIndex(generatedSkills())
	// A toy embedding space: spreadsheets on the first axis, debugging on
	// the second, documents on the third.
	vectors := map[string][]float32{
		"xlsx": {1, 0, 0}, "systematic-debugging": {0, 1, 0}, "docx": {0, 0, 1}, "docx-v2": {0, 0, 1},
	}
	query := []float32{0.9, 0.1, 0} // "tally the numbers in my ledger"
	r, err := ix.Route("tally the numbers in my ledger", Options{QueryVector: query, Vectors: vectors})
	if err != nil || len(r.Candidates) == 0 || r.Candidates[0].ID != "xlsx" || r.Candidates[0].Source != SourceSemantic || r.Plan.Primary != "xlsx" {
		t.Fatalf("semantic: %+v, %v", r, err)
	}
	if r, _ := ix.Route("tally the numbers in my ledger", Options{}); len(r.Candidates) != 0 {
		t.Errorf("lexical alone recalled %+v", r.Candidates)
	}
	// Embeddings of another length are ignored, not an error.
	if r, err := ix.Route("tally the numbers", Options{QueryVector: []float32{1, 0}, Vectors: vectors}); err != nil || len(r.Candidates) != 0 {
		t.Errorf("mismatched lengths: %+v, %v", r, err)
	}
	if _, err := ix.Route("x", Options{QueryVector: make([]float32, MaxVectorDims+1)}); skillerr.CodeOf(err) != skillerr.TooLarge {
		t.Errorf("a huge embedding: %v", err)
	}
}

// Words of one root that Snowball leaves apart still meet: "classifier"
// (stem "classifi") and "classification" ("classif"); the word itself
// counts more than a variant.
func TestRouteWordVariants(t *testing.T) {
	ix := NewIndex([]Skill{
		{ID: "ml", Name: "ml", Description: "Supervised learning: classification and regression."},
		{ID: "debug", Name: "debug", Description: "Use on any test failure."},
		{ID: "classify", Name: "classify", Description: "Trains a classifier."},
	})
	for _, c := range []struct{ query, want string }{
		{"my tests fail at random", "debug"},
		{"supervised classifier for spam", "ml"},
		{"train a classifier", "classify"},
	} {
		r, err := ix.Route(c.query, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Candidates) == 0 || r.Candidates[0].ID != c.want {
			t.Errorf("%q: candidates %+v, want %s first", c.query, r.Candidates, c.want)
		}
	}
}

// A skill's section titles count as a field of their own: words its
// description does not use still find it.
func TestRouteHeadings(t *testing.T) {
	ix := NewIndex([]Skill{
		{ID: "sheets", Name: "sheets", Description: "Tabular files.", Headings: []string{"Excel workbooks", "Pivot tables"}},
		{ID: "notes", Name: "notes", Description: "Tabular notes and workbooks of a lab."},
	})
	r, err := ix.Route("make an excel pivot", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Candidates) == 0 || r.Candidates[0].ID != "sheets" {
		t.Errorf("candidates %+v, want sheets first", r.Candidates)
	}
}

// A copy of a skill the model may not invoke is a skill of its own: it
// is routed to, and named as no one's copy.
func TestRouteCopyOfHidden(t *testing.T) {
	hidden := Skill{ID: "cleanup", Name: "cleanup", Description: "Deletes merged git branches.", DisableModelInvocation: true}
	open := hidden
	open.ID, open.Name, open.DisableModelInvocation = "cleanup-v2", "cleanup-v2", false
	r, err := NewIndex([]Skill{hidden, open}).Route("delete the merged git branches", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Candidates) != 1 || r.Candidates[0].ID != "cleanup-v2" || len(r.Candidates[0].Identical) != 0 {
		t.Errorf("candidates %+v, want cleanup-v2 alone", r.Candidates)
	}
}

// TestIndexSteps: indexing a thousand skills gives the host turns
// (pace.Step) in its loops over them. Counted, not timed:
// BenchmarkIndexVocabulary and web/bench/calls.mjs time it.
func TestIndexSteps(t *testing.T) {
	skills := benchSkills(1000, 2)
	steps := 0
	defer pacetest.Observe(func() { steps++ })()
	NewIndex(skills)
	if want := 2 * len(skills) / 16; steps < want {
		t.Errorf("indexing %d skills stepped %d times, want %d or more", len(skills), steps, want)
	}
}

// TestTop: the k best documents, ties in document order, as a sort of
// all of them by score gives, skipped ones left out.
func TestTop(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		scores := map[int]float64{}
		for d := range rnd.IntN(60) {
			scores[d*3] = float64(rnd.IntN(8)) / 4 // ties
		}
		k := rnd.IntN(12)
		skip := func(d int) bool { return d%9 == 0 }
		var want []int
		for d := range scores {
			if !skip(d) {
				want = append(want, d)
			}
		}
		sort.Slice(want, func(i, j int) bool {
			a, b := want[i], want[j]
			return scores[a] > scores[b] || scores[a] == scores[b] && a < b
		})
		want = want[:min(k, len(want))]
		if got := top(scores, k, skip); !slices.Equal(got, want) {
			t.Fatalf("top(%v, %d) = %v, want %v", scores, k, got, want)
		}
	}
}

// TestRouteSteps: routing a request of common words among a thousand
// skills steps in its loops over their postings and scores. Counted,
// not timed: web/bench/calls.mjs times a route among 9,000.
func TestRouteSteps(t *testing.T) {
	skills := benchSkills(1000, 0)
	ix := NewIndex(skills)
	steps := 0
	defer pacetest.Observe(func() { steps++ })()
	if _, err := ix.Route("handle the task with the files", Options{}); err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(skills) / 16; steps < want {
		t.Errorf("a route among %d skills stepped %d times, want %d or more", len(skills), steps, want)
	}
}

// TestRouteConflictWhy: a candidate's Why says another skill scores
// about as well only when one is within the conflict margin; one far
// behind the best says that another scores higher.
func TestRouteConflictWhy(t *testing.T) {
	ix := NewIndex([]Skill{
		{ID: "forms", Name: "forms", Description: "Fill in the fields of PDF forms."},
		{ID: "quotes", Name: "quotes", Description: "Formats quotations in fields of study."},
		{ID: "forms-two", Name: "forms-two", Description: "Fill in the fields of PDF forms, twice."},
	})
	has := func(c Candidate, s string) bool { return slices.Contains(c.Why, s) }
	r, err := ix.Route("fill in the fields of form.pdf", Options{Exclude: func(id string) bool { return id == "forms-two" }})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Candidates) != 2 || r.Candidates[0].ID != "forms" || r.Candidates[0].Score-r.Candidates[1].Score <= conflictMargin {
		t.Fatalf("candidates %+v, want forms far ahead of quotes", r.Candidates)
	}
	if c := r.Candidates[1]; has(c, "Another skill scores about as well.") || !has(c, "Another skill scores higher.") {
		t.Errorf("far behind: %q", c.Why)
	}
	if c := r.Candidates[0]; has(c, "Another skill scores about as well.") || has(c, "Another skill scores higher.") {
		t.Errorf("far ahead: %q", c.Why)
	}
	// With a near copy, the two best say it; the one far behind does not.
	r, _ = ix.Route("fill in the fields of form.pdf", Options{})
	for _, c := range r.Candidates {
		if near := c.ID != "quotes"; has(c, "Another skill scores about as well.") != near {
			t.Errorf("%s (%.4f): %q", c.ID, c.Score, c.Why)
		}
	}
}

// TestRouteTieAtCap: skills that all match a request fully tie at
// Intent's cap; the one the request names, far more relevant, is the
// clear pick, while a lead in relevance without the name, or two skills
// alike, stay close.
func TestRouteTieAtCap(t *testing.T) {
	ix := NewIndex([]Skill{
		{ID: "pdf", Name: "pdf", Description: "Reads, merges and splits PDF files."},
		{ID: "posters", Name: "posters", Description: "Conference posters as PDF."},
		{ID: "flyers", Name: "flyers", Description: "Event flyers as PDF."},
		{ID: "pdf-report", Name: "pdf-report", Description: "PDF report, PDF summary and PDF appendix as PDF."},
	})
	for _, c := range []struct {
		query, decision string
		exclude         []string
	}{
		{"make a PDF", DecisionClear, nil},
		{"make a PDF", DecisionClose, []string{"pdf"}},           // posters and flyers alike
		{"make a PDF", DecisionClose, []string{"pdf", "flyers"}}, // pdf-report, not named, leads posters in relevance alone
	} {
		r, err := ix.Route(c.query, Options{Exclude: func(id string) bool { return slices.Contains(c.exclude, id) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Candidates) < 2 || r.Candidates[0].Breakdown.Intent != 1 || r.Candidates[1].Breakdown.Intent != 1 {
			t.Fatalf("%q without %v: candidates %+v, want two at the cap", c.query, c.exclude, r.Candidates)
		}
		if r.Plan.Decision != c.decision || c.decision == DecisionClear && (r.Plan.Primary != "pdf" || !slices.Contains(r.Candidates[0].Why, tieBroken)) {
			t.Errorf("%q without %v: plan %+v, want %s", c.query, c.exclude, r.Plan, c.decision)
		}
	}
}

// TestRouteUreNoun: "failing" meets "failure" as the word itself, not as
// a variant counting less, so a request about failing tests is clearly
// for the skill about test failures, not one that writes tests.
func TestRouteUreNoun(t *testing.T) {
	ix := NewIndex([]Skill{
		{ID: "debug", Name: "debug", Description: "Use on any test failure or unexpected behaviour of a program."},
		{ID: "tests", Name: "tests", Description: "Writes unit tests."},
		{ID: "lint", Name: "lint", Description: "Lints code."},
	})
	r, err := ix.Route("my tests are failing", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Plan.Primary != "debug" || r.Plan.Decision != DecisionClear {
		t.Errorf("plan %+v, candidates %+v; want debug, clear", r.Plan, r.Candidates)
	}
}
