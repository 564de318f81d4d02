//go:build js && wasm

package vfs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"syscall/js"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

var testBackends = []backendCase{{"memory", openMemory}, {"indexeddb", openIndexedDB}}

func openMemory(testing.TB) Backend { return NewMemory() }

var dbCount atomic.Int64

// openIndexedDB opens a database no other test uses; the browser profile
// is fresh for every run.
func openIndexedDB(tb testing.TB) Backend {
	return openIndexedDBNamed(tb, uniqueName())
}

// uniqueName returns a database name unused in this browser profile, even
// when -count reruns the tests in it.
func uniqueName() string {
	return fmt.Sprintf("skillfs-test-%d-%d", time.Now().UnixNano(), dbCount.Add(1))
}

func openIndexedDBNamed(tb testing.TB, name string) *IndexedDB {
	db, err := OpenIndexedDB(context.Background(), name)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// TestQuotaExceededMapping feeds real DOMExceptions, made by the browser,
// to the mapping a failed commit goes through.
func TestQuotaExceededMapping(t *testing.T) {
	newDOMException := func(name string) error {
		return domError{js.Global().Get("DOMException").New("test", name)}
	}
	err := idbErr("IndexedDB x", newDOMException("QuotaExceededError"))
	wantCode(t, "QuotaExceededError", err, skillerr.QuotaExceeded, "")
	for _, other := range []error{newDOMException("AbortError"), newDOMException("ConstraintError"), domError{js.Null()}} {
		wantCode(t, other.Error(), idbErr("IndexedDB x", other), skillerr.Internal, "")
	}
	wantCode(t, "deadline", idbErr("IndexedDB x", context.DeadlineExceeded), skillerr.Timeout, "")

	// A JavaScript exception thrown while issuing requests takes the same path.
	thrower := js.Global().Get("Function").New(`throw new DOMException("full", "QuotaExceededError")`)
	err = catch(func() { thrower.Invoke() })
	wantCode(t, "thrown", idbErr("IndexedDB x", err), skillerr.QuotaExceeded, "")
}

// TestIndexedDBHandles checks what two contexts of one origin see: two
// handles on one database share commits, and their Web Locks exclude each
// other, while another database's lock of the same name is independent.
func TestIndexedDBHandles(t *testing.T) {
	ctx := context.Background()
	name := uniqueName()
	a := openIndexedDBNamed(t, name)
	b := openIndexedDBNamed(t, name)
	other := openIndexedDBNamed(t, uniqueName())
	if err := a.Commit(ctx, Put(StoreState, "rev", []byte("7"))); err != nil {
		t.Fatal(err)
	}
	if res, err := b.Read(ctx, Get(StoreState, "rev")); err != nil || len(res[0]) != 1 || string(res[0][0].Value) != "7" {
		t.Fatalf("second handle reads %v, %v", res, err)
	}

	held := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.Lock(ctx, "registry", func(context.Context) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	err := b.Lock(wctx, "registry", func(context.Context) error {
		t.Error("second handle took a held lock")
		return nil
	})
	cancel()
	wantCode(t, "second handle", err, skillerr.Timeout, "")
	if err := other.Lock(ctx, "registry", func(context.Context) error { return nil }); err != nil {
		t.Errorf("another database's lock: %v", err)
	}
	got := make(chan time.Time, 1)
	go b.Lock(ctx, "registry", func(context.Context) error {
		got <- time.Now()
		return nil
	})
	time.Sleep(20 * time.Millisecond)
	released := time.Now()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if at := <-got; at.Before(released) {
		t.Error("second handle ran before the first released the lock")
	}
}

// TestVersionChangeCloses checks that an open handle does not block
// another context that upgrades the database: it closes, and says so.
func TestVersionChangeCloses(t *testing.T) {
	name := uniqueName()
	db := openIndexedDBNamed(t, name)
	req := js.Global().Get("indexedDB").Call("open", name, schemaVersion+1)
	ev, err := awaitEvents(context.Background(), req, nil, "success", "error", "blocked")
	if err != nil || ev != "success" {
		t.Fatalf("upgrade from another connection: %s, %v", ev, err)
	}
	req.Get("result").Call("close")
	// The handle closes on a goroutine of its own: read until it says so,
	// within a guard against one that never does.
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		_, err = db.Read(context.Background(), Get(StoreMeta, "x"))
		if err != nil || time.Since(start) > 30*time.Second {
			break
		}
	}
	wantCode(t, "read after versionchange", err, skillerr.Internal, ReasonClosed)
}

func TestStorageInBrowser(t *testing.T) {
	est, err := Estimate(context.Background())
	if err != nil || !est.Known || est.Quota <= 0 {
		t.Errorf("Estimate = %+v, %v", est, err)
	}
	ok, err := Persist(context.Background())
	if err != nil {
		t.Errorf("Persist: %v", err)
	}
	t.Logf("estimate %+v, persist granted: %v", est, ok)
}

// TestCanceledCommit checks that a commit whose context is already over
// either lands completely or not at all, and reports which.
func TestCanceledCommit(t *testing.T) {
	db := openIndexedDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ops, _ := PutSkill("pdf", "g", pdfTree)
	err := db.Commit(ctx, ops...)
	res, rerr := db.Read(context.Background(), GetPrefix(StoreFiles, ""))
	if rerr != nil {
		t.Fatal(rerr)
	}
	switch {
	case err == nil && len(res[0]) == 0:
		t.Error("commit reported success but wrote nothing")
	case err != nil && len(res[0]) != 0:
		t.Errorf("commit reported %v but wrote %d records", err, len(res[0]))
	case err != nil:
		wantCode(t, "canceled commit", err, skillerr.Timeout, "")
	}
	if !errors.Is(err, context.Canceled) && err != nil {
		t.Errorf("error %v does not wrap context.Canceled", err)
	}
}

// TestCommitInSlices: a commit too long for one task is issued in slices,
// letting the page's timers run while its requests are being issued, and
// stays one transaction: all of it lands, or, aborted after most of it
// was issued, none.
func TestCommitInSlices(t *testing.T) {
	ctx := context.Background()
	db := openIndexedDB(t)
	value := make([]byte, 1<<10)
	ops := make([]Op, 3_000)
	for i := range ops {
		ops[i] = Put(StoreBlobs, fmt.Sprintf("k//%05d", i), value)
	}
	// Count the puts issued, and what the timer sees of them.
	proto := js.Global().Get("IDBObjectStore").Get("prototype")
	put := proto.Get("put")
	issued := 0
	counting := js.FuncOf(func(this js.Value, args []js.Value) any {
		issued++
		return put.Call("call", this, args[0], args[1])
	})
	proto.Set("put", counting)
	defer func() {
		proto.Set("put", put)
		counting.Release()
	}()
	var seen []int
	var tick js.Func
	on := true
	tick = js.FuncOf(func(js.Value, []js.Value) any {
		seen = append(seen, issued)
		if on {
			js.Global().Call("setTimeout", tick, 0)
		}
		return nil
	})
	defer tick.Release()

	err := db.Commit(FailAfter(ctx, len(ops)-1), ops...)
	wantCode(t, "aborted commit", err, skillerr.Internal, ReasonInjected)
	if got, err := db.Read(ctx, GetPrefix(StoreBlobs, "")); err != nil || len(got[0]) != 0 {
		t.Fatalf("after an aborted commit: %d records, %v", len(got[0]), err)
	}

	issued = 0
	js.Global().Call("setTimeout", tick, 0)
	err = db.Commit(ctx, ops...)
	on = false
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(seen, func(n int) bool { return n > 0 && n < len(ops) }) {
		t.Errorf("the page's timer never ran while the requests were issued: it saw %v of %d", seen, len(ops))
	}
	if got, err := db.Read(ctx, GetPrefix(StoreBlobs, "")); err != nil || len(got[0]) != len(ops) {
		t.Fatalf("after the commit: %d records of %d, %v", len(got[0]), len(ops), err)
	}
}

// TestForeignValues puts values that are not bytes beside good records, as
// another program sharing the database could: a prefix read reports them
// with a code, whichever record they are.
func TestForeignValues(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		value js.Value
	}{
		{"a string", js.ValueOf("text")},
		{"a Uint16Array", js.Global().Get("Uint16Array").New(2)},
		{"an ArrayBuffer", js.Global().Get("ArrayBuffer").New(2)},
	} {
		db := openIndexedDB(t).(*IndexedDB)
		if err := db.Commit(ctx, Put(StoreMeta, "a", []byte("x")), Put(StoreMeta, "c", []byte("yz"))); err != nil {
			t.Fatal(err)
		}
		tx := db.db.Call("transaction", StoreMeta, "readwrite")
		tx.Call("objectStore", StoreMeta).Call("put", tc.value, "b")
		if err := awaitTx(ctx, tx, nil); err != nil {
			t.Fatal(err)
		}
		_, err := db.Read(ctx, GetPrefix(StoreMeta, ""))
		wantCode(t, tc.name, err, skillerr.Internal, "")
		if res, err := db.Read(ctx, GetPrefix(StoreMeta, "c")); err != nil || len(res[0]) != 1 || string(res[0][0].Value) != "yz" {
			t.Errorf("%s: the good record reads %v, %v", tc.name, res, err)
		}
	}
}

