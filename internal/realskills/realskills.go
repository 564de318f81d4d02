// Package realskills parses the skills of the real repository downloads
// (see internal/realrepos) for tests and benchmarks that need their text
// — routing's evaluation, the catalog at its budget — without installing
// them: every SKILL.md of every download, parsed as the registry parses it.
package realskills

import (
	"archive/zip"
	"fmt"
	"io"
	"path"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/internal/realrepos"
	"github.com/skillfs/skillfs/pkg/skill"
)

// Skill is a parsed skill of a download.
type Skill struct {
	Repo string // OWNER+NAME
	Dir  string // its folder inside the download
	// ID is the skill's id once installed in this order: its name, or
	// name-vN for the Nth skill of one name, as the registry renames a
	// copy imported with it.
	ID string
	*skill.Skill
}

// maxSkillMD caps what is read of one SKILL.md; real ones are under 100 KB.
const maxSkillMD = 1 << 20

// Require returns the downloads' skills, or skips t loudly when there
// are none.
func Require(t testing.TB) []Skill {
	t.Helper()
	realrepos.Require(t)
	skills, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return skills
}

// Load returns the skills of every download in realrepos.Dir, in the
// order of the downloads and of their entries, leaving out any whose
// SKILL.md does not parse. It returns nil when there are no downloads.
func Load() ([]Skill, error) {
	repos, err := realrepos.Zips()
	if err != nil {
		return nil, err
	}
	var out []Skill
	taken := map[string]int{}
	for _, r := range repos {
		zr, err := zip.OpenReader(r.Path)
		if err != nil {
			return nil, err
		}
		for _, f := range zr.File {
			if path.Base(f.Name) != "SKILL.md" || !f.Mode().IsRegular() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				zr.Close()
				return nil, err
			}
			data, err := io.ReadAll(io.LimitReader(rc, maxSkillMD))
			rc.Close()
			if err != nil {
				zr.Close()
				return nil, err
			}
			dir := path.Dir(f.Name)
			s, _ := skill.Parse(data, skill.Options{DirName: path.Base(dir)})
			if s != nil && strings.TrimSpace(s.Name) != "" {
				id := s.Name
				if taken[id]++; taken[id] > 1 {
					id = fmt.Sprintf("%s-v%d", id, taken[id])
				}
				out = append(out, Skill{Repo: r.Name, Dir: dir, ID: id, Skill: s})
			}
		}
		zr.Close()
	}
	return out, nil
}
