package vfs

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// The object stores of the skills database. All of them are created
// together at one schema version, so a commit may span any of them.
const (
	// StoreFiles holds file and directory metadata (mode, time, size,
	// generation) for the /skills tree, a record per directory listing
	// its files (dirrecord.go); see tree.go for the key layout.
	StoreFiles = "files"
	// StoreBlobs holds file contents, one record per file under its
	// path's key. Keeping them apart lets Stat and ReadDir skip the
	// bytes.
	StoreBlobs = "blobs"
	// The stores below belong to the registry and the resolver; vfs only
	// keeps their records.
	StoreMeta  = "meta"
	StoreState = "state"
	StorePins  = "pins"
	StoreStats = "stats"
	StoreAudit = "audit"
	// StoreVectors holds each skill's embedding by the host's embedder,
	// for routing's semantic stage.
	StoreVectors = "vectors"
)

// stores lists every object store, in creation order.
var stores = []string{StoreFiles, StoreBlobs, StoreMeta, StoreState, StorePins, StoreStats, StoreAudit, StoreVectors}

// Reasons carried by the errors of this package.
const (
	ReasonUnknownStore = "unknown-store"
	ReasonBadKey       = "bad-key"
	ReasonClosed       = "closed"
	ReasonReadOnly     = "read-only"
	ReasonOutsideView  = "outside-view"
	ReasonRoot         = "root"
	ReasonNotExist     = "not-exist"
	ReasonExist        = "exists"
	ReasonNotEmpty     = "not-empty"
	ReasonIsDir        = "is-dir"
	ReasonNotDir       = "not-dir"
	ReasonIntoItself   = "into-itself"
	ReasonBadTree      = "bad-tree"
	ReasonBadSlug      = "bad-slug"
	ReasonTooManyFiles = "too-many-files" // TooLarge: a directory past MaxDirFiles
	ReasonInjected     = "injected-fault"
	ReasonUnavailable  = "unavailable"
	ReasonOutsideScope = "outside-scope"
)

// Record is one keyed value of an object store.
type Record struct {
	Key   string
	Value []byte
}

// Query selects records of one store: the record whose key is Key, or, when
// Prefix is set, every record whose key starts with Key.
type Query struct {
	Store  string
	Key    string
	Prefix bool
}

// Get returns the Query for the record of store with key.
func Get(store, key string) Query { return Query{Store: store, Key: key} }

// GetPrefix returns the Query for every record of store whose key starts
// with prefix ("" selects the whole store).
func GetPrefix(store, prefix string) Query { return Query{Store: store, Key: prefix, Prefix: true} }

// OpKind says what an Op does.
type OpKind uint8

// The kinds of Op.
const (
	OpPut OpKind = iota + 1
	OpDelete
	OpDeletePrefix
)

// Op is one write of a commit.
type Op struct {
	Kind  OpKind
	Store string
	Key   string // the key, or the key prefix for OpDeletePrefix
	Value []byte // OpPut only
	// Ext, when set, is the value of an OpPut instead of Value, held
	// outside Go: IndexedDB stores a JavaScript buffer as it is.
	Ext external.Bytes
}

// value returns the value an OpPut stores, as Go bytes.
func (op Op) value() []byte {
	if op.Ext != nil {
		return op.Ext.Copy()
	}
	return op.Value
}

// Put returns the Op that sets the record of store at key to value.
func Put(store, key string, value []byte) Op {
	return Op{Kind: OpPut, Store: store, Key: key, Value: value}
}

// Delete returns the Op that deletes the record of store at key, if any.
func Delete(store, key string) Op { return Op{Kind: OpDelete, Store: store, Key: key} }

// DeletePrefix returns the Op that deletes every record of store whose key
// starts with prefix. It is one request however many records match.
func DeletePrefix(store, prefix string) Op {
	return Op{Kind: OpDeletePrefix, Store: store, Key: prefix}
}

