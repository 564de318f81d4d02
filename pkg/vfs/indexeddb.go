//go:build js && wasm

package vfs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall/js"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// schemaVersion is the IndexedDB version that creates every store in
// stores. Adding a store means adding it there and bumping this, as does
// a change of what a store holds that an older module would misread.
const schemaVersion = 3 // 2: StoreVectors; 3: directory records list their files (dirrecord.go)

// IndexedDB is a Backend on one IndexedDB database of the page's origin.
//
// It talks to IndexedDB through syscall/js rather than go-indexeddb: that
// library (v0.3.2) has no getAll, does not expose the JavaScript objects a
// key range delete or getAll would need, and reports an explicit abort as
// success.
type IndexedDB struct {
	name string

	mu       sync.Mutex // guards db and onChange against Close
	db       js.Value
	onChange js.Func
}

var jsUint8Array = js.Global().Get("Uint8Array")

// OpenIndexedDB opens (creating or upgrading as needed) the database called
// name with every store of this package.
func OpenIndexedDB(ctx context.Context, name string) (*IndexedDB, error) {
	subject := "IndexedDB " + name
	factory := js.Global().Get("indexedDB")
	if !factory.Truthy() {
		return nil, &skillerr.Error{Code: skillerr.Internal, Reason: ReasonUnavailable, Subject: subject,
			Msg: "IndexedDB is not available in this context"}
	}
	var req js.Value
	if err := catch(func() { req = factory.Call("open", name, schemaVersion) }); err != nil {
		return nil, idbErr(subject, err)
	}
	upgrade := js.FuncOf(func(js.Value, []js.Value) any {
		db := req.Get("result")
		for _, s := range stores {
			if !db.Get("objectStoreNames").Call("contains", s).Bool() {
				db.Call("createObjectStore", s)
			}
		}
		return nil
	})
	req.Set("onupgradeneeded", upgrade)
	// "blocked" (another context holds an older version open) is not an
	// outcome: that context closes on versionchange, then success follows.
	ev, err := awaitEvents(ctx, req, nil, "success", "error")
	if err != nil {
		// An open cannot be cancelled: let it finish, upgrade included,
		// and close what it opens. Both functions stay allocated.
		req.Set("onsuccess", js.FuncOf(func(js.Value, []js.Value) any {
			req.Get("result").Call("close")
			return nil
		}))
		return nil, idbErr(subject, err)
	}
	upgrade.Release()
	if ev == "error" {
		return nil, idbErr(subject, domError{req.Get("error")})
	}
	return adopt(name, req.Get("result")), nil
}

// AdoptIndexedDB is OpenIndexedDB for a host that began to open the
// database while the module compiled (openEarly in js/bridge.ts):
// opening, a promise of that IDBDatabase or of null, is adopted when the
// database has this package's schema and is still open, and closed
// otherwise, in which case this opens the database itself.
func AdoptIndexedDB(ctx context.Context, name string, opening js.Value) (*IndexedDB, error) {
	if !opening.Truthy() {
		return OpenIndexedDB(ctx, name)
	}
	db, err := awaitPromise(ctx, "IndexedDB "+name, opening)
	if err != nil {
		closeLater := js.FuncOf(func(_ js.Value, args []js.Value) any {
			if args[0].Truthy() {
				args[0].Call("close")
			}
			return nil
		})
		opening.Call("then", closeLater) // it stays allocated, as the open does
		return nil, err
	}
	if !db.Truthy() {
		return OpenIndexedDB(ctx, name)
	}
	if hasSchema(db) {
		return adopt(name, db), nil
	}
	_ = catch(func() { db.Call("close") })
	return OpenIndexedDB(ctx, name)
}

// hasSchema reports whether db is open with every store of this version
// of the package: one opened by a newer version is not, and the open that
// follows refuses it as it refuses any newer database.
func hasSchema(db js.Value) bool {
	if db.Get("version").Int() != schemaVersion {
		return false
	}
	names := db.Get("objectStoreNames")
	for _, s := range stores {
		if !names.Call("contains", s).Bool() {
			return false
		}
	}
	// A transaction cannot begin on a closed connection, which is how
	// openEarly leaves one that another context asked to upgrade.
	return catch(func() { abort(db.Call("transaction", StoreMeta)) }) == nil
}

func adopt(name string, db js.Value) *IndexedDB {
	d := &IndexedDB{name: name, db: db}
	// Close when another context upgrades the schema, rather than block it.
	d.onChange = js.FuncOf(func(js.Value, []js.Value) any {
		go d.Close()
		return nil
	})
	d.db.Set("onversionchange", d.onChange)
	return d
}

