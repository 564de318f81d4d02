package resolver

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/skillfs/skillfs/pkg/fallback"
	"github.com/skillfs/skillfs/pkg/routing"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// Limits of plan runs (docs/architecture.md, Plan runs).
const (
	// MaxPlanRuns bounds the runs a session keeps open at once; a run
	// ends (and is forgotten) when its last step is reported.
	MaxPlanRuns = 8
	// MaxPlanPaths bounds the skills of a plan the caller gives.
	MaxPlanPaths = 32
	// maxOutcomeField bounds the code and reason of a reported failure.
	maxOutcomeField = 64
)

// Reasons of the errors of plan runs.
const (
	// ReasonNoRun (InvalidArgument): no open run of the session has the
	// id: it ended, or its session was closed.
	ReasonNoRun = "no-run"
	// ReasonBadPlan (InvalidArgument): the plan given is malformed.
	ReasonBadPlan = "bad-plan"
	// ReasonBadOutcome (InvalidArgument): an outcome other than success or
	// failed.
	ReasonBadOutcome = "bad-outcome"
	// ReasonStaleStep (InvalidArgument): the outcome names a step other
	// than the one the run is at: a report sent twice, or out of order.
	ReasonStaleStep = "stale-step"
)

// PlanRun is a plan being driven and the step the agent takes next.
type PlanRun struct {
	Run  string        `json:"run"`
	Plan routing.Plan  `json:"plan"`
	Step fallback.Step `json:"step"`
	// Transitions are the state changes this call made, in order; each
	// is in the audit log too.
	Transitions []fallback.Transition `json:"transitions"`
}

// StepOutcome is what the agent reports of the step it took.
type StepOutcome struct {
	// Outcome is "success" or "failed".
	Outcome string `json:"outcome"`
	// Error classifies a failure: a skillfs error's code and reason, or a
	// host tool's own code. Only the code decides a retry.
	Error *struct {
		Code   string `json:"code"`
		Reason string `json:"reason"`
	} `json:"error"`
	// Step names the step reported, as the run gave it (its skill, or
	// "generic-tools", and its attempt); when given, a report of any
	// other step changes nothing and is refused (ReasonStaleStep).
	Step *StepRef `json:"step"`
}

// StepRef names a step of a plan run.
type StepRef struct {
	Skill   string `json:"skill"`
	Attempt int    `json:"attempt"`
}

// planRun is a run a session keeps.
type planRun struct {
	mu   sync.Mutex
	plan routing.Plan
	run  *fallback.Run
}

// StartPlan starts driving a plan: the router's for query (with opts),
// or plan when it is not nil. It returns the run with its first step.
// The skills of a given plan must be visible in the session; a session
// keeps at most MaxPlanRuns runs open (TooLarge beyond).
func (s *Session) StartPlan(ctx context.Context, query string, plan *routing.Plan, opts RouteOptions) (PlanRun, error) {
	sn, err := s.current()
	if err != nil {
		return PlanRun{}, err
	}
	var p routing.Plan
	if plan != nil {
		if p, err = s.checkPlan(ctx, sn, *plan); err != nil {
			return PlanRun{}, err
		}
	} else {
		res, err := s.Route(ctx, query, opts)
		if err != nil {
			return PlanRun{}, err
		}
		p = res.Plan
	}
	run, step, ts := fallback.Start(p)
	id := newID()
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return PlanRun{}, errSessionClosed(s.id)
	case len(s.runs) >= MaxPlanRuns:
		s.mu.Unlock()
		return PlanRun{}, errLimit("plan", "this session has %d plan runs open; report the last step of one (or close the session) first",
			len(s.runs))
	}
	if !run.Done() {
		s.runs[id] = &planRun{plan: p, run: run}
	}
	s.mu.Unlock()
	s.auditPlan(sn, id, ts)
	return PlanRun{Run: id, Plan: p, Step: step, Transitions: ts}, nil
}

