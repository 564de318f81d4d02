package zipguard

import (
	"bytes"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
)

// fuzzLimits are small limits that keep each run cheap without changing
// which code runs.
var fuzzLimits = Limits{MaxEntries: 64, MaxFileSize: 1 << 20, MaxTotalSize: 2 << 20, MaxDepth: 8}

// FuzzRead feeds Read mutations of the hostile corpus and of good archives.
// Read must never panic, must fail only with a *skillerr.Error of the two
// codes it documents, and whatever it accepts must be clean and Writable.
func FuzzRead(f *testing.F) {
	for _, h := range append(hostileCorpus(), layoutCorpus()...) {
		f.Add(h.zip(f))
	}
	f.Add(build(f, file("SKILL.md", skillMD), file("scripts/a.py", "x")))
	f.Add(build(f, file("a/SKILL.md", skillMD), file("b/SKILL.md", skillMD), file("__MACOSX/._a", "x")))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Read(data, fuzzLimits)
		checkResult(t, a, err)
	})
}

// FuzzReadTarGz does the same for .tar.gz archives, through ReadAny.
func FuzzReadTarGz(f *testing.F) {
	for _, h := range tarCorpus() {
		f.Add(h.zip(f))
	}
	f.Add(tarball(f, tfile("SKILL.md", skillMD), tfile("scripts/a.py", "x")))
	f.Add(tarball(f, tdir("repo/"), tfile("repo/a/SKILL.md", skillMD), tlink("repo/l", 'l', "a"), tfile("repo/b/SKILL.md", skillMD)))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadAny(data, fuzzLimits)
		checkResult(t, a, err)
	})
}

// checkResult holds a reader's answer to its contract.
func checkResult(t *testing.T, a *Archive, err error) {
	if err != nil {
		if c := skillerr.CodeOf(err); c != skillerr.InvalidArchive && c != skillerr.PathRejected || skillerr.ReasonOf(err) == "" {
			t.Fatalf("error %v has code %q, reason %q", err, c, skillerr.ReasonOf(err))
		}
		return
	}
	if len(a.Skills) == 0 {
		t.Fatal("accepted an archive without skills")
	}
	n := 0
	for _, s := range a.Skills {
		n += len(s.Files)
	}
	if n != len(a.Files) {
		t.Fatalf("%d files kept, %d in skills", len(a.Files), n)
	}
	for _, fl := range a.Files {
		if p, err := skillpath.Clean(fl.Path); err != nil || p != fl.Path {
			t.Fatalf("kept unclean path %q", fl.Path)
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, a.Files, ""); err != nil {
		t.Fatalf("Write refused what was accepted: %v", err)
	}
}