// Read implements Backend: one readonly transaction, every request issued
// before the single await. A prefix query is getAllKeys and getAll over
// its key range, a few hundred records at a time (readRange in
// js/outside.ts): every skill's record, thousands, read in one reply
// held the host's thread for tens of milliseconds.
func (d *IndexedDB) Read(ctx context.Context, qs ...Query) ([][]Record, error) {
	if err := checkQueries(qs); err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, nil
	}
	tx, err := d.transaction(storesOf(qs, func(q Query) string { return q.Store }), "readonly")
	if err != nil {
		return nil, err
	}
	// A get's request, or what readRange gathers: {keys, values}.
	reqs := make([]js.Value, len(qs))
	err = catch(func() {
		for i, q := range qs {
			st := tx.Call("objectStore", q.Store)
			if q.Prefix {
				// The range is exact because no key contains U+FFFF
				// (checkQuery), and every other UTF-16 code unit sorts
				// below it.
				reqs[i] = external.Host().Call("readRange", st, q.Key, q.Key+"\uffff")
			} else {
				reqs[i] = st.Call("get", q.Key)
			}
		}
	})
	if err != nil {
		abort(tx)
		return nil, idbErr(d.subject(), err)
	}
	if err := awaitTx(ctx, tx, nil); err != nil {
		return nil, idbErr(d.subject(), err)
	}
	out := make([][]Record, len(qs))
	for i, q := range qs {
		if !q.Prefix {
			if values := reqs[i].Get("result"); !values.IsUndefined() {
				v, err := bytesOf(q.Key, values)
				if err != nil {
					return nil, err
				}
				out[i] = []Record{{Key: q.Key, Value: v}}
			}
			continue
		}
		if out[i], err = d.recordsOf(reqs[i].Get("keys"), reqs[i].Get("values")); err != nil {
			return nil, err
		}
		sortRecords(out[i])
	}
	return out, nil
}

// Commit implements Backend: one readwrite transaction, every request
// issued, then one await for complete or abort. IndexedDB undoes all of
// them on abort, which is what makes a commit atomic.
//
// The requests are issued by the import's JavaScript half (commit in
// js/outside.ts), described in one call: a request issued from Go costs
// several crossings into JavaScript and a finalizer in Go for each value
// it returns, which made most of a 9,000-file import's commit. It issues
// them in slices of a few milliseconds, still in one transaction.
func (d *IndexedDB) Commit(ctx context.Context, ops ...Op) error {
	return d.commit(ctx, ops, nil, nil)
}

// CommitThen implements ThenCommitter: the transaction spans stores,
// since the ops rest returns are not known when it opens, and is kept open
// by js/outside.ts until they are issued.
func (d *IndexedDB) CommitThen(ctx context.Context, stores []string, first []Op, rest func() ([]Op, error)) error {
	return d.commit(ctx, first, stores, rest)
}

func (d *IndexedDB) commit(ctx context.Context, ops []Op, scope []string, rest func() ([]Op, error)) error {
	if err := checkOps(ops); err != nil {
		return err
	}
	if len(ops) == 0 && rest == nil {
		return nil
	}
	if rest == nil {
		scope = storesOf(ops, func(op Op) string { return op.Store })
	} else if err := checkScope(ops, scope); err != nil {
		return err
	}
	p := newPlan(ops, scope)
	// The transaction commits once the task that opens it ends with no
	// request issued: it is opened and its first requests issued in one
	// task, which starts here if the plan took most of the last one.
	pace.Step()
	tx, err := d.transaction(scope, "readwrite")
	if err != nil {
		return err
	}
	// The FailAfter hook counts the ops of both parts.
	issue, fail := injectedFailure(ctx, len(ops))
	more := rest != nil && !(fail && issue < len(ops))
	var status js.Value
	err = catch(func() {
		status = external.Host().Call("commit", tx, p.stores, p.keys, p.ops, p.values.JS(), issue, fail && !more, more)
	})
	if err != nil {
		err = idbErr(d.subject(), err)
	}
	// Heard from now on, in this task, after commit's own listeners: the
	// transaction may end while rest runs.
	ended := listen(tx, "complete", "abort")
	if err == nil && more {
		issue, err = d.issueRest(ctx, status, scope, rest, len(ops))
	}
	if err != nil {
		abort(tx)
		_, _ = ended(context.WithoutCancel(ctx), nil)
		return err
	}
	err = awaitTx(ctx, tx, ended)
	switch {
	case !status.Get("error").IsUndefined():
		return idbErr(d.subject(), domError{status.Get("error")})
	case status.Get("aborted").Truthy():
		return errInjected(d.subject(), issue)
	case err != nil:
		return idbErr(d.subject(), err)
	}
	return nil
}

