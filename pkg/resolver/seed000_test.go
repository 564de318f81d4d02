package resolver

import (
	"archive/zip"
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/toolrule"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// TestSeed000 holds the project's four first acceptance tests: skills load
// only in the browser's scope, nothing reads /skills past the resolver, the
// host's tool routing is kept, and paths and archives are guarded
// (docs/architecture.md).
func TestSeed000(t *testing.T) {
	t.Run("skill_load_browser_scope", testLoadBrowserScope)
	t.Run("skill_no_direct_fs_bypass", testNoDirectFSBypass)
	t.Run("skill_scope_routing_preserved", testScopeRoutingPreserved)
	t.Run("skill_security_path_zip_guard", testSecurityPathZipGuard)
}

// testLoadBrowserScope: reading SKILL.md goes through the browser-scope
// provider, the vfs over the skills database, and leaves an audit entry
// naming the version read.
func testLoadBrowserScope(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.installSkills(t, "pdf")
		s := e.open(t, SessionOptions{})
		blobReads := e.db.storeReads(vfs.StoreBlobs)
		got := mustRead(t, s, "/skills/pdf/SKILL.md")
		if got != md("pdf", "# pdf\n\nDo the pdf thing.") {
			t.Errorf("SKILL.md = %q", got)
		}
		if e.db.storeReads(vfs.StoreBlobs) != blobReads+1 {
			t.Errorf("reading SKILL.md made %d reads of the vfs contents store, want 1", e.db.storeReads(vfs.StoreBlobs)-blobReads)
		}
		wantList(t, "activated", s.Activated(), []string{"pdf"})
		entries, err := e.res.Audit(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 {
			t.Fatalf("audit = %+v, want one entry", entries)
		}
		a := entries[0]
		if a.Kind != AuditRead || a.Skill != "pdf" || a.Path != "SKILL.md" || a.Outcome != AuditOK ||
			a.Digest != e.meta(t, "pdf").Digest || a.ContextID != "ctx-1" || a.Session != s.ID() || a.Seq != 1 {
			t.Errorf("audit entry = %+v", a)
		}
	})
}

// testNoDirectFSBypass scans the Go source of pkg/ and wasm/ (tests
// aside): nothing may read from the host's file system, and nothing but
// pkg/vfs and pkg/registry may touch the stores of the skills tree.
func testNoDirectFSBypass(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("the browser has no source tree to scan; the native run covers it")
	}
	root := moduleRoot(t)
	scanned := 0
	for _, dir := range []string{"pkg", "wasm"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			for _, v := range bypasses(filepath.ToSlash(rel), src) {
				t.Errorf("%s", v)
			}
			scanned++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if scanned < 50 {
		t.Fatalf("scanned only %d files: is %s the module root?", scanned, root)
	}
	// The scanner itself must catch what it looks for.
	bad := `package x
import (
	osx "os"
	"io/ioutil"
	"github.com/skillfs/skillfs/pkg/vfs"
)
func f() { osx.ReadFile("/skills/a/SKILL.md"); _ = osx.DirFS("/"); ioutil.ReadFile("x"); _ = vfs.StoreBlobs }`
	if got := bypasses("pkg/resolver/bad.go", []byte(bad)); len(got) != 5 {
		t.Errorf("the scanner found %d bypasses in a file with 5: %q", len(got), got)
	}
}

// bypasses returns the direct reads in the Go file at rel (relative to
// the module root) with contents src.
func bypasses(rel string, src []byte) []string {
	f, err := parser.ParseFile(token.NewFileSet(), rel, src, parser.SkipObjectResolution)
	if err != nil {
		return []string{rel + ": " + err.Error()}
	}
	banned := map[string][]string{
		"os":            {"ReadFile", "Open", "OpenFile", "OpenInRoot", "OpenRoot", "DirFS", "ReadDir", "Stat", "Lstat", "ReadLink"},
		"io/ioutil":     nil, // all of it
		"path/filepath": {"Walk", "WalkDir", "Glob"},
		"syscall":       {"Open", "Openat", "Read", "Pread"},
	}
	local := map[string]string{} // local name → import path
	var out []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = p
		if p == "io/ioutil" {
			out = append(out, rel+": imports io/ioutil")
		}
	}
	storeOwner := strings.HasPrefix(rel, "pkg/vfs/") || strings.HasPrefix(rel, "pkg/registry/")
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		switch p := local[x.Name]; {
		case p == "github.com/skillfs/skillfs/pkg/vfs" && !storeOwner && (sel.Sel.Name == "StoreBlobs" || sel.Sel.Name == "StoreFiles"):
			out = append(out, rel+": touches vfs."+sel.Sel.Name+" directly; read skills through vfs.FS or the registry")
		case p == "io/ioutil":
			out = append(out, rel+": calls ioutil."+sel.Sel.Name)
		case p != "" && slices.Contains(banned[p], sel.Sel.Name):
			out = append(out, rel+": calls "+p+"."+sel.Sel.Name+", a read of the host file system")
		}
		return true
	})
	return out
}

