package resolver

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"strings"

	"github.com/skillfs/skillfs/pkg/routing"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// Routing's semantic stage runs on embeddings computed by the host (skillfs
// ships no model): the host asks which skills lack one (VectorsNeeded),
// embeds their text and stores the vectors (PutVectors); each is kept in
// vfs.StoreVectors under the skill's id, tagged with the embedder's model
// and the skill's digest, so that it is computed once per version of the
// skill and model, and removed with the skill. Route and Catalog then
// take the message's embedding (RouteOptions.QueryVector and Model).

// MaxModelName caps the name of an embedding model.
const MaxModelName = 200

// VectorRequest is a skill whose embedding the host should compute: the
// text to embed, and the digest to store it with.
type VectorRequest struct {
	ID     string `json:"id"`
	Digest string `json:"digest"`
	Text   string `json:"text"`
}

// SkillVector is a skill's embedding, computed from VectorRequest.Text.
type SkillVector struct {
	ID     string    `json:"id"`
	Digest string    `json:"digest"`
	Vector []float32 `json:"vector"`
}

// embeddingText is what a skill's embedding is computed from: what
// routing reads of it.
func embeddingText(s Skill) string {
	parts := []string{s.Name, s.Description}
	if s.WhenToUse != "" {
		parts = append(parts, s.WhenToUse)
	}
	if len(s.Triggers) > 0 {
		parts = append(parts, strings.Join(s.Triggers[:min(len(s.Triggers), routing.MaxPhrases)], ", "))
	}
	return strings.Join(parts, "\n")
}

// VectorsNeeded returns the visible skills routed to by the model (not
// DisableModelInvocation) that have no embedding by model for their
// current version.
func (s *Session) VectorsNeeded(ctx context.Context, model string) ([]VectorRequest, error) {
	if err := checkModel(model); err != nil {
		return nil, err
	}
	sn, err := s.current()
	if err != nil {
		return nil, err
	}
	have, err := s.r.readVectors(ctx, sn, model)
	if err != nil {
		return nil, err
	}
	out := []VectorRequest{}
	for _, sk := range sn.skills {
		if _, ok := have[sk.ID]; !ok && !sk.DisableModelInvocation {
			out = append(out, VectorRequest{ID: sk.ID, Digest: sn.metas[sk.ID].Digest, Text: embeddingText(sk)})
		}
	}
	return out, nil
}

// PutVectors stores embeddings by model of visible skills, in one commit.
// Every vector must be of one length (1 to routing.MaxVectorDims), finite,
// for a visible skill at the digest VectorsNeeded gave: an InvalidArgument
// error otherwise, and nothing is stored.
func (s *Session) PutVectors(ctx context.Context, model string, vectors []SkillVector) error {
	if err := checkModel(model); err != nil {
		return err
	}
	sn, err := s.current()
	if err != nil {
		return err
	}
	if len(vectors) > len(sn.skills) {
		return skillerr.New(skillerr.TooLarge, "vectors", "%d vectors for %d visible skills", len(vectors), len(sn.skills))
	}
	ops := make([]vfs.Op, 0, len(vectors))
	for _, v := range vectors {
		m := sn.metas[v.ID]
		switch {
		case m == nil:
			return skillerr.New(skillerr.InvalidArgument, v.ID, "no visible skill has this id")
		case v.Digest != m.Digest:
			return skillerr.New(skillerr.InvalidArgument, v.ID, "the vector is for another version of the skill")
		case len(v.Vector) == 0 || len(v.Vector) > routing.MaxVectorDims || len(v.Vector) != len(vectors[0].Vector):
			return skillerr.New(skillerr.InvalidArgument, v.ID, "vectors must all have one length, from 1 to %d", routing.MaxVectorDims)
		}
		for _, x := range v.Vector {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return skillerr.New(skillerr.InvalidArgument, v.ID, "the vector holds a value that is not a finite number")
			}
		}
		ops = append(ops, vfs.Put(vfs.StoreVectors, v.ID, encodeVector(model, v.Digest, v.Vector)))
	}
	if len(ops) == 0 {
		return nil
	}
	return s.r.db.Commit(ctx, ops...)
}

func checkModel(model string) error {
	if model == "" || len(model) > MaxModelName {
		return skillerr.New(skillerr.InvalidArgument, "model", "name the embedding model in 1 to %d bytes", MaxModelName)
	}
	return nil
}

// readVectors returns the embeddings by model of the snapshot's skills at
// their current digest, by id.
func (r *Resolver) readVectors(ctx context.Context, sn *snapshot, model string) (map[string][]float32, error) {
	res, err := r.db.Read(ctx, vfs.GetPrefix(vfs.StoreVectors, ""))
	if err != nil {
		return nil, err
	}
	out := map[string][]float32{}
	for _, rec := range res[0] {
		m := sn.metas[rec.Key]
		if m == nil {
			continue
		}
		if mod, digest, vec, ok := decodeVector(rec.Value); ok && mod == model && digest == m.Digest {
			out[rec.Key] = vec
		}
	}
	return out, nil
}

// A stored vector is the model, a NUL, the digest, a NUL, then the values
// as little-endian float32.
func encodeVector(model, digest string, v []float32) []byte {
	b := make([]byte, 0, len(model)+len(digest)+2+4*len(v))
	b = append(append(append(append(b, model...), 0), digest...), 0)
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) (model, digest string, v []float32, ok bool) {
	m, rest, ok1 := bytes.Cut(b, []byte{0})
	d, data, ok2 := bytes.Cut(rest, []byte{0})
	if !ok1 || !ok2 || len(data)%4 != 0 {
		return "", "", nil, false
	}
	v = make([]float32, len(data)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return string(m), string(d), v, true
}
