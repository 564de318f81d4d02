package registry

import (
	"context"
	"slices"
	"testing"

	"github.com/skillfs/skillfs/pkg/source"
)

// TestImportActsAsPreviewed: each skill a preview shows, chosen to
// replace with the preview's own Compared, replaces the installed skill
// the preview named (or, shown as new, is installed as new) and is not
// refused as changed since: Preview and Import ask one rule
// (comparedWith). Cases where they disagreed: a download's folder whose
// skill was renamed, its old name now in another folder, compared by
// its folder in an import of it alone (the folder's skill would replace
// the other name's skill); and two installed skills whose ids differ in
// case only, the preview naming the one not spelt as the archive's.
func TestImportActsAsPreviewed(t *testing.T) {
	ctx := context.Background()
	url := "https://a.test/repo.zip"
	v1 := zipOf(t, "repo-main", file{"skills/x/SKILL.md", mdOf("beta", "B one.")})
	v2 := zipOf(t, "repo-0123abc", file{"skills/x/SKILL.md", mdOf("gamma", "G one.")}, file{"skills/y/SKILL.md", mdOf("beta", "B two.")})
	origin := func(data []byte) *source.Origin {
		return &source.Origin{Kind: source.KindURL, URL: url, Type: source.TypeArchive, Digest: source.Sum(data)}
	}
	for _, c := range []struct {
		what   string
		setup  func(*env)
		data   []byte
		origin *source.Origin
		want   map[string]string // each skill: the installed one it is compared with
	}{
		{"a folder's skill renamed, its name in another folder now",
			func(e *env) { e.importZip(t, v1, ImportOptions{Origin: origin(v1)}) },
			v2, origin(v2), map[string]string{"gamma": "", "beta": "beta"}},
		{"two installed ids that differ in case only",
			func(e *env) {
				e.importZip(t, zipOf(t, "pdf-tools", file{"SKILL.md", mdOf("pdf-tools", "Genuine.")}), ImportOptions{})
				commitSkillDirectly(t, e.db, "PDF-tools", file{"SKILL.md", mdOf("PDF-tools", "Legacy.")})
			},
			zipOf(t, "PDF-tools", file{"SKILL.md", mdOf("PDF-tools", "Impostor.")}), nil, map[string]string{"PDF-tools": "PDF-tools"}},
	} {
		e := newEnv(t, memoryCase)
		c.setup(e)
		p, err := e.reg.Preview(ctx, c.data, nil, c.origin)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Skills {
			if want, ok := c.want[s.Name]; !ok || s.Installed != want {
				t.Errorf("%s: the preview compares %s with %q, want %q", c.what, s.Name, s.Installed, want)
			}
			// Each choice on a registry as previewed.
			e := newEnv(t, memoryCase)
			c.setup(e)
			res, err := e.reg.Import(ctx, c.data, ImportOptions{Origin: c.origin, Copy: c.origin != nil,
				Choose: map[string]ConflictPolicy{s.Name: ConflictReplace}, Compared: map[string]string{s.Name: s.InstalledDigest}})
			if err != nil {
				t.Errorf("%s: %s chosen to replace %q as previewed: %v", c.what, s.Name, s.Installed, err)
				continue
			}
			replaced, id := []string{s.Installed}, s.Installed
			if s.Installed == "" {
				replaced, id = []string{}, s.Name
			}
			if len(res.Skills) != 1 || res.Skills[0].ID != id || !slices.Equal(res.Replaced, replaced) {
				t.Errorf("%s: %s chosen to replace %q as previewed: %s", c.what, s.Name, s.Installed, jsonOf(t, res))
			}
		}
	}
}
