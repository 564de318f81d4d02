package zipguard

import (
	"bytes"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
)

// FuzzRead feeds Read mutations of the hostile corpus and of good archives.
// Read must never panic, must fail only with a *skillerr.Error of the two
// codes it documents, and whatever it accepts must be clean and Writable.
func FuzzRead(f *testing.F) {
	for _, h := range append(hostileCorpus(), layoutCorpus()...) {
		f.Add(h.zip(f))
	}
	f.Add(build(f, file("SKILL.md", skillMD), file("scripts/a.py", "x")))
	f.Add(build(f, file("a/SKILL.md", skillMD), file("b/SKILL.md", skillMD), file("__MACOSX/._a", "x")))
	// Small limits keep each run cheap without changing which code runs.
	limits := Limits{MaxEntries: 64, MaxFileSize: 1 << 20, MaxTotalSize: 2 << 20, MaxDepth: 8}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Read(data, limits)
		if err != nil {
			if c := skillerr.CodeOf(err); c != skillerr.InvalidArchive && c != skillerr.PathRejected || skillerr.ReasonOf(err) == "" {
				t.Fatalf("Read error %v has code %q, reason %q", err, c, skillerr.ReasonOf(err))
			}
			return
		}
		if len(a.Skills) == 0 {
			t.Fatal("Read accepted an archive without skills")
		}
		for _, fl := range a.Files {
			if p, err := skillpath.Clean(fl.Path); err != nil || p != fl.Path {
				t.Fatalf("Read kept unclean path %q", fl.Path)
			}
		}
		var buf bytes.Buffer
		if err := Write(&buf, a.Files, ""); err != nil {
			t.Fatalf("Write refused what Read accepted: %v", err)
		}
	})
}
