package registry

import (
	"context"
	"strconv"

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
		res, err := r.db.Read(ctx, append(qs[:len(qs):len(qs)], vfs.Get(vfs.StoreState, revisionKey))...)
		if err != nil {
			return err
		}
		rev, err := decodeRevision(res[len(qs)])
		if err != nil {
			return err
		}
		c, err := compute(res[:len(qs)])
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

// SetEnabled enables or disables skill id and returns its record. A
// disabled skill stays stored, and manageable, but is hidden from every
// agent-facing read.
func (r *Registry) SetEnabled(ctx context.Context, id string, on bool) (Meta, error) {
	var m Meta
	_, err := r.mutate(ctx, []vfs.Query{metaQuery(id)}, func(read [][]vfs.Record) (*change, error) {
		var err error
		if m, err = installed(id, read[0]); err != nil || m.Enabled == on {
			return nil, err
		}
		m.Enabled, m.UpdatedAt = on, r.now()
		op, err := metaOp(m)
		if err != nil {
			return nil, err
		}
		kind := KindDisable
		if on {
			kind = KindEnable
		}
		return &change{kind: kind, ids: []string{id}, ops: []vfs.Op{op}}, nil
	})
	if err != nil {
		return Meta{}, err
	}
	return m, nil
}

// Remove deletes skill id: its tree, its record, its embedding and the
// versions kept of it for sessions (sessions that hold it turn stale), in
// one commit. Nothing
// brings it back: the registry never rescans the tree.
func (r *Registry) Remove(ctx context.Context, id string) error {
	_, err := r.mutate(ctx, []vfs.Query{metaQuery(id), retainedQuery()}, func(read [][]vfs.Record) (*change, error) {
		if _, err := installed(id, read[0]); err != nil {
			return nil, err
		}
		ops, err := vfs.DeleteSkill(id)
		if err != nil {
			return nil, err
		}
		// Its embedding and its retained versions go with it.
		rt, err := r.retention(read[1])
		if err != nil {
			return nil, err
		}
		rt.dropSkill(id)
		kept, err := rt.ops()
		if err != nil {
			return nil, err
		}
		ops = append(append(ops, vfs.Delete(vfs.StoreMeta, id), vfs.Delete(vfs.StoreVectors, id)), kept...)
		return &change{kind: KindRemove, ids: []string{id}, ops: ops}, nil
	})
	return err
}
