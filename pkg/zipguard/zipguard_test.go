package zipguard

import (
	"errors"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

func TestReadRejectsHostileArchives(t *testing.T) {
	for _, h := range hostileCorpus() {
		t.Run(h.name, func(t *testing.T) { expectRefusal(t, Read, h, h.zip(t)) })
	}
}

// expectRefusal reads data with h's limits and requires h's error.
func expectRefusal(t *testing.T, read func([]byte, Limits) (*Archive, error), h hostile, data []byte) {
	t.Helper()
	a, err := read(data, h.limits)
	if err == nil {
		t.Fatalf("Read accepted it: %d files, layout %q", len(a.Files), a.Layout)
	}
	var e *skillerr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T (%v) is not a *skillerr.Error", err, err)
	}
	if string(e.Code) != h.code || e.Reason != h.reason || e.Subject != h.subject {
		t.Fatalf("got {%s %s %q} (%v), want {%s %s %q}", e.Code, e.Reason, e.Subject, err, h.code, h.reason, h.subject)
	}
	if e.Msg == "" {
		t.Fatal("empty message")
	}
	// A person reads the message: the Go libraries' own words would
	// contradict it or say nothing more.
	for _, jargon := range []string{"zip: ", "flate: ", "gzip: ", "archive/tar: ", "EOF"} {
		if strings.Contains(err.Error(), jargon) {
			t.Errorf("the message %q holds %q", err, jargon)
		}
	}
}

// skillView is what a test expects of one skill.
type skillView struct {
	Dir, Name string
	Files     []string
}

func view(a *Archive) (paths []string, skills []skillView) {
	for _, f := range a.Files {
		paths = append(paths, f.Path)
	}
	for _, s := range a.Skills {
		v := skillView{Dir: s.Dir, Name: s.Name}
		for _, f := range s.Files {
			v.Files = append(v.Files, f.Path)
		}
		skills = append(skills, v)
	}
	return paths, skills
}

