package routing

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// Defaults of Options (docs/architecture.md, Routing).
const (
	// DefaultThreshold is the score a candidate needs to be selected,
	// unless it is forced.
	DefaultThreshold = 0.65
	// DefaultMargin is how far the best candidate must be ahead of the
	// next to become the plan's primary: closer than that, the request
	// could be either, and the plan says so rather than guess.
	DefaultMargin = 0.04
	// DefaultTopK is how many skills lexical (and semantic) relevance
	// alone recalls (semantic top-k in docs/architecture.md, Routing).
	DefaultTopK = 3
	// GenericTools ends every fallback chain: carry on without a skill.
	GenericTools = "generic-tools"
	// maxParallel is how many skills may run side by side.
	maxParallel = 2
)

// Limits on what Route accepts: longer messages are not requests a person
// types, and every cost of routing grows with them.
const (
	// MaxQueryBytes caps the message, and each history message and the
	// context.
	MaxQueryBytes = 8 << 10
	// MaxHistory caps how many history messages a call may pass; only the
	// last three are read.
	MaxHistory = 64
	// MaxTopK caps Options.TopK.
	MaxTopK = 50
	// MaxVectorDims caps the length of an embedding.
	MaxVectorDims = 4096
)

// The weights of the score's components (docs/architecture.md, Routing); they add up to 1.
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
	// unavailablePenalty multiplies the score of a skill the host lacks
	// something for (seed 004: a skill not available scores half).
	unavailablePenalty = 0.5
	// conflictMargin is how close another candidate must come for a
	// candidate to be in conflict with it.
	conflictMargin = 0.05
	// fullRelevance is the lexical relevance that counts as a certain
	// match: Intent is relevance/fullRelevance, capped at 1. It was
	// calibrated on the descriptions of 263 real skills and the tuning
	// half of the requests written for them (eval_test.go), together with
	// DefaultMargin: with the default threshold, half of the words of a
	// request carried by a skill's description alone do not make a pick,
	// the same words in its name do.
	fullRelevance = 0.5
)

// Sources say how a candidate was recalled.
const (
	SourceForced   = "forced"   // named by the user: $name, /skill:name, "use the name skill"
	SourceTrigger  = "trigger"  // one of its triggers occurs in the message
	SourceLexical  = "lexical"  // its name, triggers, when_to_use or description share words with the message
	SourceSemantic = "semantic" // its embedding is among the nearest to the message's
)

// Skill is what routing knows of a skill.
type Skill struct {
	ID          string
	Name        string
	Description string
	WhenToUse   string
	// Headings are the titles of SKILL.md's sections, which name what
	// the skill does in words its description may not use.
	Headings []string
	// Triggers and AntiTriggers are phrases that make routing pick or
	// avoid the skill.
	Triggers     []string
	AntiTriggers []string
	// CostHint is "low", "medium" or "high"; anything else counts as
	// "medium".
	CostHint     string
	ParallelSafe bool
	// DisableModelInvocation: routed to only when forced.
	DisableModelInvocation bool
}

// Stats count a skill's past runs.
type Stats struct {
	Success int `json:"success"`
	Failure int `json:"failure"`
}

// Options give Route the context of a message.
type Options struct {
	// Forced is the ID of the skill the user named (the resolver parses
	// the invocation syntax); "" when none. It is selected alone.
	Forced string
	// History holds the conversation's earlier user messages, oldest
	// first; the last three add context to the message.
	History []string
	// Context describes where the conversation happens — the page's
	// title, the task at hand — and adds to the message as history does.
	Context string
	// Stats are the skills' past runs, by ID.
	Stats map[string]Stats
	// Readiness returns the share, 0 to 1, of what a skill needs (tools,
	// MCP servers, prerequisites) that the host has now; nil means every
	// skill has all it needs. Below 1 the skill is unavailable and its
	// score is halved (seed 004).
	Readiness func(id string) float64
	// Exclude leaves skills out of recall altogether, forced or not.
	Exclude func(id string) bool
	// Threshold replaces DefaultThreshold, Margin DefaultMargin and TopK
	// DefaultTopK when positive.
	Threshold float64
	Margin    float64
	TopK      int
	// QueryVector is the message's embedding by the host's embedder, and
	// Vectors the skills' by the same one, by ID: with both, the TopK
	// nearest skills are recalled too, and a skill's Intent is the better
	// of its lexical and semantic relevance. Without them the lexical path
	// runs alone.
	QueryVector []float32
	Vectors     map[string][]float32
	// Model names the embedder of QueryVector; sessions load the skills'
	// Vectors by it.
	Model string
}

