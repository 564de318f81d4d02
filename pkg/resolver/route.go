package resolver

import (
	"math"
	"slices"
	"strings"
)

// Routing constants from seed 004 (SmartBot, §3.2).
const (
	// DefaultThreshold is the score a candidate needs to be selected,
	// unless it is forced.
	DefaultThreshold = 0.65
	// GenericTools ends every fallback chain: carry on without a skill.
	GenericTools = "generic-tools"
	// maxParallel is how many skills may run side by side.
	maxParallel = 2
	// defaultTopK is how many skills lexical relevance alone recalls.
	defaultTopK = 3
)

// The weights of the score's components; they add up to 1.
const (
	weightIntent    = 0.40
	weightTrigger   = 0.20
	weightSuccess   = 0.15
	weightReadiness = 0.10
	weightCost      = 0.10
	weightConflict  = 0.05
)

const (
	// antiTriggerPenalty is subtracted from the score of a skill one of
	// whose anti-triggers occurs: enough to keep any unforced skill below
	// the default threshold.
	antiTriggerPenalty = 0.5
	// conflictMargin is how close another candidate must come for a
	// candidate to be in conflict with it.
	conflictMargin = 0.05
)

// Sources say how a candidate was recalled.
const (
	SourceForced  = "forced"  // named by the user: $name, /skill:name, "use the name skill"
	SourceTrigger = "trigger" // one of its triggers occurs in the message
	SourceLexical = "lexical" // its name, description or when_to_use shares words with the message
)

// Stats count a skill's past runs.
type Stats struct {
	Success int `json:"success"`
	Failure int `json:"failure"`
}

// RouteOptions give Route the context of a message.
type RouteOptions struct {
	// History holds the conversation's earlier user messages, oldest
	// first; the last three add context to the message.
	History []string
	// Context describes where the conversation happens — the page's
	// title, the task at hand — and adds to the message as history does.
	Context string
	// Stats are the skills' past runs, by ID.
	Stats map[string]Stats
	// Ready reports whether a skill can run now (its tools and MCP servers
	// are there); nil means every skill can.
	Ready func(id string) bool
	// Exclude leaves skills out of recall altogether, forced or not; nil
	// excludes none. Sessions exclude the skills that changed underneath
	// them, which they can no longer read.
	Exclude func(id string) bool
	// Threshold replaces DefaultThreshold when positive.
	Threshold float64
	// TopK replaces how many skills lexical relevance alone recalls (3,
	// as seed 004's semantic_top_k) when positive.
	TopK int
}

// Result is what Route found.
type Result struct {
	// Candidates are every skill recalled, selected or not, best first:
	// by Score, forced first among equals, then by name and ID.
	Candidates []Candidate `json:"candidates"`
	Plan       Plan        `json:"plan"`
}

// Candidate is a recalled skill and its score.
type Candidate struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Source string `json:"source"`
	// Score is the weighted sum of Breakdown, from 0 to 1, rounded to four
	// decimals so that equal scores are equal on every platform; a forced
	// candidate scores 1 whatever its breakdown.
	Score     float64   `json:"score"`
	Forced    bool      `json:"forced"`
	Triggers  []string  `json:"triggers,omitempty"` // the triggers that occur, folded
	Breakdown Breakdown `json:"breakdown"`
}

// Breakdown holds a score's components, each from 0 to 1 but AntiTrigger.
type Breakdown struct {
	// Intent is lexical relevance: the IDF-weighted share of the
	// message's words that the skill's name, description and when_to_use
	// cover (BM25, normalised).
	Intent float64 `json:"intent"`
	// Trigger is 1 for a forced candidate, 0.9 for one recalled by a
	// trigger and 0.6 for one recalled by lexical relevance, as in seed
	// 004.
	Trigger float64 `json:"trigger"`
	// SuccessRate is (successes+1)/(runs+2): 0.5 for a skill never run,
	// and a few runs do not swing it to 0 or 1.
	SuccessRate float64 `json:"successRate"`
	// Readiness is 1 when the skill can run now, 0 when not.
	Readiness float64 `json:"readiness"`
	// Cost is 1 for cost hint low, 0.5 for medium (or none) and 0 for
	// high: cheaper skills win ties.
	Cost float64 `json:"cost"`
	// Conflict is 1 when no other candidate scores within 0.05 of this
	// one or higher (the choice is clear), and 0 otherwise.
	Conflict float64 `json:"conflict"`
	// AntiTrigger is -0.5 when one of the skill's anti-triggers occurs in
	// the message, and 0 otherwise.
	AntiTrigger float64 `json:"antiTrigger"`
}

