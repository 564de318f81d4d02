package registry

import (
	"context"
	"slices"
	"testing"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/source"
)

// A pack of x (identical to the installed x), y (a different y is
// installed), z (new) and a README outside the skills.
func previewPack(t *testing.T, e *env) []byte {
	t.Helper()
	e.importZip(t, packOf(t, "x"), ImportOptions{})
	e.importZip(t, zipOf(t, "y", file{"SKILL.md", mdOf("y", "The installed y.")}), ImportOptions{})
	files := append(skillFiles("skills/x", "x"), skillFiles("skills/y", "y", "colour: blue")...)
	files = append(files, skillFiles("skills/z", "z")...)
	files = append(files, file{"README.md", "# pack\n"})
	return zipOf(t, "repo-main", files...)
}

func testImportPreview(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	pack := previewPack(t, e)
	rev := e.lastChange(t).Revision
	p, err := e.reg.Preview(context.Background(), pack, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ name, status, installed string }
	var got []row
	for _, s := range p.Skills {
		got = append(got, row{s.Name, s.Status, s.Installed})
	}
	want := []row{{"x", PreviewInstalled, "x"}, {"y", PreviewConflict, "y"}, {"z", PreviewNew, ""}}
	if !slices.Equal(got, want) {
		t.Errorf("preview = %+v, want %+v", got, want)
	}
	y := p.Skills[1]
	if y.Description != "Handles y tasks." || y.FileCount != 3 || y.Dir != "repo-main/skills/y" || y.Digest == "" ||
		!slices.ContainsFunc(y.Diagnostics, func(d skill.Diagnostic) bool { return d.Code == "unknown-field" }) {
		t.Errorf("y = %s", jsonOf(t, y))
	}
	if !slices.Equal(p.Dropped, []string{"repo-main/README.md"}) {
		t.Errorf("dropped = %v", p.Dropped)
	}
	if c := e.lastChange(t); c.Revision != rev {
		t.Errorf("a preview changed the registry: %+v", c)
	}
	// What Import refuses, Preview refuses the same way.
	if _, err := e.reg.Preview(context.Background(), []byte("not a zip"), nil, nil); skillerr.CodeOf(err) != skillerr.InvalidArchive {
		t.Errorf("not a zip: %v", err)
	}
}

func testImportChoose(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	pack := previewPack(t, e)
	// Nothing chosen: x, installed byte for byte, is said to be so; y (of
	// another version) and z (new) are skipped.
	res := e.importZip(t, pack, ImportOptions{Choose: map[string]ConflictPolicy{}})
	if len(res.Skills) != 0 || !slices.Equal(res.AlreadyInstalled, []string{"x"}) || !slices.Equal(res.Skipped, []string{"y", "z"}) || res.Revision != 0 {
		t.Errorf("nothing chosen = %s", jsonOf(t, res))
	}
	// x unticked, y kept beside the installed one, z installed. x, which
	// Preview shows installed byte for byte, is said to be so, not
	// skipped: nobody chose to skip it.
	res = e.importZip(t, pack, ImportOptions{Choose: map[string]ConflictPolicy{"y": ConflictRename, "z": ConflictRename}})
	if !slices.Equal(ids(res.Skills), []string{"y-v2", "z"}) || len(res.Skipped) != 0 || !slices.Equal(res.AlreadyInstalled, []string{"x"}) || len(res.Replaced) != 0 {
		t.Errorf("choose = %s", jsonOf(t, res))
	}
	// y updated in place, x kept as it is (identical, under rename), z
	// (installed above) left out as it is.
	res = e.importZip(t, pack, ImportOptions{Choose: map[string]ConflictPolicy{"x": ConflictRename, "y": ConflictReplace}})
	if !slices.Equal(ids(res.Skills), []string{"y"}) || !slices.Equal(res.Replaced, []string{"y"}) ||
		!slices.Equal(res.AlreadyInstalled, []string{"x", "z"}) || len(res.Skipped) != 0 {
		t.Errorf("update = %s", jsonOf(t, res))
	}
	if got := ids(mustList(t, e.reg)); !slices.Equal(got, []string{"x", "y", "y-v2", "z"}) {
		t.Errorf("List = %v", got)
	}
	// Nothing chosen: nothing changes. The three are installed as they are.
	rev := e.lastChange(t).Revision
	res = e.importZip(t, pack, ImportOptions{Choose: map[string]ConflictPolicy{}})
	if len(res.Skills) != 0 || len(res.Skipped) != 0 || !slices.Equal(res.AlreadyInstalled, []string{"x", "y", "z"}) || res.Revision != 0 || e.lastChange(t).Revision != rev {
		t.Errorf("none chosen = %s", jsonOf(t, res))
	}
	// A choice made for another archive, or an unknown policy, is refused whole.
	for _, choose := range []map[string]ConflictPolicy{{"w": ConflictRename}, {"z": ConflictFail}, {"z": "merge"}} {
		_, err := e.reg.Import(context.Background(), pack, ImportOptions{Choose: choose})
		if skillerr.CodeOf(err) != skillerr.InvalidArgument {
			t.Errorf("choose %v: %v", choose, err)
		}
	}
	// Several wrong names: the first in order is the one named, every
	// time (a map's order is not).
	for range 20 {
		_, err := e.reg.Import(context.Background(), pack, ImportOptions{Choose: map[string]ConflictPolicy{
			"y": ConflictRename, "w2": ConflictRename, "w1": ConflictRename, "z": "merge", "a": "merge"}})
		if se := wantErr(t, "bad policies", err, skillerr.InvalidArgument, "on-conflict"); se != nil && se.Subject != "a" {
			t.Fatalf("bad policies: the error names %q, want a", se.Subject)
		}
		_, err = e.reg.Import(context.Background(), pack, ImportOptions{Choose: map[string]ConflictPolicy{
			"y": ConflictRename, "w2": ConflictRename, "w1": ConflictRename}})
		if se := wantErr(t, "not in the archive", err, skillerr.InvalidArgument, "not-in-archive"); se != nil && se.Subject != "w1" {
			t.Fatalf("not in the archive: the error names %q, want w1", se.Subject)
		}
	}
	if e.lastChange(t).Revision != rev {
		t.Error("a refused choice changed the registry")
	}
}

