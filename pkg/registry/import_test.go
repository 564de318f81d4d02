package registry

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
	"github.com/skillfs/skillfs/pkg/vfs"
)

func testImportSingle(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	md := mdOf("pdf", "Fills PDF forms.",
		"version: 1.2",
		"allowed-tools: Read Bash(python:*)",
		"user-invocable: false",
		"disable-model-invocation: true",
		"when_to_use: When a PDF is involved.",
		"argument-hint: [file]",
		"arguments: file pages",
		"triggers: pdf form, fill pdf",
		"anti_triggers: word document",
		"cost_hint: high",
		"parallel_safe: true",
		"always: yes",
		"tool_dependencies: Read",
		"mcp_dependencies: pdf-server",
		"unknown_key: x",
	)
	files := []file{{"SKILL.md", md}, {"scripts/fill.sh", "echo fill\n"}, {"assets/form.txt", "form"}}
	// The dependencies declared must exist, as SetDependencies requires.
	e.reg.RegisterTools([]string{"Read"})
	e.reg.RegisterMCPServers([]string{"pdf-server"})
	var progress []Progress
	res, err := e.reg.Import(context.Background(), zipOf(t, "pdf", files...), ImportOptions{
		Source:   "pdf.zip",
		Progress: func(p Progress) { progress = append(progress, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skills) != 1 || res.Revision != 1 || len(res.Replaced) != 0 {
		t.Fatalf("result = %+v", res)
	}
	m := res.Skills[0]
	vf := make([]vfs.File, len(files))
	size := 0
	for i, f := range files {
		vf[i] = vfs.File{Path: f.path, Data: []byte(f.data)}
		size += len(f.data)
	}
	want := Meta{
		ID: "pdf", Name: "pdf", Description: "Fills PDF forms.",
		Location: "/skills/pdf/SKILL.md", BaseDir: "/skills/pdf/", Source: "pdf.zip", Enabled: true,
		CreatedAt: t0, UpdatedAt: t0, Version: "1.2", Digest: Digest(vf), Size: int64(size), FileCount: 3,
		AllowedTools: []string{"Read", "Bash(python:*)"}, UserInvocable: false, DisableModelInvocation: true,
		Dependencies: Dependencies{Tools: []string{"Read"}, MCP: []string{"pdf-server"}, Skills: []string{}},
		Triggers:     []string{"pdf form", "fill pdf"}, AntiTriggers: []string{"word document"},
		WhenToUse: "When a PDF is involved.", Headings: []string{"pdf"}, ArgumentHint: "[file]", Arguments: []string{"file", "pages"},
		CostHint: "high", ParallelSafe: true, Always: true,
	}
	if len(m.Instance) != 16 {
		t.Errorf("instance = %q, want 16 hexadecimal digits", m.Instance)
	}
	want.Instance = m.Instance
	gotDiags := m.Diagnostics
	m.Diagnostics, want.Diagnostics = nil, nil
	if jsonOf(t, m) != jsonOf(t, want) {
		t.Errorf("meta\n got %s\nwant %s", jsonOf(t, m), jsonOf(t, want))
	}
	if !slices.ContainsFunc(gotDiags, func(d skill.Diagnostic) bool { return d.Code == "unknown-field" }) {
		t.Errorf("diagnostics %v lack the unknown-field warning", gotDiags)
	}
	if got := jsonOf(t, mustList(t, e.reg)); got != jsonOf(t, res.Skills) {
		t.Errorf("List = %s, want %s", got, jsonOf(t, res.Skills))
	}
	if got := mustGet(t, e.reg, "pdf"); jsonOf(t, got) != jsonOf(t, res.Skills[0]) {
		t.Errorf("Get = %s", jsonOf(t, got))
	}
	checkGenerations(t, e.reg, res.Skills[0])
	if data, _ := readGen(t, e.reg, "/skills/pdf/scripts/fill.sh"); data != "echo fill\n" {
		t.Errorf("fill.sh = %q", data)
	}
	if info, err := e.reg.FS().Stat("pdf/scripts/fill.sh"); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("fill.sh: %v, %v; want mode 0755", info, err)
	}
	if c := e.lastChange(t); jsonOf(t, c) != `{"revision":1,"kind":"import","ids":["pdf"]}` {
		t.Errorf("change = %s", jsonOf(t, c))
	}
	if rev := mustRevision(t, e.reg); rev != 1 {
		t.Errorf("revision = %d", rev)
	}

	// Progress: while preparing, before the commit, after it.
	if len(progress) < 3 {
		t.Fatalf("progress = %+v", progress)
	}
	last := progress[len(progress)-1]
	if progress[0].Phase != PhasePrepare || progress[len(progress)-2].Phase != PhaseCommit || last.Phase != PhaseDone ||
		last.FilesDone != 3 || last.FilesTotal != 3 || last.BytesDone != int64(size) || last.BytesTotal != int64(size) {
		t.Errorf("progress = %+v", progress)
	}

	// The record's JSON names, exactly.
	var keys map[string]any
	if err := json.Unmarshal([]byte(jsonOf(t, m)), &keys); err != nil {
		t.Fatal(err)
	}
	wantKeys := strings.Fields(`allowedTools always antiTriggers argumentHint arguments baseDir costHint createdAt
		dependencies description diagnostics digest disableModelInvocation enabled fileCount headings id instance location name origin
		parallelSafe size source triggers updatedAt userInvocable version whenToUse`)
	if got := sortedKeys(keys); !slices.Equal(got, wantKeys) {
		t.Errorf("JSON keys = %v\nwant %v", got, wantKeys)
	}
	if got := sortedKeys(keys["dependencies"].(map[string]any)); !slices.Equal(got, []string{"mcp", "skills", "tools"}) {
		t.Errorf("dependency keys = %v", got)
	}
}

func testImportRootLayout(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	res := e.importZip(t, zipOf(t, "",
		file{"SKILL.md", "---\nname: notes\ndescription: Takes notes.\n---\nBody\n"},
		file{"skill.yaml", "triggers: [take notes, write down]\ncost_hint: low\n"},
	), ImportOptions{})
	m := res.Skills[0]
	if m.ID != "notes" || !slices.Equal(m.Triggers, []string{"take notes", "write down"}) || m.CostHint != "low" {
		t.Errorf("meta = %s", jsonOf(t, m))
	}
	if m.FileCount != 2 {
		t.Errorf("fileCount = %d", m.FileCount)
	}
}

func testImportRename(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	e.importZip(t, zipOf(t, "x", skillFiles("", "x")...), ImportOptions{})
	// The same skill again, asked for as a copy (see ImportIdentical).
	res := e.importZip(t, zipOf(t, "x", skillFiles("", "x")...), ImportOptions{Copy: true})
	m := res.Skills[0]
	if m.ID != "x-v2" || m.Name != "x-v2" || m.Location != "/skills/x-v2/SKILL.md" {
		t.Fatalf("renamed meta = %s", jsonOf(t, m))
	}
	md, _ := readGen(t, e.reg, "x-v2/SKILL.md")
	if s, _ := skill.Parse([]byte(md), skill.Options{DirName: "x-v2"}); s == nil || s.Name != "x-v2" {
		t.Errorf("SKILL.md was not rewritten: %q", md)
	}
	if !slices.ContainsFunc(m.Diagnostics, func(d skill.Diagnostic) bool { return d.Code == "renamed" }) {
		t.Errorf("no renamed diagnostic: %v", m.Diagnostics)
	}
	if slices.ContainsFunc(m.Diagnostics, func(d skill.Diagnostic) bool { return d.Code == "name-mismatch" }) {
		t.Errorf("the diagnostics describe the archive, not the stored skill: %v", m.Diagnostics)
	}
	checkGenerations(t, e.reg, m)

	// The first free name: x and x-v2 are installed, and the pack's own
	// x-v3 is not free either.
	res = e.importZip(t, packOf(t, "x", "x-v3"), ImportOptions{Copy: true})
	if got := ids(res.Skills); !slices.Equal(got, []string{"x-v4", "x-v3"}) {
		t.Errorf("pack ids = %v", got)
	}
	if got := ids(mustList(t, e.reg)); !slices.Equal(got, []string{"x", "x-v2", "x-v3", "x-v4"}) {
		t.Errorf("List = %v", got)
	}
	if c := e.lastChange(t); c.Kind != KindImport || !slices.Equal(c.IDs, []string{"x-v4", "x-v3"}) || c.Revision != 3 {
		t.Errorf("change = %+v", c)
	}
}

// testImportIdentical: a skill byte for byte identical to the installed
// skill of its name is reported as installed already, not added as -v2,
// unless a copy is asked for; one that differs is renamed as before.
func testImportIdentical(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	first := e.importZip(t, packOf(t, "x", "y"), ImportOptions{})
	res := e.importZip(t, zipOf(t, "x", skillFiles("", "x")...), ImportOptions{})
	if len(res.Skills) != 0 || !slices.Equal(res.AlreadyInstalled, []string{"x"}) || res.Revision != 0 {
		t.Fatalf("identical import = %s", jsonOf(t, res))
	}
	if c := e.lastChange(t); c.Revision != first.Revision {
		t.Errorf("an import that installs nothing changed the registry: %+v", c)
	}
	// A pack with one identical skill and one new: only the new one.
	res = e.importZip(t, packOf(t, "y", "z"), ImportOptions{})
	if !slices.Equal(ids(res.Skills), []string{"z"}) || !slices.Equal(res.AlreadyInstalled, []string{"y"}) {
		t.Errorf("pack = %s", jsonOf(t, res))
	}
	// A different skill of the same name is renamed as before.
	changed := skillFiles("", "x")
	changed[0].data += "\nChanged.\n"
	res = e.importZip(t, zipOf(t, "x", changed...), ImportOptions{})
	if !slices.Equal(ids(res.Skills), []string{"x-v2"}) || len(res.AlreadyInstalled) != 0 {
		t.Errorf("changed = %s", jsonOf(t, res))
	}
	if got := ids(mustList(t, e.reg)); !slices.Equal(got, []string{"x", "x-v2", "y", "z"}) {
		t.Errorf("List = %v", got)
	}
}

func testImportReplace(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	first := e.importZip(t, zipOf(t, "x", file{"SKILL.md", mdOf("x", "Old.")}, file{"old.md", "old"}), ImportOptions{Source: "a.zip"}).Skills[0]
	if _, err := e.reg.SetEnabled(context.Background(), "x", false); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(time.Hour)
	res := e.importZip(t, zipOf(t, "x", file{"SKILL.md", mdOf("x", "New.")}, file{"new.md", "new"}),
		ImportOptions{OnConflict: ConflictReplace, Source: "b.zip"})
	m := res.Skills[0]
	if m.ID != "x" || m.Description != "New." || m.Source != "b.zip" || m.Enabled ||
		!m.CreatedAt.Equal(first.CreatedAt) || m.Instance != first.Instance || !m.UpdatedAt.Equal(t0.Add(time.Hour)) || m.Digest == first.Digest {
		t.Errorf("replaced meta = %s", jsonOf(t, m))
	}
	if !slices.Equal(res.Replaced, []string{"x"}) {
		t.Errorf("Replaced = %v", res.Replaced)
	}
	if _, err := e.reg.FS().Stat("x/old.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("old.md survived the replace: %v", err)
	}
	checkGenerations(t, e.reg, m)
	if c := e.lastChange(t); c.Kind != KindReplace || c.Revision != 3 {
		t.Errorf("change = %+v", c)
	}
}

func testImportFail(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	e.importZip(t, zipOf(t, "x", skillFiles("", "x")...), ImportOptions{})
	before := dump(t, e.db)
	_, err := e.reg.Import(context.Background(), packOf(t, "a", "x"), ImportOptions{OnConflict: ConflictFail})
	if se := wantErr(t, "fail", err, skillerr.Conflict, ""); se != nil && se.Subject != "x" {
		t.Errorf("the error names %q, want x", se.Subject)
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a refused import changed the database")
	}
}

func testImportInvalidPack(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	e.importZip(t, zipOf(t, "x", skillFiles("", "x")...), ImportOptions{})
	before := dump(t, e.db)
	files := append(skillFiles("p/a", "a"), skillFiles("p/b", "b")...)
	files = append(files, file{"p/c/SKILL.md", "---\nname: c\n---\nno description\n"})
	_, err := e.reg.Import(context.Background(), zipOf(t, "", files...), ImportOptions{})
	var me *ManifestError
	if !errors.As(err, &me) {
		t.Fatalf("error %v is not a *ManifestError", err)
	}
	wantErr(t, "invalid pack", err, skillerr.InvalidManifest, "description-missing")
	if me.Skill != "p/c" || !strings.Contains(err.Error(), "p/c") ||
		!slices.ContainsFunc(me.Diagnostics, func(d skill.Diagnostic) bool { return d.Code == "description-missing" }) {
		t.Errorf("error = %v, skill %q, diagnostics %v", err, me.Skill, me.Diagnostics)
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("an invalid pack left something behind")
	}
	if got := ids(mustList(t, e.reg)); !slices.Equal(got, []string{"x"}) {
		t.Errorf("List = %v", got)
	}
}

func testImportRejects(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	_, err := e.reg.Import(ctx, []byte("not a zip"), ImportOptions{})
	wantErr(t, "not a zip", err, skillerr.InvalidArchive, "not-a-zip")

	_, err = e.reg.Import(ctx, zipOf(t, "x", skillFiles("", "x")...), ImportOptions{OnConflict: "merge"})
	wantErr(t, "bad policy", err, skillerr.InvalidArgument, "on-conflict")

	dup := append(skillFiles("a", "x"), skillFiles("b", "x")...)
	_, err = e.reg.Import(ctx, zipOf(t, "", dup...), ImportOptions{})
	wantErr(t, "duplicate", err, skillerr.InvalidArchive, "duplicate-skill")

	// A name that cannot be a directory, or whose folder an import of the
	// export would drop as clutter.
	for _, name := range []string{"a/b", "..", "con", "__MACOSX", "._x", ".DS_Store"} {
		_, err = e.reg.Import(ctx, zipOf(t, "", file{"SKILL.md", mdOf(`"`+name+`"`, "Bad.")}), ImportOptions{})
		var me *ManifestError
		if !errors.As(err, &me) {
			t.Errorf("name %q: error %v is not a *ManifestError", name, err)
		}
		wantErr(t, "name "+name, err, skillerr.InvalidManifest, "name-not-an-id")
	}
	if n := len(mustList(t, e.reg)); n != 0 || mustRevision(t, e.reg) != 0 {
		t.Errorf("refused imports stored %d skills", n)
	}
}

func testQuota(t *testing.T, bc backendCase) {
	e := newEnv(t, bc, func(o *Options) {
		o.Estimate = func(context.Context) (vfs.StorageEstimate, error) {
			return vfs.StorageEstimate{Known: true, Usage: 9 << 20, Quota: 10 << 20}, nil
		}
	})
	big := randomText(1 << 20)
	_, err := e.reg.Import(context.Background(), zipOf(t, "big", file{"SKILL.md", mdOf("big", "Big.")}, file{"data.txt", big}),
		ImportOptions{Source: "big.zip"})
	if se := wantErr(t, "quota", err, skillerr.QuotaExceeded, ""); se != nil &&
		!(strings.Contains(se.Msg, "1.2 MB") && strings.Contains(se.Msg, "1.0 MB") && strings.Contains(se.Msg, "10.0 MB")) {
		t.Errorf("message %q should give the need and what is free in MB", se.Msg)
	}
	if n := len(mustList(t, e.reg)); n != 0 {
		t.Errorf("stored %d skills over quota", n)
	}
	// A small skill fits.
	e.importZip(t, zipOf(t, "x", skillFiles("", "x")...), ImportOptions{})
}

// randomText returns n bytes of hexadecimal digits, which compress no
// better than 2:1.
func randomText(n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = "0123456789abcdef"[rng.IntN(16)]
	}
	return string(b)
}

// A skill whose name differs from an installed id only in case (or
// normalisation) is a conflict, whatever the policy: installed beside it,
// it would shadow it wherever names are looked up without regard to case.
// testImportSlugIDs: a skill's name becomes an id only if it is a slug;
// names holding markup, shell syntax or invisible characters are refused
// and nothing is stored.
func testImportSlugIDs(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	before := dump(t, e.db)
	for _, name := range []string{"<img src=x onerror=alert(1)>", "pdf;rm", "pdf$x", "pdf\u3164", "pdf\u034f", "pdf\u200b", "pdf\u00ad"} {
		_, err := e.reg.Import(context.Background(), zipOf(t, "s", skillFiles("", name)...), ImportOptions{})
		if skillerr.CodeOf(err) != skillerr.InvalidManifest && skillerr.CodeOf(err) != skillerr.PathRejected {
			t.Errorf("%q: %v, want it refused", name, err)
		}
	}
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a refused import changed the database")
	}
	// Letters of any script, digits and hyphens make an id.
	e.importZip(t, zipOf(t, "s", skillFiles("", "résumé-写作-2")...), ImportOptions{})
}

