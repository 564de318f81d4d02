package vfs

import (
	"context"
	"io/fs"

	"github.com/hack-pad/hackpadfs"
	"github.com/hack-pad/hackpadfs/keyvalue"
	"github.com/hack-pad/hackpadfs/keyvalue/blob"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// kvStore adapts a Backend to hackpadfs's keyvalue.Store, so keyvalue.NewFS
// supplies open files, Mkdir, Remove, Rename and friends over StoreFiles and
// StoreBlobs. Paths are clean and relative to /skills ("." is /skills).
//
// It is also a keyvalue.TransactionStore: keyvalue batches the lookups of
// one operation (a path and its parent, every level of MkdirAll) into one
// Read, and a rename's writes into one Commit.
type kvStore struct{ db Backend }

var _ keyvalue.TransactionStore = kvStore{}

// rootMeta describes /skills itself, which is implied rather than stored so
// that opening an empty database writes nothing.
var rootMeta = meta{mode: fs.ModeDir | 0o755}

// Get implements keyvalue.Store.
func (s kvStore) Get(ctx context.Context, p string) (keyvalue.FileRecord, error) {
	t := &kvTxn{store: s}
	t.Get(p)
	res, err := t.Commit(ctx)
	if err != nil {
		return nil, err
	}
	return res[0].Record, res[0].Err
}

// Set implements keyvalue.Store; a nil src deletes p. Writes through the
// file system carry an empty generation: they belong to no imported
// version.
func (s kvStore) Set(ctx context.Context, p string, src keyvalue.FileRecord) error {
	var data blob.Blob
	if src != nil && src.Mode().IsRegular() {
		var err error
		if data, err = src.Data(); err != nil {
			return err
		}
	}
	t := &kvTxn{store: s}
	t.Set(p, src, data)
	_, err := t.Commit(ctx)
	return err
}

// Transaction implements keyvalue.TransactionStore.
func (s kvStore) Transaction(keyvalue.TransactionOptions) (keyvalue.Transaction, error) {
	return &kvTxn{store: s}, nil
}

// fileKeyOrRoot returns the key of p; the root's key matches no record,
// and record() answers for the root without one.
func fileKeyOrRoot(p string) string {
	if p == "." {
		return "//"
	}
	return fileKey(p)
}

// record turns the results of fileQueries(p), read in one transaction,
// into a keyvalue.FileRecord. The contents come from that same read, so
// an open file never pairs one version's size with another's bytes;
// directory names load on demand.
func (s kvStore) record(p string, found [][]Record) (keyvalue.FileRecord, error) {
	m, err := lookup(p, found[0], found[1])
	if err != nil {
		return nil, err
	}
	getData := func() (blob.Blob, error) {
		data, ok := valueOf(found[2])
		if err := checkContents(display(p), m.size, data, ok); err != nil {
			return nil, err
		}
		return blob.NewBytes(data), nil
	}
	getNames := func() ([]string, error) {
		res, err := s.db.Read(context.Background(), Get(StoreFiles, fileKeyOrRoot(p)), GetPrefix(StoreFiles, childPrefix(p)))
		if err != nil {
			return nil, err
		}
		found, err := children(res[0], res[1])
		names := make([]string, len(found))
		for i, e := range found {
			names[i] = e.name
		}
		return names, err
	}
	if m.mode.IsDir() {
		getData = nil
	} else {
		getNames = nil
	}
	return keyvalue.NewBaseFileRecord(m.size, m.modTime, m.mode, fileSys{gen: m.gen}, getData, getNames), nil
}

// fileQueries returns the queries record needs for p.
func fileQueries(p string) []Query {
	return append(lookupQueries(p), Get(StoreBlobs, fileKey(p)))
}

// set changes e and returns the StoreBlobs ops that store src (with
// contents data) at p, or delete p when src is nil; below holds the
// StoreFiles records of p's key range, read only to delete. The root
// cannot be written: it is implied.
func set(e *edits, p string, src keyvalue.FileRecord, data blob.Blob, below []Record) ([]Op, error) {
	if p == "." {
		return nil, &skillerr.Error{Code: skillerr.PermissionDenied, Reason: ReasonRoot, Subject: Root,
			Msg: "the /skills directory itself cannot be changed"}
	}
	key := fileKey(p)
	switch {
	case src == nil:
		// keyvalue found a directory empty before the lock.
		if r := e.recs[key]; len(below) > 0 || r != nil && len(r.files) > 0 {
			return nil, fsErr(p, hackpadfs.ErrNotEmpty)
		}
		return []Op{Delete(StoreBlobs, key)}, e.remove(p)
	case src.Mode().IsDir():
		return nil, e.putDir(p, meta{mode: src.Mode(), modTime: src.ModTime()})
	default:
		m := meta{mode: src.Mode(), modTime: src.ModTime(), size: int64(data.Len())}
		return []Op{Put(StoreBlobs, key, data.Bytes())}, e.putFile(p, m)
	}
}

// kvTxn is a keyvalue.Transaction that runs its gets as one Read and its
// sets as one Commit. keyvalue never needs a get's result before issuing
// the next op, so nothing is lost by deferring all of them to Commit.
type kvTxn struct {
	store   kvStore
	ops     []kvOp // indexed by OpID
	aborted bool
}

type kvOp struct {
	path string
	get  bool
	src  keyvalue.FileRecord // what a set stores
	data blob.Blob
	h    keyvalue.OpHandler
}

// queries returns what op reads: for a get, what record needs; for a set,
// the records it changes, and for a delete also the key range below the
// name, which a directory must still have empty.
func (op kvOp) queries() []Query {
	switch {
	case op.get:
		return fileQueries(op.path)
	case op.src == nil:
		return append(lookupQueries(op.path), GetPrefix(StoreFiles, childPrefix(op.path)))
	}
	return lookupQueries(op.path)
}

func (t *kvTxn) Get(p string) keyvalue.OpID { return t.GetHandler(p, nil) }

func (t *kvTxn) GetHandler(p string, h keyvalue.OpHandler) keyvalue.OpID {
	t.ops = append(t.ops, kvOp{path: p, get: true, h: h})
	return keyvalue.OpID(len(t.ops) - 1)
}

func (t *kvTxn) Set(p string, src keyvalue.FileRecord, data blob.Blob) keyvalue.OpID {
	return t.SetHandler(p, src, data, nil)
}

func (t *kvTxn) SetHandler(p string, src keyvalue.FileRecord, data blob.Blob, h keyvalue.OpHandler) keyvalue.OpID {
	t.ops = append(t.ops, kvOp{path: p, src: src, data: data, h: h})
	return keyvalue.OpID(len(t.ops) - 1)
}

// Commit runs the gets, then the sets, then calls the handlers with the
// results. A set rewrites its directory's record, so the sets read the
// records they change in the gets' transaction, and hold treeLock from
// that read to their commit.
func (t *kvTxn) Commit(ctx context.Context) ([]keyvalue.OpResult, error) {
	if t.aborted {
		return nil, context.Canceled
	}
	var qs []Query
	n := make([]int, len(t.ops)) // how many queries each op reads
	sets := false
	for i, op := range t.ops {
		q := op.queries()
		n[i] = len(q)
		qs = append(qs, q...)
		sets = sets || !op.get
	}
	read := make([][][]Record, len(t.ops)) // the results of each op's queries
	run := func(ctx context.Context) error {
		found, err := t.store.db.Read(ctx, qs...)
		if err != nil {
			return err
		}
		for i := range read {
			read[i], found = found[:n[i]], found[n[i]:]
		}
		if !sets {
			return nil
		}
		e := newEdits()
		var writes []Op
		for i, op := range t.ops {
			if op.get {
				continue
			}
			if err := e.seeAll(op.path, read[i]); err != nil {
				return err
			}
			var below []Record // what a delete finds under the name
			if op.src == nil {
				below = read[i][2]
			}
			blobs, err := set(e, op.path, op.src, op.data, below)
			if err != nil {
				return err
			}
			writes = append(writes, blobs...)
		}
		return t.store.db.Commit(ctx, append(e.ops(), writes...)...)
	}
	var err error
	if sets {
		err = t.store.db.Lock(ctx, treeLock, run)
	} else {
		err = run(ctx)
	}
	if err != nil {
		return nil, err
	}
	results := make([]keyvalue.OpResult, len(t.ops))
	for i, op := range t.ops {
		results[i].Op = keyvalue.OpID(i)
		if op.get {
			results[i].Record, results[i].Err = t.store.record(op.path, read[i])
		}
		if op.h != nil {
			if err := op.h.Handle(t, results[i]); err != nil && results[i].Err == nil {
				results[i].Err = err
			}
		}
	}
	return results, nil
}

// treeLock is the lock a write through the file system holds while it
// reads and rewrites a directory's record.
const treeLock = "skillfs-tree"

// Abort implements keyvalue.Transaction: nothing has been issued yet, so
// forgetting the ops is enough.
func (t *kvTxn) Abort() error {
	t.aborted = true
	return nil
}
