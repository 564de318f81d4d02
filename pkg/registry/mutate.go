package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// change is one change of the registry, computed in memory from what it
// read and ready to commit.
type change struct {
	kind string
	ids  []string
	// ops are the change's writes: tree ops (vfs.DeleteSkill,
	// vfs.PutSkill) and records (metaOp). mutate adds the revision.
	ops []vfs.Op
	// later, when set, returns more writes, after ops in the same
	// commit, which the backend may begin writing while later runs (see
	// vfs.CommitThen): it must not read the database. stores names every
	// store ops and later write, and StoreState, where mutate writes the
	// revision.
	later  func() ([]vfs.Op, error)
	stores []string
}

// mutate is the one way the registry changes what is stored. Holding the
// registry lock, which excludes every other context of the origin, it
// reads qs and the revision in one read transaction, lets compute turn
// the records of qs into a change, and commits the change's ops with the
// next revision in one commit, which IndexedDB applies all or not at all.
// It then notes the change in the list cache and tells the subscribers
// and the bus.
//
// compute returns nil for a change that changes nothing: nothing is
// committed or published. The Change returned is zero then.
func (r *Registry) mutate(ctx context.Context, qs []vfs.Query, compute func(read [][]vfs.Record) (*change, error)) (Change, error) {
	var done Change
	err := r.db.Lock(ctx, lockName, func(ctx context.Context) error {
		res, rev, err := r.readLocked(ctx, qs)
		if err != nil {
			return err
		}
		c, err := compute(res)
		if err != nil || c == nil {
			return err
		}
		rev++
		revOp := vfs.Put(vfs.StoreState, revisionKey, []byte(strconv.FormatInt(rev, 10)))
		if c.later == nil {
			err = r.db.Commit(ctx, append(c.ops, revOp)...)
		} else {
			err = vfs.CommitThen(ctx, r.db, c.stores, c.ops, func() ([]vfs.Op, error) {
				ops, err := c.later()
				return append(ops, revOp), err
			})
		}
		if err != nil {
			return err
		}
		done = Change{Revision: rev, Kind: c.kind, IDs: c.ids}
		// Noted before the lock is released, so that no reader of this
		// registry sees the old list once another change can begin.
		r.noteChange(done)
		return nil
	})
	if err != nil || done.Revision == 0 {
		return Change{}, err
	}
	r.subs.send(done)
	if r.opts.Bus != nil {
		r.opts.Bus.Publish(done)
	}
	return done, nil
}

// allMeta is the query of every skill's record.
var allMeta = vfs.GetPrefix(vfs.StoreMeta, "")

// readLocked reads qs, under the lock, and the revision they reflect.
// Every skill's record (allMeta), which a delete, a disable or an import
// needs to find dependents and conflicts, comes from the list's cache when
// the cache is at that revision: one record read, not thousands. Another
// context's change the bus has not told of yet leaves the cache behind the
// revision read here, and the records are read.
func (r *Registry) readLocked(ctx context.Context, qs []vfs.Query) ([][]vfs.Record, int64, error) {
	all := slices.Index(qs, allMeta)
	r.mu.Lock()
	known := r.cache.valid
	r.mu.Unlock()
	var cached listCache
	ask := qs
	if all >= 0 && known {
		// Brought up to date from the changes heard: no read when current,
		// the changed records otherwise. A cache never filled is not
		// filled here: the records are read with the rest.
		var err error
		if cached, err = r.current(ctx, false); err != nil {
			return nil, 0, err
		}
		ask = slices.Delete(slices.Clone(qs), all, all+1)
	}
	res, err := r.db.Read(ctx, append(ask[:len(ask):len(ask)], vfs.Get(vfs.StoreState, revisionKey))...)
	if err != nil {
		return nil, 0, err
	}
	rev, err := decodeRevision(res[len(ask)])
	if err != nil || len(ask) == len(qs) {
		return res[:len(ask)], rev, err
	}
	recs := cached.recs
	if cached.rev != rev {
		more, err := r.db.Read(ctx, allMeta)
		if err != nil {
			return nil, 0, err
		}
		recs = more[0]
	}
	return slices.Insert(res[:len(ask)], all, recs), rev, nil
}

// metaQuery returns the query of skill id's record.
func metaQuery(id string) vfs.Query { return vfs.Get(vfs.StoreMeta, id) }

// installed returns the record of skill id from the result of metaQuery, or
// a SkillNotFound error.
func installed(id string, found []vfs.Record) (Meta, error) {
	if len(found) == 0 {
		return Meta{}, notInstalled(id)
	}
	return decodeMeta(found[0])
}