// Plan is seed 004's activation plan.
type Plan struct {
	// Primary is the ID of the skill to activate; "" when no candidate
	// reached the threshold.
	Primary string `json:"primary"`
	// Fallbacks are the other selected skills, best first, then
	// GenericTools.
	Fallbacks []string `json:"fallbacks"`
	// Parallel schedules the selected skills, best first, in groups run
	// one after another: a group holds up to two consecutive parallel-safe
	// skills, or one skill that is not parallel-safe.
	Parallel [][]string `json:"parallel"`
}

// Route finds the skills a message needs, in two phases as seed 004
// describes.
//
// Recall: a skill the message names explicitly (ParseInvocation's forms,
// "$name" anywhere, "use the name skill", "使用 name 技能") is forced,
// provided it is user-invocable; skills whose triggers occur in the
// message; and the TopK skills most lexically relevant to it. Skills with
// DisableModelInvocation are recalled only when forced. When the message
// starts with an invocation, the other skills are matched against its
// arguments only.
//
// Score: the weighted sum of the Breakdown's components (intent 0.40,
// trigger 0.20, success rate 0.15, readiness 0.10, cost 0.10, conflict
// 0.05) plus the anti-trigger penalty, clamped to 0..1.
//
// Plan: a forced candidate is selected alone; otherwise the candidates
// reaching the threshold are, best first. With none, the plan has no
// primary and falls back to GenericTools.
func (ix *Index) Route(query string, opts RouteOptions) Result {
	r := router{ix: ix, opts: opts, byDoc: map[int]bool{}}
	r.recall(query)
	r.score()
	result := Result{Candidates: make([]Candidate, len(r.recalled)), Plan: r.plan()}
	for i, c := range r.recalled {
		result.Candidates[i] = c.Candidate
	}
	return result
}

// router holds the state of one Route call.
type router struct {
	ix       *Index
	opts     RouteOptions
	recalled []recalled
	byDoc    map[int]bool // the documents recalled
}

// recalled is a candidate with what scoring needs to know of it.
type recalled struct {
	Candidate
	skill Skill
	anti  bool // an anti-trigger occurs
}

// add recalls the skill at position doc.
func (r *router) add(doc int, source string, intent float64, hits *phraseHits) {
	s := r.ix.skills[doc]
	c := recalled{
		Candidate: Candidate{ID: s.ID, Name: s.Name, Source: source, Forced: source == SourceForced, Breakdown: Breakdown{Intent: intent}},
		skill:     s,
	}
	if hits != nil {
		c.Triggers, c.anti = hits.triggers, hits.anti
	}
	r.byDoc[doc] = true
	r.recalled = append(r.recalled, c)
}

// recall finds the candidates. When the message starts with an
// invocation of a skill, only its arguments are matched against the other
// skills, since the invocation's own words are about the forced skill.
func (r *router) recall(query string) {
	forced, text := -1, query
	if name, args, ok := ParseInvocation(query); ok {
		if doc, ok := r.invocable(name); ok {
			forced, text = doc, args
		}
	}
	if forced < 0 {
		for _, name := range mentions(query) {
			if doc, ok := r.invocable(name); ok {
				forced = doc
				break
			}
		}
	}
	q := fold(text)
	context := r.opts.History[max(0, len(r.opts.History)-historyTurns):]
	if r.opts.Context != "" {
		context = append(slices.Clip(context), r.opts.Context)
	}
	intents := r.ix.lex.intents(q, context)
	hits := r.ix.phrases.match(q)
	if forced >= 0 {
		r.add(forced, SourceForced, intents[forced], hits[forced])
	}
	triggered := make([]int, 0, len(hits))
	for doc, h := range hits {
		if !r.byDoc[doc] && len(h.triggers) > 0 && !r.excluded(doc) {
			triggered = append(triggered, doc)
		}
	}
	slices.Sort(triggered)
	for _, doc := range triggered {
		r.add(doc, SourceTrigger, intents[doc], hits[doc])
	}
	k := r.opts.TopK
	if k <= 0 {
		k = defaultTopK
	}
	for _, doc := range top(intents, k, func(doc int) bool { return r.byDoc[doc] || r.excluded(doc) }) {
		r.add(doc, SourceLexical, intents[doc], hits[doc])
	}
}

