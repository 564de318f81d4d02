package resolver

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/fallback"
	"github.com/skillfs/skillfs/pkg/routing"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

func failed(code skillerr.Code) StepOutcome {
	o := StepOutcome{Outcome: "failed"}
	o.Error = &struct {
		Code   string `json:"code"`
		Reason string `json:"reason"`
	}{Code: string(code)}
	return o
}

var succeeded = StepOutcome{Outcome: "success"}

// TestPlanRun drives the router's plan for a message through seed 004's
// state machine: the primary is retried once on a transient failure, a
// permission failure falls back at once, the fallback's success ends the
// run. The outcomes reach the statistics routing learns from, and every
// transition is in the audit log.
func TestPlanRun(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		var files []file
		files = append(files, skillFiles("pdf-forms", "Fill forms.", "triggers: [fill the pdf form]")...)
		files = append(files, skillFiles("pdf-text", "Extract text.", "triggers: [pdf]")...)
		e.install(t, files...)
		ctx := context.Background()
		s := e.open(t, SessionOptions{})
		pr, err := s.StartPlan(ctx, "fill the pdf form", nil, RouteOptions{Threshold: 0.1, Margin: 0.0001})
		if err != nil {
			t.Fatal(err)
		}
		primary := pr.Plan.Primary
		if primary == "" || len(pr.Plan.Fallbacks) != 2 || pr.Step.Kind != fallback.StepSkill || pr.Step.Skill != primary || pr.Step.Attempt != 1 {
			t.Fatalf("first step %+v of plan %+v", pr.Step, pr.Plan)
		}
		other := pr.Plan.Fallbacks[0]
		steps := []string{step(pr.Step)}
		for _, o := range []StepOutcome{failed(skillerr.Timeout), failed(skillerr.PermissionDenied), succeeded} {
			if pr, err = s.Advance(ctx, pr.Run, o); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, step(pr.Step))
		}
		want := fmt.Sprintf("%s#1 %s#2 %s#1 done:success", primary, primary, other)
		if got := strings.Join(steps, " "); got != want {
			t.Fatalf("steps %q, want %q", got, want)
		}
		// The run is over and forgotten.
		if _, err := s.Advance(ctx, pr.Run, succeeded); err == nil {
			t.Fatal("advancing a finished run succeeded")
		} else {
			wantErr(t, "finished run", err, skillerr.InvalidArgument, ReasonNoRun)
		}
		stats, err := e.res.readStats(ctx, s.snap)
		if err != nil {
			t.Fatal(err)
		}
		if stats[primary] != (Stats{Failure: 2}) || stats[other] != (Stats{Success: 1}) {
			t.Errorf("statistics %+v", stats)
		}
		entries, err := e.res.Audit(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		slices.Reverse(entries) // newest first
		for _, a := range entries {
			if a.Kind == AuditPlan && a.Run == pr.Run {
				got = append(got, fmt.Sprintf("%s>%s:%s:%s", a.From, a.To, a.Skill, a.Outcome))
				if a.Digest != e.meta(t, a.Skill).Digest {
					t.Errorf("entry %+v has not the digest of %s", a, a.Skill)
				}
			}
		}
		wantTrans := fmt.Sprintf("selected>running:%[1]s:ok running>retryable_failure:%[1]s:Timeout retryable_failure>running:%[1]s:ok "+
			"running>fatal_failure:%[1]s:PermissionDenied fatal_failure>fallback:%[1]s:ok fallback>running:%[2]s:ok running>success:%[2]s:ok",
			primary, other)
		if g := strings.Join(got, " "); g != wantTrans {
			t.Errorf("audited transitions\n%s\nwant\n%s", g, wantTrans)
		}
	})
}

func step(st fallback.Step) string {
	if st.Kind == fallback.StepDone {
		return "done:" + st.Result
	}
	return fmt.Sprintf("%s#%d", cmp.Or(st.Skill, st.Kind), st.Attempt)
}