// TestForeignKeys puts a key holding a lone surrogate, which no Go string
// spells, as another program could: in UTF-8 it would read as U+FFFD, a
// key other than the one stored (listed as "\uFFFD", moved by a rename to
// that key). A prefix read reports it, and U+FFFF, which no key written
// here holds; a surrogate pair reads as itself.
func TestForeignKeys(t *testing.T) {
	ctx := context.Background()
	db := openIndexedDB(t).(*IndexedDB)
	put := js.Global().Get("Function").New("db", "key", `const tx = db.transaction("meta", "readwrite");
		tx.objectStore("meta").put(new Uint8Array([1]), key);
		return tx;`)
	for _, tc := range []struct {
		name string
		key  js.Value
		ok   bool
	}{
		{"a surrogate pair", js.ValueOf("p-\U0001F600"), true},
		{"a lone surrogate", js.Global().Get("String").Call("fromCharCode", 'l', '-', 0xD800), false},
		// The last key of the prefix range "u-", which no key written
		// here holds (checkQuery).
		{"U+FFFF", js.ValueOf("u-\uffff"), false},
	} {
		if err := awaitTx(ctx, put.Invoke(db.db, tc.key), nil); err != nil {
			t.Fatal(err)
		}
		res, err := db.Read(ctx, GetPrefix(StoreMeta, tc.key.String()[:2]))
		if tc.ok {
			if err != nil || len(res[0]) != 1 || res[0][0].Key != tc.key.String() {
				t.Errorf("%s: %v, %v", tc.name, res, err)
			}
			continue
		}
		wantCode(t, tc.name, err, skillerr.Internal, "")
	}
}