func testImportFoldedConflicts(t *testing.T, bc backendCase) {
	ctx := context.Background()
	genuine := zipOf(t, "pdf-tools", file{"SKILL.md", mdOf("pdf-tools", "Genuine.")}, file{"genuine.md", "g"})
	impostor := zipOf(t, "PDF-tools", file{"SKILL.md", mdOf("PDF-tools", "Impostor.")}, file{"impostor.md", "i"})
	hasDiag := func(m Meta, code, text string) bool {
		return slices.ContainsFunc(m.Diagnostics, func(d skill.Diagnostic) bool {
			return d.Code == code && strings.Contains(d.Message, text)
		})
	}

	t.Run("fail", func(t *testing.T) {
		e := newEnv(t, bc)
		e.importZip(t, genuine, ImportOptions{})
		before := dump(t, e.db)
		_, err := e.reg.Import(ctx, impostor, ImportOptions{OnConflict: ConflictFail})
		if se := wantErr(t, "fail", err, skillerr.Conflict, "exists"); se != nil &&
			(se.Subject != "PDF-tools" || !strings.Contains(se.Msg, `"pdf-tools"`)) {
			t.Errorf("the error %v should name PDF-tools and the installed pdf-tools", err)
		}
		if !sameDump(before, dump(t, e.db)) {
			t.Error("a refused import changed the database")
		}
		// Full case folding and normalisation, as zipguard compares names,
		// and look-alike letters: Cyrillic р and ѕ are Latin p and s.
		e.importZip(t, zipOf(t, "straße", skillFiles("", "straße")...), ImportOptions{})
		before = dump(t, e.db)
		for _, name := range []string{"STRASSE", "Stra\u1e9ee", "strasse", "\u0440df-tools", "\u0440df-tool\u0455", "stra\u0455\u0455e"} {
			_, err = e.reg.Import(ctx, zipOf(t, "s", skillFiles("", name)...), ImportOptions{OnConflict: ConflictFail})
			wantErr(t, "fail "+name, err, skillerr.Conflict, "exists")
		}
		if !sameDump(before, dump(t, e.db)) {
			t.Error("a refused import changed the database")
		}
	})

	t.Run("rename", func(t *testing.T) {
		e := newEnv(t, bc)
		e.importZip(t, genuine, ImportOptions{})
		m := e.importZip(t, impostor, ImportOptions{}).Skills[0]
		if m.ID != "PDF-tools-v2" || m.Name != "PDF-tools-v2" || !hasDiag(m, "renamed", "PDF-tools-v2") {
			t.Errorf("renamed meta = %s", jsonOf(t, m))
		}
		checkGenerations(t, e.reg, m)
		// -vN must be free under folding too: pdf-tools-v2 is installed
		// (as PDF-tools-v2) and the pack's own Pdf-Tools-V3 is not free.
		res := e.importZip(t, zipOf(t, "p", append(skillFiles("a", "pdf-TOOLS"), skillFiles("b", "Pdf-Tools-V3")...)...), ImportOptions{})
		if got := ids(res.Skills); !slices.Equal(got, []string{"pdf-TOOLS-v4", "Pdf-Tools-V3"}) {
			t.Errorf("pack ids = %v", got)
		}
		if got := ids(mustList(t, e.reg)); !slices.Equal(got, []string{"PDF-tools-v2", "Pdf-Tools-V3", "pdf-TOOLS-v4", "pdf-tools"}) {
			t.Errorf("List = %v", got)
		}
		if got := mustGet(t, e.reg, "pdf-tools"); got.Description != "Genuine." {
			t.Errorf("the installed pdf-tools changed: %s", jsonOf(t, got))
		}
	})

	t.Run("replace", func(t *testing.T) {
		e := newEnv(t, bc)
		first := e.importZip(t, genuine, ImportOptions{}).Skills[0]
		if _, err := e.reg.SetEnabled(ctx, "pdf-tools", false); err != nil {
			t.Fatal(err)
		}
		e.clock.advance(time.Hour)
		res := e.importZip(t, impostor, ImportOptions{OnConflict: ConflictReplace})
		m := res.Skills[0]
		// The installed id, and its spelling, are kept.
		if m.ID != "pdf-tools" || m.Name != "pdf-tools" || m.Description != "Impostor." || m.Enabled ||
			!m.CreatedAt.Equal(first.CreatedAt) || !hasDiag(m, "renamed", "keeps its id") {
			t.Errorf("replaced meta = %s", jsonOf(t, m))
		}
		if !slices.Equal(res.Replaced, []string{"pdf-tools"}) {
			t.Errorf("Replaced = %v", res.Replaced)
		}
		if got := ids(mustList(t, e.reg)); !slices.Equal(got, []string{"pdf-tools"}) {
			t.Errorf("List = %v", got)
		}
		md, _ := readGen(t, e.reg, "pdf-tools/SKILL.md")
		if s, _ := skill.Parse([]byte(md), skill.Options{DirName: "pdf-tools"}); s == nil || s.Name != "pdf-tools" {
			t.Errorf("SKILL.md was not rewritten to the kept id: %q", md)
		}
		if _, err := e.reg.FS().Stat("pdf-tools/genuine.md"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("genuine.md survived the replace: %v", err)
		}
		checkGenerations(t, e.reg, m)
		if c := e.lastChange(t); c.Kind != KindReplace || !slices.Equal(c.IDs, []string{"pdf-tools"}) {
			t.Errorf("change = %+v", c)
		}
	})

	t.Run("pack", func(t *testing.T) {
		e := newEnv(t, bc)
		for _, names := range [][2]string{{"x", "X"}, {"pdf-tools", "PDF-Tools"}, {"straße", "STRASSE"}} {
			files := append(skillFiles("p/a", names[0]), skillFiles("p/b", names[1])...)
			_, err := e.reg.Import(ctx, zipOf(t, "", files...), ImportOptions{})
			if se := wantErr(t, "pack "+names[1], err, skillerr.InvalidArchive, "duplicate-skill"); se != nil &&
				(!strings.Contains(se.Msg, `"`+names[0]+`"`) || !strings.Contains(se.Msg, `"`+names[1]+`"`)) {
				t.Errorf("message %q should name both skills", se.Msg)
			}
		}
		if n := len(mustList(t, e.reg)); n != 0 {
			t.Errorf("refused packs stored %d skills", n)
		}
	})

	// Skills installed before ids were compared folded may share a
	// folded id: a replace takes the one spelt exactly so, and refuses
	// to guess between the others.
	t.Run("installed-twice", func(t *testing.T) {
		e := newEnv(t, bc)
		e.importZip(t, genuine, ImportOptions{})
		commitSkillDirectly(t, e.db, "PDF-tools", file{"SKILL.md", mdOf("PDF-tools", "Legacy.")})
		before := dump(t, e.db)
		for _, policy := range []ConflictPolicy{ConflictReplace, ConflictFail} {
			_, err := e.reg.Import(ctx, zipOf(t, "x", skillFiles("", "Pdf-Tools")...), ImportOptions{OnConflict: policy})
			reason := map[ConflictPolicy]string{ConflictReplace: "ambiguous", ConflictFail: "exists"}[policy]
			if se := wantErr(t, string(policy)+" with two installed", err, skillerr.Conflict, reason); se != nil &&
				policy == ConflictReplace && !strings.Contains(se.Msg, `"PDF-tools", "pdf-tools"`) {
				t.Errorf("message %q should name both installed skills", se.Msg)
			}
		}
		if !sameDump(before, dump(t, e.db)) {
			t.Error("a refused import changed the database")
		}
		res := e.importZip(t, impostor, ImportOptions{OnConflict: ConflictReplace})
		if !slices.Equal(res.Replaced, []string{"PDF-tools"}) || mustGet(t, e.reg, "pdf-tools").Description != "Genuine." {
			t.Errorf("Replaced = %v; want only the exact PDF-tools", res.Replaced)
		}
	})
}

