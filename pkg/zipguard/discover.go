package zipguard

import (
	"path"
	"slices"
	"strings"
)

// manifest is the one file name that makes a directory a skill. Variants
// such as "skill.md" are not accepted (the specification names SKILL.md),
// only mentioned when no skill is found.
const manifest = "SKILL.md"

// findSkills returns the skill directories among files: directories that
// hold SKILL.md and are not inside another skill directory, sorted.
func findSkills(files []entry) ([]string, error) {
	found := make(map[string]bool)
	var variant string
	for _, e := range files {
		switch base := path.Base(e.path); {
		case base == manifest:
			found[path.Dir(e.path)] = true
		case variant == "" && strings.EqualFold(base, manifest):
			variant = e.f.Name
		}
	}
	var top []string
	for d := range found {
		if _, nested := owner(path.Dir(d), found); !nested || d == "." {
			top = append(top, d)
		}
	}
	if len(top) == 0 {
		if variant != "" {
			return nil, fail(ReasonNoSkill, variant, nil, "no SKILL.md found; the manifest must be named SKILL.md exactly, in capitals")
		}
		return nil, fail(ReasonNoSkill, "", nil, "no SKILL.md found in the archive")
	}
	slices.Sort(top)
	return top, nil
}

// owner returns the outermost directory of dirs that is p or an ancestor
// of p, walking up from p so the cost is the path's depth.
func owner(p string, dirs map[string]bool) (dir string, ok bool) {
	for {
		if dirs[p] {
			dir, ok = p, true
		}
		if p == "." {
			return dir, ok
		}
		p = path.Dir(p)
	}
}

// layout names the archive's layout and gathers each skill's files, with
// paths relative to the skill directory. files is sorted by path, so each
// skill's files are too.
func layout(dirs []string, files []File) (Layout, []Skill) {
	skills := make([]Skill, len(dirs))
	index := make(map[string]int, len(dirs))
	isSkill := make(map[string]bool, len(dirs))
	for i, d := range dirs {
		skills[i].Dir = d
		if d != "." {
			skills[i].Name = path.Base(d)
		}
		index[d] = i
		isSkill[d] = true
	}
	for _, f := range files {
		d, ok := owner(path.Dir(f.Path), isSkill)
		if !ok {
			continue
		}
		if d != "." {
			f.Path = strings.TrimPrefix(f.Path, d+"/")
		}
		skills[index[d]].Files = append(skills[index[d]].Files, f)
	}
	switch {
	case len(dirs) > 1:
		return LayoutPack, skills
	case dirs[0] == ".":
		return LayoutRoot, skills
	default:
		return LayoutWrapped, skills
	}
}