// TestCommitThenFailsMeanwhile: IndexedDB aborts a CommitThen's
// transaction while rest runs — a request of the first part fails (as a
// write over quota does), the request that keeps the transaction open
// throws, or fails — and the commit reports the failure, with nothing
// stored, once rest is done.
func TestCommitThenFailsMeanwhile(t *testing.T) {
	ctx := context.Background()
	proto := js.Global().Get("IDBObjectStore").Get("prototype")
	for _, tc := range []struct {
		name, method, patch, want string
	}{
		// A put of the key "taken" is an add, which fails: it is stored.
		{"write", "put", `if (k === "taken") { const r = this.add(v, k); r.addEventListener("error", () => globalThis.skillfsTestFailed = true); return r; }
			return orig.call(this, v, k);`, "ConstraintError"},
		{"keep-alive throws", "count", `globalThis.skillfsTestFailed = true; throw new DOMException("test", "UnknownError");`, "UnknownError"},
		{"keep-alive fails", "count", `const r = this.add(new Uint8Array(1), "taken"); r.addEventListener("error", () => globalThis.skillfsTestFailed = true); return r;`, "ConstraintError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openIndexedDB(t)
			if err := db.Commit(ctx, Put(StoreFiles, "taken", []byte("f")), Put(StoreBlobs, "taken", []byte("b"))); err != nil {
				t.Fatal(err)
			}
			before := dump(t, db)
			orig := proto.Get(tc.method)
			patched := js.Global().Get("Function").New("orig", "return function (v, k) { "+tc.patch+" }").Invoke(orig)
			js.Global().Set("skillfsTestFailed", false)
			proto.Set(tc.method, patched)
			defer proto.Set(tc.method, orig)

			first := []Op{Put(StoreBlobs, "a/x", []byte("x")), Put(StoreBlobs, "taken", []byte("new"))}
			err := CommitThen(ctx, db, stores, first, func() ([]Op, error) {
				for start := time.Now(); !js.Global().Get("skillfsTestFailed").Bool(); time.Sleep(time.Millisecond) {
					if time.Since(start) > 30*time.Second {
						return nil, errors.New("the failure never came")
					}
				}
				return []Op{Put(StoreMeta, "a", []byte("{}")), Put(StoreState, "rev", []byte("1"))}, nil
			})
			proto.Set(tc.method, orig)
			wantCode(t, tc.name, err, skillerr.Internal, "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v does not name %s", err, tc.want)
			}
			if !sameDump(before, dump(t, db)) {
				t.Error("a failed commit changed the store")
			}
		})
	}
}