// commitSkillDirectly stores skill id with files without the registry's
// checks, as an older version could have.
func commitSkillDirectly(t testing.TB, db vfs.Backend, id string, files ...file) {
	t.Helper()
	vf := make([]vfs.File, len(files))
	for i, f := range files {
		vf[i] = vfs.File{Path: f.path, Data: []byte(f.data), Mode: 0o644, ModTime: t0}
	}
	s, diags := parseFiles(vf, id)
	if s == nil {
		t.Fatalf("%s does not parse: %v", id, diags)
	}
	var m Meta
	m.describe(id, s, diags, vf, Digest(vf))
	m.Dependencies, m.Enabled, m.CreatedAt, m.UpdatedAt = dependenciesOf(s), true, t0, t0
	ops, err := replaceTree(id, m.Digest, vf)
	if err != nil {
		t.Fatal(err)
	}
	op, err := metaOp(m)
	if err != nil {
		t.Fatal(err)
	}
	// With a revision, as every writer of the records commits one (an
	// older version's included): the registries' caches follow it.
	res, err := db.Read(context.Background(), vfs.Get(vfs.StoreState, revisionKey))
	if err != nil {
		t.Fatal(err)
	}
	rev, err := decodeRevision(res[0])
	if err != nil {
		t.Fatal(err)
	}
	rev++
	ops = append(ops, op, vfs.Put(vfs.StoreState, revisionKey, []byte(strconv.FormatInt(rev, 10))))
	if err := db.Commit(context.Background(), ops...); err != nil {
		t.Fatal(err)
	}
}

