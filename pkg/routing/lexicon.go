package routing

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skill"
	"golang.org/x/text/unicode/norm"
)

// BM25's term-frequency saturation.
const bm25K1 = 1.2

// field is a part of a skill that lexical recall reads, with how much one
// of its words counts and how much its length dilutes them (BM25F).
type field struct {
	weight float64
	b      float64
	// text appends the field's texts of a skill to buf; nil for the
	// description and its first sentence, which are read together.
	text func(buf []string, s *Skill) []string
}

// descriptionField and leadField are the positions in fields of the
// description and of its first sentence.
const descriptionField, leadField = 3, 5

// fields: a word of the name counts most, then a trigger's, then
// when_to_use's, then the description's; long descriptions are diluted,
// names and triggers hardly at all, since they are short by nature. A
// skill whose name is the message's word thus beats one that mentions it
// in passing.
var fields = []field{
	{weight: 3, b: 0.2, text: func(buf []string, s *Skill) []string { return append(buf, s.Name) }},
	{weight: 2, b: 0.2, text: func(buf []string, s *Skill) []string {
		return append(buf, s.Triggers[:min(len(s.Triggers), MaxPhrases)]...)
	}},
	{weight: 1.5, b: 0.75, text: func(buf []string, s *Skill) []string { return append(buf, s.WhenToUse) }},
	{weight: 1, b: 0.75}, // the description
	// The titles of its sections: words the description may not use
	// ("Excel", "Root cause"), diluted by their number as a description
	// is by its length.
	{weight: 1, b: 0.75, text: func(buf []string, s *Skill) []string {
		return append(buf, s.Headings[:min(len(s.Headings), skill.MaxHeadings)]...)
	}},
	// The description's first sentence again: it says what the skill
	// is, where the rest lists what it also touches.
	{weight: 1, b: 0.5},
}

// leadSentence is a description's first sentence.
func leadSentence(d string) string {
	for i := 0; i+1 < len(d); i++ {
		if (d[i] == '.' || d[i] == '!' || d[i] == '?') && (d[i+1] == ' ' || d[i+1] == '\n' || d[i+1] == '\r') {
			return d[:i+1]
		}
	}
	return d
}

const (
	// historyTurns is how many of the latest history messages routing
	// reads, and historyWeight how much one of their terms counts against
	// a term of the message itself.
	historyTurns  = 3
	historyWeight = 0.5
	// unknownWordWeight is the share of its IDF that a word of the
	// message no skill uses counts for.
	unknownWordWeight = 0.5
)

// nameBoost is how much more relevant a skill is when the message holds
// every word of its name (proportionally for some of them): "deploy to
// Vercel" is for deploy-to-vercel before a skill that mentions Vercel.
const nameBoost = 0.5

type posting struct {
	doc int     // position in Index.skills
	tf  float64 // BM25F's pseudo-frequency: weighted, length-normalised
}

// lexicon is a BM25F index over each skill's fields.
type lexicon struct {
	postings map[string][]posting
	// vocab is every term of postings but CJK ones, sorted, to find the
	// terms a word of the message is a prefix of.
	vocab []string
	docs  int
	// nameTerms are each skill's distinct name terms: a message that
	// holds all of them names the skill's subject outright.
	nameTerms [][]string
}

// interner numbers the index's terms as it reads skills, so that
// building an index looks each word up once and adds up frequencies in
// slices rather than maps.
type interner struct {
	ids   map[string]int32 // term → its number
	texts []string         // number → term
	// words caches each word's term number, -1 for a word terms drops:
	// skills repeat their words, and stemming one costs microseconds.
	words map[string]int32
}

func (in *interner) id(t string) int32 {
	id, ok := in.ids[t]
	if !ok {
		id = int32(len(in.texts))
		in.ids[t] = id
		in.texts = append(in.texts, t)
	}
	return id
}

// appendTerms appends the numbers of the terms of text to out.
func (in *interner) appendTerms(out []int32, text string) []int32 {
	// Folded but for case and white space: terms ignores white space, and
	// words are lower-cased one by one, the first time they are met.
	scanTerms(norm.NFKC.String(text), func(w string) {
		id, ok := in.words[w]
		if !ok {
			lower := strings.ToLower(w)
			if id, ok = in.words[lower]; !ok {
				id = -1
				if st, ok := wordTerm(lower); ok {
					id = in.id(st)
				}
				in.words[lower] = id
			}
			in.words[w] = id
		}
		if id >= 0 {
			out = append(out, id)
		}
	}, func(c string) {
		if !stopWords[c] {
			out = append(out, in.id(c))
		}
	})
	return out
}

