package zipguard

import (
	"os"
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
	for _, r := range realrepos.Require(t) {
		t.Run(r.Name, func(t *testing.T) {
			data, err := os.ReadFile(r.Path)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Read(data, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Skills != 0 && len(a.Skills) != r.Skills {
				t.Errorf("%d skills, want %d", len(a.Skills), r.Skills)
			}
		})
	}
}
