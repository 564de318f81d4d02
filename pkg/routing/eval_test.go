package routing

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/internal/realskills"
	"github.com/skillfs/skillfs/pkg/skill"
)

// evalCase is a request of an evaluation set and the names of the skills
// that count as right for it (none: no skill fits).
type evalCase struct {
	want    []string
	request string
}

// The evaluation sets. The router is tuned on tuningSets, whose misses
// SKILLFS_EVAL_MISSES lists; heldOutSets were written blind and
// committed before any tuning looked at them, and only their figures are
// ever printed.
var (
	tuningSets  = []string{"testdata/eval.tsv", "testdata/blind.tsv"}
	heldOutSets = []string{"testdata/heldout.tsv", "testdata/fresh.tsv"}
)

func readEval(t testing.TB, name string) []evalCase {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []evalCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		want, request, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("%s: no tab in %q", name, line)
		}
		c := evalCase{request: request}
		if want != "-" {
			c.want = strings.Split(want, "|")
		}
		cases = append(cases, c)
	}
	return cases
}

// ranker is what the evaluation compares: the names of the best skills
// for a request, best first, and the one it would pick alone ("" for
// none).
type ranker func(request string) (ranked []string, pick string)

// scores are an evaluation's figures, in percent.
type scores struct {
	top1, top3       float64 // over requests a skill fits
	pickPrecision    float64 // of the picks, the right ones
	picks            int
	falsePositive    float64 // of the requests no skill fits, those given a pick
	fit, none, right int
}

func evaluate(cases []evalCase, rank ranker) scores {
	var s scores
	var top1, top3, noneFP int
	for _, c := range cases {
		ranked, pick := rank(c.request)
		if c.want == nil {
			s.none++
			if pick != "" {
				noneFP++
				s.picks++
			}
			continue
		}
		s.fit++
		if len(ranked) > 0 && slices.Contains(c.want, ranked[0]) {
			top1++
		}
		if slices.ContainsFunc(ranked[:min(3, len(ranked))], func(n string) bool { return slices.Contains(c.want, n) }) {
			top3++
		}
		if pick != "" {
			s.picks++
			if slices.Contains(c.want, pick) {
				s.right++
			}
		}
	}
	pct := func(a, b int) float64 {
		if b == 0 {
			return math.NaN()
		}
		return 100 * float64(a) / float64(b)
	}
	s.top1, s.top3 = pct(top1, s.fit), pct(top3, s.fit)
	s.pickPrecision, s.falsePositive = pct(s.right, s.picks), pct(noneFP, s.none)
	return s
}

func (s scores) String() string {
	return fmt.Sprintf("top-1 %5.1f%%  top-3 %5.1f%%  auto-pick precision %5.1f%% (%d picks)  none picked %5.1f%%  [%d requests + %d that fit none]",
		s.top1, s.top3, s.pickPrecision, s.picks, s.falsePositive, s.fit, s.none)
}

// routerRanker ranks with Route.
func routerRanker(ix *Index) ranker {
	return func(q string) ([]string, string) {
		r, err := ix.Route(q, Options{})
		if err != nil {
			panic(err)
		}
		names := make([]string, len(r.Candidates))
		byID := map[string]string{}
		for i, c := range r.Candidates {
			names[i] = c.Name
			byID[c.ID] = c.Name
		}
		return names, byID[r.Plan.Primary]
	}
}

// bm25 is the baseline: plain BM25 (k1 1.2, b 0.75) over each skill's
// name and description, words lower-cased without stemming, CJK as
// bigrams; it picks its best skill whenever one shares a word with the
// request.
type bm25 struct {
	names    []string
	postings map[string]map[int]int
	lens     []float64
	avg      float64
}

// plainTerms splits text as terms does, but keeps every word as it is.
func plainTerms(s string) []string {
	var out []string
	scanTerms(Fold(s), func(w string) { out = append(out, w) }, func(c string) {
		if !stopWords[c] {
			out = append(out, c)
		}
	})
	return out
}

func newBM25(skills []Skill) *bm25 {
	b := &bm25{postings: map[string]map[int]int{}}
	for i, s := range skills {
		b.names = append(b.names, s.Name)
		ts := plainTerms(s.Name + " " + s.Description)
		b.lens = append(b.lens, float64(len(ts)))
		b.avg += float64(len(ts))
		for _, t := range ts {
			if b.postings[t] == nil {
				b.postings[t] = map[int]int{}
			}
			b.postings[t][i]++
		}
	}
	b.avg /= float64(len(skills))
	return b
}