// newLexicon indexes the skills the model may invoke but copies: same
// is Index.same.
func newLexicon(skills []Skill, same []int) lexicon {
	lx := lexicon{postings: map[string][]posting{}, nameTerms: make([][]string, len(skills))}
	in := interner{ids: map[string]int32{}, words: map[string]int32{}}
	// Each field's terms, all skills' in one slice: skill i's are
	// toks[f][at[f][i]:at[f][i+1]].
	toks := make([][]int32, len(fields))
	at := make([][]int, len(fields))
	avg := make([]float64, len(fields))
	indexed := func(i int) bool { return !skills[i].DisableModelInvocation && same[i] == i }
	for i := range skills {
		if indexed(i) {
			lx.docs++
		}
	}
	var texts []string
	leadEnd := make([]int, len(skills)) // where the lead's terms end in toks[descriptionField]
	for f, fd := range fields {
		at[f] = make([]int, len(skills)+1)
		for i := range skills {
			// Normalised and split into terms: thousands of skills take
			// longer than a task of the host should.
			pace.StepAt(i)
			switch {
			case !indexed(i):
			case f == descriptionField:
				// The first sentence, then the rest: the same terms as the
				// whole, since the two meet between a full stop and a
				// space; the lead field takes the first ones.
				d := norm.NFKC.String(skills[i].Description)
				lead := leadSentence(d)
				toks[f] = in.appendTerms(toks[f], lead)
				leadEnd[i] = len(toks[f])
				toks[f] = in.appendTerms(toks[f], d[len(lead):])
			case f == leadField:
				toks[f] = append(toks[f], toks[descriptionField][at[descriptionField][i]:leadEnd[i]]...)
			default:
				texts = fd.text(texts[:0], &skills[i])
				for _, t := range texts {
					toks[f] = in.appendTerms(toks[f], t)
				}
			}
			at[f][i+1] = len(toks[f])
		}
		if lx.docs > 0 {
			avg[f] = float64(len(toks[f])) / float64(lx.docs)
		}
		avg[f] = max(avg[f], 1)
	}
	// Every skill's postings, skill by skill, then sorted by term into
	// one slice: a few allocations rather than one per growing list.
	type entry struct {
		id int32
		posting
	}
	total := 0
	for _, ts := range toks {
		total += len(ts)
	}
	entries := make([]entry, 0, total)
	df := make([]int, len(in.texts))
	tf := make([]float64, len(in.texts))
	var order []int32 // the skill's terms by first occurrence
	var names []string
	nameAt := make([]int, len(skills)+1)
	for i := range skills {
		pace.StepAt(i)
		nameAt[i] = len(names)
		if !indexed(i) {
			continue
		}
		order = order[:0]
		for _, id := range toks[0][at[0][i]:at[0][i+1]] {
			if t := in.texts[id]; !slices.Contains(names[nameAt[i]:], t) {
				names = append(names, t)
			}
		}
		for f, fd := range fields {
			ts := toks[f][at[f][i]:at[f][i+1]]
			norm := 1 - fd.b + fd.b*float64(len(ts))/avg[f]
			for _, id := range ts {
				if tf[id] == 0 { // weights are positive: 0 is a term not met yet
					order = append(order, id)
				}
				tf[id] += fd.weight / norm
			}
		}
		for _, id := range order {
			entries = append(entries, entry{id, posting{doc: i, tf: tf[id]}})
			df[id]++
			tf[id] = 0
		}
	}
	nameAt[len(skills)] = len(names)
	for i := range skills {
		if a, b := nameAt[i], nameAt[i+1]; b > a {
			lx.nameTerms[i] = names[a:b:b]
		}
	}
	// start[id] is where the term's postings begin in all.
	start := make([]int, len(in.texts)+1)
	for id, n := range df {
		start[id+1] = start[id] + n
	}
	all := make([]posting, len(entries))
	next := slices.Clone(start[:len(in.texts)])
	for _, e := range entries { // in skill order, which each term's postings keep
		all[next[e.id]] = e.posting
		next[e.id]++
	}
	for id, t := range in.texts {
		pace.StepAt(id)
		if start[id+1] == start[id] {
			continue
		}
		lx.postings[t] = all[start[id]:start[id+1]:start[id+1]]
		if r, _ := utf8.DecodeRuneInString(t); !isCJK(r) {
			lx.vocab = append(lx.vocab, t)
		}
	}
	slices.Sort(lx.vocab)
	return lx
}

const (
	// minVariantPrefix is the shortest stem that counts as the root of a
	// longer one: Snowball leaves derived words apart ("classifier" is
	// "classifi", "classification" "classif").
	// Four letters did best on the tuning set (eval_test.go); a variant
	// counting less than the word keeps chance roots from deciding.
	minVariantPrefix = 4
	// variantWeight is how much a variant counts against the word itself.
	variantWeight = 0.6
	// maxVariants caps the variants read of one word of the message.
	maxVariants = 16
)

