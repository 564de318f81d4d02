package routing

import "math"

// Semantic similarity is mapped to Intent linearly from semanticFloor
// (unrelated: 0) to semanticFull (a certain match: 1). Cosine similarities
// of sentence embedders sit in different ranges; these suit normalised
// sentence embeddings, where unrelated texts score about 0.2 and
// paraphrases 0.8 and more.
const (
	semanticFloor = 0.3
	semanticFull  = 0.8
)

// semantic returns the Intent that the query's embedding gives each skill
// that has one of the same length, or nil without a query embedding.
func (r *router) semantic() map[int]float64 {
	q := r.opts.QueryVector
	if len(q) == 0 {
		return nil
	}
	qn := length(q)
	out := map[int]float64{}
	for i, s := range r.ix.skills {
		if len(s.Vector) != len(q) || qn == 0 || r.ix.same[i] != i {
			continue
		}
		sn := length(s.Vector)
		if sn == 0 {
			continue
		}
		dot := 0.0
		for k, v := range q {
			dot += float64(v) * float64(s.Vector[k])
		}
		if v := (dot/(qn*sn) - semanticFloor) / (semanticFull - semanticFloor); v > 0 {
			out[i] = min(1, v)
		}
	}
	return out
}

func length(v []float32) float64 {
	n := 0.0
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	return math.Sqrt(n)
}