func TestReadLayouts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ents    []zent
		layout  Layout
		files   []string
		skills  []skillView
		dropped []string
	}{
		{
			name:   "root",
			ents:   []zent{file("SKILL.md", skillMD), file("scripts/run.py", "print(1)"), file("references/a.md", "a")},
			layout: LayoutRoot,
			files:  []string{"SKILL.md", "references/a.md", "scripts/run.py"},
			skills: []skillView{{Dir: ".", Name: "", Files: []string{"SKILL.md", "references/a.md", "scripts/run.py"}}},
		},
		{
			name:   "root with a nested SKILL.md",
			ents:   []zent{file("SKILL.md", skillMD), file("examples/demo/SKILL.md", skillMD)},
			layout: LayoutRoot,
			files:  []string{"SKILL.md", "examples/demo/SKILL.md"},
			skills: []skillView{{Dir: ".", Files: []string{"SKILL.md", "examples/demo/SKILL.md"}}},
		},
		{
			name:   "wrapped, claude.ai style, with directory entries",
			ents:   []zent{dirEntry("pdf/"), dirEntry("pdf/scripts/"), file("pdf/SKILL.md", skillMD), file("pdf/scripts/fill.py", "x"), dirEntry("pdf/empty/")},
			layout: LayoutWrapped,
			files:  []string{"pdf/SKILL.md", "pdf/scripts/fill.py"},
			skills: []skillView{{Dir: "pdf", Name: "pdf", Files: []string{"SKILL.md", "scripts/fill.py"}}},
		},
		{
			name:    "wrapped in a repository download",
			ents:    []zent{file("repo-main/README.md", "r"), file("repo-main/skills/pdf/SKILL.md", skillMD), file("repo-main/skills/pdf/forms.md", "f")},
			layout:  LayoutWrapped,
			files:   []string{"repo-main/skills/pdf/SKILL.md", "repo-main/skills/pdf/forms.md"},
			skills:  []skillView{{Dir: "repo-main/skills/pdf", Name: "pdf", Files: []string{"SKILL.md", "forms.md"}}},
			dropped: []string{"repo-main/README.md"},
		},
		{
			name:   "wrapped skill owns its nested SKILL.md",
			ents:   []zent{file("a/SKILL.md", skillMD), file("a/examples/b/SKILL.md", skillMD)},
			layout: LayoutWrapped,
			files:  []string{"a/SKILL.md", "a/examples/b/SKILL.md"},
			skills: []skillView{{Dir: "a", Name: "a", Files: []string{"SKILL.md", "examples/b/SKILL.md"}}},
		},
		{
			name:   "pack at the top level",
			ents:   []zent{file("b/SKILL.md", skillMD), file("a/SKILL.md", skillMD), file("a/x.md", "x")},
			layout: LayoutPack,
			files:  []string{"a/SKILL.md", "a/x.md", "b/SKILL.md"},
			skills: []skillView{{Dir: "a", Name: "a", Files: []string{"SKILL.md", "x.md"}}, {Dir: "b", Name: "b", Files: []string{"SKILL.md"}}},
		},
		{
			name: "pack in a repository download, with files outside skills",
			ents: []zent{
				file("repo-main/LICENSE", "l"), file("repo-main/README.md", "r"),
				file("repo-main/skills/a/SKILL.md", skillMD), file("repo-main/skills/b/SKILL.md", skillMD),
				file("repo-main/skills/b/scripts/s.sh", "s"), file("repo-main/other/c/SKILL.md", skillMD),
			},
			layout: LayoutPack,
			files:  []string{"repo-main/other/c/SKILL.md", "repo-main/skills/a/SKILL.md", "repo-main/skills/b/SKILL.md", "repo-main/skills/b/scripts/s.sh"},
			skills: []skillView{
				{Dir: "repo-main/other/c", Name: "c", Files: []string{"SKILL.md"}},
				{Dir: "repo-main/skills/a", Name: "a", Files: []string{"SKILL.md"}},
				{Dir: "repo-main/skills/b", Name: "b", Files: []string{"SKILL.md", "scripts/s.sh"}},
			},
			dropped: []string{"repo-main/LICENSE", "repo-main/README.md"},
		},
		{
			name:   "pack in hidden folders (openai/skills)",
			ents:   []zent{file("skills-main/skills/.curated/gh/SKILL.md", skillMD), file("skills-main/skills/.system/installer/SKILL.md", skillMD), file("skills-main/skills/.system/installer/.env.example", "e")},
			layout: LayoutPack,
			files:  []string{"skills-main/skills/.curated/gh/SKILL.md", "skills-main/skills/.system/installer/.env.example", "skills-main/skills/.system/installer/SKILL.md"},
			skills: []skillView{
				{Dir: "skills-main/skills/.curated/gh", Name: "gh", Files: []string{"SKILL.md"}},
				{Dir: "skills-main/skills/.system/installer", Name: "installer", Files: []string{".env.example", "SKILL.md"}},
			},
		},
		{
			name: "junk dropped",
			ents: []zent{
				dirEntry("__MACOSX/"), file("__MACOSX/pdf/._SKILL.md", "x"), file("pdf/SKILL.md", skillMD),
				file("pdf/.DS_Store", "x"), file("pdf/._forms.md", "x"), file("pdf/forms.md", "f"),
				file("pdf/img/Thumbs.db", "x"), file("DESKTOP.INI", "x"), file("pdf/sub/__MACOSX/x", "x"),
			},
			layout:  LayoutWrapped,
			files:   []string{"pdf/SKILL.md", "pdf/forms.md"},
			skills:  []skillView{{Dir: "pdf", Name: "pdf", Files: []string{"SKILL.md", "forms.md"}}},
			dropped: []string{"__MACOSX/", "__MACOSX/pdf/._SKILL.md", "pdf/.DS_Store", "pdf/._forms.md", "pdf/img/Thumbs.db", "DESKTOP.INI", "pdf/sub/__MACOSX/x"},
		},
		{
			name:   "clean spellings of names are cleaned",
			ents:   []zent{file("./SKILL.md", skillMD), file("a//b.md", "b"), dirEntry("./")},
			layout: LayoutRoot,
			files:  []string{"SKILL.md", "a/b.md"},
			skills: []skillView{{Dir: ".", Files: []string{"SKILL.md", "a/b.md"}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Read(build(t, tc.ents...), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			files, skills := view(a)
			if a.Layout != tc.layout {
				t.Errorf("layout %q, want %q", a.Layout, tc.layout)
			}
			if !slices.Equal(files, tc.files) {
				t.Errorf("files %q, want %q", files, tc.files)
			}
			if !reflect.DeepEqual(skills, tc.skills) {
				t.Errorf("skills %+v, want %+v", skills, tc.skills)
			}
			if !slices.Equal(a.Dropped, tc.dropped) {
				t.Errorf("dropped %q, want %q", a.Dropped, tc.dropped)
			}
		})
	}
}

func TestReadContentAndModes(t *testing.T) {
	big := make([]byte, 200<<10) // over RatioMinSize, compresses poorly
	for i := range big {
		big[i] = byte(i*7919 + i>>8)
	}
	h, body := deflated(t, "font.ttf", big)
	z := build(t,
		file("SKILL.md", skillMD),
		zent{name: "scripts/run.sh", data: "#!/bin/sh\n", mode: 0o750},
		zent{name: "notes.md", data: "n", mode: 0o600},
		raw(h, body),
	)
	a, err := Read(z, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		data string
		mode fs.FileMode
	}{
		"SKILL.md":       {skillMD, 0o644},
		"notes.md":       {"n", 0o644},
		"scripts/run.sh": {"#!/bin/sh\n", 0o755},
		"font.ttf":       {string(big), 0o644},
	}
	if len(a.Files) != len(want) {
		t.Fatalf("%d files, want %d", len(a.Files), len(want))
	}
	for _, f := range a.Files {
		w, ok := want[f.Path]
		if !ok || string(f.Data) != w.data || f.Mode != w.mode {
			t.Errorf("%s: mode %v, %d bytes; want mode %v, %d bytes", f.Path, f.Mode, len(f.Data), w.mode, len(w.data))
		}
	}
}

func TestSkillFS(t *testing.T) {
	z := build(t,
		file("repo/README.md", "outside"),
		file("repo/pdf/SKILL.md", skillMD),
		file("repo/pdf/scripts/fill.py", "print('fill')"),
		file("repo/pdf/reference/forms/a.md", "A"),
	)
	a, err := Read(z, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	fsys := a.Skills[0].FS()
	if err := fstest.TestFS(fsys, "SKILL.md", "scripts/fill.py", "reference/forms/a.md"); err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(fsys, "SKILL.md")
	if err != nil || string(b) != skillMD {
		t.Fatalf("ReadFile(SKILL.md) = %q, %v", b, err)
	}
	for _, name := range []string{"README.md", "../README.md", "/SKILL.md", "nope"} {
		if _, err := fsys.Open(name); err == nil {
			t.Errorf("Open(%q) succeeded outside the skill", name)
		}
	}
	if _, err := fsys.Open("nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(nope) = %v, want fs.ErrNotExist", err)
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"SKILL.md", "reference", "scripts"}; !slices.Equal(names, want) {
		t.Fatalf("ReadDir(.) = %q, want %q", names, want)
	}
}

// The caller's Limits are applied field by field; zero fields take the
// default.
func TestLimitsDefaults(t *testing.T) {
	got := Limits{MaxDepth: 3}.withDefaults()
	want := DefaultLimits()
	want.MaxDepth = 3
	if got != want {
		t.Fatalf("withDefaults = %+v, want %+v", got, want)
	}
	// The archive limit follows a raised total unless set itself.
	if got := (Limits{MaxTotalSize: 100 << 20}).withDefaults().MaxArchiveSize; got != 104<<20 {
		t.Fatalf("MaxArchiveSize = %d, want %d", got, 104<<20)
	}
}
