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
// with an embedding of the same length, or nil without a query embedding.
func (r *router) semantic() map[int]float64 {
	q := r.opts.QueryVector
	qn := length(q)
	if qn == 0 || len(r.opts.Vectors) == 0 {
		return nil
	}
	out := map[int]float64{}
	for i, s := range r.ix.skills {
		v := r.opts.Vectors[s.ID]
		if len(v) != len(q) || r.ix.same[i] != i {
			continue
		}
		vn := length(v)
		if vn == 0 {
			continue
		}
		dot := 0.0
		for k, x := range q {
			dot += float64(x) * float64(v[k])
		}
		if sim := (dot/(qn*vn) - semanticFloor) / (semanticFull - semanticFloor); sim > 0 {
			out[i] = min(1, sim)
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