// An archive entry named with a noncharacter, which storage cannot key,
// is refused up front as a path, naming the entry.
func testImportNoncharacterEntry(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	for _, name := range []string{"a/x\uffff.md", "a/\ufdd0/y.md", "a/z\U0001fffe"} {
		files := append(skillFiles("a", "a"), file{name, "x"})
		_, err := e.reg.Import(context.Background(), rawZipOf(t, files...), ImportOptions{})
		if skillerr.CodeOf(err) != skillerr.PathRejected {
			t.Errorf("import of an entry named with a noncharacter: code %s, %q; want PathRejected", skillerr.CodeOf(err), err)
		}
		if se := wantErr(t, name, err, skillerr.PathRejected, skillpath.ReasonNoncharacter); se != nil && se.Subject != name {
			t.Errorf("the error names %+q, want the entry %+q", se.Subject, name)
		}
	}
	if n := len(mustList(t, e.reg)); n != 0 || mustRevision(t, e.reg) != 0 {
		t.Errorf("refused imports stored %d skills", n)
	}
}

// testImportCanceled: a context that ends while the commit is under way
// (on IndexedDB, while its second part, the records, is built) fails the
// import with Timeout, stores nothing, and leaves nothing behind: the same
// import then goes through.
func testImportCanceled(t *testing.T, bc backendCase) {
	for _, why := range []error{context.Canceled, context.DeadlineExceeded} {
		t.Run(why.Error(), func(t *testing.T) {
			e := newEnv(t, bc)
			e.importZip(t, packOf(t, "x"), ImportOptions{})
			before := dump(t, e.db)
			ctx, cancel := context.WithCancel(context.Background())
			if why == context.DeadlineExceeded {
				ctx, cancel = context.WithTimeout(context.Background(), time.Second)
			}
			defer cancel()
			opts := ImportOptions{OnConflict: ConflictReplace, Progress: func(p Progress) {
				if p.Phase != PhaseCommit {
					return
				}
				if why == context.Canceled {
					cancel()
				}
				<-ctx.Done()
			}}
			// x is replaced (compared by digest first), p and q are new.
			_, err := e.reg.Import(ctx, packOf(t, "p", "q", "x"), opts)
			wantErr(t, why.Error(), err, skillerr.Timeout, "")
			if !errors.Is(err, why) {
				t.Errorf("%v is not %v", err, why)
			}
			if !sameDump(before, dump(t, e.db)) {
				t.Fatal("a canceled import changed the store")
			}
			if got := ids(mustList(t, e.reg)); !slices.Equal(got, []string{"x"}) {
				t.Errorf("List = %v", got)
			}
			opts.Progress = nil
			e.importZip(t, packOf(t, "p", "q", "x"), opts)
			if got := ids(mustList(t, openReg(t, e.db, Options{}))); !slices.Equal(got, []string{"p", "q", "x"}) {
				t.Errorf("List after the import that followed = %v", got)
			}
		})
	}
}

