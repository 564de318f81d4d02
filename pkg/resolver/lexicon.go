package resolver

import (
	"math"
	"slices"
)

// BM25 parameters, the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

const (
	// nameWeight is how many occurrences a word of the name counts as.
	nameWeight = 2
	// historyTurns is how many of the latest history messages routing
	// reads, and historyWeight how much one of their terms counts against
	// a term of the message itself.
	historyTurns  = 3
	historyWeight = 0.5
	// unknownWordWeight is the share of its IDF that a word of the
	// message no skill uses counts for.
	unknownWordWeight = 0.5
)

type posting struct {
	doc int // position in Index.skills
	tf  float64
}

// lexicon is a BM25 index over each skill's name, description,
// when_to_use and triggers. Triggers count as words of the skill too, so
// that a skill described in English but triggered by "天气" is relevant to
// "明天天气怎么样".
type lexicon struct {
	postings map[string][]posting
	docLen   []float64
	avgLen   float64
	docs     int
}

func newLexicon(skills []Skill) lexicon {
	lx := lexicon{postings: map[string][]posting{}, docLen: make([]float64, len(skills))}
	total := 0.0
	tf := map[string]float64{}
	var order []string // first occurrences, so that postings are built in a fixed order
	count := func(text string, weight float64) {
		for _, t := range terms(fold(text)) {
			if tf[t.text] == 0 {
				order = append(order, t.text)
			}
			tf[t.text] += weight
		}
	}
	for i, s := range skills {
		if s.DisableModelInvocation {
			continue
		}
		clear(tf)
		order = order[:0]
		count(s.Name, nameWeight)
		count(s.Description, 1)
		count(s.WhenToUse, 1)
		for _, t := range s.Triggers {
			count(t, 1)
		}
		for _, t := range order {
			lx.postings[t] = append(lx.postings[t], posting{doc: i, tf: tf[t]})
			lx.docLen[i] += tf[t]
		}
		total += lx.docLen[i]
		lx.docs++
	}
	if lx.docs > 0 {
		lx.avgLen = total / float64(lx.docs)
	}
	return lx
}

// idf is BM25's inverse document frequency of a term n documents have.
func (lx *lexicon) idf(n int) float64 {
	return math.Log(1 + (float64(lx.docs-n)+0.5)/(float64(n)+0.5))
}

// saturation is BM25's term-frequency factor, capped at 1: a term found
// once in a document of average length counts fully.
func (lx *lexicon) saturation(tf, docLen float64) float64 {
	return min(1, tf*(bm25K1+1)/(tf+bm25K1*(1-bm25B+bm25B*docLen/lx.avgLen)))
}

// weightedTerm is a term of the message or its history.
type weightedTerm struct {
	term
	weight float64
}

// intents returns, for each document that shares a term with the folded
// message q (or its history), the IDF-weighted share of the message's terms it
// covers, from 0 to 1: BM25 normalised by what a document having every
// term would score.
//
// Terms of the context (recent history, where the conversation happens)
// count historyWeight and only when some skill has them: context adds to
// the message without diluting it. A word of the
// message no skill has counts unknownWordWeight of its IDF, so that
// "write me a story about a file" is not wholly about files; a CJK bigram
// no skill has is ignored, since most bigrams of a sentence straddle two
// words and mean nothing.
func (lx *lexicon) intents(q string, context []string) map[int]float64 {
	var ts []weightedTerm
	seen := map[string]bool{}
	for _, t := range terms(q) {
		if !seen[t.text] {
			seen[t.text] = true
			ts = append(ts, weightedTerm{term: t, weight: 1})
		}
	}
	for _, h := range context {
		for _, t := range terms(fold(h)) {
			if !seen[t.text] && len(lx.postings[t.text]) > 0 {
				seen[t.text] = true
				ts = append(ts, weightedTerm{term: t, weight: historyWeight})
			}
		}
	}
	scores := map[int]float64{}
	total := 0.0
	for _, t := range ts {
		ps := lx.postings[t.text]
		if len(ps) == 0 { // only the message's own terms can be unknown
			if !t.cjk {
				total += unknownWordWeight * lx.idf(0)
			}
			continue
		}
		w := t.weight * lx.idf(len(ps))
		total += w
		for _, p := range ps {
			scores[p.doc] += w * lx.saturation(p.tf, lx.docLen[p.doc])
		}
	}
	for d := range scores {
		scores[d] /= total
	}
	return scores
}

// top returns the k documents with the highest scores, ties in document
// order, leaving out those skip rejects.
func top(scores map[int]float64, k int, skip func(int) bool) []int {
	docs := make([]int, 0, len(scores))
	for d := range scores {
		if !skip(d) {
			docs = append(docs, d)
		}
	}
	slices.SortFunc(docs, func(a, b int) int {
		if scores[a] != scores[b] {
			if scores[a] > scores[b] {
				return -1
			}
			return 1
		}
		return a - b
	})
	return docs[:min(k, len(docs))]
}