// score fills in each candidate's Breakdown and Score, then sorts them.
func (r *router) score() {
	base := make([]float64, len(r.recalled))
	for i := range r.recalled {
		c := &r.recalled[i]
		b := &c.Breakdown
		b.Trigger = triggerScore(c.Source)
		st := r.opts.Stats[c.ID]
		b.SuccessRate = float64(st.Success+1) / float64(st.Success+st.Failure+2)
		b.Readiness = 1
		if r.opts.Ready != nil && !r.opts.Ready(c.ID) {
			b.Readiness = 0
		}
		b.Cost = costScore(c.skill.CostHint)
		if c.anti {
			b.AntiTrigger = -antiTriggerPenalty
		}
		base[i] = weightIntent*b.Intent + weightTrigger*b.Trigger + weightSuccess*b.SuccessRate +
			weightReadiness*b.Readiness + weightCost*b.Cost + b.AntiTrigger
	}
	for i := range r.recalled {
		c := &r.recalled[i]
		c.Breakdown.Conflict = 1
		for j := range base {
			// Compared rounded, so that a tie at the margin is one everywhere.
			if j != i && round4(base[j]-base[i]+conflictMargin) >= 0 {
				c.Breakdown.Conflict = 0
			}
		}
		c.Score = round4(min(1, max(0, base[i]+weightConflict*c.Breakdown.Conflict)))
		if c.Forced {
			c.Score = 1
		}
		c.Breakdown.Intent = round4(c.Breakdown.Intent)
		c.Breakdown.SuccessRate = round4(c.Breakdown.SuccessRate)
	}
	slices.SortStableFunc(r.recalled, func(a, b recalled) int {
		switch {
		case a.Score != b.Score:
			if a.Score > b.Score {
				return -1
			}
			return 1
		case a.Forced != b.Forced:
			if a.Forced {
				return -1
			}
			return 1
		case a.Name != b.Name:
			return strings.Compare(a.Name, b.Name)
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// invocable returns the position of the user-invocable skill called name
// (as Index.Resolve resolves it; an ambiguous name calls none).
func (r *router) invocable(name string) (int, bool) {
	doc, _ := r.ix.names.resolve(name)
	if doc < 0 || !r.ix.skills[doc].UserInvocable || r.excluded(doc) {
		return -1, false
	}
	return doc, true
}

// excluded reports whether RouteOptions.Exclude leaves the skill at doc
// out.
func (r *router) excluded(doc int) bool {
	return r.opts.Exclude != nil && r.opts.Exclude(r.ix.skills[doc].ID)
}

func triggerScore(source string) float64 {
	switch source {
	case SourceForced:
		return 1
	case SourceTrigger:
		return 0.9
	}
	return 0.6
}

func costScore(hint string) float64 {
	switch hint {
	case "low":
		return 1
	case "high":
		return 0
	}
	return 0.5
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// plan builds the activation plan from the sorted candidates.
func (r *router) plan() Plan {
	threshold := r.opts.Threshold
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	var selected []recalled
	for _, c := range r.recalled {
		if c.Forced {
			selected = []recalled{c}
			break
		}
		if c.Score >= threshold {
			selected = append(selected, c)
		}
	}
	p := Plan{Fallbacks: []string{}, Parallel: [][]string{}}
	var group []string
	flush := func() {
		if len(group) > 0 {
			p.Parallel = append(p.Parallel, group)
			group = nil
		}
	}
	for i, c := range selected {
		if i == 0 {
			p.Primary = c.ID
		} else {
			p.Fallbacks = append(p.Fallbacks, c.ID)
		}
		if !c.skill.ParallelSafe {
			flush()
			p.Parallel = append(p.Parallel, []string{c.ID})
			continue
		}
		if group = append(group, c.ID); len(group) == maxParallel {
			flush()
		}
	}
	flush()
	p.Fallbacks = append(p.Fallbacks, GenericTools)
	return p
}