// testImportEstimateEnds: the storage estimate, asked for while the
// archive is read, is not left waiting by an import that fails before it
// needs the answer.
func testImportEstimateEnds(t *testing.T, bc backendCase) {
	ended := make(chan struct{})
	e := newEnv(t, bc, func(o *Options) {
		o.Estimate = func(ctx context.Context) (vfs.StorageEstimate, error) {
			<-ctx.Done() // a browser slow to answer
			close(ended)
			return vfs.StorageEstimate{}, ctx.Err()
		}
	})
	_, err := e.reg.Import(context.Background(), []byte("not an archive"), ImportOptions{})
	wantErr(t, "not an archive", err, skillerr.InvalidArchive, "")
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the estimate still waits 30 s after the import failed")
	}
}

// testImportMixed: one archive mixes skills installed already (identical,
// changed, replaced, the target of an update) with new ones. The skills
// whose name is installed are compared by digest before the commit, the
// others digested during it: every record's digest is that of the files
// stored, and the versions replaced are retained.
func testImportMixed(t *testing.T, bc backendCase) {
	ctx := context.Background()
	e := newEnv(t, bc)
	installed := e.importZip(t, packOf(t, "same", "x", "upd"), ImportOptions{})
	digestOf := map[string]string{}
	for _, m := range installed.Skills {
		digestOf[m.ID] = m.Digest
	}
	check := func(what string, res *ImportResult, skills, already, replaced []string) {
		t.Helper()
		if !slices.Equal(ids(res.Skills), skills) || !slices.Equal(res.AlreadyInstalled, already) || !slices.Equal(res.Replaced, replaced) {
			t.Fatalf("%s = %s", what, jsonOf(t, res))
		}
		for _, m := range res.Skills {
			if got := storedDigest(t, e.reg, m.ID); m.Digest != got {
				t.Errorf("%s: %s has the digest %s, its files %s", what, m.ID, m.Digest, got)
			}
			checkGenerations(t, e.reg, m)
			if got := mustGet(t, e.reg, m.ID); got.Digest != m.Digest {
				t.Errorf("%s: the record of %s says %s", what, m.ID, got.Digest)
			}
		}
		for _, m := range res.Skills {
			// A version replaced by another is retained; by itself, not.
			if slices.Contains(replaced, m.ID) {
				_, _, found, err := e.reg.ReadRetained(ctx, digestOf[m.ID], "SKILL.md")
				if err != nil || found != (digestOf[m.ID] != m.Digest) {
					t.Errorf("%s: the replaced version of %s retained: %v, %v", what, m.ID, found, err)
				}
			}
			digestOf[m.ID] = m.Digest
		}
	}
	// The skills of an archive come in the order of their folders.
	changed := func(dir, name string) []file { return skillFiles(dir, name, "triggers: "+dir) }
	pack := func(parts ...[]file) []byte { return zipOf(t, "", slices.Concat(parts...)...) }

	res := e.importZip(t, pack(skillFiles("same", "same"), changed("x", "x"), skillFiles("n1", "n1")), ImportOptions{})
	check("rename", res, []string{"n1", "x-v2"}, []string{"same"}, []string{})
	res = e.importZip(t, pack(skillFiles("n2", "n2"), changed("xx", "x"), skillFiles("same", "same")), ImportOptions{OnConflict: ConflictReplace})
	check("replace", res, []string{"n2", "same", "x"}, []string{}, []string{"same", "x"})
	res = e.importZip(t, pack(changed("other", "other")), ImportOptions{Target: "upd"})
	check("update", res, []string{"upd"}, []string{}, []string{"upd"})
}

