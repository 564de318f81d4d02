package registry

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillfs/skillfs/internal/realrepos"
	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/source"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// repoOf returns a repository download, every file below top ("repo-main"
// for a branch, "repo-<sha>" for a commit): skills a and b in skills/, c
// in tools/, each with the description given.
func repoOf(t *testing.T, top string, desc map[string]string) []byte {
	t.Helper()
	var files []file
	for _, d := range []string{"skills/a", "skills/b", "tools/c"} {
		n := d[len(d)-1:]
		files = append(files, file{d + "/SKILL.md", mdOf(n, desc[n])})
	}
	return zipOf(t, top, append(files, file{"README.md", "# repo\n"})...)
}

// testImportFolder: an origin's Dir installs only the skills in that
// folder of a repository download, counted from inside its top-level
// folder; each skill records its own folder, and an update of one takes
// that folder of a later download, whose top-level folder is named
// otherwise. A folder with no skill, or not a clean path, changes nothing.
func testImportFolder(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	v1 := map[string]string{"a": "A one.", "b": "B one.", "c": "C one."}
	repo := repoOf(t, "repo-main", v1)
	o := source.Origin{Kind: source.KindURL, URL: "https://a.test/repo.zip", Type: source.TypeArchive, Digest: source.Sum(repo), Dir: "skills"}

	p, err := e.reg.Preview(ctx, repo, nil, &source.Origin{Dir: "skills"})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, s := range p.Skills {
		dirs = append(dirs, s.Dir)
	}
	if !slices.Equal(dirs, []string{"repo-main/skills/a", "repo-main/skills/b"}) {
		t.Errorf("preview of skills/: %v", dirs)
	}

	empty := dump(t, e.db)
	for _, c := range []struct {
		dir    string
		code   skillerr.Code
		reason string
	}{
		{"docs", skillerr.SkillNotFound, ReasonNotInFolder},
		{"skill", skillerr.SkillNotFound, ReasonNotInFolder}, // a prefix of a name is not its folder
		{"../skills", skillerr.InvalidArgument, ReasonNotInFolder},
		{"skills/", skillerr.InvalidArgument, ReasonNotInFolder},
	} {
		oc := o
		oc.Dir = c.dir
		_, err := e.reg.Import(ctx, repo, ImportOptions{Origin: &oc})
		wantErr(t, "folder "+c.dir, err, c.code, c.reason)
		// What to do instead, of the address a person gave.
		if want := "docs: the download holds no skill in docs/ (it holds 3 skills elsewhere): install from the address of the whole download, or of a folder of it that holds a skill"; c.dir == "docs" && err.Error() != want {
			t.Errorf("folder docs: %v\nwant %s", err, want)
		}
	}
	if !sameDump(empty, dump(t, e.db)) {
		t.Error("a refused install changed the database")
	}

	res := e.importZip(t, repo, ImportOptions{Origin: &o})
	folders := map[string]string{}
	for _, m := range res.Skills {
		folders[m.ID] = m.Origin.Dir
	}
	if want := map[string]string{"a": "skills/a", "b": "skills/b"}; !mapsEqual(folders, want) {
		t.Fatalf("installed from skills/: %v, want %v", folders, want)
	}

	// The publisher changes a; the download of a commit is named for it.
	v2 := map[string]string{"a": "A two.", "b": "B one.", "c": "C one."}
	// Asked with the new download, only a has an update; with the same
	// bytes, none; with c's folder gone, c is no longer published.
	v2repo := repoOf(t, "repo-0123abc", v2)
	for _, c := range []struct {
		data []byte
		want string
	}{
		{v2repo, "a changed, b current"},
		{repo, "a current, b current"},
		{zipOf(t, "repo-main", file{"skills/a/SKILL.md", mdOf("a", "A one.")}, file{"skills/c/SKILL.md", mdOf("c", "C.")}), "a current, b gone"},
	} {
		ups, err := e.reg.CheckDownload(ctx, []string{"a", "b"}, c.data, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := ups[0].ID + " " + ups[0].Status + ", " + ups[1].ID + " " + ups[1].Status; got != c.want {
			t.Errorf("CheckDownload = %s, want %s", got, c.want)
		}
	}
	next := o
	next.Digest, next.Dir = "sha256:2", "skills/a"
	up := e.importZip(t, repoOf(t, "repo-0123abc", v2), ImportOptions{Target: "a", Origin: &next})
	if len(up.Skills) != 1 || up.Skills[0].ID != "a" || up.Skills[0].Description != "A two." || up.Skills[0].Origin.Dir != "skills/a" {
		t.Fatalf("update of a: %s", jsonOf(t, up.Skills))
	}
	if b, err := e.reg.Get(ctx, "b"); err != nil || b.Description != "B one." {
		t.Errorf("b after a's update: %+v, %v", b, err)
	}
	// Without its folder, the download holds three skills: no update.
	whole := next
	whole.Dir = ""
	_, err = e.reg.Import(ctx, repoOf(t, "repo-main", v2), ImportOptions{Target: "b", Origin: &whole})
	wantErr(t, "update from the whole download", err, skillerr.InvalidArchive, "not-one-skill")

	// The whole download: each skill records its folder.
	res = e.importZip(t, repoOf(t, "repo-main", v2), ImportOptions{Origin: &whole, OnConflict: ConflictReplace})
	folders = map[string]string{}
	for _, m := range res.Skills {
		folders[m.ID] = m.Origin.Dir
	}
	if want := map[string]string{"a": "skills/a", "b": "skills/b", "c": "tools/c"}; !mapsEqual(folders, want) {
		t.Errorf("installed whole: %v, want %v", folders, want)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestFolderReal: in real repository downloads (and the generated one,
// always), the folder an install records for each skill is the one its
// page on GitHub names (source.Locate of …/tree/main/<folder>), and asking
// for that folder previews exactly that skill.
func TestFolderReal(t *testing.T) {
	check := func(t *testing.T, name string, data []byte) {
		e := newEnv(t, memoryCase)
		ctx := context.Background()
		all, err := e.reg.Preview(ctx, data, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := e.importZip(t, data, ImportOptions{Origin: &source.Origin{Kind: source.KindURL, URL: "https://github.com/o/r/archive/main.zip"},
			SkipInvalid: true})
		if len(res.Skills) < 2 {
			t.Fatalf("%d skills installed", len(res.Skills))
		}
		byDir := map[string]string{}
		for _, s := range all.Skills {
			byDir[s.Dir] = s.Name
		}
		for i, m := range res.Skills {
			dir := m.Origin.Dir
			if _, ok := byDir[name+"/"+dir]; !ok {
				t.Fatalf("%s records folder %q, not one of the download's", m.ID, dir)
			}
			if loc := source.Locate("https://github.com/o/r/tree/main/" + dir); loc.Dir != dir {
				t.Errorf("%s: the page of its folder names %q, it records %q", m.ID, loc.Dir, dir)
			}
			if i != 0 && i != len(res.Skills)/2 && i != len(res.Skills)-1 {
				continue
			}
			one, err := e.reg.Preview(ctx, data, nil, &source.Origin{Dir: dir})
			if err != nil || len(one.Skills) != 1 || one.Skills[0].Dir != name+"/"+dir {
				t.Errorf("preview of %s/: %+v, %v", dir, one, err)
			}
		}
	}
	t.Run("generated", func(t *testing.T) { check(t, "skills-main", realrepos.Generated()) })
	realrepos.Each(t, func(t *testing.T, r realrepos.Repo, data []byte) {
		check(t, r.Name[strings.IndexByte(r.Name, '+')+1:]+"-main", data)
	})
}

// TestCheckDownloadRenamed: a skill of a download of several, installed
// beside one of its name (renamed, its SKILL.md naming its id), has no
// update while its folder is unchanged, though other folders change.
func TestCheckDownloadRenamed(t *testing.T) {
	e := newEnv(t, memoryCase)
	ctx := context.Background()
	e.importZip(t, zipOf(t, "", file{"a/SKILL.md", mdOf("a", "Mine.")}), ImportOptions{})
	v1 := map[string]string{"a": "A one.", "b": "B one.", "c": "C one."}
	repo := repoOf(t, "repo-main", v1)
	o := source.Origin{Kind: source.KindURL, URL: "https://a.test/repo.zip", Type: source.TypeArchive, Digest: source.Sum(repo)}
	res := e.importZip(t, repo, ImportOptions{Origin: &o})
	var renamed string
	for _, m := range res.Skills {
		if m.Origin.Dir == "skills/a" {
			renamed = m.ID
		}
	}
	if renamed == "" || renamed == "a" {
		t.Fatalf("skills/a installed as %q", renamed)
	}
	v2 := map[string]string{"a": "A one.", "b": "B two.", "c": "C one."}
	v3 := map[string]string{"a": "A two.", "b": "B two.", "c": "C one."}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{repoOf(t, "repo-0123abc", v2), source.StatusCurrent},
		{repoOf(t, "repo-0123abc", v3), source.StatusChanged},
	} {
		ups, err := e.reg.CheckDownload(ctx, []string{renamed}, c.data, "")
		if err != nil {
			t.Fatal(err)
		}
		if ups[0].Status != c.want {
			t.Errorf("CheckDownload(%s) = %s, want %s", renamed, ups[0].Status, c.want)
		}
	}
}

// TestFolderInSkill: a folder inside a skill (a link to one of its
// scripts: …/blob/main/skills/a/scripts/run.sh) installs that skill, which
// records its own folder; a repository that is one skill (its SKILL.md at
// the top) is that skill's folder, whatever its download's top folder is
// named, so a folder of it installs it and its update finds it.
func TestFolderInSkill(t *testing.T) {
	e := newEnv(t, memoryCase)
	ctx := context.Background()
	repo := zipOf(t, "repo-main", file{"skills/a/SKILL.md", mdOf("a", "A.")}, file{"skills/a/scripts/run.sh", "echo a\n"},
		file{"skills/ab/SKILL.md", mdOf("ab", "AB.")})
	o := source.Origin{Kind: source.KindURL, URL: "https://github.com/o/repo/archive/main.zip", Type: source.TypeArchive,
		Dir: source.Locate("https://github.com/o/repo/blob/main/skills/a/scripts/run.sh").Dir}
	res := e.importZip(t, repo, ImportOptions{Origin: &o})
	if len(res.Skills) != 1 || res.Skills[0].ID != "a" || res.Skills[0].Origin.Dir != "skills/a" {
		t.Fatalf("from %s/: %s", o.Dir, jsonOf(t, res.Skills))
	}

	one := func(top, desc string) []byte {
		return zipOf(t, top, file{"SKILL.md", mdOf("solo", desc)}, file{"scripts/run.sh", "echo solo\n"})
	}
	for _, dir := range []string{"scripts", ""} {
		p, err := e.reg.Preview(ctx, one("solo-main", "One."), nil, &source.Origin{Dir: dir})
		if err != nil || len(p.Skills) != 1 || p.Skills[0].Folder != "." {
			t.Fatalf("preview of %q in a one-skill repository: %+v, %v", dir, p, err)
		}
	}
	so := source.Origin{Kind: source.KindURL, URL: "https://github.com/o/solo/archive/main.zip", Type: source.TypeArchive, Dir: "scripts"}
	res = e.importZip(t, one("solo-main", "One."), ImportOptions{Origin: &so})
	if len(res.Skills) != 1 || res.Skills[0].Origin.Dir != "" {
		t.Fatalf("solo from scripts/: %s", jsonOf(t, res.Skills))
	}
	up := *res.Skills[0].Origin
	res = e.importZip(t, one("solo-0123abc", "Two."), ImportOptions{Target: "solo", Origin: &up})
	if len(res.Skills) != 1 || res.Skills[0].Description != "Two." {
		t.Fatalf("update of solo: %s", jsonOf(t, res.Skills))
	}
}

// TestFolderOneGrows: the one skill of a repository's download, below its
// top folder, records its folder, so that when the repository adds
// skills its update still finds it, and a change elsewhere in the
// repository is no update of it. A skill that is the whole download needs
// no folder.
func TestFolderOneGrows(t *testing.T) {
	e := newEnv(t, memoryCase)
	ctx := context.Background()
	v1 := zipOf(t, "repo-main", file{"skills/a/SKILL.md", mdOf("a", "A one.")}, file{"README.md", "# one\n"})
	o := source.Origin{Kind: source.KindURL, URL: "https://github.com/o/repo/archive/HEAD.zip", Type: source.TypeArchive, Digest: source.Sum(v1)}
	res := e.importZip(t, v1, ImportOptions{Origin: &o})
	if len(res.Skills) != 1 || res.Skills[0].Origin.Dir != "skills/a" {
		t.Fatalf("the one skill: %s", jsonOf(t, res.Skills))
	}
	grown := func(desc string) []byte {
		return zipOf(t, "repo-0123abc", file{"skills/a/SKILL.md", mdOf("a", desc)}, file{"skills/b/SKILL.md", mdOf("b", "B.")},
			file{"README.md", "# two\n"})
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{grown("A one."), source.StatusCurrent},
		{grown("A two."), source.StatusChanged},
	} {
		ups, err := e.reg.CheckDownload(ctx, []string{"a"}, c.data, "")
		if err != nil || ups[0].Status != c.want {
			t.Errorf("CheckDownload = %+v, %v; want %s", ups, err, c.want)
		}
	}
	up := *res.Skills[0].Origin
	res = e.importZip(t, grown("A two."), ImportOptions{Target: "a", Origin: &up})
	if len(res.Skills) != 1 || res.Skills[0].Description != "A two." {
		t.Fatalf("update of a: %s", jsonOf(t, res.Skills))
	}

	whole := zipOf(t, "solo-main", file{"SKILL.md", mdOf("solo", "Solo.")})
	so := source.Origin{Kind: source.KindURL, URL: "https://github.com/o/solo/archive/HEAD.zip", Type: source.TypeArchive}
	if res := e.importZip(t, whole, ImportOptions{Origin: &so}); res.Skills[0].Origin.Dir != "" {
		t.Errorf("a skill that is the whole download records %q", res.Skills[0].Origin.Dir)
	}
}

// TestCheckDownloadReal: the six real downloads installed side by side
// (openai's skill-creator kept beside anthropics' as skill-creator-v2),
// each then fetched again with bytes other than installed: every skill
// is compared by its folder, and none has an update; previewed again, each
// is its folder's skill installed byte for byte, whatever its id. (The
// generated counterparts are TestCheckDownloadRenamed and
// testUpdateKeptBeside.)
func TestCheckDownloadReal(t *testing.T) {
	repos := realrepos.Require(t)
	e := newEnv(t, memoryCase)
	ctx := context.Background()
	renamed := 0
	for _, r := range repos {
		data, err := os.ReadFile(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		o := source.Origin{Kind: source.KindURL, URL: "https://github.com/" + strings.Replace(r.Name, "+", "/", 1) + "/archive/HEAD.zip",
			Type: source.TypeArchive, Digest: "sha256:" + strings.Repeat("0", 64)}
		res := e.importZip(t, data, ImportOptions{Origin: &o, SkipInvalid: true})
		ids := make([]string, len(res.Skills))
		for i, m := range res.Skills {
			ids[i] = m.ID
			for _, d := range m.Diagnostics {
				if d.Code == "renamed" {
					renamed++
				}
			}
		}
		ups, err := e.reg.CheckDownload(ctx, ids, data, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range ups {
			if u.Status != source.StatusCurrent {
				t.Errorf("%s: %s is %s", r.Name, u.ID, u.Status)
			}
		}
		// Previewed again, each skill is the one installed from its
		// folder, byte for byte, whatever its id.
		p, err := e.reg.Preview(ctx, data, nil, &o)
		if err != nil {
			t.Fatal(err)
		}
		byFolder := map[string]string{}
		for _, m := range res.Skills {
			byFolder[m.Origin.Dir] = m.ID
		}
		for _, s := range p.Skills {
			want, ok := byFolder[s.Folder]
			if !ok {
				want = s.Name // left out of the install: installed byte for byte from elsewhere
			}
			if s.Error == nil && (s.Status != PreviewInstalled || s.Installed != want) {
				t.Errorf("%s: %s previewed %s as %q, installed as %q", r.Name, s.Folder, s.Status, s.Installed, want)
			}
		}
	}
	if len(repos) == 6 && renamed == 0 {
		t.Error("no skill was kept beside another of its name")
	}
}

// testCheckDownloadFollows: the skills of one download found current
// against a later download of it — by their folders, the download having
// changed elsewhere, or byte for byte under a new ETag — record that
// download (its digest, unverified, and its ETag) in their origins, in one
// commit of KindOrigin naming only them, their records otherwise as they
// were; so that the next check of the URL is asked once, with the new ETag.
// A skill changed since it was compared is left as it is, and a check
// that finds nothing to follow commits nothing.
func testCheckDownloadFollows(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	v1 := repoOf(t, "repo-main", map[string]string{"a": "A one.", "b": "B one.", "c": "C one."})
	o := source.Origin{Kind: source.KindURL, URL: "https://a.test/repo.zip", Type: source.TypeArchive, Digest: source.Sum(v1), Verified: true, ETag: `"1"`}
	e.importZip(t, v1, ImportOptions{Origin: &o})
	before := map[string]Meta{}
	for _, id := range []string{"a", "b", "c"} {
		before[id] = mustGet(t, e.reg, id)
	}
	rev := mustRevision(t, e.reg)

	e.clock.advance(time.Minute)
	v2 := repoOf(t, "repo-0123abc", map[string]string{"a": "A two.", "b": "B one.", "c": "C one."})
	ups, err := e.reg.CheckDownload(ctx, []string{"a", "b", "c"}, v2, `"2"`)
	if err != nil {
		t.Fatal(err)
	}
	follows := o
	follows.Digest, follows.Verified, follows.ETag = source.Sum(v2), false, `"2"`
	for i, want := range []string{source.StatusChanged, source.StatusCurrent, source.StatusCurrent} {
		id := ups[i].ID
		after := mustGet(t, e.reg, id)
		wantOrigin := follows
		wantOrigin.Dir, wantOrigin.FilesDigest = before[id].Origin.Dir, before[id].Origin.FilesDigest
		if want == source.StatusChanged {
			wantOrigin = *before[id].Origin
		}
		if ups[i].Status != want || ups[i].Origin != wantOrigin || *after.Origin != wantOrigin {
			t.Errorf("%s: %s with %+v, records %+v; want %s with %+v", id, ups[i].Status, ups[i].Origin, *after.Origin, want, wantOrigin)
		}
		after.Origin = before[id].Origin
		if jsonOf(t, after) != jsonOf(t, before[id]) {
			t.Errorf("%s: its record changed beyond its origin:\n%s\n%s", id, jsonOf(t, before[id]), jsonOf(t, after))
		}
	}
	if c := e.lastChange(t); c.Kind != KindOrigin || !slices.Equal(c.IDs, []string{"b", "c"}) || c.Revision != rev+1 {
		t.Errorf("the change: %+v, want %s of b and c at %d", c, KindOrigin, rev+1)
	}

	// Checked again: nothing to follow, nothing committed.
	if _, err := e.reg.CheckDownload(ctx, []string{"a", "b", "c"}, v2, `"2"`); err != nil || mustRevision(t, e.reg) != rev+1 {
		t.Errorf("a check with nothing to follow: revision %d, %v", mustRevision(t, e.reg), err)
	}
	// The same bytes under another ETag: the ETag followed, the digest kept.
	if _, err := e.reg.CheckDownload(ctx, []string{"b"}, v2, `"2b"`); err != nil {
		t.Fatal(err)
	}
	if got := *mustGet(t, e.reg, "b").Origin; got.ETag != `"2b"` || got.Digest != follows.Digest {
		t.Errorf("b after a new ETag: %+v", got)
	}
	// A skill that changed since it was compared is not followed.
	c := mustGet(t, e.reg, "c")
	done, err := e.reg.followDownload(ctx, []compared{{id: "c", digest: "sha256:other", origin: *c.Origin, next: c.Origin.Follow(source.Sum(v1), `"1"`)}})
	if err != nil || len(done) != 0 || *mustGet(t, e.reg, "c").Origin != *c.Origin {
		t.Errorf("followDownload of a changed skill: %v, %v; origin %+v", done, err, *mustGet(t, e.reg, "c").Origin)
	}
	_, err = e.reg.CheckDownload(ctx, make([]string, MaxBatch+1), v2, "")
	wantErr(t, "more than MaxBatch ids", err, skillerr.TooLarge, "batch")
}

// testUpdateKeptBeside: a skill of a download installed beside another
// of its name (a, kept as a-v2) is, to a preview of a later download of
// that URL, the skill each of its folder's versions is compared with
// (installed while unchanged, in conflict once changed), and an import of
// it that replaces replaces a-v2, in place, not the a installed from
// elsewhere. Without the URL (a local archive), a is still the one of its
// name.
func testUpdateKeptBeside(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	e.importZip(t, zipOf(t, "", file{"a/SKILL.md", mdOf("a", "Mine.")}), ImportOptions{})
	mine := mustGet(t, e.reg, "a")
	v1 := repoOf(t, "repo-main", map[string]string{"a": "A one.", "b": "B one.", "c": "C one."})
	o := source.Origin{Kind: source.KindURL, URL: "https://a.test/repo.zip", Type: source.TypeArchive, Digest: source.Sum(v1)}
	e.importZip(t, v1, ImportOptions{Origin: &o})
	kept := mustGet(t, e.reg, "a-v2")
	if kept.Origin == nil || kept.Origin.Dir != "skills/a" {
		t.Fatalf("a-v2: %s", jsonOf(t, kept))
	}
	v2 := repoOf(t, "repo-0123abc", map[string]string{"a": "A two.", "b": "B one.", "c": "C one."})
	statuses := func(data []byte, origin *source.Origin) string {
		p, err := e.reg.Preview(ctx, data, nil, origin)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range p.Skills {
			got = append(got, s.Name+":"+s.Status+":"+s.Installed)
		}
		return strings.Join(got, " ")
	}
	for _, c := range []struct {
		what   string
		data   []byte
		origin *source.Origin
		want   string
	}{
		{"the download again", v1, &o, "a:installed:a-v2 b:installed:b c:installed:c"},
		{"a later download", v2, &o, "a:conflict:a-v2 b:installed:b c:installed:c"},
		{"a local archive", v2, nil, "a:conflict:a b:installed:b c:installed:c"},
	} {
		if got := statuses(c.data, c.origin); got != c.want {
			t.Errorf("preview of %s: %s, want %s", c.what, got, c.want)
		}
	}

	next := o
	next.Digest = source.Sum(v2)
	res := e.importZip(t, v2, ImportOptions{Origin: &next, Choose: map[string]ConflictPolicy{"a": ConflictReplace}})
	if len(res.Skills) != 1 || res.Skills[0].ID != "a-v2" || !slices.Equal(res.Replaced, []string{"a-v2"}) {
		t.Fatalf("update of a: %s", jsonOf(t, res))
	}
	up := mustGet(t, e.reg, "a-v2")
	if up.Description != "A two." || up.Instance != kept.Instance || up.Origin.Dir != "skills/a" ||
		!slices.ContainsFunc(up.Diagnostics, func(d skill.Diagnostic) bool { return strings.HasPrefix(d.Message, "This update of 'a-v2'") }) {
		t.Errorf("a-v2 after its update: %s", jsonOf(t, up))
	}
	if got := mustGet(t, e.reg, "a"); jsonOf(t, got) != jsonOf(t, mine) {
		t.Errorf("the a installed from elsewhere changed: %s", jsonOf(t, got))
	}
	// Keep both: a copy beside both.
	res = e.importZip(t, v2, ImportOptions{Origin: &next, Choose: map[string]ConflictPolicy{"a": ConflictRename}})
	if len(res.Skills) != 1 || res.Skills[0].ID != "a-v3" {
		t.Errorf("a kept beside: %s", jsonOf(t, res.Skills))
	}
}

// repoInstalled returns a registry with repoOf's download installed from
// its URL (a, b and c, each recording its folder), the download and its
// origin.
func repoInstalled(t *testing.T) (*env, []byte, source.Origin) {
	return repoInstalledFrom(t, source.Origin{Kind: source.KindURL, URL: "https://a.test/repo.zip", Type: source.TypeArchive})
}

// repoInstalledFrom is repoInstalled from o (the download's digest set).
func repoInstalledFrom(t *testing.T, o source.Origin) (*env, []byte, source.Origin) {
	e := newEnv(t, memoryCase)
	v1 := repoOf(t, "repo-main", map[string]string{"a": "A one.", "b": "B one.", "c": "C one."})
	o.Digest = source.Sum(v1)
	e.importZip(t, v1, ImportOptions{Origin: &o})
	return e, v1, o
}

// TestCheckDownloadMoved: a skill whose folder a later download no longer
// has, but which it holds in another folder (the skill of its name, or
// the one in a folder of its folder's last name), has moved, not gone: unchanged, it is current
// and records its new folder; changed, its update names the new folder,
// and an update from there replaces it in place. A folder another
// installed skill came from is not one to move to; two to choose from,
// or none, leave it gone.
func TestCheckDownloadMoved(t *testing.T) {
	e, v1, o := repoInstalled(t)
	ctx := context.Background()
	check := func(data []byte) map[string]string {
		t.Helper()
		ups, err := e.reg.CheckDownload(ctx, []string{"a", "b", "c"}, data, "")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, u := range ups {
			got[u.ID] = u.Status + " " + u.Origin.Dir
		}
		return got
	}
	for _, c := range []struct {
		what  string
		files []file
		want  map[string]string
	}{
		{"a to another folder of its last name; b removed; c to a folder and a name of its own",
			[]file{{"skills/x/a/SKILL.md", mdOf("a", "A one.")}, {"tools/cc/SKILL.md", mdOf("cee", "C one.")}},
			map[string]string{"a": "current skills/x/a", "b": "gone skills/b", "c": "gone tools/c"}},
		{"a to b's folder (b's is another skill's)",
			[]file{{"skills/b/SKILL.md", mdOf("a", "A one.")}, {"tools/c/SKILL.md", mdOf("c", "C one.")}},
			map[string]string{"a": "gone skills/a", "b": "changed skills/b", "c": "current tools/c"}},
		{"the repository become a alone, at its top",
			[]file{{"SKILL.md", mdOf("a", "A one.")}},
			map[string]string{"a": "current ", "b": "gone skills/b", "c": "gone tools/c"}},
		{"a to a folder whose name starts with a dot",
			[]file{{".curated/a/SKILL.md", mdOf("a", "A one.")}, {"skills/b/SKILL.md", mdOf("b", "B one.")}, {"tools/c/SKILL.md", mdOf("c", "C one.")}},
			map[string]string{"a": "current .curated/a", "b": "current skills/b", "c": "current tools/c"}},
		{"two folders of a's last name, neither of its name",
			[]file{{"x/a/SKILL.md", mdOf("ax", "A one.")}, {"y/a/SKILL.md", mdOf("ay", "A y.")}, {"skills/b/SKILL.md", mdOf("b", "B one.")}, {"tools/c/SKILL.md", mdOf("c", "C one.")}},
			map[string]string{"a": "gone skills/a", "b": "current skills/b", "c": "current tools/c"}},
	} {
		if got := check(zipOf(t, "repo-0123abc", c.files...)); !mapsEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, got, c.want)
		}
		// Checked against the first download again: nothing moved.
		e.importZip(t, v1, ImportOptions{Origin: &o, OnConflict: ConflictReplace})
	}

	// a moved by its name, and changed; b and c moved by their folders' names.
	v2 := zipOf(t, "repo-0123abc", file{"skills/alpha/SKILL.md", mdOf("a", "A two.")},
		file{"skills/more/b/SKILL.md", mdOf("b", "B one.")}, file{"tools/more/c/SKILL.md", mdOf("c", "C one.")})
	want := map[string]string{"a": "changed skills/alpha", "b": "current skills/more/b", "c": "current tools/more/c"}
	if got := check(v2); !mapsEqual(got, want) {
		t.Fatalf("moved: %v, want %v", got, want)
	}
	// The current ones recorded their new folders; the changed one did not.
	for id, dir := range map[string]string{"a": "skills/a", "b": "skills/more/b", "c": "tools/more/c"} {
		if got := mustGet(t, e.reg, id).Origin.Dir; got != dir {
			t.Errorf("%s records %q, want %q", id, got, dir)
		}
	}
	next := o
	next.Digest, next.Dir = source.Sum(v2), "skills/alpha"
	res := e.importZip(t, v2, ImportOptions{Target: "a", Origin: &next})
	if len(res.Skills) != 1 || res.Skills[0].Description != "A two." || res.Skills[0].Origin.Dir != "skills/alpha" {
		t.Fatalf("update of a: %s", jsonOf(t, res.Skills))
	}
	if got := check(v2); !mapsEqual(got, map[string]string{"a": "current skills/alpha", "b": "current skills/more/b", "c": "current tools/more/c"}) {
		t.Errorf("after the update: %v", got)
	}
}

// TestCheckDownloadUnreadable: a download that changed into something no
// update can install — a web page, an archive cut short — fails the check
// with the error the update would meet, for a skill of a folder or the
// whole of a download, and changes nothing stored.
func TestCheckDownloadUnreadable(t *testing.T) {
	e, v1, _ := repoInstalled(t)
	ctx := context.Background()
	solo := zipOf(t, "", file{"SKILL.md", mdOf("solo", "Solo.")})
	so := source.Origin{Kind: source.KindURL, URL: "https://a.test/solo.zip", Type: source.TypeArchive, Digest: source.Sum(solo)}
	e.importZip(t, solo, ImportOptions{Origin: &so})
	before := dump(t, e.db)
	for _, c := range []struct {
		what   string
		data   []byte
		code   skillerr.Code
		reason string
	}{
		{"a web page", []byte("<!doctype html><html><body>Sign in to continue</body></html>"), skillerr.InvalidArchive, source.ReasonWebPage},
		{"an archive cut short", v1[:len(v1)/2], skillerr.InvalidArchive, ""},
	} {
		for _, ids := range [][]string{{"a", "b", "c"}, {"solo"}} {
			ups, err := e.reg.CheckDownload(ctx, ids, c.data, `"2"`)
			if skillerr.CodeOf(err) != c.code || (c.reason != "" && skillerr.ReasonOf(err) != c.reason) {
				t.Errorf("%s, %v: %+v, %v; want %s %s", c.what, ids, ups, err, c.code, c.reason)
			}
		}
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a failed check changed the database")
	}
}

// TestPreviewMoved: previewed again from its URL, a download whose skill
// moved to another folder and changed offers it as the update of the
// skill installed from the folder it left (PreviewSkill.Update), and an
// import that replaces it updates that skill in place, recording its new
// folder, rather than keeping a copy beside it. A folder outside the one
// read (a folder of the repository on GitHub) is not taken for gone.
func TestPreviewMoved(t *testing.T) {
	e, _, o := repoInstalled(t)
	ctx := context.Background()
	v2 := zipOf(t, "repo-0123abc", file{"skills/x/a/SKILL.md", mdOf("a", "A two.")}, file{"skills/b/SKILL.md", mdOf("b", "B one.")},
		file{"tools/c/SKILL.md", mdOf("c", "C one.")}, file{"tools/a/SKILL.md", mdOf("tools-a", "Another a.")})
	statuses := func(origin source.Origin) string {
		t.Helper()
		p, err := e.reg.Preview(ctx, v2, nil, &origin)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range p.Skills {
			got = append(got, fmt.Sprintf("%s:%s:%s:%v", s.Folder, s.Status, s.Installed, s.Update))
		}
		return strings.Join(got, " ")
	}
	if got, want := statuses(o), "skills/b:installed:b:true skills/x/a:conflict:a:true tools/a:new::false tools/c:installed:c:true"; got != want {
		t.Errorf("preview: %s, want %s", got, want)
	}
	tools := o
	tools.Dir = "tools"
	if got, want := statuses(tools), "tools/a:new::false tools/c:installed:c:true"; got != want {
		t.Errorf("preview of tools/: %s, want %s", got, want)
	}
	before := mustGet(t, e.reg, "a")
	next := o
	next.Digest = source.Sum(v2)
	res := e.importZip(t, v2, ImportOptions{Origin: &next, Choose: map[string]ConflictPolicy{"a": ConflictReplace}})
	if len(res.Skills) != 1 || res.Skills[0].ID != "a" || res.Skills[0].Instance != before.Instance || res.Skills[0].Origin.Dir != "skills/x/a" ||
		res.Skills[0].Description != "A two." {
		t.Fatalf("a replaced: %s", jsonOf(t, res))
	}
}

// TestPreviewWhole: previewed again from its URL, a skill that was the
// whole of its download (no folder recorded) is offered as the update of
// the one installed from there (PreviewSkill.Update); the same skill of
// another URL, or imported from bytes, is only one of its name.
func TestPreviewWhole(t *testing.T) {
	e := newEnv(t, memoryCase)
	ctx := context.Background()
	o := source.Origin{Kind: source.KindURL, URL: "https://a.test/SKILL.md", Type: source.TypeSkillMD}
	e.importZip(t, zipOf(t, "", file{"SKILL.md", mdOf("lone", "Version 1.")}), ImportOptions{Origin: &o})
	e.importZip(t, zipOf(t, "", file{"SKILL.md", mdOf("local", "Version 1.")}), ImportOptions{})
	update := func(name string, origin source.Origin) string {
		t.Helper()
		p, err := e.reg.Preview(ctx, zipOf(t, "", file{"SKILL.md", mdOf(name, "Version 2.")}), nil, &origin)
		if err != nil || len(p.Skills) != 1 {
			t.Fatalf("preview of %s: %v %v", name, p, err)
		}
		s := p.Skills[0]
		return fmt.Sprintf("%s:%s:%v", s.Status, s.Installed, s.Update)
	}
	elsewhere := o
	elsewhere.URL = "https://b.test/SKILL.md"
	for _, c := range []struct {
		name   string
		origin source.Origin
		want   string
	}{{"lone", o, "conflict:lone:true"}, {"lone", elsewhere, "conflict:lone:false"}, {"local", o, "conflict:local:false"}} {
		if got := update(c.name, c.origin); got != c.want {
			t.Errorf("%s from %s: %s, want %s", c.name, c.origin.URL, got, c.want)
		}
	}
}

// TestCheckDownloadCannotInstall: a skill whose version published now an
// update could not install — its SKILL.md broken, or depending on a skill
// neither installed nor in the download (TestUpdateNeeds) — is an error
// that says so, not an update to offer. A skill
// that is the whole of its download is compared by its files, not the
// download's bytes: the same skill downloaded in other bytes is current,
// and a download that holds several skills now is an error.
// TestCheckDownloadNoOrigin: a skill imported from an archive's bytes has
// no source to check: said so, with what to do, and the reason the
// bridge's update gives it.
func TestCheckDownloadNoOrigin(t *testing.T) {
	e := newEnv(t, memoryCase)
	data := zipOf(t, "", file{"SKILL.md", mdOf("solo", "Solo.")})
	e.importZip(t, data, ImportOptions{})
	_, err := e.reg.CheckDownload(context.Background(), []string{"solo"}, data, "")
	if se := wantErr(t, "CheckDownload", err, skillerr.InvalidArgument, "no-origin"); se != nil &&
		err.Error() != "solo: the skill was imported from an archive, not installed from where it is published, so nothing says where to update it from: import its new version instead" {
		t.Errorf("CheckDownload: %v", err)
	}
}

func TestCheckDownloadCannotInstall(t *testing.T) {
	e, _, _ := repoInstalled(t)
	ctx := context.Background()
	v2 := zipOf(t, "repo-0123abc", file{"skills/a/SKILL.md", "---\nname: [a\n---\n"}, file{"skills/b/SKILL.md", mdOf("b", "B two.", "skill_dependencies: [d, e]")},
		file{"skills/d/SKILL.md", mdOf("d", "D.")}, file{"tools/c/SKILL.md", mdOf("c", "C one.")})
	ups, err := e.reg.CheckDownload(ctx, []string{"a", "b", "c"}, v2, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range ups {
		got[u.ID] = fmt.Sprintf("%s %s %s %s", u.Status, u.Code, u.Reason, u.Message)
	}
	if got["a"] != "error InvalidManifest yaml-invalid the version of 'a' published now is invalid, so it cannot be installed (the version installed stays): "+
		"The frontmatter is not valid YAML at line 2 of SKILL.md: did not find expected ',' or ']'." ||
		got["b"] != "error InvalidArgument unknown-skill the version of 'b' published now depends on 'e', which is not installed and not in this download: install 'e' first, then update 'b'" ||
		got["c"] != "current   " {
		t.Errorf("CheckDownload: %q", got)
	}

	solo := zipOf(t, "", file{"SKILL.md", mdOf("solo", "Solo.")})
	so := source.Origin{Kind: source.KindURL, URL: "https://a.test/solo.zip", Type: source.TypeArchive, Digest: source.Sum(solo)}
	e.importZip(t, solo, ImportOptions{Origin: &so})
	for _, c := range []struct {
		what string
		data []byte
		want string
	}{
		{"the same skill in other bytes", zipOf(t, "solo-main", file{"SKILL.md", mdOf("solo", "Solo.")}), "current "},
		{"another version", zipOf(t, "", file{"SKILL.md", mdOf("solo", "Solo two.")}), "changed "},
		{"two skills", zipOf(t, "", file{"solo/SKILL.md", mdOf("solo", "Solo.")}, file{"duo/SKILL.md", mdOf("duo", "Duo.")}),
			"error InvalidArchive not-one-skill the version published now holds 2 skills, and an update replaces one skill with one: install from its address again to choose among them"},
	} {
		ups, err := e.reg.CheckDownload(ctx, []string{"solo"}, c.data, "")
		if err != nil || strings.TrimSpace(fmt.Sprintf("%s %s %s %s", ups[0].Status, ups[0].Code, ups[0].Reason, ups[0].Message)) != strings.TrimSpace(c.want) {
			t.Errorf("%s: %+v, %v; want %s", c.what, ups, err, c.want)
		}
	}
}

// TestUpdateNeeds: an update whose version in the download depends on
// skills of the download that are not installed (d, and e, which d
// depends on) installs them with it, in its one commit, as an import of
// the download choosing them would: each records its own folder, and the
// skill updated keeps its id, instance and place first in the result; the
// check names them (Update.Needs). ImportEach alike. One that depends on a
// skill neither installed nor in the download is refused, nothing stored.
// A skill of an index entry's archive of several is updated so too: that
// archive is its download (another entry of the index is not).
func TestUpdateNeeds(t *testing.T) {
	v2 := zipOf(t, "repo-0123abc", file{"skills/a/SKILL.md", mdOf("a", "A one.")},
		file{"skills/b/SKILL.md", mdOf("b", "B two.", "skill_dependencies: [e, d, c]")},
		file{"skills/d/SKILL.md", mdOf("d", "D.", "skill_dependencies: [e]")}, file{"skills/e/SKILL.md", mdOf("e", "E.")},
		file{"skills/f/SKILL.md", mdOf("f", "F.")}, file{"tools/c/SKILL.md", mdOf("c", "C two.", "skill_dependencies: [zz]")})
	ctx := context.Background()
	for _, from := range []source.Origin{
		{Kind: source.KindURL, URL: "https://a.test/repo.zip", Type: source.TypeArchive},
		{Kind: source.KindIndex, Index: "https://a.test/.well-known/agent-skills/index.json", Entry: "repo",
			URL: "https://a.test/.well-known/agent-skills/repo-1.zip", Type: source.TypeArchive, Verified: true},
	} {
		t.Run(from.Kind, func(t *testing.T) {
			e, _, o := repoInstalledFrom(t, from)
			// An index is checked by the digests it publishes, downloading
			// nothing (source.CheckIndex).
			if o.Kind == source.KindURL {
				ups, err := e.reg.CheckDownload(ctx, []string{"a", "b", "c"}, v2, "")
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]string{}
				for _, u := range ups {
					got[u.ID] = fmt.Sprintf("%s %v %s", u.Status, u.Needs, u.Code)
				}
				if want := map[string]string{"a": "current [] ", "b": "changed [e d] ", "c": "error [] InvalidArgument"}; !maps.Equal(got, want) {
					t.Errorf("CheckDownload = %q, want %q", got, want)
				}
			}
			// As update() asks: the entry's new artifact, at a URL of its own.
			next := func(dir string) *source.Origin {
				n := o
				n.Digest, n.Dir = source.Sum(v2), dir
				if n.Kind == source.KindIndex {
					n.URL = "https://a.test/.well-known/agent-skills/repo-2.zip"
				}
				return &n
			}
			before := dump(t, e.db)
			_, err := e.reg.Import(ctx, v2, ImportOptions{Target: "c", Origin: next("tools/c")})
			// Which skill, why the update cannot install it, and what to
			// do, not "zz: the skill in repo-0123abc/tools/c/ cannot be
			// installed: zz: 'c' depends on it, but no skill with this id
			// is installed".
			msg := map[string]string{
				source.KindURL: "zz: the version of 'c' published now depends on 'zz', which is not installed and not in this download: install 'zz' first, then update 'c'",
				source.KindIndex: "zz: the version of 'c' published now depends on 'zz', which is not installed and is no part of the index's entry 'repo': " +
					"install 'zz' first (from the index, if it publishes it as an entry of its own), then update 'c'",
			}[o.Kind]
			if se := wantErr(t, "an update needing a skill not in the download", err, skillerr.InvalidArgument, "unknown-skill"); se != nil && err.Error() != msg {
				t.Errorf("an update needing a skill not in the download: %v", err)
			}
			// One that needs a skill of the download that cannot be
			// installed says why that one cannot.
			v3 := zipOf(t, "repo-0123abc", file{"skills/a/SKILL.md", mdOf("a", "A one.")}, file{"skills/b/SKILL.md", mdOf("b", "B one.")},
				file{"tools/c/SKILL.md", mdOf("c", "C two.", "skill_dependencies: [h]")}, file{"tools/h/SKILL.md", mdOf("h", "H.", "skill_dependencies: [zz]")})
			_, err = e.reg.Import(ctx, v3, ImportOptions{Target: "c", Origin: next("tools/c")})
			if se := wantErr(t, "an update needing a skill of the download that cannot be installed", err, skillerr.InvalidArgument, "unknown-skill"); se != nil &&
				err.Error() != "h: the version of 'c' published now depends on 'h', of the same download: 'h' cannot be installed: it depends on 'zz', which is not installed and is not part of this install: install 'zz' first" {
				t.Errorf("an update needing a skill of the download that cannot be installed: %v", err)
			}
			if !sameDump(before, dump(t, e.db)) {
				t.Error("a refused update changed the database")
			}
			b := mustGet(t, e.reg, "b")
			rev, _ := e.reg.Revision(ctx)
			res := e.importZip(t, v2, ImportOptions{Target: "b", Origin: next("skills/b"), Copy: true})
			var ids []string
			for _, m := range res.Skills {
				ids = append(ids, m.ID+":"+m.Origin.Dir+":"+m.Origin.URL)
			}
			u := next("").URL
			if strings.Join(ids, " ") != "b:skills/b:"+u+" d:skills/d:"+u+" e:skills/e:"+u || res.Skills[0].Instance != b.Instance || res.Skills[0].Description != "B two." ||
				res.Revision != rev+1 || len(res.Invalid) != 0 || len(res.Skipped) != 0 || len(res.AlreadyInstalled) != 0 || !slices.Equal(res.Replaced, []string{"b"}) {
				t.Errorf("update of b: %s", jsonOf(t, res))
			}
			list, err := e.reg.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(slices.Sorted(func(yield func(string) bool) {
				for _, m := range list {
					yield(m.ID)
				}
			}), " "); got != "a b c d e" {
				t.Errorf("installed: %s", got)
			}

			e2, _, _ := repoInstalledFrom(t, from)
			results, errs := e2.reg.ImportEach(ctx, v2, []ImportOptions{{Target: "c", Origin: next("tools/c")}, {Target: "b", Origin: next("skills/b")}})
			wantErr(t, "ImportEach: c", errs[0], skillerr.InvalidArgument, "unknown-skill")
			if errs[1] != nil || len(results[1].Skills) != 3 || results[1].Skills[0].ID != "b" {
				t.Errorf("ImportEach: b: %v %s", errs[1], jsonOf(t, results[1]))
			}
		})
	}
}

// TestUpdateNeedsNamesake: the skills a download holds besides the one
// updated are read as the whole download is: a skill of its name before
// it (in the download's order) makes it the one refused, and the update
// installs nothing with it; one after it is the one refused, and the
// update goes on as without it.
func TestUpdateNeedsNamesake(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		namesake string
		want     string
	}{
		{"aa/b", "unknown-skill"},
		{"zz/b", "b d"},
	} {
		e, _, o := repoInstalled(t)
		v2 := zipOf(t, "repo-0123abc", file{c.namesake + "/SKILL.md", mdOf("b", "Another b.")}, file{"skills/a/SKILL.md", mdOf("a", "A one.")},
			file{"skills/b/SKILL.md", mdOf("b", "B two.", "skill_dependencies: [d]")}, file{"skills/d/SKILL.md", mdOf("d", "D.")},
			file{"tools/c/SKILL.md", mdOf("c", "C one.")})
		n := o
		n.Digest, n.Dir = source.Sum(v2), "skills/b"
		res, err := e.reg.Import(ctx, v2, ImportOptions{Target: "b", Origin: &n})
		got := skillerr.ReasonOf(err)
		if err == nil {
			for _, m := range res.Skills {
				got = strings.TrimSpace(got + " " + m.ID)
			}
		}
		if got != c.want {
			t.Errorf("b of %s beside it: %s (%v), want %s", c.namesake, got, err, c.want)
		}
	}
}

// TestImportSameSourceTwice: installed from a source (Copy) a second time,
// the skills installed from it byte for byte — from the same folder of a
// download of the URL (whatever their ids), the same index entry — are
// already installed, not copied; a skill byte for byte one installed from
// elsewhere is still a copy beside it, and so is one a person chose to
// keep beside.
func TestImportSameSourceTwice(t *testing.T) {
	e := newEnv(t, memoryCase)
	e.importZip(t, zipOf(t, "", file{"b/SKILL.md", mdOf("b", "B one.")}), ImportOptions{}) // b from elsewhere
	v1 := repoOf(t, "repo-main", map[string]string{"a": "A one.", "b": "B one.", "c": "C one."})
	o := source.Origin{Kind: source.KindURL, URL: "https://a.test/repo.zip", Type: source.TypeArchive, Digest: source.Sum(v1)}
	ids := func(ms []Meta) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return strings.Join(out, " ")
	}
	if res := e.importZip(t, v1, ImportOptions{Origin: &o, Copy: true}); ids(res.Skills) != "a b-v2 c" {
		t.Fatalf("first install: %s", ids(res.Skills))
	}
	res := e.importZip(t, v1, ImportOptions{Origin: &o, Copy: true})
	if len(res.Skills) != 0 || strings.Join(res.AlreadyInstalled, " ") != "a b-v2 c" {
		t.Errorf("installed again: %s, already installed %v", ids(res.Skills), res.AlreadyInstalled)
	}
	res = e.importZip(t, v1, ImportOptions{Origin: &o, Copy: true, Choose: map[string]ConflictPolicy{"a": ConflictRename}})
	if ids(res.Skills) != "a-v2" || strings.Join(res.AlreadyInstalled, " ") != "b-v2 c" || len(res.Skipped) != 0 {
		t.Errorf("a chosen to keep beside: %s, already installed %v, skipped %v", ids(res.Skills), res.AlreadyInstalled, res.Skipped)
	}
	// From another address, the same skills left out are skipped: what is
	// installed came from elsewhere, and would be kept beside.
	elsewhere := o
	elsewhere.URL = "https://b.test/repo.zip"
	res = e.importZip(t, v1, ImportOptions{Origin: &elsewhere, Copy: true, Choose: map[string]ConflictPolicy{}})
	if len(res.AlreadyInstalled) != 0 || strings.Join(res.Skipped, " ") != "a b c" {
		t.Errorf("nothing chosen from elsewhere: already installed %v, skipped %v", res.AlreadyInstalled, res.Skipped)
	}
	idx := zipOf(t, "", file{"SKILL.md", mdOf("d", "D.")})
	io := source.Origin{Kind: source.KindIndex, Index: "https://a.test/index.json", Entry: "d", URL: "https://a.test/d.zip", Type: source.TypeArchive, Digest: source.Sum(idx), Verified: true}
	e.importZip(t, idx, ImportOptions{Origin: &io, Copy: true})
	if res := e.importZip(t, idx, ImportOptions{Origin: &io, Copy: true}); len(res.Skills) != 0 || strings.Join(res.AlreadyInstalled, " ") != "d" {
		t.Errorf("the index entry again: %s, already installed %v", ids(res.Skills), res.AlreadyInstalled)
	}
	other := io
	other.Index, other.Entry = "https://b.test/index.json", "d"
	if res := e.importZip(t, idx, ImportOptions{Origin: &other, Copy: true}); ids(res.Skills) != "d-v2" {
		t.Errorf("d from another index: %s", ids(res.Skills))
	}
}

// TestCheckDownloadEdited: a skill edited here since its install is
// compared, in a later download, with what its source gave (its origin's
// FilesDigest), not with the edits: no update while the source publishes
// that still, an update once it publishes another.
func TestCheckDownloadEdited(t *testing.T) {
	e, _, _ := repoInstalled(t)
	ctx := context.Background()
	edited, err := e.reg.WriteFile(ctx, "b", "notes.md", "Mine.\n")
	if err != nil {
		t.Fatal(err)
	}
	if edited.Digest == edited.Origin.FilesDigest || edited.Origin.FilesDigest == "" {
		t.Fatalf("after the edit: digest %s, as received %s", edited.Digest, edited.Origin.FilesDigest)
	}
	for _, c := range []struct {
		desc map[string]string
		want string
	}{
		{map[string]string{"a": "A two.", "b": "B one.", "c": "C one."}, "changed current current"},
		{map[string]string{"a": "A two.", "b": "B two.", "c": "C one."}, "changed changed current"},
	} {
		ups, err := e.reg.CheckDownload(ctx, []string{"a", "b", "c"}, repoOf(t, "repo-0123abc", c.desc), "")
		if err != nil {
			t.Fatal(err)
		}
		if got := ups[0].Status + " " + ups[1].Status + " " + ups[2].Status; got != c.want {
			t.Errorf("%v: %s, want %s", c.desc, got, c.want)
		}
	}
}

// TestCheckDownloadMovedAlone: checked alone (as update() checks a skill),
// a skill whose folder is gone is not taken to have moved into the folder
// of another skill installed from the download, of the same last name.
func TestCheckDownloadMovedAlone(t *testing.T) {
	e := newEnv(t, memoryCase)
	v1 := zipOf(t, "r-main", file{"p/x/SKILL.md", mdOf("x", "X.")}, file{"q/x/SKILL.md", mdOf("y", "Y.")})
	o := source.Origin{Kind: source.KindURL, URL: "https://a.test/r.zip", Type: source.TypeArchive, Digest: source.Sum(v1)}
	e.importZip(t, v1, ImportOptions{Origin: &o})
	v2 := zipOf(t, "r-main", file{"q/x/SKILL.md", mdOf("y", "Y.")})
	ups, err := e.reg.CheckDownload(context.Background(), []string{"x"}, v2, "")
	if err != nil || ups[0].Status != source.StatusGone {
		t.Errorf("x alone: %+v, %v", ups, err)
	}
}

// TestCheckDownloadLeavesTop: a download whose skills no longer share a
// top folder (one added beside it) counts its folders from its root: the
// skills installed from it are found where they moved, not gone.
func TestCheckDownloadLeavesTop(t *testing.T) {
	e, _, _ := repoInstalled(t)
	v2 := zipOf(t, "", file{"repo-main/skills/a/SKILL.md", mdOf("a", "A one.")}, file{"repo-main/skills/b/SKILL.md", mdOf("b", "B two.")},
		file{"repo-main/tools/c/SKILL.md", mdOf("c", "C one.")}, file{"extra/d/SKILL.md", mdOf("d", "D.")})
	ups, err := e.reg.CheckDownload(context.Background(), []string{"a", "b", "c"}, v2, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range ups {
		got = append(got, u.ID+" "+u.Status+" "+u.Origin.Dir)
	}
	if want := []string{"a current repo-main/skills/a", "b changed repo-main/skills/b", "c current repo-main/tools/c"}; !slices.Equal(got, want) {
		t.Errorf("CheckDownload = %q, want %q", got, want)
	}
}

// TestImportEach: the skills of one download updated together from it,
// the archive read once: each from its own folder, in its own commit; one
// whose folder is gone fails alone and changes nothing; a download that
// cannot be read is every one's error.
func TestImportEach(t *testing.T) {
	e, _, o := repoInstalled(t)
	ctx := context.Background()
	v2 := repoOf(t, "repo-0123abc", map[string]string{"a": "A two.", "b": "B two.", "c": "C two."})
	each := make([]ImportOptions, 3)
	for i, u := range []struct{ id, dir string }{{"a", "skills/a"}, {"b", "skills/b"}, {"c", "tools/gone"}} {
		next := o
		next.Digest, next.Dir = source.Sum(v2), u.dir
		each[i] = ImportOptions{Target: u.id, Origin: &next}
	}
	res, errs := e.reg.ImportEach(ctx, v2, each)
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("a, b: %v, %v", errs[0], errs[1])
	}
	if res[0].Skills[0].Description != "A two." || res[1].Skills[0].Description != "B two." || res[0].Revision >= res[1].Revision {
		t.Errorf("a, b: %s", jsonOf(t, res[:2]))
	}
	if skillerr.ReasonOf(errs[2]) != "not-in-folder" || mustGet(t, e.reg, "c").Description != "C one." {
		t.Errorf("c: %v, now %q", errs[2], mustGet(t, e.reg, "c").Description)
	}
	_, errs = e.reg.ImportEach(ctx, []byte("not an archive"), each[:2])
	for i, err := range errs {
		if skillerr.CodeOf(err) != skillerr.InvalidArchive {
			t.Errorf("%d of an unreadable download: %v", i, err)
		}
	}
}

// TestImportIndexEntryOfSeveral: the skills installed from an index entry
// whose archive holds several are, installed from that entry again (Copy,
// as an install from an index is), the ones each of its folders is,
// whatever their ids: one byte for byte the same is already installed, one
// changed is updated in place (its instance kept), not copied beside it,
// and only a skill of a folder none was installed from is new. The
// preview of the new archive says so (Update). A skill of its name from
// elsewhere, or from another entry, is not it.
func TestImportIndexEntryOfSeveral(t *testing.T) {
	e := newEnv(t, memoryCase)
	ctx := context.Background()
	e.importZip(t, zipOf(t, "", file{"b/SKILL.md", mdOf("b", "B one.")}), ImportOptions{}) // b from elsewhere
	v1 := repoOf(t, "pack", map[string]string{"a": "A one.", "b": "B one.", "c": "C one."})
	entry := func(data []byte, url string) *source.Origin {
		return &source.Origin{Kind: source.KindIndex, Index: "https://a.test/.well-known/agent-skills/index.json", Entry: "pack",
			URL: url, Type: source.TypeArchive, Digest: source.Sum(data), Verified: true}
	}
	// As registry.installArtifact installs an index entry's archive.
	install := func(data []byte, o *source.Origin) *ImportResult {
		t.Helper()
		return e.importZip(t, data, ImportOptions{Origin: o, Copy: true, SkipInvalid: true})
	}
	ids := func(ms []Meta) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID+"@"+m.Origin.Dir)
		}
		return strings.Join(out, " ")
	}
	if res := install(v1, entry(v1, "https://a.test/pack.zip")); ids(res.Skills) != "a@skills/a b-v2@skills/b c@tools/c" {
		t.Fatalf("first install: %s", ids(res.Skills))
	}
	a, b := mustGet(t, e.reg, "a"), mustGet(t, e.reg, "b-v2")

	// The site publishes a new archive: a and b changed, c the same, d new.
	v2 := zipOf(t, "pack-2", file{"skills/a/SKILL.md", mdOf("a", "A two.")}, file{"skills/b/SKILL.md", mdOf("b", "B two.")},
		file{"tools/c/SKILL.md", mdOf("c", "C one.")}, file{"tools/d/SKILL.md", mdOf("d", "D one.")})
	o2 := entry(v2, "https://a.test/pack-2.zip")
	p, err := e.reg.Preview(ctx, v2, nil, o2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range p.Skills {
		got = append(got, fmt.Sprintf("%s:%s:%s:%v", s.Folder, s.Status, s.Installed, s.Update))
	}
	if want := "skills/a:conflict:a:true skills/b:conflict:b-v2:true tools/c:installed:c:true tools/d:new::false"; strings.Join(got, " ") != want {
		t.Errorf("preview: %s, want %s", strings.Join(got, " "), want)
	}
	// A fault at any write of that install leaves everything as it was.
	before := dump(t, e.db)
	db := &countingDB{Backend: e.db}
	faulty := openReg(t, db, Options{Now: e.clock.Now})
	for k := 0; int64(k) < max(db.lastOps.Load(), 1); k++ {
		_, err := faulty.Import(vfs.FailAfter(ctx, k), v2, ImportOptions{Origin: o2, Copy: true, SkipInvalid: true})
		wantErr(t, "a fault", err, skillerr.Internal, vfs.ReasonInjected)
		if !sameDump(before, dump(t, e.db)) {
			t.Fatalf("after a fault at write %d the database differs", k)
		}
	}
	res := install(v2, o2)
	if ids(res.Skills) != "a@skills/a b-v2@skills/b d@tools/d" || strings.Join(res.AlreadyInstalled, " ") != "c" {
		t.Fatalf("installed again: %s, already installed %v", ids(res.Skills), res.AlreadyInstalled)
	}
	for _, was := range []Meta{a, b} {
		if m := mustGet(t, e.reg, was.ID); m.Instance != was.Instance || m.Origin.Digest != o2.Digest || m.Description == was.Description {
			t.Errorf("%s not updated in place: %+v", was.ID, m)
		}
	}
	if b := mustGet(t, e.reg, "b"); b.Description != "B one." || b.Origin != nil {
		t.Errorf("b from elsewhere: %+v", b)
	}
	list, err := e.reg.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 5 {
		t.Errorf("installed: %s", jsonOf(t, list))
	}
	// Once more, the same archive: every skill is installed already.
	if res := install(v2, o2); len(res.Skills) != 0 || strings.Join(res.AlreadyInstalled, " ") != "a b-v2 c d" {
		t.Errorf("the same archive again: %s, already installed %v", ids(res.Skills), res.AlreadyInstalled)
	}
	// Another entry's archive of the same skills is not theirs: a copy.
	other := entry(v2, "https://a.test/pack-2.zip")
	other.Entry = "other"
	if res := install(v2, other); !strings.HasPrefix(ids(res.Skills), "a-v2@skills/a ") {
		t.Errorf("from another entry: %s", ids(res.Skills))
	}
}
