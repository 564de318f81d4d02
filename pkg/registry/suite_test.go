package registry

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/skillerr/skillerrtest"
	"github.com/skillfs/skillfs/pkg/vfs"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// backendCase is a kind of database the suite runs against.
type backendCase struct {
	name string
	// open returns a fresh, empty database.
	open func(tb testing.TB) *testDB
	// again opens another handle on db's database, as another context
	// of the origin would.
	again func(tb testing.TB, db *testDB) vfs.Backend
	// join returns a new participant of db's change channel.
	join func(tb testing.TB, db *testDB) Bus
}

// testDB is a database under test.
type testDB struct {
	vfs.Reopener
	name string        // IndexedDB only
	ch   *LocalChannel // memory only
}

// CommitThen is the backend's own: IndexedDB writes first while rest runs.
func (d *testDB) CommitThen(ctx context.Context, stores []string, first []vfs.Op, rest func() ([]vfs.Op, error)) error {
	return vfs.CommitThen(ctx, d.Reopener, stores, first, rest)
}

var memoryCase = backendCase{
	name:  "memory",
	open:  func(testing.TB) *testDB { return &testDB{Reopener: vfs.NewMemory()} },
	again: func(_ testing.TB, db *testDB) vfs.Backend { return db.Reopener },
	join: func(_ testing.TB, db *testDB) Bus {
		if db.ch == nil {
			db.ch = NewLocalChannel()
		}
		return db.ch.Join()
	},
}

// TestSuite runs every registry test against every backend of the
// platform (testBackends): memory natively; memory and IndexedDB in the
// browser, with a fresh database per test.
func TestSuite(t *testing.T) {
	tests := []struct {
		name string
		fn   func(*testing.T, backendCase)
	}{
		{"ImportSingle", testImportSingle},
		{"ImportRootLayout", testImportRootLayout},
		{"ImportRename", testImportRename},
		{"ImportIdentical", testImportIdentical},
		{"ImportReplace", testImportReplace},
		{"ImportDeletesOnlyReplacedTrees", testImportDeletesOnlyReplacedTrees},
		{"ImportReadsKeptVersionsOnly", testImportReadsKeptVersionsOnly},
		{"Warm", testWarm},
		{"ImportFail", testImportFail},
		{"ImportInvalidPack", testImportInvalidPack},
		{"ImportRejects", testImportRejects},
		{"ImportFoldedConflicts", testImportFoldedConflicts},
		{"ImportSlugIDs", testImportSlugIDs},
		{"ImportNoncharacterEntry", testImportNoncharacterEntry},
		{"ImportUpdate", testImportUpdate},
		{"ImportFolder", testImportFolder},
		{"CheckDownloadFollows", testCheckDownloadFollows},
		{"UpdateKeptBeside", testUpdateKeptBeside},
		{"ImportTarGz", testImportTarGz},
		{"ImportStreamTooLarge", testImportStreamTooLarge},
		{"ImportOutside", testImportOutside},
		{"ImportPreview", testImportPreview},
		{"ImportChoose", testImportChoose},
		{"ImportInvalidSkills", testImportInvalidSkills},
		{"ImportManyInvalid", testImportManyInvalid},
		{"ImportBrokenNamed", testImportBrokenNamed},
		{"ImportBrokenDownload", testImportBrokenDownload},
		{"ImportSkipInvalid", testImportSkipInvalid},
		{"ImportUnmetDependencies", testImportUnmetDependencies},
		{"ImportLongNames", testImportLongNames},
		{"ImportBrokenKinds", testImportBrokenKinds},
		{"ImportCanceled", testImportCanceled},
		{"ImportMixed", testImportMixed},
		{"Quota", testQuota},
		{"ImportEstimateEnds", testImportEstimateEnds},
		{"Enable", testEnable},
		{"Remove", testRemove},
		{"RemoveStoredID", testRemoveStoredID},
		{"CorruptTree", testCorruptTree},
		{"TooManyFilesCode", testTooManyFilesCode},
		{"EnableMany", testEnableMany},
		{"RemoveMany", testRemoveMany},
		{"Instance", testInstance},
		{"Export", testExport},
		{"Files", testFiles},
		{"Rename", testRename},
		{"EditSkillMD", testEditSkillMD},
		{"EditedExportRoundTrip", testEditedExportRoundTrip},
		{"EditedSkillStaysImportable", testEditedSkillStaysImportable},
		{"Dependencies", testDependencies},
		{"Closure", testClosure},
		{"RemoveDependents", testRemoveDependents},
		{"DisableDependents", testDisableDependents},
		{"Cache", testCache},
		{"CacheInterleavings", testCacheInterleavings},
		{"EditStaleCache", testEditStaleCache},
		{"UnheardChange", testUnheardChange},
		{"DependencyDisabled", testDependencyDisabled},
		{"DependencyDisabledBounds", testDependencyDisabledBounds},
		{"DisabledNoteKept", testDisabledNoteKept},
		{"ImportDisabledDependency", testImportDisabledDependency},
		{"PreviewNotes", testPreviewNotes},
		{"TwoContexts", testTwoContexts},
		{"ConcurrentImports", testConcurrentImports},
		{"ConcurrentEdits", testConcurrentEdits},
		{"EditRacesRemove", testEditRacesRemove},
		{"Faults", testFaults},
	}
	for _, bc := range testBackends {
		t.Run(bc.name, func(t *testing.T) {
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) { tc.fn(t, bc) })
			}
		})
	}
}