// Advance reports the outcome of run's current step and returns the next
// one. A step of a skill counts as a success or failure of that skill for
// routing's success rate (RecordOutcome). A run forgets itself once done.
func (s *Session) Advance(ctx context.Context, runID string, o StepOutcome) (PlanRun, error) {
	sn, err := s.current()
	if err != nil {
		return PlanRun{}, err
	}
	out := fallback.Outcome{OK: o.Outcome == "success"}
	switch {
	case o.Outcome != "success" && o.Outcome != "failed":
		return PlanRun{}, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonBadOutcome, Subject: clip(o.Outcome, auditField),
			Msg: `a step's outcome is "success" or "failed"`}
	case !out.OK && o.Error != nil:
		if len(o.Error.Code) > maxOutcomeField || len(o.Error.Reason) > maxOutcomeField {
			return PlanRun{}, errLimit("error", "an outcome's code and reason have at most %d bytes each", maxOutcomeField)
		}
		out.Code, out.Reason = skillerr.Code(o.Error.Code), o.Error.Reason
	}
	s.mu.Lock()
	pr := s.runs[runID]
	s.mu.Unlock()
	if pr == nil {
		return PlanRun{}, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonNoRun, Subject: clip(runID, auditField),
			Msg: "no open plan run of this session has this id: it ended, or was never started here"}
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if at := pr.run.Step(); o.Step != nil && (o.Step.Skill != pr.run.Current() || o.Step.Attempt != at.Attempt) {
		return PlanRun{}, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonStaleStep, Subject: clip(o.Step.Skill, auditField),
			Msg: fmt.Sprintf("the run is at %s, attempt %d: this step was reported already, or is not this run's", pr.run.Current(), at.Attempt)}
	}
	if id := pr.run.Current(); id != "" && id != routing.GenericTools {
		if err := s.RecordOutcome(ctx, id, out.OK); err != nil && !gone(err) {
			return PlanRun{}, err
		}
	}
	step, ts := pr.run.Advance(out)
	if pr.run.Done() {
		s.mu.Lock()
		delete(s.runs, runID)
		s.mu.Unlock()
	}
	s.auditPlan(sn, runID, ts)
	return PlanRun{Run: runID, Plan: pr.plan, Step: step, Transitions: ts}, nil
}

// gone reports whether err says the skill is no longer the one the
// session saw: its statistics are then not this run's to count, and the
// run moves on all the same.
func gone(err error) bool {
	switch skillerr.CodeOf(err) {
	case skillerr.SkillNotFound, skillerr.NotVisible:
		return true
	}
	return skillerr.ReasonOf(err) == ReasonStale
}

// checkPlan returns a caller's plan cleaned: empty and repeated ids
// dropped, each a visible skill (or routing.GenericTools among the
// fallbacks), at most MaxPlanPaths in all; its decision is "forced", since
// the caller chose.
func (s *Session) checkPlan(ctx context.Context, sn *snapshot, p routing.Plan) (routing.Plan, error) {
	if 1+len(p.Fallbacks) > MaxPlanPaths {
		return routing.Plan{}, errLimit("plan", "the plan has %d skills; at most %d are accepted", 1+len(p.Fallbacks), MaxPlanPaths)
	}
	// Only the path is the caller's: the rest of a plan is the router's
	// account of how it chose, which a run neither needs nor repeats.
	out := routing.Plan{Primary: p.Primary, Decision: routing.DecisionForced, Fallbacks: []string{}, Parallel: [][]string{}}
	for i, id := range slices.Concat([]string{p.Primary}, p.Fallbacks) {
		switch {
		case id == "" || i > 0 && (id == p.Primary || slices.Contains(out.Fallbacks, id)):
			continue
		case id == routing.GenericTools && i == 0:
			return routing.Plan{}, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonBadPlan, Subject: id,
				Msg: "the generic tools are a fallback, not a plan's primary skill"}
		case id != routing.GenericTools && sn.metas[id] == nil:
			return routing.Plan{}, s.r.whyNot(ctx, clip(id, auditField))
		}
		if i > 0 {
			out.Fallbacks = append(out.Fallbacks, id)
		}
	}
	return out, nil
}

// auditPlan records the transitions of run in the audit log, one entry
// each: Outcome is the reported code of a failure state ("failed" when
// none was given), AuditOK otherwise.
func (s *Session) auditPlan(sn *snapshot, run string, ts []fallback.Transition) {
	for _, t := range ts {
		e := AuditEntry{Kind: AuditPlan, Skill: t.Skill, Run: run, From: t.From, To: t.To}
		if m := sn.metas[t.Skill]; m != nil {
			e.Digest = m.Digest
		}
		var err error
		if t.To == fallback.StateRetryableFailure || t.To == fallback.StateFatalFailure {
			err = &skillerr.Error{Code: skillerr.Code(cmp.Or(t.Code, fallback.ResultFailed)), Reason: t.Reason}
		}
		s.r.audit.record(s, e, time.Now(), err)
	}
}
