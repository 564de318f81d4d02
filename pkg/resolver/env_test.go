package resolver

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/skillerr/skillerrtest"
	"github.com/skillfs/skillfs/pkg/vfs"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// backendCase is a kind of database the session tests run against.
type backendCase struct {
	name string
	open func(tb testing.TB) vfs.Backend
}

// eachBackend runs fn against every backend of the platform
// (testBackends), each with a fresh database.
func eachBackend(t *testing.T, fn func(t *testing.T, bc backendCase)) {
	for _, bc := range testBackends {
		t.Run(bc.name, func(t *testing.T) { fn(t, bc) })
	}
}

// eventually polls cond until it holds, for what is written in the
// background with no event to wait for, and reports whether it did
// within 30 s: a guard against a hang, never what a test judges by.
func eventually(cond func() bool) bool {
	for end := time.Now().Add(30 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}

// countingDB counts the requests made to a backend and remembers which
// stores the reads touched.
type countingDB struct {
	vfs.Backend
	reads, commits atomic.Int64
	mu             sync.Mutex
	readStores     map[string]int
}

func newCountingDB(db vfs.Backend) *countingDB {
	return &countingDB{Backend: db, readStores: map[string]int{}}
}

func (c *countingDB) Read(ctx context.Context, qs ...vfs.Query) ([][]vfs.Record, error) {
	c.reads.Add(1)
	c.mu.Lock()
	for _, q := range qs {
		c.readStores[q.Store]++
	}
	c.mu.Unlock()
	return c.Backend.Read(ctx, qs...)
}

// Commit counts a commit once it has returned: until then it may not
// have begun (in the browser it may yield before it opens its transaction).
func (c *countingDB) Commit(ctx context.Context, ops ...vfs.Op) error {
	defer c.commits.Add(1)
	return c.Backend.Commit(ctx, ops...)
}

func (c *countingDB) storeReads(store string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readStores[store]
}

// env is a registry and a resolver over a fresh database.
type env struct {
	db  *countingDB
	reg *registry.Registry
	res *Resolver
}

func newEnv(t testing.TB, bc backendCase, opts ...func(*Options)) *env {
	t.Helper()
	return envOn(t, bc.open(t), opts...)
}

// envOn opens a registry and a resolver on db.
func envOn(t testing.TB, db vfs.Backend, opts ...func(*Options)) *env {
	t.Helper()
	return envWith(t, db, registry.Options{}, opts...)
}

// envWith opens a registry with regOpts and a resolver on db.
func envWith(t testing.TB, db vfs.Backend, regOpts registry.Options, opts ...func(*Options)) *env {
	t.Helper()
	e := &env{db: newCountingDB(db)}
	var err error
	if e.reg, err = registry.Open(context.Background(), e.db, regOpts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.reg.Close() })
	// What the host has, as a host registers it: imports check the
	// dependencies the fixtures declare against it.
	e.reg.RegisterTools([]string{"Read", "Grep", "SendMail"})
	e.reg.RegisterMCPServers([]string{"docs-mcp", "color-mcp", "mail-mcp", "pdf-mcp", "weather-mcp", "github"})
	o := Options{Now: func() time.Time { return time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC) }}
	for _, f := range opts {
		f(&o)
	}
	if e.res, err = New(context.Background(), e.reg, e.db, o); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.res.Close() })
	return e
}

// file is a file of a test archive.
type file struct{ path, data string }

// md returns a SKILL.md named name with extra frontmatter lines and body.
func md(name, body string, extra ...string) string {
	fm := "---\nname: " + name + "\ndescription: Handles " + name + " tasks for the tests.\n"
	for _, x := range extra {
		fm += x + "\n"
	}
	return fm + "---\n" + body + "\n"
}

// skillOfFiles returns a small skill's files under dir name.
func skillFiles(name, body string, extra ...string) []file {
	return []file{
		{name + "/SKILL.md", md(name, body, extra...)},
		{name + "/scripts/run.sh", "#!/bin/sh\necho " + name + "\n"},
		{name + "/references/notes.md", "Notes about " + name + ".\n"},
	}
}

// zipOf returns a deterministic archive of files.
func zipOf(t testing.TB, files ...file) []byte {
	t.Helper()
	zf := make([]zipguard.File, len(files))
	for i, f := range files {
		zf[i] = zipguard.File{Path: f.path, Data: []byte(f.data), Mode: 0o644}
	}
	var buf bytes.Buffer
	if err := zipguard.Write(&buf, zf, "pack"); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// install imports files, replacing installed skills of the same names.
func (e *env) install(t testing.TB, files ...file) *registry.ImportResult {
	t.Helper()
	res, err := e.reg.Import(context.Background(), zipOf(t, files...), registry.ImportOptions{OnConflict: registry.ConflictReplace})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	return res
}

// installSkills installs plain skills with the given names.
func (e *env) installSkills(t testing.TB, names ...string) {
	t.Helper()
	var files []file
	for _, n := range names {
		files = append(files, skillFiles(n, "# "+n+"\n\nDo the "+n+" thing.")...)
	}
	e.install(t, files...)
}

func (e *env) open(t testing.TB, opts SessionOptions) *Session {
	t.Helper()
	if opts.ContextID == "" {
		opts.ContextID = "ctx-1"
	}
	s, err := e.res.OpenSession(context.Background(), opts)
	if err != nil {
		t.Fatalf("OpenSession: %v", err)
	}
	return s
}

func (e *env) setEnabled(t testing.TB, id string, on bool) {
	t.Helper()
	if _, err := e.reg.SetEnabled(context.Background(), id, on); err != nil {
		t.Fatal(err)
	}
}

func (e *env) meta(t testing.TB, id string) registry.Meta {
	t.Helper()
	m, err := e.reg.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// wantErr checks an error's code and reason; see skillerrtest.Want.
var wantErr = skillerrtest.Want

func mustRead(t testing.TB, s *Session, p string) string {
	t.Helper()
	b, err := s.ReadFile(context.Background(), p)
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", p, err)
	}
	return string(b)
}

func mustActivate(t testing.TB, s *Session, name string) SkillBlock {
	t.Helper()
	b, err := s.Activate(context.Background(), name)
	if err != nil {
		t.Fatalf("Activate(%s): %v", name, err)
	}
	return b
}

func mustTools(t testing.TB, s *Session) ToolSet {
	t.Helper()
	ts, err := s.ActiveTools()
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func wantList(t testing.TB, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