// storedDigest is the Digest of skill id's files as stored.
func storedDigest(t testing.TB, r *Registry, id string) string {
	t.Helper()
	entries, err := r.Tree(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var files []vfs.File
	for _, e := range entries {
		if !e.IsDir {
			data, _ := readGen(t, r, id+"/"+e.Path)
			files = append(files, vfs.File{Path: e.Path, Data: []byte(data)})
		}
	}
	return Digest(files)
}

// A new skill has no tree to delete, since every commit writes or deletes
// a tree with its record, so its import only puts; a replaced skill's old
// tree is deleted before its new contents are written.
func testImportDeletesOnlyReplacedTrees(t *testing.T, bc backendCase) {
	db := &countingDB{Backend: bc.open(t), recordOps: true}
	reg := openReg(t, db, Options{})
	ctx := context.Background()
	if _, err := reg.Import(ctx, zipOf(t, "", file{"x/SKILL.md", mdOf("x", "One.")}, file{"y/SKILL.md", mdOf("y", "Two.")}), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, op := range db.lastCommit {
		if op.Kind != vfs.OpPut {
			t.Errorf("importing new skills committed %+v", op)
		}
	}
	if _, err := reg.Import(ctx, zipOf(t, "x", file{"SKILL.md", mdOf("x", "New.")}), ImportOptions{OnConflict: ConflictReplace}); err != nil {
		t.Fatal(err)
	}
	want, err := vfs.DeleteSkill("x")
	if err != nil {
		t.Fatal(err)
	}
	var deletes []vfs.Op
	firstBlob := -1
	for i, op := range db.lastCommit {
		if op.Kind != vfs.OpPut {
			deletes = append(deletes, op)
		} else if firstBlob < 0 && op.Store == vfs.StoreBlobs {
			firstBlob = i
		}
	}
	same := func(a, b vfs.Op) bool { return a.Kind == b.Kind && a.Store == b.Store && a.Key == b.Key }
	if !slices.EqualFunc(deletes, want, same) {
		t.Errorf("replacing x deleted %+v; want %+v", deletes, want)
	}
	if firstBlob >= 0 && firstBlob < len(want) {
		t.Errorf("replacing x wrote contents (op %d) before deleting its old tree", firstBlob)
	}
}

// testImportReadsKeptVersionsOnly: a replace reads the old files of the
// versions it keeps, not of those the same commit collects at once for
// the bounds (RetainVersions): every file read is held in Go, whose memory
// WebAssembly never gives back, and replacing a pack of 134 skills read
// all of them to keep 16.
func testImportReadsKeptVersionsOnly(t *testing.T, bc backendCase) {
	db := &contentReads{Backend: bc.open(t)}
	reg := openReg(t, db, Options{RetainVersions: 2})
	ctx := context.Background()
	names := []string{"a", "b", "c", "d", "e"}
	first, err := reg.Import(ctx, packOf(t, names...), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var files []file
	for _, n := range names {
		files = append(files, file{n + "/SKILL.md", mdOf(n, "Handles "+n+" tasks, again.")})
	}
	db.ids = nil
	if _, err := reg.Import(ctx, zipOf(t, "", files...), ImportOptions{OnConflict: ConflictReplace}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(db.ids, []string{"d", "e"}) {
		t.Errorf("replacing five skills read the files of %v; want those of the two versions kept, d and e", db.ids)
	}
	for i, m := range first.Skills {
		if _, _, found, err := reg.ReadRetained(ctx, m.Digest, ""); err != nil || found != (i >= 3) {
			t.Errorf("the old version of %s retained: %v, %v", m.ID, found, err)
		}
	}
}

// contentReads records the skills whose files' contents are read.
type contentReads struct {
	vfs.Backend
	ids []string
}

func (c *contentReads) Read(ctx context.Context, qs ...vfs.Query) ([][]vfs.Record, error) {
	for _, q := range qs {
		if q.Store == vfs.StoreBlobs && q.Prefix {
			c.ids = append(c.ids, strings.TrimSuffix(q.Key, "/"))
		}
	}
	return c.Backend.Read(ctx, qs...)
}

// testImportDisabledDependency: an import stores disabled, with a note,
// a skill that would depend on a disabled one, directly or through
// another of the import, and Preview says so before; it neither refuses
// it nor enables what the user disabled. Enabling it later drops the
// note. An update of an enabled skill that now depends on a disabled one
// disables it, unless enabled skills depend on it: then it is refused.
func testImportDisabledDependency(t *testing.T, bc backendCase) {
	e := newEnv(t, bc)
	ctx := context.Background()
	e.importZip(t, zipOf(t, "", slices.Concat(skillFiles("helper", "helper"), skillFiles("base", "base"),
		skillFiles("user", "user", "skill_dependencies: base"))...), ImportOptions{})
	if _, err := e.reg.SetEnabled(ctx, "helper", false); err != nil {
		t.Fatal(err)
	}
	const note = "Installed disabled, since it depends on 'helper', which is disabled: enable 'helper', then this skill."
	pack := zipOf(t, "", slices.Concat(skillFiles("y", "y", "skill_dependencies: x"), skillFiles("x", "x", "skill_dependencies: [base, helper]"),
		skillFiles("z", "z", "skill_dependencies: base"))...)
	notes := func(diags []skill.Diagnostic) []string {
		var out []string
		for _, d := range diags {
			if d.Code == "dependency-disabled" {
				out = append(out, d.Message)
			}
		}
		return out
	}
	p, err := e.reg.Preview(ctx, pack, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"x": {note}, "y": {"Installed disabled, since it depends on 'x', which is disabled: enable 'x', then this skill."}, "z": nil}
	for _, s := range p.Skills {
		if got := notes(s.Diagnostics); !slices.Equal(got, want[s.Name]) {
			t.Errorf("preview of %s: notes %q, want %q", s.Name, got, want[s.Name])
		}
	}
	res := e.importZip(t, pack, ImportOptions{})
	for _, m := range res.Skills {
		if got := notes(m.Diagnostics); m.Enabled != (m.ID == "z") || !slices.Equal(got, want[m.ID]) {
			t.Errorf("imported %s: enabled %v, notes %q", m.ID, m.Enabled, got)
		}
		if got := mustGet(t, e.reg, m.ID); got.Enabled != m.Enabled || !slices.Equal(notes(got.Diagnostics), want[m.ID]) {
			t.Errorf("stored %s = %s", m.ID, jsonOf(t, got))
		}
	}
	ms, err := e.reg.SetEnabledMany(ctx, []string{"y", "x", "helper"}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if len(notes(m.Diagnostics)) > 0 || len(notes(mustGet(t, e.reg, m.ID).Diagnostics)) > 0 {
			t.Errorf("%s keeps the note once enabled: %+v", m.ID, m.Diagnostics)
		}
	}
	if _, err := e.reg.SetEnabledMany(ctx, []string{"helper", "x", "y", "z"}, false); err != nil {
		t.Fatal(err)
	}

	// An update of base, which user (enabled) depends on, that depends on
	// helper: refused, as disabling base would be, and nothing changes.
	before := dump(t, e.db)
	update := zipOf(t, "base", file{"SKILL.md", mdOf("base", "Base, v2.", "skill_dependencies: helper")})
	_, err = e.reg.Import(ctx, update, ImportOptions{Target: "base"})
	if se := wantErr(t, "an update of base depending on helper", err, skillerr.Conflict, "has-dependents"); se != nil &&
		(se.Subject != "base" || se.Msg != "this version depends on 'helper', which is disabled, so it would be installed disabled, but 'user', enabled, depends on it: enable 'helper' first, or disable 'user'") {
		t.Errorf("the refusal: %v", se)
	}
	_, err = e.reg.Import(ctx, update, ImportOptions{OnConflict: ConflictReplace})
	wantErr(t, "base replaced by one depending on helper", err, skillerr.Conflict, "has-dependents")
	if !sameDump(before, dump(t, e.db)) {
		t.Error("a refused update changed the database")
	}
	// With user disabled, or in the same import, base is updated, disabled.
	res = e.importZip(t, zipOf(t, "", slices.Concat([]file{{"base/SKILL.md", mdOf("base", "Base, v2.", "skill_dependencies: helper")}},
		skillFiles("user", "user", "skill_dependencies: base"))...), ImportOptions{OnConflict: ConflictReplace})
	if len(res.Skills) != 2 || res.Skills[0].Enabled || res.Skills[1].Enabled || !slices.Equal(res.Replaced, []string{"base", "user"}) {
		t.Errorf("base and user replaced: %s", jsonOf(t, res))
	}
	if got := notes(res.Skills[1].Diagnostics); !slices.Equal(got, []string{"Installed disabled, since it depends on 'base', which is disabled: enable 'base', then this skill."}) {
		t.Errorf("user's notes: %q", got)
	}
	// An update of a disabled skill stays disabled, whatever name it comes
	// with; base, which the import above disabled for helper, keeps the
	// note while it depends on helper (see testDisabledNoteKept).
	res = e.importZip(t, zipOf(t, "base-next", file{"SKILL.md", mdOf("base-next", "Base, v3.", "skill_dependencies: helper")}), ImportOptions{Target: "base"})
	if m := res.Skills[0]; m.ID != "base" || m.Description != "Base, v3." || m.Enabled || !slices.Equal(notes(m.Diagnostics), []string{note}) {
		t.Errorf("base updated while disabled = %s", jsonOf(t, m))
	}
}

// testPreviewNotes: the dependency-disabled notes a preview gives are
// those the import stores, under the choice made: updating a skill with
// one that depends on a disabled skill disables it and its dependents;
// keeping it beside the installed one (a new id, enabled) or skipping it
// leaves its dependents on the installed one; a skill an import disabled
// for a dependency keeps its note when updated. Before, the preview said
// what an update of every installed skill would do, whatever the choice,
// and the import's own default (rename) stored other notes than it said.
func testPreviewNotes(t *testing.T, bc backendCase) {
	const helper, base = "Installed disabled, since it depends on 'helper', which is disabled: enable 'helper', then this skill.",
		"Installed disabled, since it depends on 'base', which is disabled: enable 'base', then this skill."
	pack := func(t *testing.T) []byte {
		return zipOf(t, "", slices.Concat(skillFiles("base", "base", "skill_dependencies: helper"), skillFiles("user", "user", "skill_dependencies: base"),
			skillFiles("kept", "kept", "skill_dependencies: helper"), skillFiles("fresh", "fresh"))...)
	}
	for _, c := range []struct {
		name   string
		choose map[string]ConflictPolicy
		want   map[string]string // by id as installed: the note, if any
	}{
		{"default", nil, map[string]string{"base-v2": helper, "kept-v2": helper}},
		{"update", map[string]ConflictPolicy{"base": ConflictReplace, "user": ConflictRename, "kept": ConflictReplace, "fresh": ConflictRename},
			map[string]string{"base": helper, "user": base, "kept": helper}},
		{"keep both", map[string]ConflictPolicy{"base": ConflictRename, "user": ConflictRename}, map[string]string{"base-v2": helper}},
		{"skip", map[string]ConflictPolicy{"user": ConflictRename, "kept": ConflictReplace}, map[string]string{"kept": helper}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, bc)
			ctx := context.Background()
			e.importZip(t, packOf(t, "helper", "base"), ImportOptions{})
			if _, err := e.reg.SetEnabled(ctx, "helper", false); err != nil {
				t.Fatal(err)
			}
			e.importZip(t, zipOf(t, "kept", file{"SKILL.md", mdOf("kept", "Kept.", "skill_dependencies: helper")}), ImportOptions{})
			p, err := e.reg.Preview(ctx, pack(t), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			res := e.importZip(t, pack(t), ImportOptions{Choose: c.choose})
			stored := map[string]string{}
			for _, m := range res.Skills {
				if n := notesOf(m.Diagnostics); len(n) > 0 {
					stored[m.ID] = n[0]
				}
			}
			if !maps.Equal(stored, c.want) {
				t.Errorf("the import stored notes %q, want %q", stored, c.want)
			}
			// The preview names the skills by their SKILL.md names.
			previewed := map[string]string{}
			if c.choose == nil {
				for _, s := range p.Skills {
					if n := notesOf(s.Diagnostics); len(n) > 0 {
						previewed[s.Name] = n[0]
					}
				}
			} else {
				notes, err := PreviewNotes(p, c.choose, false)
				if err != nil {
					t.Fatal(err)
				}
				for name, d := range notes {
					previewed[name] = d.Message
				}
			}
			want := map[string]string{}
			for id, n := range c.want {
				want[strings.TrimSuffix(id, "-v2")] = n
			}
			if !maps.Equal(previewed, want) {
				t.Errorf("the preview said %q, want %q", previewed, want)
			}
		})
	}
}

// notesOf returns the messages of the dependency-disabled notes of diags.
func notesOf(diags []skill.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		if d.Code == "dependency-disabled" {
			out = append(out, d.Message)
		}
	}
	return out
}

// TestImportProgressCountsWritten: the progress of an import counts the
// skills it writes, not those it finds installed byte for byte and
// leaves as they are: a download installed again with one skill more (a
// batch install's retry, docs/sources.md) counts that one alone, and one
// that writes nothing counts nothing.
func TestImportProgressCountsWritten(t *testing.T) {
	e := newEnv(t, memoryCase)
	a := skillFiles("pack/a", "a")
	e.importZip(t, zipOf(t, "", a...), ImportOptions{})
	c := skillFiles("pack/c", "c")
	size := int64(0)
	for _, f := range c {
		size += int64(len(f.data))
	}
	for _, tc := range []struct {
		files []file
		want  Progress
	}{
		{append(slices.Clone(a), c...), Progress{Phase: PhaseDone, FilesDone: len(c), FilesTotal: len(c), BytesDone: size, BytesTotal: size}},
		{append(slices.Clone(a), c...), Progress{Phase: PhaseDone}},
	} {
		var progress []Progress
		e.importZip(t, zipOf(t, "", tc.files...), ImportOptions{Progress: func(p Progress) { progress = append(progress, p) }})
		for _, p := range progress {
			if p.FilesTotal != tc.want.FilesTotal || p.BytesTotal != tc.want.BytesTotal || p.FilesDone > p.FilesTotal {
				t.Errorf("progress %+v, want totals of %+v", p, tc.want)
			}
		}
		if len(progress) == 0 || progress[len(progress)-1] != tc.want {
			t.Errorf("progress = %+v, want it to end %+v", progress, tc.want)
		}
	}
}