// moduleRoot returns the directory holding go.mod above the test's.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// testScopeRoutingPreserved: the skills layer never executes or rewrites a
// tool call. ActiveTools hands back names from the host's own list,
// unchanged; IsToolAllowed only decides; no API of a session runs
// anything.
func testScopeRoutingPreserved(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.install(t, skillFiles("git-commit", "# Commit", `allowed-tools: "Bash(git:*) Read"`, "mcp_dependencies: [github]")...)
		available := []string{"mcp__github__get_issue", "Read", "Bash", "Write", "browser.click@tab", "Ünïcode-tool"}
		s := e.open(t, SessionOptions{AvailableTools: available, BaseTools: []string{"browser.click@tab"}, MCPServers: []string{"github", "other"}})
		ctx := context.Background()
		// Before activation: every available tool, as given, no MCP server.
		ts := mustTools(t, s)
		wantList(t, "tools before activation", ts.Tools, available)
		wantList(t, "MCP before activation", ts.MCPServers, []string{})
		mustActivate(t, s, "git-commit")
		ts = mustTools(t, s)
		wantList(t, "tools after activation", ts.Tools, []string{"mcp__github__get_issue", "Read", "Bash", "browser.click@tab"})
		wantList(t, "MCP after activation", ts.MCPServers, []string{"github"})
		for _, tool := range ts.Tools {
			if !slices.Contains(available, tool) {
				t.Errorf("ActiveTools returned %q, which is not in availableTools", tool)
			}
		}
		// Decisions only: allowed or refused with a reason, the call
		// itself untouched.
		for _, c := range []struct {
			name, input string
			allowed     bool
			reason      string
		}{
			{"Bash", "git status", true, ""},
			{"Bash", "git status; rm -rf ~", false, toolrule.ReasonInputNotMatched},
			{"Bash", "git log $(whoami)", false, toolrule.ReasonCommandSubstitution},
			{"Write", "notes.md", false, toolrule.ReasonToolNotListed},
			{"mcp__github__get_issue", `{"n":1}`, true, ""},
			{"browser.click@tab", "#submit", true, ""},
		} {
			d, err := s.IsToolAllowed(c.name, c.input)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed != c.allowed || d.Reason != c.reason {
				t.Errorf("IsToolAllowed(%s, %q) = %+v, want allowed %v reason %q", c.name, c.input, d, c.allowed, c.reason)
			}
			err = s.CheckTool(c.name, c.input)
			if c.allowed != (err == nil) {
				t.Errorf("CheckTool(%s, %q) = %v", c.name, c.input, err)
			} else if err != nil {
				wantErr(t, "CheckTool", err, skillerr.ToolNotAllowed, c.reason)
			}
		}
		// No method of the agent-facing API executes anything: the
		// method sets hold no runner, and the package imports nothing
		// that could run a tool. A skill's WASM module (seed 003) is run
		// by the host, in a Worker the host chose to offer: the resolver
		// only prepares the run (what the module may see) and records
		// the host's outcome, which are these two methods.
		hostRuns := []string{"PrepareExecution", "FinishExecution"}
		for _, typ := range []reflect.Type{reflect.TypeOf(s), reflect.TypeOf(e.res)} {
			for i := range typ.NumMethod() {
				if slices.Contains(hostRuns, typ.Method(i).Name) {
					continue
				}
				name := strings.ToLower(typ.Method(i).Name)
				for _, verb := range []string{"exec", "run", "call", "spawn", "dispatch"} {
					if strings.Contains(name, verb) {
						t.Errorf("%s has method %s, which sounds like it executes something", typ, typ.Method(i).Name)
					}
				}
			}
		}
		if _, err := s.Route(ctx, "commit my changes", RouteOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := mustTools(t, s); !slices.Equal(got.Tools, ts.Tools) {
			t.Errorf("routing changed the active tools: %q", got.Tools)
		}
	})
	if runtime.GOOS != "js" {
		root := moduleRoot(t)
		for _, p := range mustGlob(t, filepath.Join(root, "pkg", "resolver", "*.go")) {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				switch v, _ := strconv.Unquote(imp.Path.Value); v {
				case "os/exec", "syscall/js", "net/http", "plugin", "os":
					t.Errorf("%s imports %s: the resolver must not be able to run or send anything", filepath.Base(p), v)
				}
			}
		}
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("glob %s: %v (%d matches)", pattern, err, len(m))
	}
	return m
}

