package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	pathpkg "path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

func validate(args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	strict := fl.Bool("strict", false, "check the open specification exactly")
	paths, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageError("validate needs at least one PATH")
	}
	mode := skill.Lenient
	if *strict {
		mode = skill.Strict
	}
	invalid := false
	for _, p := range paths {
		skills, err := findSkills(p)
		if err != nil {
			fmt.Fprintln(stderr, describe(err))
			invalid = true
			continue
		}
		for _, f := range skills {
			_, diags := f.load(mode)
			for _, d := range diags {
				fmt.Fprintf(stderr, "%s: %s\n", f.label, d)
			}
			if skill.HasErrors(diags) {
				invalid = true
				continue
			}
			fmt.Fprintf(stdout, "%s: valid (%s)\n", f.label, mode)
		}
	}
	if invalid {
		return errInvalid
	}
	return nil
}

func readProperties(args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 && len(args) != 2 {
		return usageError("read-properties needs one PATH, and FOLDER when PATH holds several skills")
	}
	folder := ""
	if len(args) == 2 {
		folder = args[1]
	}
	f, err := oneSkill(args[0], folder)
	if err != nil {
		return err
	}
	s, err := loadValid(f, stderr)
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(s.Properties(), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

func toPrompt(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError("to-prompt needs at least one PATH")
	}
	var entries []skill.Entry
	for _, p := range args {
		skills, err := findSkills(p)
		if err != nil {
			return err
		}
		for _, f := range skills {
			s, err := loadValid(f, stderr)
			if err != nil {
				return err
			}
			entries = append(entries, skill.CatalogEntries([]*skill.Skill{s}, func(*skill.Skill) string { return f.location })...)
		}
	}
	_, err := fmt.Fprintln(stdout, skill.ToPrompt(entries))
	return err
}

func pack(args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("pack", flag.ContinueOnError)
	out := fl.String("o", "", "the archive to write")
	dirs, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(dirs) != 1 || *out == "" {
		return usageError("pack needs one DIR and -o FILE.zip")
	}
	dir, err := filepath.Abs(dirs[0])
	if err != nil {
		return err
	}
	a, err := readPath(dir)
	if err != nil {
		return err
	}
	skills, err := skillsOf(dir, a)
	if err != nil {
		return err
	}
	for _, f := range skills {
		if _, err := loadValid(f, stderr); err != nil {
			return err
		}
	}
	// The skills' files: what is outside every skill would be dropped on
	// import, so it is not packed.
	files := a.Files
	var buf bytes.Buffer
	if err := zipguard.Write(&buf, files, filepath.Base(dir)); err != nil {
		return err
	}
	// Check the archive the way an importer will before handing it out.
	if _, err := zipguard.Read(buf.Bytes(), zipguard.DefaultLimits()); err != nil {
		return err
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d skill(s), %d file(s), %d bytes\n", *out, len(skills), len(files), buf.Len())
	return nil
}

// listedFolders is how many of its skills' folders a message about PATH
// lists: an archive may hold thousands.
const listedFolders = 10

// oneSkill returns the single skill PATH holds or, with folder, the one of
// its skills in that folder (its path inside PATH, or that path's last
// element).
func oneSkill(path, folder string) (found, error) {
	skills, err := findSkills(path)
	if err != nil {
		return found{}, err
	}
	all := skills
	if folder != "" {
		skills = slices.DeleteFunc(slices.Clone(skills), func(f found) bool {
			return f.dir != folder && pathpkg.Base(f.dir) != folder
		})
	}
	switch {
	case len(skills) == 1:
		return skills[0], nil
	case len(all) == 0:
		return found{}, fmt.Errorf("%s holds no skill", path)
	case len(skills) == 0:
		return found{}, fmt.Errorf("%s holds no skill in a folder named %q; its skills' folders: %s", path, folder, folders(all))
	default:
		return found{}, fmt.Errorf("%s holds %d skills: name one's folder after PATH (skills read-properties %s FOLDER); their folders: %s",
			path, len(skills), path, folders(skills))
	}
}

// folders lists the first listedFolders folders of skills, saying how
// many more there are.
func folders(skills []found) string {
	names := make([]string, 0, listedFolders)
	for _, f := range skills[:min(len(skills), listedFolders)] {
		names = append(names, f.dir)
	}
	list := strings.Join(names, ", ")
	if more := len(skills) - len(names); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return list
}

// loadValid loads f leniently, printing its diagnostics, and fails when it
// has errors.
func loadValid(f found, stderr io.Writer) (*skill.Skill, error) {
	s, diags := f.load(skill.Lenient)
	for _, d := range diags {
		fmt.Fprintf(stderr, "%s: %s\n", f.label, d)
	}
	if s == nil {
		return nil, errInvalid
	}
	return s, nil
}

// parseInterspersed parses flags that may stand before, between or after
// the positional arguments, which it returns in order.
func parseInterspersed(fl *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fl, args); err != nil {
			return nil, err
		}
		args = fl.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// describe renders an error for the terminal; a skillfs error shows its
// code and, for archives, the reason and the offending entry.
func describe(err error) string {
	var e *skillerr.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	var b strings.Builder
	b.WriteString(string(e.Code))
	if e.Reason != "" {
		fmt.Fprintf(&b, " (%s)", e.Reason)
	}
	fmt.Fprintf(&b, ": %v", err)
	return b.String()
}
