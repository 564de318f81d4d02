package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// found is one skill located under a command-line PATH.
type found struct {
	label   string // how messages name it: a directory, or archive:dir
	fsys    fs.FS  // the skill directory
	dirName string // the directory's name; "" when an archive does not say
	// location is the SKILL.md path written into the catalog.
	location string
}

// skipDirs are never searched for skills.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "__MACOSX": true}

// findSkills returns the skills PATH holds: the skill itself when it has a
// SKILL.md, every skill in an archive, or every skill below a folder.
func findSkills(path string) ([]found, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return archiveSkills(path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	var out []found
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != abs && skipDirs[d.Name()] {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(p, "SKILL.md")); err != nil {
			return nil
		}
		out = append(out, found{
			label:    p,
			fsys:     os.DirFS(p),
			dirName:  filepath.Base(p),
			location: filepath.Join(p, "SKILL.md"),
		})
		// A SKILL.md further down belongs to this skill, as in archives.
		return filepath.SkipDir
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no SKILL.md in this folder or below it", path)
	}
	return out, nil
}

func archiveSkills(path string) ([]found, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := zipguard.Read(data, zipguard.DefaultLimits())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]found, 0, len(a.Skills))
	for _, s := range a.Skills {
		label := path + ":" + s.Dir
		out = append(out, found{
			label:    label,
			fsys:     s.FS(),
			dirName:  s.Name,
			location: strings.TrimSuffix(label, "/.") + "/SKILL.md",
		})
	}
	return out, nil
}

// load parses a found skill in the given mode.
func (f found) load(mode skill.Mode) (*skill.Skill, []skill.Diagnostic) {
	return skill.Load(f.fsys, ".", skill.Options{Mode: mode, DirName: f.dirName})
}