func (o Options) validate(query string) error {
	tooLong := func(field, what, s string) error {
		if len(s) > MaxQueryBytes {
			return skillerr.New(skillerr.TooLarge, field, "%s is %d bytes; routing reads at most %d", what, len(s), MaxQueryBytes)
		}
		return nil
	}
	if err := tooLong("query", "the request", query); err != nil {
		return err
	}
	if err := tooLong("context", "the context", o.Context); err != nil {
		return err
	}
	if len(o.History) > MaxHistory {
		return skillerr.New(skillerr.TooLarge, "history", "the history has %d messages; pass at most %d (only the last three are read)", len(o.History), MaxHistory)
	}
	for _, h := range o.History {
		if err := tooLong("history", "a message of the history", h); err != nil {
			return err
		}
	}
	switch {
	case o.Threshold < 0 || o.Threshold > 1 || math.IsNaN(o.Threshold):
		return skillerr.New(skillerr.InvalidArgument, "threshold", "the threshold must be between 0 and 1")
	case o.Margin < 0 || o.Margin > 1 || math.IsNaN(o.Margin):
		return skillerr.New(skillerr.InvalidArgument, "margin", "the margin must be between 0 and 1")
	case len(o.QueryVector) > MaxVectorDims:
		return skillerr.New(skillerr.TooLarge, "queryVector", "the query's embedding has %d dimensions; at most %d", len(o.QueryVector), MaxVectorDims)
	case o.TopK < 0 || o.TopK > MaxTopK:
		return skillerr.New(skillerr.InvalidArgument, "topK", "topK must be between 1 and %d (0 for the default, %d)", MaxTopK, DefaultTopK)
	}
	return nil
}

// Result is what Route found.
type Result struct {
	// Candidates are every skill recalled, selected or not, best first:
	// by Score, forced first among equals, then the more relevant
	// lexically, then by name and ID.
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
	Score    float64  `json:"score"`
	Forced   bool     `json:"forced"`
	Triggers []string `json:"triggers,omitempty"` // the triggers that occur, folded
	// Identical are the other skills whose name aside say exactly what
	// this one says (description, when_to_use, triggers): copies of one
	// skill, counted once as this candidate.
	Identical []string  `json:"identical,omitempty"`
	Breakdown Breakdown `json:"breakdown"`
	// Why explains the score in sentences a UI can show, one per
	// component that matters.
	Why []string `json:"why"`
}

// Breakdown holds a score's components, each from 0 to 1 but AntiTrigger.
type Breakdown struct {
	// Intent is how well the skill matches the message: lexical relevance
	// (BM25F over name, triggers, when_to_use and description) scaled so
	// that a clear match reaches 1, or semantic similarity when better.
	Intent float64 `json:"intent"`
	// Trigger is 1 for a forced candidate, 0.9 for one recalled by a
	// trigger and 0.6 otherwise.
	Trigger float64 `json:"trigger"`
	// SuccessRate is (successes+1)/(runs+2): 0.5 for a skill never run.
	SuccessRate float64 `json:"successRate"`
	// Readiness is the share of what the skill needs that the host has:
	// 1 when it has all of it (or nothing is needed). Below 1 the skill is
	// unavailable and its whole score is halved.
	Readiness float64 `json:"readiness"`
	// Cost is 1 for cost hint low, 0.5 for medium (or none), 0 for high.
	Cost float64 `json:"cost"`
	// Conflict is 1 when no other candidate scores within 0.05 of this
	// one or higher, and 0 otherwise.
	Conflict float64 `json:"conflict"`
	// AntiTrigger is -0.5 when one of the skill's anti-triggers occurs in
	// the message, and 0 otherwise.
	AntiTrigger float64 `json:"antiTrigger"`
}

// Decisions say why a plan has its primary or has none.
const (
	DecisionForced    = "forced" // the user named the skill
	DecisionClear     = "clear"  // the best candidate clears the threshold and the margin, or breaks a tie at Intent's cap
	DecisionClose     = "close"  // the best candidates are within the margin of each other, and the tie is not broken (leadsUncapped): no guess
	DecisionBelow     = "below"  // no candidate reaches the threshold
	DecisionNoneFound = "none"   // nothing was recalled
)

