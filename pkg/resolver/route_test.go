package resolver

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/routing"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// route routes query, failing t on an error.
func route(t *testing.T, ix *Index, query string, opts RouteOptions) Result {
	t.Helper()
	r, err := ix.Route(query, opts)
	if err != nil {
		t.Fatalf("Route(%q): %v", query, err)
	}
	return r
}

// ranked renders candidates as "id=score" in order, forced ones marked.
func ranked(cs []routing.Candidate) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s=%g", c.ID, c.Score)
		if c.Forced {
			parts[i] += "!"
		}
	}
	return strings.Join(parts, " ")
}

func TestRouteBreakdown(t *testing.T) {
	got := route(t, NewIndex(fixture()), "明天天气怎么样？", RouteOptions{})
	want := Result{
		Candidates: []routing.Candidate{{
			ID: "weather", Name: "weather", Source: routing.SourceTrigger, Score: 0.905, Triggers: []string{"天气"},
			// 0.40×1 + 0.20×0.9 + 0.15×0.5 + 0.10×1 + 0.10×1 + 0.05×1
			Breakdown: routing.Breakdown{Intent: 1, Trigger: 0.9, SuccessRate: 0.5, Readiness: 1, Cost: 1, Conflict: 1},
			Why:       []string{`Your request contains its trigger phrase "天气".`, "It matches your request's distinctive words fully.", "It is marked as cheap to run."},
		}},
		Plan: routing.Plan{Primary: "weather", Decision: routing.DecisionClear, Fallbacks: []string{routing.GenericTools}, Parallel: [][]string{{"weather"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestRouteRanking(t *testing.T) {
	ix := NewIndex(fixture())
	for _, c := range []struct {
		query, ranked, primary string
	}{
		{"Extract the tables from report.pdf", "pdf-tools=0.855", "pdf-tools"},
		{"what's the weather in Paris", "weather=0.905", "weather"},
		{"Ｗｅａｔｈｅｒ in Paris", "weather=0.905", "weather"}, // full-width letters
		{"帮我查一下明天北京的天气", "weather=0.7094 web-research=0.6672", "weather"},
		{"review this pull request", "code-review=0.805 docx=0.4741", "code-review"},
		{"commit the staged changes", "git-commit=0.905 docx=0.4741", "git-commit"},
		{"translate the weather forecast into French", "weather=0.905 translate=0.73", "weather"},
		// Below the threshold: listed, but no primary.
		{"make my slides look nicer", "pptx=0.6241 weather=0.5904", ""},
		{"write me a story about a file", "git-commit=0.54 pdf-tools=0.5142 xlsx=0.4947", ""},
		{"search the web for the latest Go release", "web-research=0.833", "web-research"},
		{"hello there", "", ""},
		// deploy has disable-model-invocation: only forcing recalls it.
		{"deploy the app", "", ""},
	} {
		got := route(t, ix, c.query, RouteOptions{})
		if r := ranked(got.Candidates); r != c.ranked || got.Plan.Primary != c.primary {
			t.Errorf("%q: got %q primary %q, want %q primary %q", c.query, r, got.Plan.Primary, c.ranked, c.primary)
		}
		if c.primary == "" && (!slices.Equal(got.Plan.Fallbacks, []string{routing.GenericTools}) || len(got.Plan.Parallel) != 0) {
			t.Errorf("%q: plan without primary %+v", c.query, got.Plan)
		}
	}
}

func TestRouteAntiTrigger(t *testing.T) {
	ix := NewIndex(fixture())
	for _, c := range []struct {
		query, ranked, primary, penalized string
	}{
		// pdf's trigger "pdf" occurs, but so does its anti-trigger "word document".
		{"Convert this PDF into a Word document", "docx=0.7692 pdf-tools=0.2259", "docx", "pdf-tools"},
		{"please review my essay", "docx=0.6282 code-review=0.255", "", "code-review"},
		{"what's the weather api for python", "weather=0.405", "", "weather"},
		// An anti-trigger does not stop the user from forcing a skill.
		{"$pdf-tools into a Word document", "pdf-tools=1! docx=0.855", "pdf-tools", "pdf-tools"},
	} {
		got := route(t, ix, c.query, RouteOptions{})
		if r := ranked(got.Candidates); r != c.ranked || got.Plan.Primary != c.primary {
			t.Errorf("%q: got %q primary %q, want %q primary %q", c.query, r, got.Plan.Primary, c.ranked, c.primary)
		}
		for _, cand := range got.Candidates {
			if want := map[bool]float64{true: -0.5}[cand.ID == c.penalized]; cand.Breakdown.AntiTrigger != want {
				t.Errorf("%q: %s anti-trigger %g, want %g", c.query, cand.ID, cand.Breakdown.AntiTrigger, want)
			}
		}
	}
}

func TestRouteForced(t *testing.T) {
	ix := NewIndex(fixture())
	for _, c := range []struct {
		query, ranked string
	}{
		{"/skill:pdf-tools merge a.pdf b.pdf", "pdf-tools=1!"},
		{"$deploy now", "deploy=1!"}, // hidden from the model, not from the user
		{"/DEPLOY", "deploy=1!"},
		{"使用 translate 技能 翻译这段话", "translate=1!"},
		{"Please use the docx skill for the weather report", "docx=1! weather=0.8299"},
		// Forced wins over a better-scoring skill, which stays listed.
		{"$translate review this pull request", "translate=1! code-review=0.805 docx=0.4741"},
		// The first name that is a skill wins.
		{"$nosuch $weather", "weather=1!"},
		// usage-audit is not user-invocable: naming it forces nothing,
		// though its trigger still recalls it.
		{"/usage-audit", "usage-audit=0.905"},
		{"$nosuch thing", ""},
	} {
		got := route(t, ix, c.query, RouteOptions{})
		if r := ranked(got.Candidates); r != c.ranked {
			t.Errorf("%q: got %q, want %q", c.query, r, c.ranked)
		}
		if len(got.Candidates) > 0 && got.Candidates[0].Forced {
			want := routing.Plan{Primary: got.Candidates[0].ID, Decision: routing.DecisionForced, Fallbacks: []string{routing.GenericTools}, Parallel: [][]string{{got.Candidates[0].ID}}}
			if !reflect.DeepEqual(got.Plan, want) {
				t.Errorf("%q: plan %+v, want %+v", c.query, got.Plan, want)
			}
			if got.Candidates[0].Source != routing.SourceForced || got.Candidates[0].Breakdown.Trigger != 1 {
				t.Errorf("%q: forced candidate %+v", c.query, got.Candidates[0])
			}
		}
	}
}

func TestRoutePlan(t *testing.T) {
	ix := NewIndex(fixture())
	query := "review the pull request and translate the slides to French"
	for _, c := range []struct {
		threshold float64
		want      routing.Plan
	}{
		{0, routing.Plan{Primary: "code-review", Decision: routing.DecisionClear, Fallbacks: []string{routing.GenericTools}, Parallel: [][]string{{"code-review"}}}},
		{0.8, routing.Plan{Decision: routing.DecisionBelow, Fallbacks: []string{routing.GenericTools}, Parallel: [][]string{}}},
		// code-review is not parallel-safe; translate and pptx are.
		{0.45, routing.Plan{Primary: "code-review", Decision: routing.DecisionClear, Fallbacks: []string{"translate", "pptx", routing.GenericTools},
			Parallel: [][]string{{"code-review"}, {"translate", "pptx"}}}},
		// At most two skills to a group.
		{0.3, routing.Plan{Primary: "code-review", Decision: routing.DecisionClear, Fallbacks: []string{"translate", "pptx", "docx", routing.GenericTools},
			Parallel: [][]string{{"code-review"}, {"translate", "pptx"}, {"docx"}}}},
	} {
		got := route(t, ix, query, RouteOptions{Threshold: c.threshold})
		if !reflect.DeepEqual(got.Plan, c.want) {
			t.Errorf("threshold %g: plan %+v, want %+v", c.threshold, got.Plan, c.want)
		}
		if r := ranked(got.Candidates); r != "code-review=0.7897 translate=0.6431 pptx=0.5152 docx=0.4092" {
			t.Errorf("threshold %g: ranked %q", c.threshold, r)
		}
	}
	// Three parallel-safe skills make two groups.
	three := []Skill{
		{ID: "a", Name: "a", Description: "Go, first.", Triggers: []string{"go", "first"}, ParallelSafe: true},
		{ID: "b", Name: "b", Description: "Go, second.", Triggers: []string{"go"}, ParallelSafe: true},
		{ID: "c", Name: "c", Description: "Go, third.", Triggers: []string{"go"}, ParallelSafe: true},
	}
	got := route(t, NewIndex(three), "go first", RouteOptions{Threshold: 0.1})
	want := routing.Plan{Primary: "a", Decision: routing.DecisionClear, Fallbacks: []string{"b", "c", routing.GenericTools}, Parallel: [][]string{{"a", "b"}, {"c"}}}
	if !reflect.DeepEqual(got.Plan, want) {
		t.Errorf("plan %+v, want %+v", got.Plan, want)
	}
}

func TestRouteStatsReadinessHistory(t *testing.T) {
	ix := NewIndex(fixture())
	for _, c := range []struct {
		name   string
		query  string
		opts   RouteOptions
		ranked string
	}{
		{"baseline", "what's the weather in Paris", RouteOptions{}, "weather=0.905"},
		// 0.15 × ((0+1)/(20+2) − 0.5)
		{"failures", "what's the weather in Paris", RouteOptions{Stats: map[string]Stats{"weather": {Failure: 20}}}, "weather=0.8368"},
		{"successes", "what's the weather in Paris", RouteOptions{Stats: map[string]Stats{"weather": {Success: 8}}}, "weather=0.965"},
		// Unavailable: readiness 0 and the whole score halved (seed 004).
		{"not ready", "what's the weather in Paris", RouteOptions{Readiness: func(id string) float64 { return map[bool]float64{true: 0, false: 1}[id == "weather"] }}, "weather=0.4025"},
		{"half ready", "what's the weather in Paris", RouteOptions{Readiness: func(id string) float64 { return 0.5 }}, "weather=0.4275"},
		{"follow-up alone", "and tomorrow?", RouteOptions{}, ""},
		{"follow-up with history", "and tomorrow?", RouteOptions{History: []string{"what's the weather in Paris"}}, "weather=0.845"},
		// History terms count alike, whichever message they come from:
		// the two are in conflict.
		{"longer history", "and tomorrow?", RouteOptions{History: []string{"translate this", "what's the weather in Paris"}}, "weather=0.688 translate=0.6874"},
		// Only the last three messages count.
		{"old history", "and tomorrow?", RouteOptions{History: []string{"what's the weather in Paris", "a", "b", "c"}}, ""},
		// Where the conversation happens counts like a message of history,
		// besides the last three.
		{"context", "and tomorrow?", RouteOptions{Context: "Weather forecast for Paris"}, "weather=0.845"},
		{"context and old history", "and tomorrow?", RouteOptions{History: []string{"translate this", "a", "b", "c"}, Context: "weather in Paris"}, "weather=0.845"},
		// Only the most relevant: no longer in conflict with the others.
		{"top 1", "write me a story about a file", RouteOptions{TopK: 1}, "pdf-tools=0.5642"},
	} {
		if got := ranked(route(t, ix, c.query, c.opts).Candidates); got != c.ranked {
			t.Errorf("%s: got %q, want %q", c.name, got, c.ranked)
		}
	}
}

// TestRouteTies: skills that score alike are listed in a fixed order
// whatever the order they come in, and never become the plan's choice.
func TestRouteTies(t *testing.T) {
	twin := func(id, name, desc string) Skill {
		return Skill{ID: id, Name: name, Description: desc, Triggers: []string{"meeting"}}
	}
	skills := []Skill{twin("z", "notes", "Summarise meeting notes."), twin("b", "notes", "Summarise notes of a meeting."), twin("a", "minutes", "Summarise a meeting's notes.")}
	for i := 0; i < 3; i++ {
		got := route(t, NewIndex(skills), "summarise the meeting", RouteOptions{})
		if r := ranked(got.Candidates); r != "a=0.805 b=0.805 z=0.805" {
			t.Fatalf("got %q", r)
		}
		if got.Candidates[0].Breakdown.Conflict != 0 {
			t.Errorf("tied candidates conflict: %+v", got.Candidates[0])
		}
		if p := got.Plan; p.Primary != "" || p.Decision != routing.DecisionClose || !slices.Equal(p.Close, []string{"a", "b", "z"}) {
			t.Errorf("a tie became a choice: %+v", p)
		}
		slices.Reverse(skills)
	}
}

// TestRouteIdentical: copies of one skill (the same description, triggers
// and when_to_use under other names) count once, so they neither tie nor
// suppress each other, and the candidate names the copies.
func TestRouteIdentical(t *testing.T) {
	doc := Skill{ID: "docx", Name: "docx", Description: "Create and edit Word documents.", Triggers: []string{"word document"}, UserInvocable: true}
	cp := doc
	cp.ID, cp.Name = "docx-v2", "docx-v2"
	got := route(t, NewIndex([]Skill{cp, doc}), "create a Word document", RouteOptions{})
	if len(got.Candidates) != 1 || got.Candidates[0].ID != "docx" || !slices.Equal(got.Candidates[0].Identical, []string{"docx-v2"}) {
		t.Fatalf("candidates %+v", got.Candidates)
	}
	if got.Plan.Primary != "docx" {
		t.Errorf("plan %+v", got.Plan)
	}
	// Forcing a copy forces that copy.
	got = route(t, NewIndex([]Skill{cp, doc}), "$docx-v2 a Word document", RouteOptions{})
	if len(got.Candidates) != 1 || got.Candidates[0].ID != "docx-v2" || got.Plan.Primary != "docx-v2" {
		t.Errorf("forced copy: %+v", got)
	}
}

func TestRouteEmptyIndex(t *testing.T) {
	got := route(t, NewIndex(nil), "$pdf extract the tables", RouteOptions{History: []string{"hi"}})
	want := Result{Candidates: []routing.Candidate{}, Plan: routing.Plan{Decision: routing.DecisionNoneFound, Fallbacks: []string{routing.GenericTools}, Parallel: [][]string{}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestLookupAndInvoke(t *testing.T) {
	ix := NewIndex(append(fixture(), Skill{ID: "weather-2", Name: "weather"}, Skill{ID: "docx", Name: "docx-copy", UserInvocable: true}))
	for _, c := range []struct{ name, id string }{
		{"pdf-tools", "pdf-tools"},
		{"PDF-Tools", "pdf-tools"},
		{"ｄｏｃｘ", "docx"},
		{"weather", "weather"},     // the first of two skills named weather
		{"weather-2", "weather-2"}, // by ID
		{"docx", "docx"},           // a name wins over another skill's ID
	} {
		if s, ok := ix.Lookup(c.name); !ok || s.ID != c.id {
			t.Errorf("Lookup(%q) = %q, %v; want %q", c.name, s.ID, ok, c.id)
		}
	}
	if _, ok := ix.Lookup("nosuch"); ok {
		t.Error("Lookup(nosuch) found a skill")
	}
	if s, err := ix.Invoke("Deploy"); err != nil || s.ID != "deploy" {
		t.Errorf("Invoke(Deploy) = %q, %v", s.ID, err)
	}
	_, err := ix.Invoke("nosuch")
	if skillerr.CodeOf(err) != skillerr.SkillNotFound || err.Error() != "nosuch: no skill has this name" {
		t.Errorf("Invoke(nosuch): %v", err)
	}
	_, err = ix.Invoke("usage-audit")
	if skillerr.CodeOf(err) != skillerr.PermissionDenied || skillerr.ReasonOf(err) != ReasonNotUserInvocable {
		t.Errorf("Invoke(usage-audit): %v", err)
	}
}

// TestLookupCaseTwins: an exact name or ID always wins over a match in
// another case, and a match in another case counts only when it is
// unique.
func TestLookupCaseTwins(t *testing.T) {
	ix := NewIndex([]Skill{
		{ID: "pdf-tools", Name: "pdf-tools", UserInvocable: true},
		{ID: "PDF-tools", Name: "PDF-tools", UserInvocable: true},
		{ID: "notes", Name: "notes", UserInvocable: true},
		{ID: "old-id", Name: "Report", UserInvocable: true},
		{ID: "report", Name: "summary", UserInvocable: true},
	})
	for _, c := range []struct{ name, id string }{
		{"pdf-tools", "pdf-tools"},
		{"PDF-tools", "PDF-tools"},
		{" pdf-tools ", "pdf-tools"},
		{"NOTES", "notes"},
		{"report", "report"}, // an exact ID wins over another skill's name in another case
		{"REPORT", "old-id"}, // in another case, names come first
	} {
		if s, err := ix.Resolve(c.name); err != nil || s.ID != c.id {
			t.Errorf("Resolve(%q) = %q, %v; want %q", c.name, s.ID, err, c.id)
		}
	}
	for _, name := range []string{"Pdf-Tools", "ＰＤＦ-TOOLS"} {
		_, err := ix.Resolve(name)
		if skillerr.CodeOf(err) != skillerr.Conflict || skillerr.ReasonOf(err) != ReasonAmbiguousName ||
			!strings.Contains(err.Error(), "pdf-tools, PDF-tools") && !strings.Contains(err.Error(), "PDF-tools, pdf-tools") {
			t.Errorf("Resolve(%q): %v, want an ambiguous-name Conflict naming both", name, err)
		}
		if _, err := ix.Invoke(name); skillerr.ReasonOf(err) != ReasonAmbiguousName {
			t.Errorf("Invoke(%q): %v", name, err)
		}
		if s, ok := ix.Lookup(name); ok {
			t.Errorf("Lookup(%q) = %q, want none", name, s.ID)
		}
		// Routing does not force an ambiguous invocation either.
		if res := route(t, ix, "$"+name+" merge a.pdf", RouteOptions{}); slices.ContainsFunc(res.Candidates, func(c routing.Candidate) bool { return c.Forced }) {
			t.Errorf("Route($%s) forced %+v", name, res.Candidates)
		}
	}
	if res := route(t, ix, "$pdf-tools merge a.pdf", RouteOptions{}); len(res.Candidates) == 0 || res.Candidates[0].ID != "pdf-tools" || !res.Candidates[0].Forced {
		t.Errorf("Route($pdf-tools) = %+v", res.Candidates)
	}
}