// TestCommitThrows: an exception thrown by the call that issues a commit's
// requests is reported with a code, by Commit and by CommitThen, and
// stores nothing.
func TestCommitThrows(t *testing.T) {
	ctx := context.Background()
	db := openIndexedDB(t)
	proto := js.Global().Get("IDBTransaction").Get("prototype")
	orig := proto.Get("objectStore")
	proto.Set("objectStore", js.Global().Get("Function").New(`throw new DOMException("test", "QuotaExceededError")`))
	defer proto.Set("objectStore", orig)
	ops := []Op{Put(StoreBlobs, "a/x", []byte("x"))}
	err := db.Commit(ctx, ops...)
	wantCode(t, "Commit", err, skillerr.QuotaExceeded, "")
	ran := false
	err = CommitThen(ctx, db, stores, ops, func() ([]Op, error) {
		ran = true
		return nil, nil
	})
	wantCode(t, "CommitThen", err, skillerr.QuotaExceeded, "")
	if ran {
		t.Error("rest ran after the first part failed")
	}
	proto.Set("objectStore", orig)
	if got := dump(t, db); len(got[StoreBlobs]) != 0 {
		t.Errorf("a failed commit stored %v", got)
	}
}

// TestAdoptIndexedDB checks what the module does with the database the
// bridge opened while it compiled: it adopts one of its schema that is
// still open, and opens the database itself for anything else.
func TestAdoptIndexedDB(t *testing.T) {
	ctx := context.Background()
	// openJS opens name as the bridge does (no version) or at version,
	// creating store meta only, and resolves to the connection.
	openJS := js.Global().Get("Function").New("name", "version", `return new Promise((ok, fail) => {
		const r = version ? indexedDB.open(name, version) : indexedDB.open(name);
		r.onupgradeneeded = () => r.result.createObjectStore("meta");
		r.onsuccess = () => ok(r.result);
		r.onerror = () => fail(r.error);
	})`)
	resolved := func(v any) js.Value { return js.Global().Get("Promise").Call("resolve", v) }
	works := func(what string, d *IndexedDB) {
		t.Helper()
		t.Cleanup(func() { d.Close() })
		if err := d.Commit(ctx, Put(StoreVectors, "k", []byte(what))); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if res, err := d.Read(ctx, Get(StoreVectors, "k")); err != nil || string(res[0][0].Value) != what {
			t.Fatalf("%s: read %v, %v", what, res, err)
		}
	}
	adopt := func(what, name string, opening js.Value) *IndexedDB {
		t.Helper()
		d, err := AdoptIndexedDB(ctx, name, opening)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		works(what, d)
		return d
	}

	// Of this schema and open: the very connection is used.
	name := uniqueName()
	openIndexedDBNamed(t, name).Close()
	conn, err := awaitPromise(ctx, "test", openJS.Invoke(name, js.Undefined()))
	if err != nil {
		t.Fatal(err)
	}
	if d := adopt("current", name, resolved(conn)); !d.db.Equal(conn) {
		t.Error("a connection of the current schema was not adopted")
	}

	// Closed meanwhile (another context asked for a schema change): a new one.
	conn, _ = awaitPromise(ctx, "test", openJS.Invoke(name, js.Undefined()))
	conn.Call("close")
	if d := adopt("closed", name, resolved(conn)); d.db.Equal(conn) {
		t.Error("a closed connection was adopted")
	}

	// An older schema: closed, and the database upgraded.
	old := uniqueName()
	conn, err = awaitPromise(ctx, "test", openJS.Invoke(old, 1))
	if err != nil {
		t.Fatal(err)
	}
	if d := adopt("older", old, resolved(conn)); d.db.Equal(conn) || d.db.Get("version").Int() != schemaVersion {
		t.Errorf("an older schema's connection: adopted %v, version %v", d.db.Equal(conn), d.db.Get("version"))
	}

	// Nothing opened (a new database), or no promise at all.
	adopt("null", uniqueName(), resolved(js.Null()))
	adopt("undefined", uniqueName(), js.Undefined())

	// A bridge whose open never answers: the start's deadline still holds.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	never := js.Global().Get("Promise").New(js.FuncOf(func(js.Value, []js.Value) any { return nil }))
	if _, err := AdoptIndexedDB(short, uniqueName(), never); skillerr.CodeOf(err) != skillerr.Timeout {
		t.Errorf("an open that never answers: %v, want Timeout", err)
	}
}