// Backend is the storage under the skills file system and the registry.
//
// Commits are blind: a backend cannot read inside a write transaction
// (IndexedDB commits a transaction as soon as Go awaits anything), so
// read-modify-write sequences hold Lock around a Read and a Commit.
type Backend interface {
	// Read runs every query in one read transaction, so the results are a
	// consistent snapshot. Result i holds the records of query i, sorted
	// by key; a Get query yields zero or one record.
	Read(ctx context.Context, qs ...Query) ([][]Record, error)
	// Commit applies ops in order, all or nothing. It returns a
	// QuotaExceeded error when storage is full.
	Commit(ctx context.Context, ops ...Op) error
	// Lock runs fn while holding the lock called name, which excludes
	// every other holder of that name in any context of the origin that
	// uses the same database, and returns fn's error. Locks are not
	// reentrant: taking a held name again waits until ctx ends.
	Lock(ctx context.Context, name string, fn func(context.Context) error) error
	// Close releases the backend; later calls fail.
	Close() error
}

// CommitThen commits first and then the ops that rest returns, in that
// order, all or nothing: when rest fails, nothing is committed and its
// error is returned. stores names every store the commit may write, rest's
// ops included; an op outside them fails it whole. A ThenCommitter
// (IndexedDB) writes first while rest runs — an import's file contents
// while their digests are computed and its records built — holding only
// those stores, so rest must not read them through db: the read would wait
// for this very commit. Elsewhere it is rest, then Commit.
func CommitThen(ctx context.Context, db Backend, stores []string, first []Op, rest func() ([]Op, error)) error {
	if t, ok := db.(ThenCommitter); ok {
		return t.CommitThen(ctx, stores, first, rest)
	}
	if err := checkScope(first, stores); err != nil {
		return err
	}
	more, err := rest()
	if err != nil {
		return err
	}
	if err := checkScope(more, stores); err != nil {
		return err
	}
	return db.Commit(ctx, append(first[:len(first):len(first)], more...)...)
}

// ThenCommitter is a Backend that writes first while rest runs (see the
// function CommitThen). A wrapper of a Backend that has it implements it
// too, by calling the function, or its CommitThen is rest, then Commit.
type ThenCommitter interface {
	CommitThen(ctx context.Context, stores []string, first []Op, rest func() ([]Op, error)) error
}

// checkScope reports an op of ops that writes none of stores.
func checkScope(ops []Op, stores []string) error {
	for _, op := range ops {
		if !slices.Contains(stores, op.Store) {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonOutsideScope, Subject: op.Store,
				Msg: "the commit writes a store it did not name"}
		}
	}
	return nil
}

// Reopener is a Backend that can close its database and open it again by
// name, as a new page would. Tests use it to check what was persisted.
type Reopener interface {
	Backend
	Reopen(ctx context.Context) (Backend, error)
}

// checkQuery reports whether q names a known store and a usable key.
func checkQuery(store, key string) error {
	if !slices.Contains(stores, store) {
		return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonUnknownStore, Subject: store,
			Msg: "no such object store"}
	}
	// Keys cross into JavaScript as UTF-16: invalid UTF-8 would be
	// replaced (two keys becoming one), and prefix ranges end at U+FFFF.
	if !utf8.ValidString(key) || strings.ContainsRune(key, '\uffff') {
		return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonBadKey, Subject: key,
			Msg: "keys must be valid UTF-8 without U+FFFF"}
	}
	return nil
}

// checkOps validates ops before a backend starts a transaction.
func checkOps(ops []Op) error {
	for i, op := range ops {
		pace.StepAt(i) // an import's commit holds thousands
		if op.Kind < OpPut || op.Kind > OpDeletePrefix {
			return skillerr.New(skillerr.InvalidArgument, op.Key, "unknown op kind %d", op.Kind)
		}
		if err := checkQuery(op.Store, op.Key); err != nil {
			return err
		}
	}
	return nil
}

// checkQueries validates qs before a backend starts a transaction.
func checkQueries(qs []Query) error {
	for _, q := range qs {
		if err := checkQuery(q.Store, q.Key); err != nil {
			return err
		}
	}
	return nil
}

func errClosed(subject string) error {
	return &skillerr.Error{Code: skillerr.Internal, Reason: ReasonClosed, Subject: subject,
		Msg: "the skills database is closed"}
}

// ctxErr maps a context's end to the Timeout code.
func ctxErr(subject string, err error) error {
	return skillerr.Wrap(skillerr.Timeout, subject, err, "storage operation did not finish in time")
}