func (b *bm25) rank(q string) ([]string, string) {
	scores := map[int]float64{}
	n := float64(len(b.names))
	seen := map[string]bool{}
	for _, t := range plainTerms(q) {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := b.postings[t]
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for d, tf := range ps {
			f := float64(tf)
			scores[d] += idf * f * 2.2 / (f + 1.2*(0.25+0.75*b.lens[d]/b.avg))
		}
	}
	docs := top(scores, 10, func(int) bool { return false })
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = b.names[d]
	}
	if len(names) == 0 {
		return nil, ""
	}
	return names, names[0]
}

// realIndexSkills are the real downloads' skills as routing sees them.
func realIndexSkills(t testing.TB) []Skill {
	real := realskills.Require(t)
	skills := make([]Skill, len(real))
	for i, s := range real {
		skills[i] = Skill{ID: s.ID, Name: s.Name, Description: s.Description, WhenToUse: s.WhenToUse,
			Triggers: s.Triggers, AntiTriggers: s.AntiTriggers, CostHint: s.CostHint, ParallelSafe: s.ParallelSafe,
			DisableModelInvocation: s.DisableModelInvocation, Headings: skill.Headings(s.Body)}
	}
	return skills
}

// routableOnly returns the skills a model may be routed to (those
// without disable-model-invocation: routing recalls the others only when
// the user names them), which the BM25 baseline indexes too, and a
// filter that keeps a request's right answers to them: a request only
// such a skill fits fits none for routing, and the router is right to
// pick nothing.
func routableOnly(skills []Skill) ([]Skill, func([]string) []string) {
	var routable []Skill
	names := map[string]bool{}
	for _, s := range skills {
		if !s.DisableModelInvocation {
			routable = append(routable, s)
			names[s.Name] = true
		}
	}
	return routable, func(want []string) []string {
		var out []string
		for _, n := range want {
			if names[n] {
				out = append(out, n)
			}
		}
		return out
	}
}

// isChinese reports whether a request is written in Chinese (holds CJK
// characters): lexical recall cannot bridge it to English-only skills,
// so its figures are printed apart.
func isChinese(c evalCase) bool { return strings.IndexFunc(c.request, isCJK) >= 0 }

// TestEvaluation prints how the router and the BM25 baseline do, in one
// run, with the real downloads' skills: on each tuning set, on each
// held-out set, and on all held-out requests together, with the Chinese
// requests' figures apart. It prints figures, asserting none: `make
// bench` shows them.
func TestEvaluation(t *testing.T) {
	skills := realIndexSkills(t)
	routable, modelOnly := routableOnly(skills)
	router, baseline := routerRanker(NewIndex(skills)), newBM25(routable).rank
	readEval := func(t testing.TB, name string) []evalCase {
		cases := readEval(t, name)
		for i, c := range cases {
			cases[i].want = modelOnly(c.want)
		}
		return cases
	}
	report := func(name string, cases []evalCase) {
		t.Logf("%d skills, %s:", len(skills), name)
		t.Logf("  router: %s", evaluate(cases, router))
		t.Logf("  BM25:   %s", evaluate(cases, baseline))
		var zh []evalCase
		for _, c := range cases {
			if isChinese(c) {
				zh = append(zh, c)
			}
		}
		if len(zh) > 0 {
			t.Logf("  router, Chinese requests only: %s", evaluate(zh, router))
			t.Logf("  BM25,   Chinese requests only: %s", evaluate(zh, baseline))
		}
	}
	var tuning, heldOut []evalCase
	for _, f := range tuningSets {
		cases := readEval(t, f)
		tuning = append(tuning, cases...)
		report("tuning set "+f, cases)
	}
	for _, f := range heldOutSets {
		cases := readEval(t, f)
		heldOut = append(heldOut, cases...)
		report("held-out set "+f+", written blind", cases)
	}
	if len(heldOutSets) > 1 {
		report("all held-out sets ("+strings.Join(heldOutSets, " + ")+")", heldOut)
	}
	// SKILLFS_EVAL_MISSES=1 lists the tuning sets' misses, which is all
	// that tuning may look at.
	if testing.Verbose() && os.Getenv("SKILLFS_EVAL_MISSES") != "" {
		for _, c := range tuning {
			ranked, pick := router(c.request)
			bm, _ := baseline(c.request)
			top := ranked[:min(3, len(ranked))]
			if c.want == nil && pick != "" || c.want != nil && (len(ranked) == 0 || !slices.Contains(c.want, ranked[0]) || pick != "" && !slices.Contains(c.want, pick)) {
				t.Logf("MISS %q want %v: top %v pick %q (bm25 %v)", c.request, c.want, top, pick, bm[:min(3, len(bm))])
			}
		}
	}
}