// testSecurityPathZipGuard: paths outside /skills, "..", and hostile zip
// entries are refused with their codes.
func testSecurityPathZipGuard(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.installSkills(t, "pdf")
		s := e.open(t, SessionOptions{})
		ctx := context.Background()
		for _, c := range []struct {
			path   string
			reason string
		}{
			{"/etc/passwd", ReasonOutsideRoot},
			{"/skillsx/pdf/SKILL.md", ReasonOutsideRoot},
			{"/tmp/skills/pdf/SKILL.md", ReasonOutsideRoot},
			{"/skills/../etc/passwd", "dot-dot"},
			{"/skills/pdf/../../etc/passwd", "dot-dot"},
			{"pdf/../pdf/SKILL.md", "dot-dot"},
			{"/skills/pdf/scripts/../../x", "dot-dot"},
			{`/skills/pdf\..\..\etc`, "backslash"},
			{"/skills/pdf/%2e%2e/x", "percent-encoded"},
			{"C:/skills/pdf/SKILL.md", "drive-letter"},
			{"/skills/pdf/a\x00b", "nul"},
		} {
			_, err := s.ReadFile(ctx, c.path)
			wantErr(t, "ReadFile("+c.path+")", err, skillerr.PathRejected, c.reason)
			_, err = s.Activate(ctx, c.path)
			wantErr(t, "Activate("+c.path+")", err, skillerr.PathRejected, c.reason)
		}
		// Nothing is writable through a session: it has no write API, and
		// the FS it reads is read-only.
		if err := e.res.fsys.Mkdir("pdf/new", 0o755); skillerr.CodeOf(err) != skillerr.PermissionDenied {
			t.Errorf("Mkdir through the resolver's FS = %v, want PermissionDenied", err)
		}
		// Hostile archives never land, whole or in part.
		for _, c := range []struct {
			name  string
			entry string
			code  skillerr.Code
		}{
			{"zip-slip", "evil/../../escape/SKILL.md", skillerr.PathRejected},
			{"absolute", "/etc/evil/SKILL.md", skillerr.PathRejected},
			{"backslash", `evil\..\..\SKILL.md`, skillerr.PathRejected},
			{"drive", "C:/evil/SKILL.md", skillerr.PathRejected},
		} {
			_, err := e.reg.Import(ctx, rawZip(t, c.entry, md("evil", "# evil")), registry.ImportOptions{})
			if got := skillerr.CodeOf(err); got != c.code && got != skillerr.InvalidArchive {
				t.Errorf("%s: Import = %v (%s), want %s or InvalidArchive", c.name, err, got, c.code)
			}
		}
		if st, err := s.Refresh(ctx); err != nil || !slices.Equal(st.Visible, []string{"pdf"}) {
			t.Errorf("after the hostile imports the session sees %v (%v)", st.Visible, err)
		}
		_, err := s.ReadFile(ctx, "/skills/evil/SKILL.md")
		wantErr(t, "ReadFile of a refused skill", err, skillerr.SkillNotFound, ReasonNotInstalled)
	})
}

// rawZip returns an archive with one entry named exactly name, which
// zipguard.Write would refuse to write.
func rawZip(t *testing.T, name, data string) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, err := w.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(data))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
