package registry

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/skillfs/skillfs/pkg/vfs"
)

// Retained versions (docs/architecture.md, Snapshots). A replace or an
// edit keeps the version it overwrites, in the same commit, so that a
// session opened before goes on reading the version it started with until
// it refreshes. Writers cannot know which sessions other contexts hold,
// so every overwritten version is kept, within bounds, and collected
// when no session holds it: a context whose sessions read a retained
// version holds it (Hold) and lets go when none does any more (Release);
// the last to let go deletes it.
const (
	// DefaultRetainVersions and DefaultRetainBytes bound the retained
	// versions of a database, in number and in bytes of their files; past
	// them the oldest go first. A version larger than the byte bound is
	// not kept at all.
	DefaultRetainVersions = 16
	DefaultRetainBytes    = 16 << 20
	// RetainGrace is how long a version nobody holds waits to be held: a
	// context hears of a change a little after its commit.
	RetainGrace = 2 * time.Minute
	// RetainMaxAge bounds how long a version is kept however it is held,
	// so that the hold of a context that ended without letting go does
	// not keep it for ever.
	RetainMaxAge = 24 * time.Hour
)

// retainedKeyPrefix prefixes the records of retained versions in
// vfs.StoreState.
const retainedKeyPrefix = "retained:"

// RetainedKey is the key in vfs.StoreState of the record of the retained
// version digest.
func RetainedKey(digest string) string { return retainedKeyPrefix + digest }

// Retained is the record of a retained version.
type Retained struct {
	ID     string `json:"id"`
	Digest string `json:"digest"`
	// At is when the version was overwritten, in Unix milliseconds; Seq
	// orders the versions kept, oldest first.
	At   int64 `json:"at"`
	Seq  int64 `json:"seq"`
	Size int64 `json:"size"`
	// Files are the version's file paths, sorted.
	Files []string `json:"files"`
	// Holders are the contexts whose sessions read the version, each with
	// the Unix milliseconds of its hold.
	Holders map[string]int64 `json:"holders"`
}

// DecodeRetained decodes the record of a retained version.
func DecodeRetained(rec vfs.Record) (Retained, error) {
	var r Retained
	if err := json.Unmarshal(rec.Value, &r); err != nil {
		return Retained{}, internal(rec.Key, err, "corrupt record of a retained version")
	}
	if r.Holders == nil {
		r.Holders = map[string]int64{}
	}
	return r, nil
}

// retainedQuery reads the records of every retained version.
func retainedQuery() vfs.Query { return vfs.GetPrefix(vfs.StoreState, retainedKeyPrefix) }