// issueRest runs rest while the first n ops are written and adds the ops
// it returns to the commit whose status commit in js/outside.ts returned.
// It returns how many ops of both parts the FailAfter hook lets through.
func (d *IndexedDB) issueRest(ctx context.Context, status js.Value, scope []string, rest func() ([]Op, error), n int) (int, error) {
	more, err := rest()
	if err != nil {
		return 0, err
	}
	if err := checkOps(more); err != nil {
		return 0, err
	}
	if err := checkScope(more, scope); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, idbErr(d.subject(), err)
	}
	p := newPlan(more, scope)
	issue, fail := injectedFailure(ctx, n+len(more))
	if err := catch(func() {
		status.Call("add", p.keys, p.ops, p.values.JS(), issue-n, fail, false)
	}); err != nil {
		return 0, idbErr(d.subject(), err)
	}
	return issue, nil
}

// plan is a commit described for commit in js/outside.ts.
type plan struct {
	stores js.Value
	keys   string        // joined by U+FFFF, which no key holds (checkQuery)
	ops    js.Value      // Int32Array: kind and index in stores, per op
	values external.Pack // each put's value; nothing for the others
}

func newPlan(ops []Op, stores []string) plan {
	names := make([]any, len(stores))
	for i, s := range stores {
		names[i] = s
	}
	var keys strings.Builder
	kinds := make([]int32, 0, 2*len(ops))
	values := make([]external.Bytes, len(ops))
	for i, op := range ops {
		pace.StepAt(i)
		if i > 0 {
			keys.WriteRune('\uffff')
		}
		keys.WriteString(op.Key)
		kinds = append(kinds, int32(op.Kind), int32(slices.Index(stores, op.Store)))
		switch {
		case op.Kind == OpPut && op.Ext != nil:
			values[i] = op.Ext
		case op.Kind == OpPut:
			values[i] = external.Go(op.Value)
		}
	}
	return plan{stores: js.ValueOf(names), keys: keys.String(), ops: external.Int32s(kinds), values: external.PackOf(values)}
}

// Lock implements Backend with the Web Locks API, which every context of
// the origin (tabs, workers, the extension's side panel) shares.
func (d *IndexedDB) Lock(ctx context.Context, name string, fn func(context.Context) error) error {
	return webLock(ctx, "skillfs/"+d.name+"/"+name, fn)
}

// Close implements Backend.
func (d *IndexedDB) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db.IsUndefined() {
		return nil
	}
	d.db.Call("close")
	d.db.Set("onversionchange", js.Null())
	d.onChange.Release()
	d.db = js.Undefined()
	return nil
}

// Reopen implements Reopener: it closes d and opens its database again.
func (d *IndexedDB) Reopen(ctx context.Context) (Backend, error) {
	d.Close()
	return OpenIndexedDB(ctx, d.name)
}

func (d *IndexedDB) subject() string { return "IndexedDB " + d.name }

// transaction starts a transaction over stores.
func (d *IndexedDB) transaction(stores []string, mode string) (js.Value, error) {
	d.mu.Lock()
	db := d.db
	d.mu.Unlock()
	if db.IsUndefined() {
		return js.Value{}, errClosed(d.subject())
	}
	names := make([]any, len(stores))
	for i, s := range stores {
		names[i] = s
	}
	var tx js.Value
	if err := catch(func() { tx = db.Call("transaction", names, mode) }); err != nil {
		return js.Value{}, idbErr(d.subject(), err)
	}
	return tx, nil
}

// recordsOf copies the results of a prefix query's getAllKeys and getAll
// into Go in one copy, which records in js/outside.ts lays out in one
// buffer: crossing into Go costs microseconds a call, and listing 1,000
// records spent more there, two calls a record, than IndexedDB took to
// read them. The values share that buffer (each capped at its end): a
// caller that keeps one keeps the whole read's. A read of contents peaks
// at three copies for a moment (getAll's values and the layout in
// JavaScript, Go's), against two before; Go holds one, as before.
func (d *IndexedDB) recordsOf(keys, values js.Value) ([]Record, error) {
	var laid js.Value
	if err := catch(func() { laid = external.Host().Call("records", keys, values) }); err != nil {
		return nil, idbErr(d.subject(), err)
	}
	switch laid.Type() {
	case js.TypeString:
		return nil, skillerr.New(skillerr.Internal, laid.String(), "stored value is not bytes")
	case js.TypeBoolean:
		return nil, skillerr.New(skillerr.Internal, d.subject(), "a stored key is not a string of Unicode characters")
	}
	buf := make([]byte, laid.Length())
	js.CopyBytesToGo(buf, laid)
	recs, ok := splitRecords(buf)
	if !ok {
		return nil, skillerr.New(skillerr.Internal, d.subject(), "the records read do not add up")
	}
	return recs, nil
}