// t0 is the test clock's first reading.
var t0 = time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC)

// clock is a settable Options.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// env is a registry under test on a fresh database.
type env struct {
	bc    backendCase
	db    *testDB
	reg   *Registry
	clock *clock
	// changes are the changes reg's subscribers heard.
	mu      sync.Mutex
	changes []Change
}

func newEnv(t testing.TB, bc backendCase, opts ...func(*Options)) *env {
	t.Helper()
	e := &env{bc: bc, db: bc.open(t), clock: &clock{now: t0}}
	o := Options{Now: e.clock.Now}
	for _, f := range opts {
		f(&o)
	}
	e.reg = openReg(t, e.db, o)
	e.reg.Subscribe(func(c Change) {
		e.mu.Lock()
		e.changes = append(e.changes, c)
		e.mu.Unlock()
	})
	return e
}

func openReg(t testing.TB, db vfs.Backend, opts Options) *Registry {
	t.Helper()
	r, err := Open(context.Background(), db, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// lastChange returns the last change heard.
func (e *env) lastChange(t testing.TB) Change {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.changes) == 0 {
		t.Fatal("no change was published")
	}
	return e.changes[len(e.changes)-1]
}

// reopen closes e's database and opens it again, as a new page would.
func (e *env) reopen(t testing.TB) {
	t.Helper()
	db, err := e.db.Reopen(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e.db.Reopener = db.(vfs.Reopener)
}

func (e *env) importZip(t testing.TB, data []byte, opts ImportOptions) *ImportResult {
	t.Helper()
	res, err := e.reg.Import(context.Background(), data, opts)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	return res
}

// file is a file of a test archive.
type file struct{ path, data string }

// zipOf returns a deterministic archive of files under prefix.
func zipOf(t testing.TB, prefix string, files ...file) []byte {
	t.Helper()
	zf := make([]zipguard.File, len(files))
	for i, f := range files {
		zf[i] = zipguard.File{Path: f.path, Data: []byte(f.data), Mode: 0o644}
		if strings.HasSuffix(f.path, ".sh") {
			zf[i].Mode = 0o755
		}
	}
	var buf bytes.Buffer
	if err := zipguard.Write(&buf, zf, prefix); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawZipOf returns an archive of files with their names as given,
// unchecked, as a hostile archiver could write them.
func rawZipOf(t testing.TB, files ...file) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.Create(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// mdOf returns a SKILL.md named name with extra frontmatter lines.
func mdOf(name, description string, extra ...string) string {
	fm := "---\nname: " + name + "\ndescription: " + description + "\n"
	for _, x := range extra {
		fm += x + "\n"
	}
	return fm + "---\n# " + name + "\n\nDo the " + name + " thing.\n"
}

// skillFiles returns the files of a small skill, under dir ("" for none).
func skillFiles(dir, name string, extra ...string) []file {
	if dir != "" {
		dir += "/"
	}
	return []file{
		{dir + "SKILL.md", mdOf(name, "Handles "+name+" tasks.", extra...)},
		{dir + "scripts/run.sh", "#!/bin/sh\necho " + name + "\n"},
		{dir + "references/deep/notes.md", "Notes about " + name + ".\n"},
	}
}

// packOf returns an archive of the small skills names, in a wrapper.
func packOf(t testing.TB, names ...string) []byte {
	t.Helper()
	var files []file
	for _, n := range names {
		files = append(files, skillFiles(n, n)...)
	}
	return zipOf(t, "repo-main/skills", files...)
}

// allStores lists every store of the database, for dumps.
var allStores = []string{vfs.StoreFiles, vfs.StoreBlobs, vfs.StoreMeta, vfs.StoreState, vfs.StorePins, vfs.StoreStats, vfs.StoreAudit, vfs.StoreVectors}

// dump returns every record of every store.
func dump(t testing.TB, db vfs.Backend) map[string]map[string][]byte {
	t.Helper()
	qs := make([]vfs.Query, len(allStores))
	for i, s := range allStores {
		qs[i] = vfs.GetPrefix(s, "")
	}
	res, err := db.Read(context.Background(), qs...)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]map[string][]byte)
	for i, s := range allStores {
		out[s] = make(map[string][]byte)
		for _, r := range res[i] {
			out[s][r.Key] = r.Value
		}
	}
	return out
}

func sameDump(a, b map[string]map[string][]byte) bool {
	return maps.EqualFunc(a, b, func(x, y map[string][]byte) bool { return maps.EqualFunc(x, y, bytes.Equal) })
}

// wantErr checks an error's code and reason; see skillerrtest.Want.
var wantErr = skillerrtest.Want

// jsonOf returns v as JSON, to compare values with times in them.
func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ids(metas []Meta) []string {
	out := make([]string, len(metas))
	for i, m := range metas {
		out[i] = m.ID
	}
	return out
}

// mustList lists r's skills, and checks that ListJSON, called first so
// that List decodes what it cached, says the same.
func mustList(t testing.TB, r *Registry) []Meta {
	t.Helper()
	raw, err := r.ListJSON(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	list, err := r.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.Marshal(list); !bytes.Equal(raw, want) {
		t.Errorf("ListJSON and List differ:\n%s\n%s", raw, want)
	}
	return list
}

func mustGet(t testing.TB, r *Registry, id string) Meta {
	t.Helper()
	m, err := r.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustRevision(t testing.TB, r *Registry) int64 {
	t.Helper()
	rev, err := r.Revision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// readGen reads /skills/<p> through the registry's FS.
func readGen(t testing.TB, r *Registry, p string) (string, string) {
	t.Helper()
	data, gen, err := r.FS().ReadFileGen(p)
	if err != nil {
		t.Fatalf("ReadFileGen(%s): %v", p, err)
	}
	return string(data), gen
}

// checkGenerations fails unless every file of skill m carries m.Digest.
func checkGenerations(t testing.TB, r *Registry, m Meta) {
	t.Helper()
	entries, err := r.Tree(context.Background(), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, e := range entries {
		if e.IsDir {
			continue
		}
		files++
		if _, gen := readGen(t, r, m.ID+"/"+e.Path); gen != m.Digest {
			t.Errorf("%s/%s: generation %q, want the digest %q", m.ID, e.Path, gen, m.Digest)
		}
	}
	if files != m.FileCount {
		t.Errorf("%s: the tree has %d files, the record says %d", m.ID, files, m.FileCount)
	}
}

// countingDB counts the requests a registry makes.
type countingDB struct {
	vfs.Backend
	reads, commits, lastOps atomic.Int64
	// metaScans counts the reads of every skill's record.
	metaScans atomic.Int64
	lastRead  atomic.Pointer[[]vfs.Query]
	// lastCommit is the last commit's ops, when recordOps is set.
	recordOps  bool
	lastCommit []vfs.Op
}

func (c *countingDB) Read(ctx context.Context, qs ...vfs.Query) ([][]vfs.Record, error) {
	c.reads.Add(1)
	if slices.Contains(qs, allMeta) {
		c.metaScans.Add(1)
	}
	c.lastRead.Store(&qs)
	return c.Backend.Read(ctx, qs...)
}

func (c *countingDB) Commit(ctx context.Context, ops ...vfs.Op) error {
	c.commits.Add(1)
	c.lastOps.Store(int64(len(ops)))
	if c.recordOps {
		c.lastCommit = slices.Clone(ops)
	}
	return c.Backend.Commit(ctx, ops...)
}

// CommitThen counts one commit of both parts, and is the backend's own.
func (c *countingDB) CommitThen(ctx context.Context, stores []string, first []vfs.Op, rest func() ([]vfs.Op, error)) error {
	c.commits.Add(1)
	c.lastOps.Store(int64(len(first)))
	if c.recordOps {
		c.lastCommit = slices.Clone(first)
	}
	return vfs.CommitThen(ctx, c.Backend, stores, first, func() ([]vfs.Op, error) {
		more, err := rest()
		c.lastOps.Add(int64(len(more)))
		if c.recordOps {
			c.lastCommit = append(c.lastCommit, more...)
		}
		return more, err
	})
}

func sortedKeys[M ~map[string]V, V any](m M) []string { return slices.Sorted(maps.Keys(m)) }
