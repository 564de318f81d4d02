package registry

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/internal/realrepos"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// brokenMD is a SKILL.md whose frontmatter is not YAML.
const brokenMD = "---\nname: [unclosed\ndescription: Broken.\n---\n# Broken\n"

// A download of two good skills and two broken ones, broken differently:
// frontmatter that is not YAML, and a name that cannot be a folder name.
func mixedPack(t testing.TB) []byte {
	files := append(skillFiles("skills/good-a", "good-a"), file{"skills/bad-yaml/SKILL.md", brokenMD})
	files = append(files, file{"skills/bad-name/SKILL.md", mdOf(`"../escape"`, "A name that climbs out.")})
	files = append(files, skillFiles("skills/good-b", "good-b")...)
	return zipOf(t, "repo-main", files...)
}

// testImportInvalidSkills: Preview lists every skill of an archive with
// two broken ones, each broken one with its error; Import without a choice
// refuses it whole naming both; choosing the good ones installs them in
// one commit and reports the broken ones as left out.
func testImportInvalidSkills(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	pack := mixedPack(t)
	p, err := e.reg.Preview(ctx, pack, nil, nil)
	if err != nil {
		t.Fatalf("Preview: %v", err)
	}
	type row struct{ dir, name, status, reason string }
	var got []row
	for _, s := range p.Skills {
		r := row{s.Dir, s.Name, s.Status, ""}
		if s.Error != nil {
			r.reason = s.Error.Reason
			if s.Error.Code != skillerr.InvalidManifest || s.Error.Subject != s.Dir || !strings.Contains(s.Error.Message, s.Dir+"/") ||
				len(s.Error.Diagnostics) == 0 || s.Digest != "" || s.Diagnostics == nil || len(s.Diagnostics) != 0 {
				t.Errorf("invalid skill = %s", jsonOf(t, s))
			}
		}
		got = append(got, r)
	}
	want := []row{
		{"repo-main/skills/bad-name", "../escape", PreviewInvalid, "name-not-an-id"},
		{"repo-main/skills/bad-yaml", "", PreviewInvalid, "yaml-invalid"},
		{"repo-main/skills/good-a", "good-a", PreviewNew, ""},
		{"repo-main/skills/good-b", "good-b", PreviewNew, ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("preview = %+v\nwant %+v", got, want)
	}

	// Without a choice: refused whole, naming both, saying what to do.
	_, err = e.reg.Import(ctx, pack, ImportOptions{})
	var ie *InvalidSkillsError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v is not an *InvalidSkillsError", err)
	}
	wantErr(t, "two broken", err, skillerr.InvalidManifest, "invalid-skills")
	msg := err.Error()
	for _, s := range []string{"bad-yaml/", "bad-name/", "2 other skills", "choosing"} {
		if !strings.Contains(msg, s) {
			t.Errorf("the message %q does not say %q", msg, s)
		}
	}
	if len(ie.Skills) != 2 || ie.Skills[0].Subject != want[0].dir || ie.Skills[1].Subject != want[1].dir {
		t.Errorf("error skills = %s", jsonOf(t, ie.Skills))
	}
	var me *ManifestError
	if !errors.As(err, &me) || me.Skill != want[0].dir {
		t.Errorf("the first cause is not the first skill's *ManifestError: %v", me)
	}
	if n := len(mustList(t, e.reg)); n != 0 || mustRevision(t, e.reg) != 0 {
		t.Fatalf("a refused import stored %d skills", n)
	}

	// Choosing a broken one by its name is refused with its error.
	_, err = e.reg.Import(ctx, pack, ImportOptions{Choose: map[string]ConflictPolicy{"good-a": ConflictRename, "../escape": ConflictRename}})
	wantErr(t, "chose a broken one", err, skillerr.InvalidManifest, "name-not-an-id")
	if mustRevision(t, e.reg) != 0 {
		t.Fatal("a refused choice changed the registry")
	}

	// Choosing the good ones: both in one commit, the broken ones reported.
	res := e.importZip(t, pack, ImportOptions{Choose: map[string]ConflictPolicy{"good-a": ConflictRename, "good-b": ConflictRename}})
	if !slices.Equal(ids(res.Skills), []string{"good-a", "good-b"}) || len(res.Skipped) != 0 || res.Revision != 1 {
		t.Errorf("choose = %s", jsonOf(t, res))
	}
	if len(res.Invalid) != 2 || res.Invalid[0].Subject != want[0].dir || res.Invalid[0].Reason != want[0].reason ||
		res.Invalid[1].Subject != want[1].dir || res.Invalid[1].Reason != want[1].reason || res.Invalid[1].Message == "" {
		t.Errorf("invalid = %s", jsonOf(t, res.Invalid))
	}
	if c := e.lastChange(t); c.Revision != 1 || !slices.Equal(c.IDs, []string{"good-a", "good-b"}) {
		t.Errorf("change = %+v", c)
	}
}