// TestReadInChunks: a prefix read of more records than one request asks
// for (readChunk in js/outside.ts, 512) takes several, each issued from
// the reply to the last, so that no reply of thousands is read in one
// task of the host; every record comes once, in order, and the records
// just past the prefix and the other queries' are not mixed in.
func TestReadInChunks(t *testing.T) {
	ctx := context.Background()
	db := openIndexedDB(t).(*IndexedDB)
	const n = 2*512 + 7
	ops := []Op{Put(StoreMeta, "k", []byte("the prefix itself")), Put(StoreMeta, "l", []byte("past it"))}
	for i := range n - 1 {
		ops = append(ops, Put(StoreMeta, fmt.Sprintf("k%05d", i), []byte(fmt.Sprint(i))))
	}
	if err := db.Commit(ctx, ops...); err != nil {
		t.Fatal(err)
	}
	counter := js.Global().Call("eval", `(() => {
		const p = IDBObjectStore.prototype, getAll = p.getAll;
		let n = 0;
		p.getAll = function (...a) { n++; return getAll.apply(this, a); };
		return { count: () => n, restore: () => { p.getAll = getAll; } };
	})()`)
	res, err := db.Read(ctx, GetPrefix(StoreMeta, "k"), Get(StoreMeta, "l"), GetPrefix(StoreMeta, "l"))
	calls := counter.Call("count").Int()
	counter.Call("restore")
	if err != nil {
		t.Fatal(err)
	}
	if want := n/512 + 1 + 1; calls != want {
		t.Errorf("%d records read in %d requests, want %d (and one for the other prefix)", n, calls, want)
	}
	got := res[0]
	if len(got) != n || got[0].Key != "k" || string(got[0].Value) != "the prefix itself" {
		t.Fatalf("%d records, the first %v; want %d, k", len(got), got[:min(len(got), 1)], n)
	}
	for i, rec := range got[1:] {
		if want := fmt.Sprintf("k%05d", i); rec.Key != want || string(rec.Value) != fmt.Sprint(i) {
			t.Fatalf("record %d: %s=%q, want %s", i+1, rec.Key, rec.Value, want)
		}
	}
	if len(res[1]) != 1 || len(res[2]) != 1 || string(res[2][0].Value) != "past it" {
		t.Errorf("the other queries: %v, %v", res[1], res[2])
	}
}