// Plan is the activation plan (docs/architecture.md, Routing).
type Plan struct {
	// Primary is the ID of the skill to activate; "" when there is no
	// clear choice (see Decision).
	Primary string `json:"primary"`
	// Decision is one of the Decision constants.
	Decision string `json:"decision"`
	// Close lists, when Decision is DecisionClose, the candidates the
	// request could be for, best first: a host may ask the user.
	Close []string `json:"close,omitempty"`
	// Fallbacks are the other selected skills, best first, then
	// GenericTools.
	Fallbacks []string `json:"fallbacks"`
	// Parallel schedules the selected skills, best first, in groups run
	// one after another: a group holds up to two consecutive parallel-safe
	// skills, or one skill that is not parallel-safe.
	Parallel [][]string `json:"parallel"`
}

// Index holds skills prepared for routing. It is read-only once built, so
// one Index may serve concurrent calls.
type Index struct {
	skills []Skill
	trie   *phraseTrie
	lex    lexicon
	// same[i] is the first position of a skill identical to skills[i]
	// for routing (i itself when none comes before, and for a skill the
	// model may not invoke, which is no one's copy); copies[i] the later
	// positions of the skills identical to the first one, i. Only first
	// ones are in the lexicon, so that copies do not lower the IDF of
	// their words.
	same   []int
	copies map[int][]int
}

// NewIndex indexes skills, in the order given: among equal scores the
// first wins nothing (ties are no choice) but comes first in the list.
func NewIndex(skills []Skill) *Index {
	ix := &Index{skills: slices.Clone(skills)}
	ix.trie = newPhraseTrie(ix.skills)
	ix.same = make([]int, len(skills))
	ix.copies = map[int][]int{}
	first := map[string]int{}
	for i, s := range ix.skills {
		pace.StepAt(i)
		k := routingText(s)
		if j, ok := first[k]; ok && !s.DisableModelInvocation {
			ix.same[i] = j
			ix.copies[j] = append(ix.copies[j], i)
		} else {
			if !s.DisableModelInvocation {
				first[k] = i
			}
			ix.same[i] = i
		}
	}
	ix.lex = newLexicon(ix.skills, ix.same)
	return ix
}

// routingText is what routing reads of a skill but its name and ID.
func routingText(s Skill) string {
	var b strings.Builder
	for _, t := range [][]string{{s.Description, s.WhenToUse}, s.Triggers, s.AntiTriggers, s.Headings} {
		for _, x := range t {
			b.WriteString(x)
			b.WriteByte(0)
		}
		b.WriteByte(1)
	}
	return b.String()
}

// Route finds the skills a message needs, in two phases as docs/architecture.md
// describes.
//
// Recall: the forced skill; skills whose triggers occur in the message;
// the TopK skills most relevant to it lexically, and semantically when
// embeddings are given. Skills with DisableModelInvocation are recalled
// only when forced; of identical skills only the first is.
//
// Score: the weighted sum of the Breakdown's components (intent 0.40,
// trigger 0.20, success rate 0.15, readiness 0.10, cost 0.10, conflict
// 0.05) plus the anti-trigger penalty, halved when the skill is
// unavailable (readiness below 1), clamped to 0..1.
//
// Plan: a forced candidate is the primary alone. Otherwise the best
// candidate is, when it reaches the threshold and leads the next one by
// the margin; the others reaching the threshold follow as fallbacks.
// Candidates closer than the margin are not decided between, unless the
// best is named by the message and leads by the margin once Intent is
// uncapped (leadsUncapped).
//
// A message, context or history message over MaxQueryBytes, or more than
// MaxHistory history messages, is TooLarge; options out of range are
// InvalidArgument.
func (ix *Index) Route(query string, opts Options) (Result, error) {
	if err := opts.validate(query); err != nil {
		return Result{}, err
	}
	r := router{ix: ix, opts: opts, byDoc: map[int]int{}, words: map[string]bool{}}
	r.recall(Fold(query))
	r.score()
	result := Result{Candidates: make([]Candidate, len(r.recalled)), Plan: r.plan()}
	for i, c := range r.recalled {
		result.Candidates[i] = c.Candidate
	}
	return result, nil
}

// router holds the state of one Route call.
type router struct {
	ix       *Index
	opts     Options
	recalled []recalled
	byDoc    map[int]int     // the documents recalled → their position in recalled
	words    map[string]bool // the message's terms
}

// recalled is a candidate with what scoring needs to know of it.
type recalled struct {
	Candidate
	skill Skill
	anti  bool    // an anti-trigger occurs
	rel   float64 // lexical relevance before it is capped into Intent
	named bool    // the message holds every word of its name
}

