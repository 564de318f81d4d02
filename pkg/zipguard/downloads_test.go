package zipguard

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/skillfs/skillfs/internal/realrepos"
)

// TestGeneratedDownload: the generated download, which reproduces the
// structures of the real ones, installs every skill; its links outside
// skills are dropped and listed; a link inside a skill fails it, named.
func TestGeneratedDownload(t *testing.T) {
	a, err := Read(realrepos.Generated(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Skills) != realrepos.GeneratedSkills {
		t.Errorf("%d skills, want %d", len(a.Skills), realrepos.GeneratedSkills)
	}
	for _, link := range []string{"skills-main/AGENTS.md", "skills-main/plugins/modern-python/hooks/shims/pip3", "skills-main/plugins/modern-python/hooks/shims/python3"} {
		if !slices.Contains(a.Dropped, link) {
			t.Errorf("link %q not listed as dropped: %q", link, a.Dropped)
		}
	}
	expectRefusal(t, Read, hostile{code: "InvalidArchive", reason: ReasonSymlink, subject: realrepos.LinkInSkill}, realrepos.GeneratedWithLinkInSkill())
}

// TestRealDownloads: every skill of the real repository downloads is
// found, each download read in one pass.
func TestRealDownloads(t *testing.T) {
	realrepos.Each(t, func(t *testing.T, r realrepos.Repo, data []byte) {
		a, err := Read(data, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Skills != 0 && len(a.Skills) != r.Skills {
			t.Errorf("%d skills, want %d", len(a.Skills), r.Skills)
		}
	})
}

// toTarGz rewrites a zip as git archive --format=tar.gz would write the
// same tree: a pax global header with the commit id, then every entry in
// order, links as links.
func toTarGz(t testing.TB, z []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gw)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": "5d1f0c3e2b9a8d7c6b5a4e3f2d1c0b9a8e7f6d5c"}}); err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		h := &tar.Header{Name: f.Name, Mode: int64(f.Mode().Perm()), ModTime: f.Modified, Format: tar.FormatPAX}
		switch m := f.Mode(); {
		case m.IsDir():
			h.Typeflag = tar.TypeDir
		case m&fs.ModeSymlink != 0:
			h.Typeflag, h.Linkname = tar.TypeSymlink, string(data)
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(data))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write(data)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gw.Close()
	return buf.Bytes()
}

// sameArchive requires two readings to give the same skills, files,
// modes and dropped entries.
func sameArchive(t *testing.T, z, tg *Archive) {
	t.Helper()
	if !reflect.DeepEqual(skillDirs(z), skillDirs(tg)) || !slices.Equal(z.Dropped, tg.Dropped) || len(z.Files) != len(tg.Files) {
		t.Fatalf("zip: %d skills, %d files, dropped %d; tar.gz: %d skills, %d files, dropped %d",
			len(z.Skills), len(z.Files), len(z.Dropped), len(tg.Skills), len(tg.Files), len(tg.Dropped))
	}
	for i := range z.Files {
		a, b := z.Files[i], tg.Files[i]
		if a.Path != b.Path || a.Mode != b.Mode || !bytes.Equal(a.Data, b.Data) {
			t.Fatalf("zip has %s (%v, %d bytes), tar.gz %s (%v, %d bytes)", a.Path, a.Mode, len(a.Data), b.Path, b.Mode, len(b.Data))
		}
	}
}

func skillDirs(a *Archive) []string {
	var dirs []string
	for _, s := range a.Skills {
		dirs = append(dirs, s.Dir)
	}
	return dirs
}

// TestDownloadsAsTarGz: the generated download and the real ones, rewritten
// as git archive's .tar.gz, read the same as the zip: the two formats share
// one set of rules.
func TestDownloadsAsTarGz(t *testing.T) {
	check := func(t *testing.T, z []byte) {
		za, err := Read(z, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		ta, err := ReadAny(toTarGz(t, z), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		sameArchive(t, za, ta)
	}
	t.Run("generated", func(t *testing.T) {
		check(t, realrepos.Generated())
		expectRefusal(t, ReadAny, hostile{code: "InvalidArchive", reason: ReasonSymlink, subject: realrepos.LinkInSkill}, toTarGz(t, realrepos.GeneratedWithLinkInSkill()))
	})
	t.Run("real", func(t *testing.T) {
		if runtime.GOOS == "js" {
			t.Skip("the native run covers it: the rules are the same code, and converting 13 MB takes the browser 20 s")
		}
		realrepos.Each(t, func(t *testing.T, _ realrepos.Repo, data []byte) { check(t, data) })
	})
}
