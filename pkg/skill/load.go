package skill

import (
	"errors"
	"io/fs"
	"path"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// skillMDNames are the names SKILL.md may have, preferred first; skills-ref
// accepts the lowercase one too.
var skillMDNames = []string{"SKILL.md", "skill.md"}

// SidecarName is the optional metadata file beside SKILL.md.
const SidecarName = "skill.yaml"

// FindSkillMD returns the path of the skill file in dir: dir/SKILL.md, or
// dir/skill.md when there is no SKILL.md. When neither is a regular file
// it returns an InvalidManifest error with Reason "skill-md-missing".
func FindSkillMD(fsys fs.FS, dir string) (string, error) {
	for _, name := range skillMDNames {
		p := path.Join(dir, name)
		info, err := fs.Stat(fsys, p)
		switch {
		case err == nil && info.Mode().IsRegular():
			return p, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", skillerr.Wrap(skillerr.Internal, p, err, "cannot read the skill file")
		}
	}
	return "", &skillerr.Error{Code: skillerr.InvalidManifest, Reason: "skill-md-missing", Subject: dir, Msg: "SKILL.md not found"}
}

// Load reads the skill in directory dir of fsys: its SKILL.md and, when
// present, its skill.yaml (which replaces opts.SkillYAML). The name the
// skill must have is opts.DirName, or else the base name of dir, except for
// ".", whose name is unknown: an fs.FS rooted at a skill (an archive's, say)
// passes its directory's name in opts. Problems reading the files are
// diagnostics too: path-invalid, path-not-found, not-a-directory,
// skill-md-missing and read-failed.
func Load(fsys fs.FS, dir string, opts Options) (*Skill, []Diagnostic) {
	fail := func(code, format string, args ...any) (*Skill, []Diagnostic) {
		var d decoder
		d.add(code, SeverityError, "", format, args...)
		return nil, d.diags
	}
	if !fs.ValidPath(dir) {
		return fail("path-invalid", "'%s' is not a valid path.", dir)
	}
	info, err := fs.Stat(fsys, dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("path-not-found", "Path does not exist: %s.", dir)
	case err != nil:
		return fail("read-failed", "Cannot read %s: %v.", dir, err)
	case !info.IsDir():
		return fail("not-a-directory", "Not a directory: %s.", dir)
	}
	name, err := FindSkillMD(fsys, dir)
	if err != nil {
		if skillerr.ReasonOf(err) == "skill-md-missing" {
			return fail("skill-md-missing", "Missing required file: SKILL.md in %s.", dir)
		}
		return fail("read-failed", "Cannot read the skill file in %s: %v.", dir, err)
	}
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fail("read-failed", "Cannot read %s: %v.", name, err)
	}
	if opts.DirName == "" && dir != "." {
		opts.DirName = path.Base(dir)
	}
	sidecar, err := fs.ReadFile(fsys, path.Join(dir, SidecarName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail("read-failed", "Cannot read %s: %v.", path.Join(dir, SidecarName), err)
	}
	opts.SkillYAML = sidecar
	return Parse(src, opts)
}