func decodeAllRetained(recs []vfs.Record) ([]Retained, error) {
	out := make([]Retained, 0, len(recs))
	for _, rec := range recs {
		r, err := DecodeRetained(rec)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// retention computes the ops that keep and collect retained versions in
// one commit of the registry: it starts from the stored records.
type retention struct {
	versions, bytes int
	now             time.Time
	kept            []Retained
	changed         map[string]bool // digests whose record must be written
	dropped         map[string]bool
	pending         []pendingFiles // versions kept by this commit
}

// pendingFiles are the files of a version to keep.
type pendingFiles struct {
	digest string
	files  []vfs.File
}

func (r *Registry) retention(recs []vfs.Record) (*retention, error) {
	kept, err := decodeAllRetained(recs)
	if err != nil {
		return nil, err
	}
	return &retention{
		versions: cmp.Or(r.opts.RetainVersions, DefaultRetainVersions),
		bytes:    cmp.Or(r.opts.RetainBytes, DefaultRetainBytes),
		now:      r.now(), kept: kept, changed: map[string]bool{}, dropped: map[string]bool{},
	}, nil
}

// keep retains the version old of a skill, whose files (with contents)
// are files, unless it is too large to keep.
func (rt *retention) keep(old Meta, files []vfs.File) {
	if !rt.keeps(old) {
		return
	}
	var paths []string
	for _, f := range files {
		if !f.Mode.IsDir() {
			paths = append(paths, f.Path)
		}
	}
	var seq int64
	for _, k := range rt.kept {
		seq = max(seq, k.Seq)
	}
	rt.kept = append(rt.kept, Retained{ID: old.ID, Digest: old.Digest, At: rt.now.UnixMilli(), Seq: seq + 1, Size: old.Size,
		Files: paths, Holders: map[string]int64{}})
	rt.changed[old.Digest] = true
	rt.pending = append(rt.pending, pendingFiles{digest: old.Digest, files: files})
}

// keeps reports whether keep would retain the version old: it is not too
// large, nor retained already.
func (rt *retention) keeps(old Meta) bool {
	return old.Size <= int64(rt.bytes) && !slices.ContainsFunc(rt.kept, func(k Retained) bool { return k.Digest == old.Digest })
}

// newest returns the last of olds, versions one commit overwrites in this
// order, that ops would not collect at once: it collects the oldest first
// until the rest are within the bounds.
func (rt *retention) newest(olds []Meta) []Meta {
	n, total := 0, int64(0)
	seen := make(map[string]bool, len(olds))
	for i := len(olds) - 1; i >= 0; i-- {
		m := olds[i]
		if !rt.keeps(m) || seen[m.Digest] {
			continue
		}
		seen[m.Digest] = true
		if n++; n > rt.versions || total+m.Size > int64(rt.bytes) {
			return olds[i+1:]
		}
		total += m.Size
	}
	return olds
}

// drop collects the versions for which gone is true.
func (rt *retention) drop(gone func(Retained) bool) {
	rt.kept = slices.DeleteFunc(rt.kept, func(k Retained) bool {
		if gone(k) {
			rt.dropped[k.Digest] = true
			return true
		}
		return false
	})
}

// ops collects what nobody holds past RetainGrace, what is older than
// RetainMaxAge, and the oldest past the bounds, and returns the writes.
func (rt *retention) ops() ([]vfs.Op, error) {
	now := rt.now.UnixMilli()
	rt.drop(func(k Retained) bool {
		return now-k.At > RetainMaxAge.Milliseconds() || len(k.Holders) == 0 && now-k.At > RetainGrace.Milliseconds()
	})
	// sort.Slice, not slices.SortFunc: see files.go.
	sort.Slice(rt.kept, func(i, j int) bool { return rt.kept[i].Seq < rt.kept[j].Seq })
	var total int64
	for _, k := range rt.kept {
		total += k.Size
	}
	for len(rt.kept) > rt.versions || total > int64(rt.bytes) {
		total -= rt.kept[0].Size
		rt.dropped[rt.kept[0].Digest] = true
		rt.kept = rt.kept[1:]
	}
	var ops []vfs.Op
	for _, d := range slices.Sorted(maps.Keys(rt.dropped)) {
		ops = append(ops, vfs.Delete(vfs.StoreState, RetainedKey(d)), vfs.DeleteRetained(d))
	}
	for _, p := range rt.pending {
		if !rt.dropped[p.digest] {
			ops = append(ops, vfs.PutRetained(p.digest, p.files)...)
		}
	}
	for _, k := range rt.kept {
		if rt.changed[k.Digest] {
			b, err := json.Marshal(k)
			if err != nil {
				return nil, internal(k.ID, err, "cannot encode the record of a retained version")
			}
			ops = append(ops, vfs.Put(vfs.StoreState, RetainedKey(k.Digest), b))
		}
	}
	return ops, nil
}

// Hold records that the sessions of holder (a context) read the retained
// versions digests, so that they are kept until it lets go. A version
// that is not retained (too large, collected) is skipped: reads of it
// say so.
func (r *Registry) Hold(ctx context.Context, holder string, digests []string) error {
	return r.holds(ctx, func(rt *retention) {
		for i := range rt.kept {
			if slices.Contains(digests, rt.kept[i].Digest) {
				rt.kept[i].Holders[holder] = rt.now.UnixMilli()
				rt.changed[rt.kept[i].Digest] = true
			}
		}
	})
}

// Release lets go of the retained versions digests for holder; a version
// nobody holds any more is deleted, and so is any version past its time
// (see ops).
func (r *Registry) Release(ctx context.Context, holder string, digests []string) error {
	return r.holds(ctx, func(rt *retention) {
		for i := range rt.kept {
			if _, held := rt.kept[i].Holders[holder]; held && slices.Contains(digests, rt.kept[i].Digest) {
				delete(rt.kept[i].Holders, holder)
				rt.changed[rt.kept[i].Digest] = true
			}
		}
		rt.drop(func(k Retained) bool { return rt.changed[k.Digest] && len(k.Holders) == 0 })
	})
}

// holds changes the holders of retained versions under the registry's
// lock, so that no change of the registry collects a version as it is
// held. It is no change of the skills: no revision, no notice.
func (r *Registry) holds(ctx context.Context, update func(*retention)) error {
	return r.db.Lock(ctx, lockName, func(ctx context.Context) error {
		res, err := r.db.Read(ctx, retainedQuery())
		if err != nil {
			return err
		}
		rt, err := r.retention(res[0])
		if err != nil {
			return err
		}
		update(rt)
		ops, err := rt.ops()
		if err != nil || len(ops) == 0 {
			return err
		}
		return r.db.Commit(ctx, ops...)
	})
}

// dropSkill collects every retained version of skill id: a removed skill
// leaves nothing behind.
func (rt *retention) dropSkill(id string) {
	rt.drop(func(k Retained) bool { return k.ID == id })
}

// keepVersion reads the files of old, the installed version a commit
// overwrites, and keeps them in rt. It runs under the registry's lock, so
// they are the files the commit replaces; a tree it cannot decode is not
// kept.
func (r *Registry) keepVersion(ctx context.Context, rt *retention, old Meta) error {
	if old.Size > int64(rt.bytes) {
		return nil // too large to keep: not worth reading
	}
	qs, err := vfs.SkillQueries(old.ID, true)
	if err != nil {
		return err
	}
	res, err := r.db.Read(ctx, qs...)
	if err != nil {
		return err
	}
	// A tree another program garbled cannot be kept, nor read by any
	// session pinned to it; it is no reason to refuse the change that
	// replaces it whole, the one thing short of a removal that mends it.
	if files, err := vfs.DecodeSkill(old.ID, res); err == nil {
		rt.keep(old, files)
	}
	return nil
}

// ReadRetained reads the retained version digest: its record, and the
// contents of path (or, when path is "", of every file, by path). found
// is false when the version is not kept (never was, or collected); a path
// that is not a file of it gets no entry in files.
func (r *Registry) ReadRetained(ctx context.Context, digest, path string) (kept Retained, files map[string][]byte, found bool, err error) {
	q := vfs.RetainedFiles(digest)
	if path != "" {
		q = vfs.Get(vfs.StoreBlobs, vfs.RetainedBlobKey(digest, path))
	}
	res, err := r.db.Read(ctx, vfs.Get(vfs.StoreState, RetainedKey(digest)), q)
	if err != nil || len(res[0]) == 0 {
		return Retained{}, nil, false, err
	}
	if kept, err = DecodeRetained(res[0][0]); err != nil {
		return Retained{}, nil, false, err
	}
	prefix := vfs.RetainedBlobKey(digest, "")
	files = make(map[string][]byte, len(res[1]))
	for _, rec := range res[1] {
		files[strings.TrimPrefix(rec.Key, prefix)] = rec.Value
	}
	return kept, files, true, nil
}
