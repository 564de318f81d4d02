package registry

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/source"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// testImportUpdate: an import with Origin records it, and one with Target
// replaces exactly that skill, whatever the new version's name, keeping
// its instance and whether it is enabled; a refused update changes
// nothing.
func testImportUpdate(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	o := &source.Origin{Kind: source.KindIndex, Index: "https://a.test/.well-known/agent-skills/index.json",
		Entry: "x", URL: "https://a.test/x.zip", Type: source.TypeArchive, Digest: "sha256:old", Verified: true}
	first := e.importZip(t, zipOf(t, "x", file{"SKILL.md", mdOf("x", "Old.")}), ImportOptions{Source: o.URL, Origin: o}).Skills[0]
	// It records the skill's own digest as received, too.
	withFiles := *o
	withFiles.FilesDigest = first.Digest
	if first.Origin == nil || *first.Origin != withFiles {
		t.Fatalf("origin = %+v, want %+v", first.Origin, withFiles)
	}
	o = &withFiles
	if _, err := e.reg.SetEnabled(ctx, "x", false); err != nil {
		t.Fatal(err)
	}
	got, err := e.reg.Get(ctx, "x")
	if err != nil || got.Origin == nil || *got.Origin != *o {
		t.Fatalf("Get: origin %+v, %v", got.Origin, err)
	}

	before := dump(t, e.db)
	_, err = e.reg.Import(ctx, packOf(t, "x", "y"), ImportOptions{Target: "x", Origin: o})
	if se := wantErr(t, "update with a pack", err, skillerr.InvalidArchive, "not-one-skill"); se != nil &&
		err.Error() != "x: the version published now holds 2 skills, and an update replaces one skill with one: install the index's entry 'x' again to choose among them" {
		t.Errorf("update with a pack: %v", err)
	}
	_, err = e.reg.Import(ctx, zipOf(t, "z", file{"SKILL.md", mdOf("z", "Z.")}), ImportOptions{Target: "nope", Origin: o})
	wantErr(t, "update of a skill not installed", err, skillerr.SkillNotFound, "")
	// An update whose version depends on a skill not installed says
	// which, that the update takes nothing besides its download, and what
	// to do, for the source it comes from.
	needsY := zipOf(t, "x", file{"SKILL.md", mdOf("x", "New.", "skill_dependencies: [y]")})
	mcp := &source.Origin{Kind: source.KindMCP, Server: "https://m.test/mcp", URI: "skill://x/SKILL.md", Type: source.TypeFiles, Digest: "sha256:old", Verified: true}
	for _, c := range []struct {
		origin *source.Origin
		want   string
	}{
		{mcp, "y: the version of 'x' published now depends on 'y', which is not installed, and an update reads only this skill's files: install 'y' first (from the server, if it lists it), then update 'x'"},
		{o, "y: the version of 'x' published now depends on 'y', which is not installed and is no part of the index's entry 'x': install 'y' first (from the index, if it publishes it as an entry of its own), then update 'x'"},
		{nil, "y: this version of 'x' depends on 'y', which is not installed and not in this archive: install 'y' first, then update 'x'"},
	} {
		_, err = e.reg.Import(ctx, needsY, ImportOptions{Target: "x", Origin: c.origin})
		if se := wantErr(t, "update needing y", err, skillerr.InvalidArgument, "unknown-skill"); se != nil && err.Error() != c.want {
			t.Errorf("update needing y: %v\nwant %s", err, c.want)
		}
	}
	// An index that publishes y as an entry of its own: install it from there.
	_, err = e.reg.Import(ctx, needsY, ImportOptions{Target: "x", Origin: o, Elsewhere: []string{"w", "y"}})
	if se := wantErr(t, "update needing y, another entry", err, skillerr.InvalidArgument, "unknown-skill"); se != nil &&
		err.Error() != "y: the version of 'x' published now depends on 'y', which is not installed and which the index publishes as an entry of its own, apart from 'x': install 'y' from the index first, then update 'x'" {
		t.Errorf("update needing y, another entry: %v", err)
	}
	// Any other dependency refused is said of what it depends on, once:
	// not "cannot be installed: 'x' cannot be installed: it depends on …".
	_, err = e.reg.Import(ctx, zipOf(t, "x", file{"SKILL.md", mdOf("x", "New.", "tool_dependencies: [WebFetch]")}), ImportOptions{Target: "x", Origin: o})
	if se := wantErr(t, "update needing a tool", err, skillerr.InvalidArgument, "tools-not-registered"); se != nil &&
		err.Error() != "WebFetch: the version of 'x' published now depends on 'WebFetch': the host has not registered its tools, so tool dependencies cannot be checked: call registry.registerTools with the names of the host's tools first (on every load: the list is kept in memory only)" {
		t.Errorf("update needing a tool: %v", err)
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a refused update changed the database")
	}

	e.clock.advance(time.Hour)
	o2 := *o
	o2.Digest = "sha256:new"
	res := e.importZip(t, zipOf(t, "renamed", file{"SKILL.md", mdOf("renamed", "New.")}), ImportOptions{Target: "x", Origin: &o2, OnConflict: ConflictFail})
	m := res.Skills[0]
	o2.FilesDigest = m.Digest
	if m.ID != "x" || m.Name != "x" || m.Description != "New." || m.Instance != first.Instance || m.Enabled || *m.Origin != o2 {
		t.Errorf("updated meta = %s", jsonOf(t, m))
	}
	if len(m.Diagnostics) != 1 || m.Diagnostics[0].Code != "renamed" || !strings.Contains(m.Diagnostics[0].Message, "update of 'x' is named 'renamed'") {
		t.Errorf("diagnostics = %+v", m.Diagnostics)
	}
	if c := e.lastChange(t); c.Kind != KindReplace {
		t.Errorf("change = %+v", c)
	}
	checkGenerations(t, e.reg, m)
}