// testImportManyInvalid: an archive of a thousand broken skills and one
// good one gets an error of a few lines, and the full list in its
// structure and in Preview.
func testImportManyInvalid(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	const n = 1000
	files := skillFiles("good", "good")
	for i := range n {
		files = append(files, file{fmt.Sprintf("bad-%04d/SKILL.md", i), brokenMD})
	}
	pack := zipOf(t, "", files...)
	_, err := e.reg.Import(ctx, pack, ImportOptions{})
	var ie *InvalidSkillsError
	if !errors.As(err, &ie) || len(ie.Skills) != n {
		t.Fatalf("error %v holds %d skills", err, len(ie.Skills))
	}
	// Five named with their reasons, the rest counted.
	if msg := err.Error(); len(msg) > 2000 || !strings.Contains(msg, "and 995 more") || !strings.Contains(msg, "bad-0004/") || strings.Contains(msg, "bad-0005/") {
		t.Errorf("message of %d bytes: %.300q", len(msg), msg)
	}
	p, err := e.reg.Preview(ctx, pack, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	invalid := 0
	for _, s := range p.Skills {
		if s.Status == PreviewInvalid {
			invalid++
		}
	}
	if len(p.Skills) != n+1 || invalid != n {
		t.Errorf("preview: %d skills, %d invalid", len(p.Skills), invalid)
	}
	res := e.importZip(t, pack, ImportOptions{Choose: map[string]ConflictPolicy{"good": ConflictRename}})
	if !slices.Equal(ids(res.Skills), []string{"good"}) || len(res.Invalid) != n {
		t.Errorf("imported %v, %d invalid", ids(res.Skills), len(res.Invalid))
	}
}

// breakOne returns the zip download data with its first SKILL.md (in
// the archive's order) replaced by brokenMD (see rewriteZip), and the
// folder of that skill.
func breakOne(t testing.TB, data []byte) ([]byte, string) {
	t.Helper()
	dir := ""
	out := rewriteZip(t, data, func(name string) (string, bool) {
		if dir == "" && strings.HasSuffix(name, "/SKILL.md") {
			dir = strings.TrimSuffix(name, "/SKILL.md")
			return brokenMD, true
		}
		return "", false
	})
	if dir == "" {
		t.Fatal("the download holds no SKILL.md")
	}
	return out, dir
}

// rewriteZip returns the zip download data with the entries edit returns
// new contents for replaced, every other entry copied as it is (modes,
// links, compression), and files appended.
func rewriteZip(t testing.TB, data []byte, edit func(name string) (string, bool), files ...file) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	write := func(h *zip.FileHeader, data string) {
		w, err := zw.CreateHeader(h)
		if err == nil {
			_, err = io.WriteString(w, data)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range zr.File {
		if data, ok := edit(f.Name); ok {
			h := f.FileHeader
			write(&h, data)
		} else if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		write(&zip.FileHeader{Name: f.path, Method: zip.Deflate}, f.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// testImportBrokenDownload: a repository download with one SKILL.md
// broken previews every skill and installs the others when they are
// chosen. The generated download always; the real ones when present.
func testImportBrokenDownload(t *testing.T, bc backendCase) {
	check := func(t *testing.T, data []byte, skills int) {
		e := newEnv(t, bc)
		ctx := context.Background()
		broken, dir := breakOne(t, data)
		p, err := e.reg.Preview(ctx, broken, nil, nil)
		if err != nil {
			t.Fatalf("Preview: %v", err)
		}
		choose := map[string]ConflictPolicy{}
		var invalid []string
		for _, s := range p.Skills {
			if s.Error != nil {
				invalid = append(invalid, s.Error.Subject)
			} else {
				choose[s.Name] = ConflictRename
			}
		}
		if len(p.Skills) != skills || !slices.Equal(invalid, []string{dir}) {
			t.Fatalf("preview: %d skills (want %d), invalid %v (want %s)", len(p.Skills), skills, invalid, dir)
		}
		_, err = e.reg.Import(ctx, broken, ImportOptions{})
		if skillerr.CodeOf(err) != skillerr.InvalidManifest || !strings.Contains(err.Error(), dir+"/") || !strings.Contains(err.Error(), "choosing them") {
			t.Errorf("import without a choice: %v", err)
		}
		res := e.importZip(t, broken, ImportOptions{Choose: choose})
		if len(res.Skills) != skills-1 || len(res.Invalid) != 1 || res.Invalid[0].Subject != dir || res.Revision != 1 {
			t.Errorf("imported %d of %d skills, invalid %s, revision %d", len(res.Skills), skills-1, jsonOf(t, res.Invalid), res.Revision)
		}
	}
	t.Run("generated", func(t *testing.T) { check(t, realrepos.Generated(), realrepos.GeneratedSkills) })
	t.Run("real", func(t *testing.T) {
		for _, r := range realrepos.Require(t) {
			if r.Name != "anthropics+skills" {
				continue
			}
			data, err := os.ReadFile(r.Path)
			if err != nil {
				t.Fatal(err)
			}
			check(t, data, r.Skills)
			return
		}
		t.Skip("SKIPPED: anthropics+skills.zip is not among the real downloads")
	})
}

// testImportSkipInvalid: an install from a source (SkipInvalid) installs
// the valid skills of a download in one commit and reports the broken
// ones; an update (Target) whose one skill is broken is still refused.
func testImportSkipInvalid(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	res := e.importZip(t, mixedPack(t), ImportOptions{SkipInvalid: true})
	if !slices.Equal(ids(res.Skills), []string{"good-a", "good-b"}) || len(res.Invalid) != 2 || res.Revision != 1 ||
		res.Invalid[0].Reason != "name-not-an-id" || res.Invalid[1].Reason != "yaml-invalid" {
		t.Errorf("skip invalid = %s", jsonOf(t, res))
	}
	_, err := e.reg.Import(context.Background(), zipOf(t, "", file{"SKILL.md", brokenMD}), ImportOptions{SkipInvalid: true, Target: "good-a"})
	wantErr(t, "an update", err, skillerr.InvalidManifest, "yaml-invalid")
	if mustRevision(t, e.reg) != 1 {
		t.Error("a refused update changed the registry")
	}
}

// testImportBrokenNamed: a broken skill whose SKILL.md states its name
// (it lacks a description) is known by that name: Preview shows it, and
// choosing it is refused with its own error. The messages count the
// archive's skills and its broken ones, whatever was chosen, read as
// sentences, and suggest choosing only to an import that can choose.
func testImportBrokenNamed(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	noDescription := "---\nname: pdf\n---\n# PDF\n"
	pack := zipOf(t, "", append(mixedPack3(t), file{"pdf/SKILL.md", noDescription})...)
	p, err := e.reg.Preview(ctx, pack, nil, nil)
	if err != nil {
		t.Fatalf("Preview: %v", err)
	}
	var named *PreviewSkill
	for i, s := range p.Skills {
		if s.Dir == "pdf" {
			named = &p.Skills[i]
		}
	}
	if named == nil || named.Name != "pdf" || named.Status != PreviewInvalid || named.Error.Name != "pdf" {
		t.Fatalf("the broken pdf skill in the preview: %s", jsonOf(t, named))
	}
	sentences := func(what string, err error, has ...string) {
		t.Helper()
		msg := err.Error()
		if strings.Contains(msg, ".. ") || strings.Contains(msg, ".;") {
			t.Errorf("%s: the message %q joins sentences badly", what, msg)
		}
		for _, s := range has {
			if !strings.Contains(msg, s) {
				t.Errorf("%s: the message %q does not say %q", what, msg, s)
			}
		}
	}

	_, err = e.reg.Import(ctx, pack, ImportOptions{Choose: map[string]ConflictPolicy{"pdf": ConflictRename}})
	if se := wantErr(t, "chose pdf", err, skillerr.InvalidManifest, "description-missing"); se != nil && se.Subject != "pdf" {
		t.Errorf("chose pdf: subject %q", se.Subject)
	}
	sentences("chose pdf", err, "pdf/", "one valid skill can be imported by choosing it")

	_, err = e.reg.Import(ctx, pack, ImportOptions{Choose: map[string]ConflictPolicy{"pdf": ConflictRename, "../escape": ConflictRename}})
	wantErr(t, "chose two broken", err, skillerr.InvalidManifest, "invalid-skills")
	sentences("chose two broken", err, "2 chosen skills cannot be installed (3 of the archive's 4 cannot)", "one valid skill")

	_, err = e.reg.Import(ctx, pack, ImportOptions{})
	wantErr(t, "no choice", err, skillerr.InvalidManifest, "invalid-skills")
	sentences("no choice", err, "3 of the archive's 4 skills cannot be installed", "one other skill can be imported by choosing it")

	e.importZip(t, zipOf(t, "", skillFiles("", "pdf")...), ImportOptions{})
	_, err = e.reg.Import(ctx, zipOf(t, "", file{"SKILL.md", noDescription}), ImportOptions{Target: "pdf"})
	wantErr(t, "an update", err, skillerr.InvalidManifest, "description-missing")
	if strings.Contains(err.Error(), "choos") {
		t.Errorf("an update is told to choose: %v", err)
	}
	_, err = e.reg.Import(ctx, pack, ImportOptions{Target: "pdf"})
	wantErr(t, "an update from a pack", err, skillerr.InvalidManifest, "invalid-skills")
	sentences("an update from a pack", err, "An update takes an archive of one skill, and this one holds 4")
	if strings.Contains(err.Error(), "choos") {
		t.Errorf("an update is told to choose: %v", err)
	}
}

// mixedPack3 is the files of one good skill and two broken ones.
func mixedPack3(t testing.TB) []file {
	return append(skillFiles("good-a", "good-a"), file{"bad-yaml/SKILL.md", brokenMD},
		file{"bad-name/SKILL.md", mdOf(`"../escape"`, "A name that climbs out.")})
}

// testImportUnmetDependencies: a skill whose dependencies the commit
// would refuse (a broken skill of the archive, one depending on it, a tool
// the host has not registered) is listed as invalid by Preview, counted
// so by the refusal, and left out by SkipInvalid: one such skill does not
// refuse a download whose report lists what was left out.
func testImportUnmetDependencies(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	pack := zipOf(t, "", slices.Concat(
		skillFiles("a", "a", "skill_dependencies: [b]"),
		[]file{{"b/SKILL.md", "---\nname: b\n---\n# B\n"}}, // no description
		skillFiles("c", "c", "skill_dependencies: [a]"),
		skillFiles("good", "good", "skill_dependencies: [d]"),
		skillFiles("d", "d"),
		skillFiles("t", "t", "tool_dependencies: [WebFetch]"))...)
	reasons := func(skills []PreviewSkill) map[string]string {
		got := map[string]string{}
		for _, s := range skills {
			got[s.Dir] = s.Status
			if s.Error != nil {
				got[s.Dir] = s.Error.Reason
			}
		}
		return got
	}
	p, err := e.reg.Preview(ctx, pack, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "unknown-skill", "b": "description-missing", "c": "unknown-skill", "good": PreviewNew, "d": PreviewNew, "t": "tools-not-registered"}
	if got := reasons(p.Skills); !maps.Equal(got, want) {
		t.Errorf("preview = %v, want %v", got, want)
	}
	// Said of the skill refused, by its name, and of what it depends on:
	// not "the skill in a/ cannot be installed: b: 'a' depends on it, but
	// no skill with this id is installed", which read as if b were the
	// skill refused, and as if b were no skill of the archive.
	messages := map[string]string{
		"a": "'a' cannot be installed: it depends on 'b', which cannot be installed either",
		"c": "'c' cannot be installed: it depends on 'a', which cannot be installed either",
		"t": "'t' cannot be installed: it depends on 'WebFetch': the host has not registered its tools, so tool dependencies cannot be checked: call registry.registerTools with the names of the host's tools first (on every load: the list is kept in memory only)",
	}
	for _, s := range p.Skills {
		if s.Error != nil && (s.Error.Subject != s.Dir || messages[s.Dir] != "" && s.Error.Message != messages[s.Dir]) {
			t.Errorf("%s: error %s", s.Dir, jsonOf(t, s.Error))
		}
	}

	_, err = e.reg.Import(ctx, pack, ImportOptions{})
	wantErr(t, "no choice", err, skillerr.InvalidArchive, "invalid-skills")
	if msg := err.Error(); !strings.Contains(msg, "4 of the archive's 6 skills") || !strings.Contains(msg, "2 other skills can be imported") {
		t.Errorf("no choice: %v", err)
	}
	_, err = e.reg.Import(ctx, zipOf(t, "", skillFiles("t", "t", "tool_dependencies: [WebFetch]")...), ImportOptions{})
	if se := wantErr(t, "one skill", err, skillerr.InvalidArgument, "tools-not-registered"); se != nil && se.Subject != "WebFetch" {
		t.Errorf("one skill: subject %q, want the tool", se.Subject)
	}
	_, err = e.reg.Import(ctx, zipOf(t, "", skillFiles("x", "x", "skill_dependencies: [ghost]")...), ImportOptions{})
	if se := wantErr(t, "one skill needing ghost", err, skillerr.InvalidArgument, "unknown-skill"); se != nil &&
		(se.Subject != "ghost" || se.Msg != "'x' cannot be installed: it depends on 'ghost', which is not installed and is not part of this install: install 'ghost' first") {
		t.Errorf("one skill needing ghost: %q %q", se.Subject, se.Msg)
	}
	_, err = e.reg.Import(ctx, pack, ImportOptions{Choose: map[string]ConflictPolicy{"c": ConflictRename, "d": ConflictRename}})
	wantErr(t, "chose c", err, skillerr.InvalidArgument, "unknown-skill")
	if mustRevision(t, e.reg) != 0 {
		t.Fatal("a refused import changed the registry")
	}

	// Choosing good without d, on which it depends: choose d too.
	_, err = e.reg.Import(ctx, pack, ImportOptions{Choose: map[string]ConflictPolicy{"good": ConflictRename}})
	if se := wantErr(t, "chose good", err, skillerr.InvalidArgument, "unknown-skill"); se != nil && (se.Subject != "d" || !strings.Contains(se.Msg, "choose it too")) {
		t.Errorf("chose good without d: %v", err)
	}
	if mustRevision(t, e.reg) != 0 {
		t.Fatal("a refused import changed the registry")
	}

	res := e.importZip(t, pack, ImportOptions{SkipInvalid: true})
	var invalid []string
	for _, s := range res.Invalid {
		invalid = append(invalid, s.Subject)
	}
	if !slices.Equal(ids(res.Skills), []string{"d", "good"}) || !slices.Equal(invalid, []string{"a", "b", "c", "t"}) || res.Revision != 1 {
		t.Errorf("skip invalid: installed %v, invalid %v, revision %d", ids(res.Skills), invalid, res.Revision)
	}
	// Skipped rather than refused whole, a skill refused for a dependency
	// neither installed nor in the archive names it (a batch installs it
	// again once that one is: Sources.batch), and so does one whose
	// dependency is in the archive only broken (a depends on b), which
	// another download may bring; one whose dependency is refused for its
	// own dependencies (c on a) names none: it waits with that one.
	for _, s := range res.Invalid {
		if want := map[string]string{"a": "b"}[s.Subject]; s.Needs != want {
			t.Errorf("skip invalid: %s needs %q, want %q", s.Subject, s.Needs, want)
		}
	}
	ghost := e.importZip(t, zipOf(t, "", skillFiles("x", "x", "skill_dependencies: [ghost]")...), ImportOptions{SkipInvalid: true})
	if len(ghost.Invalid) != 1 || ghost.Invalid[0].Needs != "ghost" || ghost.Invalid[0].Reason != "unknown-skill" {
		t.Errorf("skip invalid, needing ghost: %s", jsonOf(t, ghost.Invalid))
	}

	// With b installed and the tool registered, all but the broken b can be.
	e.importZip(t, zipOf(t, "b", skillFiles("", "b")...), ImportOptions{})
	e.reg.RegisterTools([]string{"WebFetch"})
	if p, err = e.reg.Preview(ctx, pack, nil, nil); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"a": PreviewNew, "b": "description-missing", "c": PreviewNew, "good": PreviewInstalled, "d": PreviewInstalled, "t": PreviewNew}
	if got := reasons(p.Skills); !maps.Equal(got, want) {
		t.Errorf("preview with b installed = %v, want %v", got, want)
	}
	res = e.importZip(t, pack, ImportOptions{SkipInvalid: true})
	if !slices.Equal(ids(res.Skills), []string{"a", "c", "t"}) || len(res.Invalid) != 1 {
		t.Errorf("skip invalid with b installed: %s", jsonOf(t, res))
	}
	// d is installed now: good can be chosen alone.
	res = e.importZip(t, pack, ImportOptions{Choose: map[string]ConflictPolicy{"good": ConflictReplace}})
	if !slices.Equal(res.Replaced, []string{"good"}) {
		t.Errorf("chose good with d installed: %s", jsonOf(t, res))
	}
}

// testImportLongNames: broken skills whose SKILL.md states a name of
// 60,000 characters make a refusal of a few lines, and errors and
// diagnostics that quote a clipped name: not five copies of each name.
func testImportLongNames(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	files := skillFiles("ok", "ok")
	for i := range 6 {
		files = append(files, file{fmt.Sprintf("d%d/SKILL.md", i), mdOf("../"+randomText(60_000)+fmt.Sprint(i), "Climbs out.")})
	}
	_, err := e.reg.Import(context.Background(), zipOf(t, "", files...), ImportOptions{})
	var ie *InvalidSkillsError
	if !errors.As(err, &ie) || len(ie.Skills) != 6 {
		t.Fatalf("error %v", err)
	}
	if n := len(err.Error()); n > 3000 {
		t.Errorf("a message of %d bytes", n)
	}
	for _, s := range ie.Skills {
		if s.Reason != "name-not-an-id" || len(s.Message) > 2*skillerr.MaxQuoted {
			t.Errorf("%s: %s, a message of %d bytes", s.Subject, s.Reason, len(s.Message))
		}
		for _, d := range s.Diagnostics {
			if len(d.Message) > 2*skillerr.MaxQuoted {
				t.Errorf("%s: diagnostic %s of %d bytes", s.Subject, d.Code, len(d.Message))
			}
		}
	}
}

// testImportBrokenKinds: a repository download with five skills broken
// five ways (YAML, no description, not UTF-8, a dependency on the broken
// first one, a second folder of one name) previews exactly the skills an
// install from an address (SkipInvalid) then installs, with the same
// digests; over the download installed as it was, the broken versions
// leave the installed ones as they are, and the one whose dependency is
// installed now replaces its own. The generated download always; the real
// ones when present.
func testImportBrokenKinds(t *testing.T, bc backendCase) {
	check := func(t *testing.T, data []byte) {
		e := newEnv(t, bc)
		ctx := context.Background()
		orig, err := e.reg.Preview(ctx, data, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(orig.Skills) < 5 {
			t.Fatalf("%d skills", len(orig.Skills))
		}
		sk := orig.Skills
		edits := map[string]string{
			sk[0].Dir + "/SKILL.md": brokenMD,
			sk[1].Dir + "/SKILL.md": "---\nname: " + sk[1].Name + "\n---\n# No description\n",
			sk[2].Dir + "/SKILL.md": mdOf(sk[2].Name, "Ends badly.") + "\xff\xfe",
			sk[3].Dir + "/SKILL.md": mdOf(sk[3].Name, "Needs the first.", "skill_dependencies: ["+sk[0].Name+"]"),
		}
		// The fifth skill's SKILL.md again, in a folder after the others.
		again := file{sk[4].Dir + "-again/SKILL.md", zipEntry(t, data, sk[4].Dir+"/SKILL.md")}
		broken := rewriteZip(t, data, func(name string) (string, bool) {
			s, ok := edits[name]
			return s, ok
		}, again)
		wantInvalid := map[string]string{sk[0].Dir: "yaml-invalid", sk[1].Dir: "description-missing", sk[2].Dir: "not-utf8",
			sk[3].Dir: "unknown-skill", sk[4].Dir + "-again": "duplicate-skill"}

		p, err := e.reg.Preview(ctx, broken, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		invalid, valid := map[string]string{}, map[string]string{}
		for _, s := range p.Skills {
			if s.Error != nil {
				invalid[s.Dir] = s.Error.Reason
			} else {
				valid[s.Name] = s.Digest
			}
		}
		if !maps.Equal(invalid, wantInvalid) || len(valid) != len(orig.Skills)-4 {
			t.Fatalf("preview: invalid %v (want %v), %d valid of %d", invalid, wantInvalid, len(valid), len(p.Skills))
		}
		_, err = e.reg.Import(ctx, broken, ImportOptions{})
		if !strings.Contains(fmt.Sprint(err), fmt.Sprintf("5 of the archive's %d skills cannot be installed", len(p.Skills))) {
			t.Errorf("no choice: %v", err)
		}
		res := e.importZip(t, broken, ImportOptions{SkipInvalid: true})
		got := map[string]string{}
		for _, m := range res.Skills {
			got[m.ID] = m.Digest
		}
		if !maps.Equal(got, valid) || len(res.Invalid) != 5 {
			t.Errorf("installed %d skills, %d invalid; the preview said %d valid", len(got), len(res.Invalid), len(valid))
		}

		// Over the download as it was: the broken ones change nothing.
		e = newEnv(t, bc)
		first := e.importZip(t, data, ImportOptions{})
		before := map[string]string{}
		for _, m := range first.Skills {
			before[m.ID] = m.Digest
		}
		res = e.importZip(t, broken, ImportOptions{SkipInvalid: true, OnConflict: ConflictReplace})
		delete(wantInvalid, sk[3].Dir) // its dependency is installed
		if len(res.Invalid) != len(wantInvalid) || !slices.Contains(res.Replaced, sk[3].Name) {
			t.Errorf("replace: %d invalid, replaced %v", len(res.Invalid), res.Replaced)
		}
		for _, s := range sk[:3] {
			if m := mustGet(t, e.reg, s.Name); m.Digest != before[s.Name] {
				t.Errorf("%s: the installed version was changed by a broken one", s.Name)
			}
		}
		if m := mustGet(t, e.reg, sk[3].Name); m.Digest == before[sk[3].Name] || !slices.Equal(m.Dependencies.Skills, []string{sk[0].Name}) {
			t.Errorf("%s: not replaced: %+v", sk[3].Name, m.Dependencies)
		}
	}
	t.Run("generated", func(t *testing.T) { check(t, realrepos.Generated()) })
	t.Run("real", func(t *testing.T) {
		realrepos.Each(t, func(t *testing.T, _ realrepos.Repo, data []byte) { check(t, data) })
	})
}

// zipEntry returns the contents of the entry name of the zip data.
func zipEntry(t testing.TB, data []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := zr.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