// MaxBatch bounds the skills of one SetEnabledMany or RemoveMany. A side
// panel's "select all" of a crowded registry is a few hundred; the bound
// keeps the one read and the one commit of a batch (three tree deletes a
// skill for RemoveMany) a short IndexedDB transaction.
const MaxBatch = 5000

// batch returns ids without repeats, in their order, or a TooLarge error
// past MaxBatch (checked first, so the copy is bounded too).
func batch(ids []string) ([]string, error) {
	if len(ids) > MaxBatch {
		return nil, &skillerr.Error{Code: skillerr.TooLarge, Reason: "batch",
			Msg: fmt.Sprintf("%d skills in one change; at most %d", len(ids), MaxBatch)}
	}
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// metaQueries returns the queries of the records of ids, in their order.
func metaQueries(ids []string) []vfs.Query {
	qs := make([]vfs.Query, len(ids))
	for i, id := range ids {
		qs[i] = metaQuery(id)
	}
	return qs
}

// findRecord returns where skill id's record is among recs (sorted by
// key, as a read returns them), and whether it is there.
func findRecord(recs []vfs.Record, id string) (int, bool) {
	return slices.BinarySearchFunc(recs, id, func(rec vfs.Record, id string) int { return strings.Compare(rec.Key, id) })
}

// recordOf returns, as metaQuery's result, skill id's record among every
// skill's (all, sorted by id as a read returns them). A batch takes its
// skills' records from there: a query per skill, thousands, would be
// issued in one task of the host (IndexedDB ends a transaction at the end
// of a task that issued nothing).
func recordOf(all []vfs.Record, id string) []vfs.Record {
	i, ok := findRecord(all, id)
	if !ok {
		return nil
	}
	return all[i : i+1]
}

// SetEnabled enables or disables skill id and returns its record. A
// disabled skill stays stored, and manageable, but is hidden from every
// agent-facing read.
func (r *Registry) SetEnabled(ctx context.Context, id string, on bool) (Meta, error) {
	ms, err := r.SetEnabledMany(ctx, []string{id}, on)
	if err != nil {
		return Meta{}, err
	}
	return ms[0], nil
}

// SetEnabledMany enables or disables the skills ids (at most MaxBatch
// ids, repeats included; each skill is changed once) in one commit, one change naming those whose
// state changed, and returns their records in the order of ids, repeats
// dropped. When one is not installed, nothing changes: the error is its
// SkillNotFound.
//
// Nor when the change would leave an enabled skill depending on one that
// is not (see "Dependencies" in docs/architecture.md): a session never
// shows a disabled skill, so the one depending on it would run without
// it, and nothing would say so where the change was made. Disabling a
// skill that an enabled skill outside ids depends on is refused as
// RemoveMany refuses deleting it (Conflict, reason "has-dependents");
// enabling a skill whose dependency is disabled, or not installed, and
// not enabled in the same batch is refused with Conflict, reason
// "dependency-disabled" or "dependency-not-installed". Both take the
// records of ids, the dependents and the dependencies from every record,
// as a delete does (readLocked: the cached ones, when current).
func (r *Registry) SetEnabledMany(ctx context.Context, ids []string, on bool) ([]Meta, error) {
	ids, err := batch(ids)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return []Meta{}, nil
	}
	ms := make([]Meta, len(ids))
	_, err = r.mutate(ctx, []vfs.Query{allMeta}, func(read [][]vfs.Record) (*change, error) {
		all := read[0]
		c := &change{kind: KindDisable}
		if on {
			c.kind = KindEnable
		}
		now := r.now()
		var changed []Meta
		for i, id := range ids {
			pace.StepAt(i) // a record decoded and encoded again, thousands of times
			m, err := installed(id, recordOf(all, id))
			if err != nil {
				return nil, err
			}
			if m.Enabled != on {
				changed = append(changed, m)
				m.Enabled, m.UpdatedAt = on, now
				if on {
					// The note of an import that stored it disabled
					// (disabledNote) no longer holds.
					m.Diagnostics = slices.DeleteFunc(m.Diagnostics, func(d skill.Diagnostic) bool { return d.Code == codeDependencyDisabled })
				}
				op, err := metaOp(m)
				if err != nil {
					return nil, err
				}
				c.ids, c.ops = append(c.ids, id), append(c.ops, op)
			}
			ms[i] = m
		}
		if len(c.ops) == 0 {
			return nil, nil
		}
		if on {
			return c, checkEnabling(ids, changed, all)
		}
		// Only the skills that were enabled leave: a dependent of one
		// already disabled was left so by an older version.
		return c, checkDependents(c.ids, all, disabling)
	})
	if err != nil {
		return nil, err
	}
	return ms, nil
}