// bytesOf copies a stored Uint8Array into Go.
func bytesOf(key string, v js.Value) ([]byte, error) {
	if !v.InstanceOf(jsUint8Array) {
		return nil, skillerr.New(skillerr.Internal, key, "stored value is not bytes")
	}
	b := make([]byte, v.Length())
	js.CopyBytesToGo(b, v)
	return b, nil
}

// awaitTx waits for tx to finish and returns its error if it aborted.
// When ctx ends first the transaction is aborted, unless it already
// finished, and its outcome is still awaited so that a caller never
// mistakes a committed transaction for a failed one. ended, when not nil,
// is listen's for tx's complete and abort events, begun earlier.
func awaitTx(ctx context.Context, tx js.Value, ended func(context.Context, func()) (string, error)) error {
	if ended == nil {
		ended = listen(tx, "complete", "abort")
	}
	canceled := false
	ev, _ := ended(ctx, func() {
		canceled = true
		abort(tx)
	})
	switch {
	case ev == "complete":
		return nil
	case canceled:
		return ctx.Err()
	}
	return domError{tx.Get("error")}
}

// awaitEvents waits until target fires one of events and returns its name.
// If ctx ends first, it calls cancel and goes on waiting, or without cancel
// returns ctx's error.
func awaitEvents(ctx context.Context, target js.Value, cancel func(), events ...string) (string, error) {
	return listen(target, events...)(ctx, cancel)
}

// listen starts listening for events on target and returns the wait for
// the first of them, as awaitEvents: an event fired before the wait
// begins is not missed. The wait is called once.
func listen(target js.Value, events ...string) func(ctx context.Context, cancel func()) (string, error) {
	fired := make(chan string, len(events))
	fns := make([]js.Func, len(events))
	for i, ev := range events {
		fns[i] = js.FuncOf(func(js.Value, []js.Value) any {
			fired <- ev
			return nil
		})
		target.Set("on"+ev, fns[i])
	}
	return func(ctx context.Context, cancel func()) (string, error) {
		defer func() {
			for i, ev := range events {
				target.Set("on"+ev, js.Null())
				fns[i].Release()
			}
		}()
		select {
		case ev := <-fired:
			return ev, nil
		case <-ctx.Done():
			if cancel == nil {
				return "", ctx.Err()
			}
			cancel()
			return <-fired, nil
		}
	}
}

func abort(tx js.Value) { _ = catch(func() { tx.Call("abort") }) }

// catch runs fn and returns a JavaScript exception it throws as a domError.
func catch(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			jsErr, ok := r.(js.Error)
			if !ok {
				panic(r)
			}
			err = domError{jsErr.Value}
		}
	}()
	fn()
	return nil
}

// domError is a DOMException (or null, for an abort nobody explained).
type domError struct{ v js.Value }

func (e domError) name() string {
	if e.v.Type() != js.TypeObject {
		return ""
	}
	return e.v.Get("name").String()
}

func (e domError) Error() string {
	if e.v.Type() != js.TypeObject {
		return "transaction aborted"
	}
	// Chromium's QuotaExceededError comes with an empty message.
	if msg := e.v.Get("message").String(); msg != "" {
		return fmt.Sprintf("%s: %s", e.name(), msg)
	}
	return e.name()
}

// idbErr maps an IndexedDB failure to a *skillerr.Error: a full disk to
// QuotaExceeded, a context's end to Timeout, anything else to Internal.
func idbErr(subject string, err error) error {
	var dom domError
	switch {
	case errors.As(err, &dom) && dom.name() == "QuotaExceededError":
		return skillerr.Wrap(skillerr.QuotaExceeded, subject, err,
			"the browser's storage quota for this site is used up; nothing was written")
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return ctxErr(subject, err)
	}
	return skillerr.Wrap(skillerr.Internal, subject, err, "IndexedDB request failed")
}

// storesOf returns the distinct stores ops or queries touch, which is the
// scope of the transaction that runs them.
func storesOf[T any](items []T, store func(T) string) []string {
	var names []string
	for _, it := range items {
		if s := store(it); !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	return names
}

// sortRecords orders records by key bytes, so both backends agree
// (IndexedDB orders by UTF-16 code units).
func sortRecords(recs []Record) {
	sort.Slice(recs, func(i, j int) bool { return recs[i].Key < recs[j].Key })
}
