package zipguard

import (
	"path"
	"sort"
	"strings"

	"github.com/skillfs/skillfs/pkg/pace"
)

// manifest is the one file name that makes a directory a skill. Variants
// such as "skill.md" are not accepted (the specification names SKILL.md),
// only mentioned when no skill is found.
const manifest = "SKILL.md"

// findSkills marks the skill directories among ms (directories holding an
// entry named SKILL.md, of whatever type: a link named SKILL.md makes a
// skill that then fails for holding a link) and returns the outermost ones,
// sorted by path. A SKILL.md inside another skill's directory belongs to
// that skill.
func findSkills(ms []member) ([]*node, error) {
	var variant string
	for i := range ms {
		pace.StepAt(i) // thousands of skills' entries take longer than a task should
		m := &ms[i]
		switch base := path.Base(m.path); {
		case m.kind == kindDir:
		case base == manifest:
			if m.node.parent != nil {
				m.node.parent.skill = true
			}
		case variant == "" && strings.EqualFold(base, manifest):
			variant = m.name
		}
	}
	var top []*node
	seen := make(map[*node]bool)
	for i := range ms {
		pace.StepAt(i)
		m := &ms[i]
		if m.kind == kindDir || path.Base(m.path) != manifest || m.node.parent == nil {
			continue
		}
		if d := ownerOf(m.node.parent); d != nil && !seen[d] {
			seen[d] = true
			top = append(top, d)
		}
	}
	if len(top) == 0 {
		if variant != "" {
			return nil, fail(ReasonNoSkill, variant, nil, "no SKILL.md found; the manifest must be named SKILL.md exactly, in capitals")
		}
		return nil, fail(ReasonNoSkill, "", nil, "no SKILL.md found in the archive: a skill is a folder holding a SKILL.md, and this archive has none")
	}
	// Sorted by their paths, each made once, beside it: a look-up per
	// comparison took a quarter of an import's longest task.
	type placed struct {
		path string
		d    *node
	}
	byPath := make([]placed, len(top))
	for i, d := range top {
		pace.StepAt(i)
		byPath[i] = placed{d.path(), d}
	}
	// sort.Slice, not slices.SortFunc: each struct-typed instantiation
	// is more code in the module (see pkg/registry's files.go).
	sort.Slice(byPath, func(i, j int) bool { return byPath[i].path < byPath[j].path })
	for i, p := range byPath {
		top[i] = p.d
	}
	return top, nil
}

// layout names the archive's layout and gathers each skill's files, with
// paths relative to the skill directory. files is sorted by path, so each
// skill's files are too; owners[i] is the skill directory of files[i].
func layout(dirs []*node, files []File, owners []*node) (Layout, []Skill) {
	skills := make([]Skill, len(dirs))
	index := make(map[*node]int, len(dirs))
	for i, d := range dirs {
		skills[i].Dir = d.path()
		if d.parent != nil {
			skills[i].Name = d.name
		}
		index[d] = i
	}
	for i, f := range files {
		pace.StepAt(i)
		s := &skills[index[owners[i]]]
		if s.Dir != "." {
			f.Path = f.Path[len(s.Dir)+1:]
		}
		s.Files = append(s.Files, f)
	}
	switch {
	case len(dirs) > 1:
		return LayoutPack, skills
	case dirs[0].parent == nil:
		return LayoutRoot, skills
	default:
		return LayoutWrapped, skills
	}
}