// TestImportSincePreview: a choice made from a preview (ImportOptions
// Compared: the installed skill each was compared with) is refused whole,
// nothing stored, when a skill chosen to replace would now replace
// another version (updated or removed since), or one that was new would
// now be kept beside one installed since; a copy chosen beside a skill
// that changed is still made, and a choice whose skills are as
// previewed installs.
func TestImportSincePreview(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, memoryCase)
	pack := previewPack(t, e) // y installed, another y and a new z in the pack
	p, err := e.reg.Preview(ctx, pack, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	compared := map[string]string{}
	for _, s := range p.Skills {
		compared[s.Name] = s.InstalledDigest
	}
	if compared["y"] != mustGet(t, e.reg, "y").Digest || compared["z"] != "" {
		t.Fatalf("the preview compared with %v", compared)
	}
	// y is updated since, z installed elsewhere.
	e.importZip(t, zipOf(t, "y", file{"SKILL.md", mdOf("y", "A newer y.")}), ImportOptions{OnConflict: ConflictReplace})
	e.importZip(t, zipOf(t, "z", file{"SKILL.md", mdOf("z", "Another z.")}), ImportOptions{})
	before := dump(t, e.db)
	for _, choose := range []map[string]ConflictPolicy{{"y": ConflictReplace}, {"z": ConflictRename}, {"y": ConflictRename, "z": ConflictRename}} {
		_, err := e.reg.Import(ctx, pack, ImportOptions{Choose: choose, Compared: compared})
		wantErr(t, "a choice made before a change", err, skillerr.Conflict, source.ReasonChangedSincePreview)
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a refused choice changed the database")
	}
	res := e.importZip(t, pack, ImportOptions{Choose: map[string]ConflictPolicy{"y": ConflictRename}, Compared: compared})
	if len(res.Skills) != 1 || res.Skills[0].ID != "y-v2" {
		t.Errorf("y kept beside the newer y: %s", jsonOf(t, res.Skills))
	}
	// y removed since: its replacement is refused; as previewed again, it installs.
	if err := e.reg.Remove(ctx, "y"); err != nil {
		t.Fatal(err)
	}
	compared["y"] = mustGet(t, e.reg, "y-v2").Digest
	_, err = e.reg.Import(ctx, pack, ImportOptions{Choose: map[string]ConflictPolicy{"y": ConflictReplace}, Compared: compared})
	wantErr(t, "y removed since", err, skillerr.Conflict, source.ReasonChangedSincePreview)
	compared["y"] = ""
	res = e.importZip(t, pack, ImportOptions{Choose: map[string]ConflictPolicy{"y": ConflictReplace}, Compared: compared})
	if len(res.Skills) != 1 || res.Skills[0].ID != "y" {
		t.Errorf("y as previewed again: %s", jsonOf(t, res.Skills))
	}
}