// TestPlanGiven: a host may drive its own plan, of visible skills only;
// runs are bounded per session, and bad input is refused with codes.
func TestPlanGiven(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.installSkills(t, "pdf", "docx", "hidden")
		ctx := context.Background()
		s := e.open(t, SessionOptions{Skills: []string{"pdf", "docx"}})
		pr, err := s.StartPlan(ctx, "", &routing.Plan{Primary: "docx", Fallbacks: []string{"pdf", "docx", routing.GenericTools},
			Parallel: [][]string{{"x"}}, Decision: routing.DecisionClose}, RouteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wantList(t, "fallbacks", pr.Plan.Fallbacks, []string{"pdf", routing.GenericTools})
		if pr.Plan.Decision != routing.DecisionForced || len(pr.Plan.Parallel) != 0 {
			t.Errorf("a given plan is the caller's choice and nothing else: %+v", pr.Plan)
		}
		var steps []string
		for !(pr.Step.Kind == fallback.StepDone) {
			steps = append(steps, step(pr.Step))
			if pr, err = s.Advance(ctx, pr.Run, failed("ToolNotAllowed")); err != nil {
				t.Fatal(err)
			}
		}
		wantList(t, "steps", steps, []string{"docx#1", "pdf#1", "generic-tools#1"})
		if pr.Step.Result != fallback.ResultFailed {
			t.Errorf("result %q", pr.Step.Result)
		}

		for _, c := range []struct {
			plan   routing.Plan
			code   skillerr.Code
			reason string
		}{
			{routing.Plan{Primary: "hidden"}, skillerr.NotVisible, ReasonNotInSession},
			{routing.Plan{Primary: "nope"}, skillerr.SkillNotFound, ReasonNotInstalled},
			{routing.Plan{Primary: routing.GenericTools}, skillerr.InvalidArgument, ReasonBadPlan},
			{routing.Plan{Primary: "pdf", Fallbacks: make([]string, MaxPlanPaths)}, skillerr.TooLarge, ReasonLimit},
		} {
			_, err := s.StartPlan(ctx, "", &c.plan, RouteOptions{})
			wantErr(t, c.plan.Primary, err, c.code, c.reason)
		}
		pr, _ = s.StartPlan(ctx, "", &routing.Plan{Primary: "pdf"}, RouteOptions{})
		_, err = s.Advance(ctx, pr.Run, StepOutcome{Outcome: "maybe"})
		wantErr(t, "outcome", err, skillerr.InvalidArgument, ReasonBadOutcome)
		_, err = s.Advance(ctx, pr.Run, failed(skillerr.Code(strings.Repeat("x", 65))))
		wantErr(t, "long code", err, skillerr.TooLarge, ReasonLimit)
		for range MaxPlanRuns - 1 {
			if _, err := s.StartPlan(ctx, "", &routing.Plan{Primary: "pdf"}, RouteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		_, err = s.StartPlan(ctx, "", &routing.Plan{Primary: "pdf"}, RouteOptions{})
		wantErr(t, "one run too many", err, skillerr.TooLarge, ReasonLimit)
		// A run that ends makes room.
		if _, err := s.Advance(ctx, pr.Run, succeeded); err != nil {
			t.Fatal(err)
		}
		if _, err := s.StartPlan(ctx, "", &routing.Plan{Primary: "pdf"}, RouteOptions{}); err != nil {
			t.Fatal(err)
		}
		// Closing the session ends its runs.
		s.Close(ctx)
		_, err = s.Advance(ctx, pr.Run, succeeded)
		wantErr(t, "closed", err, skillerr.InvalidArgument, ReasonSessionClosed)
	})
}

// A report names the step it is about: one sent twice, or for a step the
// run is not at, changes nothing. Another session's run is not found.
func TestPlanStaleReports(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.installSkills(t, "pdf", "docx")
		ctx := context.Background()
		s := e.open(t, SessionOptions{})
		pr, err := s.StartPlan(ctx, "", &routing.Plan{Primary: "docx", Fallbacks: []string{"pdf"}}, RouteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		report := func(o StepOutcome, skill string, attempt int) StepOutcome {
			o.Step = &StepRef{Skill: skill, Attempt: attempt}
			return o
		}
		// docx#1 fails for good: the run moves to pdf#1.
		if pr, err = s.Advance(ctx, pr.Run, report(failed(skillerr.PermissionDenied), "docx", 1)); err != nil || step(pr.Step) != "pdf#1" {
			t.Fatalf("%+v %v", pr.Step, err)
		}
		// The same report again, an attempt the run has not reached, a
		// skill not in the plan: refused, and the run is still at pdf#1.
		for _, o := range []StepOutcome{
			report(failed(skillerr.PermissionDenied), "docx", 1),
			report(succeeded, "pdf", 2),
			report(succeeded, "nope", 1),
		} {
			_, err := s.Advance(ctx, pr.Run, o)
			wantErr(t, fmt.Sprintf("report %+v", *o.Step), err, skillerr.InvalidArgument, ReasonStaleStep)
		}
		other := e.open(t, SessionOptions{ContextID: "ctx-2"})
		_, err = other.Advance(ctx, pr.Run, succeeded)
		wantErr(t, "another session's run", err, skillerr.InvalidArgument, ReasonNoRun)
		if pr, err = s.Advance(ctx, pr.Run, report(succeeded, "pdf", 1)); err != nil || pr.Step.Kind != fallback.StepDone || pr.Step.Result != fallback.ResultSuccess {
			t.Fatalf("%+v %v", pr.Step, err)
		}
		stats, err := e.res.readStats(ctx, s.snap)
		if err != nil {
			t.Fatal(err)
		}
		if stats["docx"] != (Stats{Failure: 1}) || stats["pdf"] != (Stats{Success: 1}) {
			t.Errorf("statistics %+v: a refused report was counted", stats)
		}
		_, err = s.Advance(ctx, pr.Run, report(succeeded, "pdf", 1))
		wantErr(t, "a finished run", err, skillerr.InvalidArgument, ReasonNoRun)
	})
}
