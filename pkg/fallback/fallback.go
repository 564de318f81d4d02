// Package fallback is seed 004's fallback state machine: it drives a
// routing plan — the primary skill, the fallbacks, then the generic tools —
// one step at a time. The agent loop runs each step itself and reports its
// outcome; Advance answers with the next step: the same skill once more
// after a retryable failure, else the next fallback, else the generic
// tools, else the end (docs/architecture.md, Plan runs).
//
// It holds no callbacks and reads nothing, so a run can be driven over a
// port: the resolver keeps runs per session, records outcomes and audits
// every transition.
package fallback

import (
	"slices"

	"github.com/skillfs/skillfs/pkg/routing"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// The states of seed 004. A run starts selected and ends in success or
// exit; running is the state of every step the agent is asked to take.
const (
	StateSelected         = "selected"
	StateRunning          = "running"
	StateSuccess          = "success"
	StateRetryableFailure = "retryable_failure"
	StateFatalFailure     = "fatal_failure"
	StateFallback         = "fallback"
	StateExit             = "exit"
)

// The kinds of Step.
const (
	// StepSkill: activate Skill and do the task with it.
	StepSkill = "skill"
	// StepGenericTools: do the task with the host's own tools, no skill.
	StepGenericTools = routing.GenericTools
	// StepDone: nothing is left to try; Result says how it ended.
	StepDone = "done"
)

// The results of a finished run.
const (
	ResultSuccess = "success"
	ResultFailed  = "failed"
)

// Seed 004's budgets (max_retry_per_path, max_repair_attempts_per_run).
const (
	// RetriesPerPath: a skill (or the generic tools) is tried again once
	// after a retryable failure.
	RetriesPerPath = 1
	// RepairBudget bounds the retries of a whole run, whatever the number
	// of paths: once spent, a retryable failure falls back at once.
	RepairBudget = 2
)

// Step is what the agent is asked to do next.
type Step struct {
	Kind string `json:"kind"`
	// Skill is the id of the skill of a StepSkill.
	Skill string `json:"skill,omitempty"`
	// Attempt counts the tries of this path: 1, then 2 for the retry.
	Attempt int `json:"attempt"`
	// State is the run's state: running, or success/exit once done.
	State string `json:"state"`
	// Result is ResultSuccess or ResultFailed once the run is done.
	Result string `json:"result,omitempty"`
	// RepairBudget is how many retries the run has left.
	RepairBudget int `json:"repairBudget"`
}

// Transition is one change of state, as the audit log records it. Skill
// is the path the run was on ("generic-tools" for the generic tools, ""
// before the first and after the last).
type Transition struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Skill string `json:"skill,omitempty"`
	// Code and Reason are the error's that caused a failure state.
	Code   string `json:"code,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Outcome is what the agent reports of the step it took.
type Outcome struct {
	OK bool
	// Code and Reason classify a failure (skillerr codes, or a host's
	// own); only Code decides whether it is worth a retry.
	Code   skillerr.Code
	Reason string
}

// Retryable reports whether a failure with code may succeed on a second
// try. Seed 004's classes that never do — permission denied, not found,
// invalid format, capability not available — are decided on the code,
// never on a message. Any other code, or none, may be transient.
func Retryable(code skillerr.Code) bool {
	switch code {
	case skillerr.PermissionDenied, // permission denied
		skillerr.SkillNotFound, skillerr.NotVisible, skillerr.Disabled, // not found
		skillerr.InvalidManifest, skillerr.InvalidArchive, skillerr.InvalidArgument, // invalid format
		skillerr.PathRejected, skillerr.NotText, skillerr.TooLarge,
		skillerr.ToolNotAllowed: // capability not available
		return false
	}
	return true
}

// Run is one plan being driven. It is not safe for concurrent use.
type Run struct {
	// paths are the plan's skills in order, then routing.GenericTools
	// when the plan ends with it.
	paths   []string
	at      int // index into paths of the current path
	attempt int
	budget  int
	state   string
	result  string
}

// Start begins a run of plan: its primary (when it has one), its
// fallbacks in order, the generic tools when the plan lists them. It
// returns the run, its first step and the transitions that led there. A
// plan with no primary begins with its first fallback, as seed 004 falls
// back when there is no current skill.
func Start(plan routing.Plan) (*Run, Step, []Transition) {
	var paths []string
	for _, id := range slices.Concat([]string{plan.Primary}, plan.Fallbacks) {
		if id != "" && !slices.Contains(paths, id) {
			paths = append(paths, id)
		}
	}
	r := &Run{paths: paths, at: -1, budget: RepairBudget, state: StateSelected}
	var ts []Transition
	if plan.Primary == "" {
		ts = r.move(ts, StateFallback, Outcome{OK: true})
	}
	ts = r.next(ts)
	return r, r.Step(), ts
}

// Step returns the step the run is at.
func (r *Run) Step() Step {
	st := Step{State: r.state, RepairBudget: r.budget, Result: r.result}
	switch {
	case r.state == StateSuccess || r.state == StateExit:
		st.Kind = StepDone
	case r.paths[r.at] == routing.GenericTools:
		st.Kind, st.Attempt = StepGenericTools, r.attempt
	default:
		st.Kind, st.Skill, st.Attempt = StepSkill, r.paths[r.at], r.attempt
	}
	return st
}

// Done reports whether the run has ended.
func (r *Run) Done() bool { return r.state == StateSuccess || r.state == StateExit }

// Current returns the path of the step the run is at: a skill id,
// routing.GenericTools, or "" once done.
func (r *Run) Current() string {
	if r.Done() || r.at < 0 {
		return ""
	}
	return r.paths[r.at]
}

// Advance takes the outcome of the current step and moves to the next
// one. It returns the transitions it made, in order. Advancing a run that
// is done changes nothing.
func (r *Run) Advance(o Outcome) (Step, []Transition) {
	if r.Done() {
		return r.Step(), nil
	}
	var ts []Transition
	switch {
	case o.OK:
		r.result = ResultSuccess
		ts = r.move(ts, StateSuccess, o)
	case Retryable(o.Code):
		ts = r.move(ts, StateRetryableFailure, o)
		if r.attempt <= RetriesPerPath && r.budget > 0 {
			r.budget--
			r.attempt++
			ts = r.move(ts, StateRunning, Outcome{OK: true})
			break
		}
		ts = r.move(ts, StateFallback, Outcome{OK: true})
		ts = r.next(ts)
	default:
		ts = r.move(ts, StateFatalFailure, o)
		ts = r.move(ts, StateFallback, Outcome{OK: true})
		ts = r.next(ts)
	}
	return r.Step(), ts
}

// next moves from fallback to the next path, or to exit when none is left.
func (r *Run) next(ts []Transition) []Transition {
	if r.at+1 >= len(r.paths) {
		r.result = ResultFailed
		return r.move(ts, StateExit, Outcome{OK: true})
	}
	r.at++
	r.attempt = 1
	return r.move(ts, StateRunning, Outcome{OK: true})
}

// move changes the state and appends the transition; o's code and reason
// say why, for a failure.
func (r *Run) move(ts []Transition, to string, o Outcome) []Transition {
	t := Transition{From: r.state, To: to}
	if to != StateExit && r.at >= 0 {
		t.Skill = r.paths[r.at]
	}
	if !o.OK {
		t.Code, t.Reason = string(o.Code), o.Reason
	}
	r.state = to
	return append(ts, t)
}