// testImportTarGz: a .tar.gz, as the discovery RFC publishes archives,
// installs like a zip.
func testImportTarGz(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	tg := tarGzOf(t, file{"tg/SKILL.md", mdOf("tg", "From a tarball.")}, file{"tg/scripts/run.sh", "echo\n"})
	for _, out := range []zipguard.Outside{nil, testOutside(t, tg)} {
		m := e.importZip(t, tg, ImportOptions{Source: "tg.tar.gz", OnConflict: ConflictReplace, Outside: out}).Skills[0]
		if m.ID != "tg" || m.FileCount != 2 || m.Description != "From a tarball." {
			t.Errorf("meta = %s", jsonOf(t, m))
		}
		checkGenerations(t, e.reg, m)
	}
}

// testImportStreamTooLarge: an archive held outside Go that is not a zip
// (a .tar.gz, inflated in Go from a copy) and is larger than the limit
// is refused before it is copied: WebAssembly memory, once grown, is
// never given back, and a file of gigabytes would end the module.
func testImportStreamTooLarge(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, func(o *Options) { o.Limits.MaxArchiveSize = 32 << 10 })
	tg := tarGzOf(t, file{"tg/SKILL.md", mdOf("tg", "From a tarball.")}, file{"tg/big.bin", string(make([]byte, 1<<20))})
	out := &countingOutside{Outside: testOutside(t, append(tg, make([]byte, 64<<10)...))}
	_, err := e.reg.Import(context.Background(), nil, ImportOptions{Outside: out})
	wantErr(t, "an oversized .tar.gz", err, skillerr.InvalidArchive, zipguard.ReasonArchiveTooLarge)
	if out.read > 64 {
		t.Errorf("%d bytes of the archive were read into Go", out.read)
	}
}

// countingOutside counts the bytes read through ReadAt.
type countingOutside struct {
	zipguard.Outside
	read int
}

func (c *countingOutside) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.Outside.ReadAt(p, off)
	c.read += n
	return n, err
}

// tarGzOf returns a .tar.gz of files, every one executable.
func tarGzOf(t testing.TB, files ...file) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.path, Mode: 0o755, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