// Remove deletes skill id: its tree, its record, its embedding and the
// versions kept of it for sessions (sessions that hold it turn stale), in
// one commit. Nothing brings it back: the registry never rescans the tree.
// A skill that another installed skill depends on is not removed alone:
// see RemoveMany.
func (r *Registry) Remove(ctx context.Context, id string) error {
	return r.RemoveMany(ctx, []string{id})
}

// RemoveMany deletes the skills ids (at most MaxBatch ids, repeats
// included) as Remove deletes one, all in one commit and one change. When one
// is not installed, nothing is deleted: the error is its SkillNotFound.
// Nor when an installed skill outside the batch depends on one of it: a
// dependency names a skill that exists (checkDependencies), and one left
// naming a removed skill could not be imported or saved again as it is.
// The error is Conflict, reason "has-dependents", naming both.
func (r *Registry) RemoveMany(ctx context.Context, ids []string) error {
	ids, err := batch(ids)
	if err != nil || len(ids) == 0 {
		return err
	}
	_, err = r.mutate(ctx, []vfs.Query{retainedQuery(), allMeta}, func(read [][]vfs.Record) (*change, error) {
		rt, err := r.retention(read[0])
		if err != nil {
			return nil, err
		}
		all := read[1]
		if err := checkDependents(ids, all, deleting); err != nil {
			return nil, err
		}
		var ops []vfs.Op
		for i, id := range ids {
			pace.StepAt(i)
			if recordOf(all, id) == nil {
				return nil, notInstalled(id)
			}
			tree, err := vfs.DeleteSkill(id)
			if err != nil {
				return nil, err
			}
			// Its embedding and its retained versions go with it.
			ops = append(append(ops, tree...), vfs.Delete(vfs.StoreMeta, id), vfs.Delete(vfs.StoreVectors, id))
			rt.dropSkill(id)
		}
		kept, err := rt.ops()
		if err != nil {
			return nil, err
		}
		return &change{kind: KindRemove, ids: ids, ops: append(ops, kept...)}, nil
	})
	return err
}

// depsMarker is how metaOp (encoding/json) writes a Dependencies.Skills
// that names a skill: a record without it depends on none and is not
// decoded, which keeps a delete among thousands of skills at a read and a
// scan of their bytes. A record that merely holds the text elsewhere is
// decoded and found to depend on nothing.
var depsMarker = []byte(`"skills":["`)

// leaving is how skills leave what sessions see, for checkDependents.
type leaving struct {
	verb string // "delete", "disable"
	// enabledOnly: only enabled dependents refuse it; a disabled one is
	// seen by no session, so it loses nothing.
	enabledOnly bool
}

var (
	deleting  = leaving{verb: "delete"}
	disabling = leaving{verb: "disable", enabledOnly: true}
)

// checkDependents refuses to delete or disable (how) the skills ids while
// a skill outside them, among every installed skill's record (all),
// depends on one of them.
func checkDependents(ids []string, all []vfs.Record, how leaving) error {
	dependents, on, err := dependentsOf(ids, all, how.enabledOnly)
	switch {
	case err != nil || len(dependents) == 0:
		return err
	case len(dependents) == 1:
		return &skillerr.Error{Code: skillerr.Conflict, Reason: "has-dependents", Subject: on,
			Msg: fmt.Sprintf("'%s' depends on it: %s '%[1]s' too, or remove the dependency from it first", dependents[0], how.verb)}
	}
	return &skillerr.Error{Code: skillerr.Conflict, Reason: "has-dependents", Subject: on,
		Msg: fmt.Sprintf("%s depend on the skills to %s: %[2]s them too, or remove the dependencies from them first", namedList(dependents), how.verb)}
}

// dependentsOf returns the skills outside ids, among every installed
// skill's record (all), that depend on one of ids, the enabled ones only
// when enabledOnly, and the first of ids so depended on. Only the records
// that name a skill as a dependency are decoded.
func dependentsOf(ids []string, all []vfs.Record, enabledOnly bool) (dependents []string, on string, err error) {
	removed := make(map[string]bool, len(ids))
	for _, id := range ids {
		removed[id] = true
	}
	for i, rec := range all {
		pace.StepAt(i)
		if removed[rec.Key] || !bytes.Contains(rec.Value, depsMarker) {
			continue
		}
		var m struct {
			Enabled      bool `json:"enabled"`
			Dependencies struct {
				Skills []string `json:"skills"`
			} `json:"dependencies"`
		}
		if err := json.Unmarshal(rec.Value, &m); err != nil {
			return nil, "", internal(rec.Key, err, "the skill's record is corrupt")
		}
		if enabledOnly && !m.Enabled {
			continue
		}
		for _, d := range m.Dependencies.Skills {
			if removed[d] {
				if on == "" {
					on = d
				}
				dependents = append(dependents, rec.Key)
				break
			}
		}
	}
	return dependents, on, nil
}