// variants returns the indexed terms that extend the stem t or that t
// extends, by at least minVariantPrefix letters of root, t itself left
// out.
func (lx *lexicon) variants(t string) []string {
	if len(t) < minVariantPrefix {
		return nil
	}
	var out []string
	for n := minVariantPrefix; n < len(t); n++ {
		if _, ok := lx.postings[t[:n]]; ok {
			out = append(out, t[:n])
		}
	}
	i, _ := slices.BinarySearch(lx.vocab, t)
	for ; i < len(lx.vocab) && len(out) < maxVariants && strings.HasPrefix(lx.vocab[i], t); i++ {
		if lx.vocab[i] != t {
			out = append(out, lx.vocab[i])
		}
	}
	return out
}

// idf is BM25's inverse document frequency of a term n documents have.
func (lx *lexicon) idf(n int) float64 {
	return math.Log(1 + (float64(lx.docs-n)+0.5)/(float64(n)+0.5))
}

// weightedTerm is a term of the message or its context.
type weightedTerm struct {
	term
	weight float64
}

// relevance returns, for each document that shares a term with the
// folded message q (or its context), BM25F normalised to 0..1: the
// IDF-weighted share of the message's terms it has, each counted by its
// saturated frequency tf/(k1+tf), which a word of the name brings to 0.7
// and one passing mention in an average description to 0.45.
//
// A word of the message also matches, at variantWeight, the indexed
// words of its root (see variants), each document by its best match.
//
// Terms of the context (recent history, where the conversation happens)
// count historyWeight and only when some skill has them: context adds to
// the message without diluting it. A word of the message no skill has
// counts unknownWordWeight of its IDF, so that "write me a story about a
// file" is not wholly about files; a CJK bigram no skill has is ignored,
// since most bigrams of a sentence straddle two words and mean nothing.
func (lx *lexicon) relevance(q string, context []string) map[int]float64 {
	var ts []weightedTerm
	seen := map[string]bool{}
	for _, t := range terms(q) {
		if !seen[t.text] {
			seen[t.text] = true
			ts = append(ts, weightedTerm{term: t, weight: 1})
		}
	}
	for _, h := range context {
		for _, t := range terms(Fold(h)) {
			if !seen[t.text] && len(lx.postings[t.text]) > 0 {
				seen[t.text] = true
				ts = append(ts, weightedTerm{term: t, weight: historyWeight})
			}
		}
	}
	scores := map[int]float64{}
	best := map[int]float64{}
	total := 0.0
	for _, t := range ts {
		// The documents that have the term, or failing that a variant
		// of it (a longer or shorter stem of one root), each by the best.
		clear(best)
		for i, p := range lx.postings[t.text] {
			pace.StepAt(i) // a common word: every skill's posting
			best[p.doc] = p.tf / (bm25K1 + p.tf)
		}
		if !t.cjk {
			for _, v := range lx.variants(t.text) {
				for _, p := range lx.postings[v] {
					best[p.doc] = max(best[p.doc], variantWeight*p.tf/(bm25K1+p.tf))
				}
			}
		}
		if len(best) == 0 { // only the message's own terms can be unknown
			if !t.cjk {
				total += unknownWordWeight * lx.idf(0)
			}
			continue
		}
		w := t.weight * lx.idf(len(best))
		total += w
		for d, v := range best {
			scores[d] += w * v
		}
	}
	for d := range scores {
		scores[d] /= total
		if names := lx.nameTerms[d]; len(names) > 0 {
			in := 0
			for _, n := range names {
				if seen[n] {
					in++
				}
			}
			scores[d] *= 1 + nameBoost*float64(in)/float64(len(names))
		}
	}
	return scores
}

// named reports whether words, a message's terms, hold every term of
// the name of the skill at d.
func (lx *lexicon) named(d int, words map[string]bool) bool {
	names := lx.nameTerms[d]
	for _, n := range names {
		if !words[n] {
			return false
		}
	}
	return len(names) > 0
}

// top returns the k documents with the highest scores, ties in document
// order, leaving out those skip rejects.
//
// The k best are kept in order as the scores are met (k is at most
// MaxTopK): a sort of every document scored, thousands for a request of
// common words, with two map look-ups a comparison, was most of a
// route's time.
func top(scores map[int]float64, k int, skip func(int) bool) []int {
	type scored struct {
		doc   int
		score float64
	}
	better := func(a, b scored) bool { return a.score > b.score || a.score == b.score && a.doc < b.doc }
	best := make([]scored, 0, k+1)
	i := 0
	for d, s := range scores {
		pace.StepAt(i)
		i++
		c := scored{d, s}
		if k <= 0 || len(best) == k && !better(c, best[k-1]) || skip(d) {
			continue
		}
		best = append(best, c)
		for j := len(best) - 1; j > 0 && better(best[j], best[j-1]); j-- {
			best[j], best[j-1] = best[j-1], best[j]
		}
		best = best[:min(len(best), k)]
	}
	docs := make([]int, len(best))
	for i, c := range best {
		docs[i] = c.doc
	}
	return docs
}