// add recalls the skill at position doc, or the first skill identical to
// it, which it then counts for.
func (r *router) add(doc int, source string, intent, rel float64, hits *phraseHits) {
	lead := r.ix.same[doc]
	if _, ok := r.byDoc[lead]; ok {
		return
	}
	s := r.ix.skills[lead]
	c := recalled{
		Candidate: Candidate{ID: s.ID, Name: s.Name, Source: source, Forced: source == SourceForced, Breakdown: Breakdown{Intent: intent}},
		skill:     s,
		rel:       rel,
		named:     r.ix.lex.named(lead, r.words),
	}
	if hits != nil {
		c.Triggers, c.anti = hits.triggers, hits.anti
	}
	for _, i := range r.ix.copies[lead] {
		if !r.excluded(i) {
			c.Identical = append(c.Identical, r.ix.skills[i].ID)
		}
	}
	r.byDoc[lead] = len(r.recalled)
	r.recalled = append(r.recalled, c)
}

// recall finds the candidates of the folded message q.
func (r *router) recall(q string) {
	for _, t := range terms(q) {
		r.words[t.text] = true
	}
	context := r.opts.History[max(0, len(r.opts.History)-historyTurns):]
	if r.opts.Context != "" {
		context = append(slices.Clip(context), r.opts.Context)
	}
	rel := r.ix.lex.relevance(q, context)
	intents := make(map[int]float64, len(rel))
	for d, v := range rel {
		intents[d] = min(1, v/fullRelevance)
	}
	semantic := r.semantic()
	for d, v := range semantic {
		intents[d] = max(intents[d], v)
	}
	hits := r.ix.trie.match(q)
	if r.opts.Forced != "" {
		for doc, s := range r.ix.skills {
			if s.ID == r.opts.Forced && !r.excluded(doc) {
				// A forced skill is the one named, not its first copy.
				r.byDoc[doc] = len(r.recalled)
				c := recalled{
					Candidate: Candidate{ID: s.ID, Name: s.Name, Source: SourceForced, Forced: true, Breakdown: Breakdown{Intent: intents[r.ix.same[doc]]}},
					skill:     s,
					rel:       rel[r.ix.same[doc]],
				}
				if h := hits[doc]; h != nil {
					c.Triggers, c.anti = h.triggers, h.anti
				}
				r.recalled = append(r.recalled, c)
				r.byDoc[r.ix.same[doc]] = r.byDoc[doc]
				break
			}
		}
	}
	triggered := make([]int, 0, len(hits))
	for doc, h := range hits {
		if len(h.triggers) > 0 && !r.excluded(doc) {
			triggered = append(triggered, doc)
		}
	}
	slices.Sort(triggered)
	for _, doc := range triggered {
		r.add(doc, SourceTrigger, intents[doc], rel[doc], hits[doc])
	}
	k := cmpOr(r.opts.TopK, DefaultTopK)
	skip := func(doc int) bool {
		_, ok := r.byDoc[r.ix.same[doc]]
		return ok || r.excluded(doc) || r.ix.same[doc] != doc
	}
	for _, doc := range top(rel, k, skip) {
		r.add(doc, SourceLexical, intents[doc], rel[doc], hits[doc])
	}
	for _, doc := range top(semantic, k, skip) {
		r.add(doc, SourceSemantic, intents[doc], rel[doc], hits[doc])
	}
}

func cmpOr[T comparable](v, dflt T) T {
	var zero T
	if v == zero {
		return dflt
	}
	return v
}

// excluded reports whether the skill at doc is left out.
func (r *router) excluded(doc int) bool {
	s := r.ix.skills[doc]
	if s.DisableModelInvocation && s.ID != r.opts.Forced {
		return true
	}
	return r.opts.Exclude != nil && r.opts.Exclude(s.ID)
}