// checkEnabling refuses to enable the skills changed (of the batch ids)
// while one depends on a skill that is neither enabled nor in ids, among
// every skill's record (all), read under the registry lock that mutate
// holds, so that nothing changes them before the commit.
func checkEnabling(ids []string, changed []Meta, all []vfs.Record) error {
	inBatch := make(map[string]bool, len(ids))
	for _, id := range ids {
		inBatch[id] = true
	}
	var outside []string
	seen := map[string]bool{}
	for _, m := range changed {
		for _, d := range m.Dependencies.Skills {
			if !inBatch[d] && !seen[d] {
				seen[d] = true
				outside = append(outside, d)
			}
		}
	}
	if len(outside) == 0 {
		return nil
	}
	present, enabled := map[string]bool{}, map[string]bool{}
	for _, d := range outside {
		rec := recordOf(all, d)
		if rec == nil {
			continue
		}
		m, err := decodeMeta(rec[0])
		if err != nil {
			return err
		}
		present[d], enabled[d] = true, m.Enabled
	}
	// Those not installed first: enabling them too would not do.
	for _, missing := range []bool{true, false} {
		for _, m := range changed {
			var bad []string
			for _, d := range m.Dependencies.Skills {
				if !inBatch[d] && !enabled[d] && present[d] != missing {
					bad = append(bad, d)
				}
			}
			if len(bad) > 0 {
				return errDependencies(m.ID, bad, missing)
			}
		}
	}
	return nil
}

// checkNewDependencies refuses to make skill m, when it is enabled,
// depend on a disabled skill, as enabling it would be refused (see
// SetEnabledMany): deps are the skills it is to depend on, found their
// records (metaQuery), read under the lock. Only the dependencies m does
// not have yet count: one an older version left is not the change's.
func checkNewDependencies(m Meta, deps []string, found [][]vfs.Record) error {
	if !m.Enabled {
		return nil
	}
	bad, err := disabledIn(deps, found, m.Dependencies.Skills)
	if err == nil && len(bad) > 0 {
		err = errDependencies(m.ID, bad, false)
	}
	return err
}

// disabledIn returns the skills of deps, but for those of old, that are
// installed and disabled: found holds their records (metaQuery), in
// order. One not installed is left to checkDependencies' verdict.
func disabledIn(deps []string, found [][]vfs.Record, old []string) ([]string, error) {
	var bad []string
	for i, d := range deps {
		if len(found[i]) == 0 || slices.Contains(old, d) {
			continue
		}
		dm, err := decodeMeta(found[i][0])
		if err != nil {
			return nil, err
		}
		if !dm.Enabled {
			bad = append(bad, d)
		}
	}
	return bad, nil
}

// errDependencies is checkEnabling's refusal of enabling skill id, which
// depends on the skills bad, not installed (missing) or disabled.
func errDependencies(id string, bad []string, missing bool) error {
	is, them := isThem(bad)
	if missing {
		return &skillerr.Error{Code: skillerr.Conflict, Reason: "dependency-not-installed", Subject: id,
			Msg: fmt.Sprintf("it depends on %s, which %s not installed: install %s, or remove the dependency first", namedList(bad), is, them)}
	}
	return &skillerr.Error{Code: skillerr.Conflict, Reason: "dependency-disabled", Subject: id,
		Msg: fmt.Sprintf("it depends on %s, which %s disabled: enable %s too, or remove the dependency first", namedList(bad), is, them)}
}

// isThem returns the verb and the pronoun a message about the skills ids
// takes: "is" and the one quoted, or "are" and "them".
func isThem(ids []string) (is, them string) {
	if len(ids) > 1 {
		return "are", "them"
	}
	return "is", "'" + ids[0] + "'"
}

// namedList quotes the first maxNamed of ids, joined, and counts the others.
func namedList(ids []string) string {
	named := make([]string, 0, maxNamed)
	for _, d := range ids[:min(len(ids), maxNamed)] {
		named = append(named, "'"+d+"'")
	}
	list := strings.Join(named, ", ")
	if len(ids) > maxNamed {
		list += fmt.Sprintf(" and %d more", len(ids)-maxNamed)
	}
	return list
}
