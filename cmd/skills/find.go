package main

import (
	"fmt"
	"io"
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
	dir     string // its folder inside PATH, slash-separated ("." for PATH itself)
	// location is the SKILL.md path written into the catalog.
	location string
	files    []zipguard.File // the skill's files, relative to its directory
}

// findSkills returns the skills PATH holds: the skill itself when it has a
// SKILL.md, every skill in an archive, or every skill below a folder.
func findSkills(path string) ([]found, error) {
	a, err := readPath(path)
	if err != nil {
		return nil, err
	}
	return skillsOf(path, a)
}

// skillsOf names the skills of a, read from PATH.
func skillsOf(path string, a *zipguard.Archive) ([]found, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	out := make([]found, 0, len(a.Skills))
	for _, s := range a.Skills {
		f := found{fsys: s.FS(), dirName: s.Name, dir: s.Dir, files: s.Files}
		if info.IsDir() {
			abs, err := filepath.Abs(path)
			if err != nil {
				return nil, err
			}
			f.label = filepath.Join(abs, filepath.FromSlash(s.Dir))
			f.dirName = filepath.Base(f.label)
			f.location = filepath.Join(f.label, "SKILL.md")
		} else {
			f.label = path + ":" + s.Dir
			f.location = strings.TrimSuffix(f.label, "/.") + "/SKILL.md"
		}
		out = append(out, f)
	}
	return out, nil
}

// readPath reads PATH, an archive or a folder, through the archive guard:
// a folder gets the verdict its archive would, and nothing in it is
// followed or read but the skills' regular files.
func readPath(path string) (*zipguard.Archive, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var a *zipguard.Archive
	switch {
	case !info.IsDir() && !info.Mode().IsRegular():
		return nil, fmt.Errorf("%s: neither a folder nor a regular file", path)
	case info.IsDir():
		a, err = readFolder(path, zipguard.DefaultLimits())
	default:
		var data []byte
		if data, err = readBounded(path, zipguard.DefaultLimits().MaxArchiveSize); err == nil {
			a, err = zipguard.ReadAny(data, zipguard.DefaultLimits())
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// readBounded reads the regular file path, refusing one larger than limit
// before reading it.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes; an archive may have at most %d", path, info.Size(), limit)
	}
	data := make([]byte, info.Size())
	_, err = io.ReadFull(f, data)
	return data, err
}

// load parses a found skill in the given mode.
func (f found) load(mode skill.Mode) (*skill.Skill, []skill.Diagnostic) {
	return skill.Load(f.fsys, ".", skill.Options{Mode: mode, DirName: f.dirName})
}