// score fills in each candidate's Breakdown, Score and Why, then sorts
// them.
func (r *router) score() {
	base := make([]float64, len(r.recalled))
	for i := range r.recalled {
		c := &r.recalled[i]
		b := &c.Breakdown
		b.Trigger = triggerScore(c.Source)
		st := r.opts.Stats[c.ID]
		b.SuccessRate = float64(st.Success+1) / float64(st.Success+st.Failure+2)
		b.Readiness = 1
		if r.opts.Readiness != nil {
			if v := r.opts.Readiness(c.ID); v >= 0 && v < 1 { // NaN counts as ready
				b.Readiness = round4(v)
			}
		}
		b.Cost = costScore(c.skill.CostHint)
		if c.anti {
			b.AntiTrigger = -antiTriggerPenalty
		}
		base[i] = (weightIntent*b.Intent + weightTrigger*b.Trigger + weightSuccess*b.SuccessRate +
			weightReadiness*b.Readiness + weightCost*b.Cost + b.AntiTrigger) * availability(*b)
	}
	for i := range r.recalled {
		c := &r.recalled[i]
		c.Breakdown.Conflict = 1
		rival := rivalNone
		for j := range base {
			// Compared rounded, so that a tie at the margin is one everywhere.
			switch {
			case j == i:
			case round4(conflictMargin-math.Abs(base[j]-base[i])) >= 0:
				rival = rivalNear
			case base[j] > base[i] && rival == rivalNone:
				rival = rivalAhead
			}
		}
		if rival != rivalNone {
			c.Breakdown.Conflict = 0
		}
		// Conflict is judged on the halved scores: an unavailable skill
		// does not stand in the way of an available one.
		score := base[i] + weightConflict*c.Breakdown.Conflict*availability(c.Breakdown)
		c.Score = round4(min(1, max(0, score)))
		if c.Forced {
			c.Score = 1
		}
		c.Breakdown.Intent = round4(c.Breakdown.Intent)
		c.Breakdown.SuccessRate = round4(c.Breakdown.SuccessRate)
		c.Why = explain(c.Candidate, r.opts.Stats[c.ID], rival)
	}
	sort.SliceStable(r.recalled, func(i, j int) bool {
		a, b := &r.recalled[i], &r.recalled[j]
		switch {
		case a.Score != b.Score:
			return a.Score > b.Score
		case a.Forced != b.Forced:
			return a.Forced
		case a.rel != b.rel: // equal scores, one more relevant: listed first, not chosen
			return a.rel > b.rel
		case a.Name != b.Name:
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
}

// availability is what a score is multiplied by: unavailablePenalty for
// a skill the host lacks something for, 1 otherwise.
func availability(b Breakdown) float64 {
	if b.Readiness < 1 {
		return unavailablePenalty
	}
	return 1
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

// tieBroken is the Why of a primary that scores within the margin of
// another, picked by leadsUncapped.
const tieBroken = "Your request names it, and it matches your request more closely than the skills that score about as well."

// uncapped is c's score with Intent as lexical relevance alone would
// make it, above the cap of 1: what tells apart two skills that both
// match a request fully, one named by the request's words and one that
// only mentions them.
func (c *recalled) uncapped() float64 {
	return c.Score + weightIntent*max(0, c.rel/fullRelevance-c.Breakdown.Intent)*availability(c.Breakdown)
}

// leadsUncapped reports whether the best candidate, within margin of the
// next by score, is the only one of those the message names and leads
// every other by margin once Intent is uncapped: the cap made the tie,
// and what it threw away breaks it. A lead in relevance alone is not
// enough: on the tuning sets (eval_test.go) it picked skills that mention
// the request's words more often than the one it needs; nor is a name
// when the message names another of the tied ("review the test
// coverage": review and test).
func (r *router) leadsUncapped(margin float64) bool {
	best := &r.recalled[0]
	if !best.named {
		return false
	}
	lead := best.uncapped()
	for i := 1; i < len(r.recalled); i++ {
		c := &r.recalled[i]
		if round4(lead-c.uncapped()) < margin || c.named && round4(best.Score-c.Score) < margin {
			return false
		}
	}
	return true
}

// plan builds the activation plan from the sorted candidates.
func (r *router) plan() Plan {
	threshold := cmpOr(r.opts.Threshold, DefaultThreshold)
	margin := cmpOr(r.opts.Margin, DefaultMargin)
	p := Plan{Fallbacks: []string{}, Parallel: [][]string{}}
	var selected []recalled
	switch {
	case len(r.recalled) == 0:
		p.Decision = DecisionNoneFound
	case r.recalled[0].Forced:
		p.Decision = DecisionForced
		selected = r.recalled[:1]
	case r.recalled[0].Score < threshold:
		p.Decision = DecisionBelow
	case len(r.recalled) > 1 && round4(r.recalled[0].Score-r.recalled[1].Score) < margin && !r.leadsUncapped(margin):
		p.Decision = DecisionClose
		for _, c := range r.recalled {
			if round4(r.recalled[0].Score-c.Score) < margin {
				p.Close = append(p.Close, c.ID)
			}
		}
	default:
		p.Decision = DecisionClear
		if len(r.recalled) > 1 && round4(r.recalled[0].Score-r.recalled[1].Score) < margin {
			c := &r.recalled[0]
			c.Why = append(c.Why, tieBroken)
		}
		for _, c := range r.recalled {
			if c.Score >= threshold {
				selected = append(selected, c)
			}
		}
	}
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