// TestReadInChunksIsOneSnapshot: a prefix read of several chunks is one
// transaction, kept active from each reply to the next request: a write
// from another connection (another context's), issued between two
// chunks, is applied after the read, which gives every record as before
// it.
func TestReadInChunksIsOneSnapshot(t *testing.T) {
	ctx := context.Background()
	name := uniqueName()
	db, other := openIndexedDBNamed(t, name), openIndexedDBNamed(t, name)
	const n = 2*512 + 7
	ops := make([]Op, n)
	for i := range ops {
		ops[i] = Put(StoreMeta, fmt.Sprintf("k%05d", i), []byte("old"))
	}
	if err := db.Commit(ctx, ops...); err != nil {
		t.Fatal(err)
	}
	// When the second chunk is asked for, the other connection's
	// transaction puts "new" under every key, and its end is awaited.
	hook := js.Global().Call("eval", `(db, store, n) => {
		const p = IDBObjectStore.prototype, getAll = p.getAll;
		let calls = 0, resolve;
		const written = new Promise((r) => (resolve = r));
		p.getAll = function (...a) {
			if (++calls === 2) {
				const tx = db.transaction([store], "readwrite");
				for (let i = 0; i < n; i++) tx.objectStore(store).put(new TextEncoder().encode("new"), "k" + String(i).padStart(5, "0"));
				tx.oncomplete = () => resolve("complete");
				tx.onabort = () => resolve("abort");
			}
			return getAll.apply(this, a);
		};
		return { written, restore: () => { p.getAll = getAll; } };
	}`).Invoke(other.db, StoreMeta, n)
	res, err := db.Read(ctx, GetPrefix(StoreMeta, "k"))
	hook.Call("restore")
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := awaitPromise(ctx, "the write", hook.Get("written")); err != nil || ev.String() != "complete" {
		t.Fatalf("the other connection's write: %v, %v", ev, err)
	}
	count := func(recs []Record) map[string]int {
		c := map[string]int{}
		for _, rec := range recs {
			c[string(rec.Value)]++
		}
		return c
	}
	if got := count(res[0]); got["old"] != n {
		t.Errorf("the read across the write gave %v, want %d old", got, n)
	}
	after, err := db.Read(ctx, GetPrefix(StoreMeta, "k"))
	if err != nil {
		t.Fatal(err)
	}
	if got := count(after[0]); got["new"] != n {
		t.Errorf("the read after the write gave %v, want %d new", got, n)
	}
}

// TestUpgradeFromSchema2: a database that a module of schema version 2
// wrote (a record per file) opens at this version with every file as it
// was.
func TestUpgradeFromSchema2(t *testing.T) {
	ctx := context.Background()
	name := uniqueName()
	openV2 := js.Global().Get("Function").New("name", "stores", `return new Promise((ok, fail) => {
		const r = indexedDB.open(name, 2);
		r.onupgradeneeded = () => { for (const s of stores) r.result.createObjectStore(s); };
		r.onsuccess = () => ok(r.result);
		r.onerror = () => fail(r.error);
	})`)
	names := make([]any, len(stores))
	for i, s := range stores {
		names[i] = s
	}
	conn, err := awaitPromise(ctx, "test", openV2.Invoke(name, js.ValueOf(names)))
	if err != nil {
		t.Fatal(err)
	}
	v2 := adopt(name, conn)
	putSchema2(t, v2, "old", "g1", pdfTree)
	v2.Close()

	db := openIndexedDBNamed(t, name)
	if v := db.db.Get("version").Int(); v != schemaVersion {
		t.Fatalf("version %d after the open, want %d", v, schemaVersion)
	}
	want := NewMemory()
	putSkills(t, want, "g1", map[string][]File{"old": pdfTree})
	if got, want := decoded(t, db, "old"), decoded(t, want, "old"); !slices.Equal(got, want) {
		t.Errorf("after the upgrade =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
