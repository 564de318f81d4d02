package fallback

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/routing"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

var (
	ok        = Outcome{OK: true}
	transient = Outcome{Code: skillerr.Timeout}
	denied    = Outcome{Code: skillerr.PermissionDenied, Reason: "model-invocation-disabled"}
)

// trace renders a step as "kind:skill#attempt" or "done:result".
func trace(st Step) string {
	switch st.Kind {
	case StepDone:
		return "done:" + st.Result
	case StepSkill:
		return fmt.Sprintf("%s#%d", st.Skill, st.Attempt)
	}
	return fmt.Sprintf("%s#%d", st.Kind, st.Attempt)
}

func TestRunWalksThePlan(t *testing.T) {
	plan := routing.Plan{Primary: "pdf", Fallbacks: []string{"docx", routing.GenericTools}}
	for _, tc := range []struct {
		name     string
		outcomes []Outcome
		want     string
	}{
		{"primary succeeds", []Outcome{ok}, "pdf#1 done:success"},
		{"retry once, then succeed", []Outcome{transient, ok}, "pdf#1 pdf#2 done:success"},
		{"retry once, then the fallback", []Outcome{transient, transient, ok}, "pdf#1 pdf#2 docx#1 done:success"},
		{"a fatal failure is not retried", []Outcome{denied, ok}, "pdf#1 docx#1 done:success"},
		// The repair budget (2 retries a run) is spent on pdf and docx:
		// the generic tools get no retry.
		{"the budget ends retries", []Outcome{transient, transient, transient, transient, transient},
			"pdf#1 pdf#2 docx#1 docx#2 generic-tools#1 done:failed"},
		{"all fail fatally", []Outcome{denied, {Code: skillerr.SkillNotFound}, {Code: skillerr.ToolNotAllowed}},
			"pdf#1 docx#1 generic-tools#1 done:failed"},
		{"a failure without a code may be transient", []Outcome{{}, ok}, "pdf#1 pdf#2 done:success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, st, _ := Start(plan)
			got := []string{trace(st)}
			for _, o := range tc.outcomes {
				if r.Done() {
					t.Fatalf("outcome %+v after the run ended (%s)", o, strings.Join(got, " "))
				}
				st, _ = r.Advance(o)
				got = append(got, trace(st))
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Fatalf("steps %q, want %q", g, tc.want)
			}
			if !r.Done() {
				t.Fatal("the run did not end")
			}
		})
	}
}

func TestTransitionsAreSeed004s(t *testing.T) {
	r, _, ts := Start(routing.Plan{Primary: "pdf", Fallbacks: []string{routing.GenericTools}})
	all := ts
	for _, o := range []Outcome{transient, denied, ok} {
		_, ts = r.Advance(o)
		all = append(all, ts...)
	}
	var got []string
	for _, tr := range all {
		got = append(got, fmt.Sprintf("%s>%s[%s %s]", tr.From, tr.To, tr.Skill, tr.Code))
	}
	want := "selected>running[pdf ] " +
		"running>retryable_failure[pdf Timeout] retryable_failure>running[pdf ] " +
		"running>fatal_failure[pdf PermissionDenied] fatal_failure>fallback[pdf ] fallback>running[generic-tools ] " +
		"running>success[generic-tools ]"
	if g := strings.Join(got, " "); g != want {
		t.Fatalf("transitions\n%s\nwant\n%s", g, want)
	}
	if st, ts := r.Advance(transient); st.Kind != StepDone || st.Result != ResultSuccess || len(ts) != 0 {
		t.Fatalf("advancing a finished run: %+v %v", st, ts)
	}
}

func TestPlanWithoutPrimaryFallsBack(t *testing.T) {
	// routing's plan for a message no skill clears: generic tools only.
	r, st, ts := Start(routing.Plan{Decision: routing.DecisionBelow, Fallbacks: []string{routing.GenericTools}})
	if trace(st) != "generic-tools#1" || len(ts) != 2 || ts[0].To != StateFallback || ts[1].To != StateRunning {
		t.Fatalf("first step %s, transitions %+v", trace(st), ts)
	}
	if st, _ = r.Advance(transient); trace(st) != "generic-tools#2" {
		t.Fatalf("generic tools are retried like a skill: %s", trace(st))
	}
	// Nothing at all: the run ends before any step.
	r, st, ts = Start(routing.Plan{})
	if !r.Done() || st.Result != ResultFailed || len(ts) != 2 || ts[1].To != StateExit {
		t.Fatalf("empty plan: %+v %+v", st, ts)
	}
}

func TestRepeatedPathsRunOnce(t *testing.T) {
	r, st, _ := Start(routing.Plan{Primary: "pdf", Fallbacks: []string{"pdf", "", "docx"}})
	got := []string{trace(st)}
	for !r.Done() {
		st, _ = r.Advance(denied)
		got = append(got, trace(st))
	}
	if g := strings.Join(got, " "); g != "pdf#1 docx#1 done:failed" {
		t.Fatalf("steps %q", g)
	}
}

func TestRetryableIsDecidedOnCodes(t *testing.T) {
	for code, want := range map[skillerr.Code]bool{
		skillerr.PermissionDenied: false, skillerr.SkillNotFound: false, skillerr.NotVisible: false,
		skillerr.InvalidManifest: false, skillerr.InvalidArgument: false, skillerr.ToolNotAllowed: false,
		skillerr.Timeout: true, skillerr.Internal: true, skillerr.Conflict: true, skillerr.FetchFailed: true,
		"": true, "HostToolCrashed": true,
	} {
		if got := Retryable(code); got != want {
			t.Errorf("Retryable(%q) = %v, want %v", code, got, want)
		}
	}
}
