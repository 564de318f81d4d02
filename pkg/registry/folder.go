package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
	"github.com/skillfs/skillfs/pkg/source"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// ReasonNotInFolder: an install or update asked for the skills of a folder
// of the archive (source.Origin's Dir), and the archive holds none there.
const ReasonNotInFolder = "not-in-folder"

// inFolder returns the skills of the archive that lie in folder under ("",
// or ".", for all of them), or the one skill that under lies in (a link to
// one of its scripts), and the folder of each. Both name a folder as a
// repository does: its path in the archive less the top-level folder that
// every skill of the archive lies in, if there is one — a repository
// download's "repo-main/", whose name changes with the branch or commit
// downloaded; a skill that is that folder (a repository whose SKILL.md is
// at its top) is at ".".
func inFolder(skills []zipguard.Skill, under string) ([]zipguard.Skill, []string, error) {
	if under == "" {
		under = skillpath.Root
	}
	if clean, err := skillpath.Clean(under); err != nil || clean != under {
		return nil, nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonNotInFolder, Subject: under,
			Msg: "the folder to install from must be a clean relative path, such as skills/pdf"}
	}
	top := wrapper(skills)
	kept := make([]zipguard.Skill, 0, len(skills))
	folders := make([]string, 0, len(skills))
	for _, s := range skills {
		f := skillpath.Root
		if s.Dir+"/" != top {
			f = strings.TrimPrefix(s.Dir, top)
		}
		if !within(f, under) && !within(under, f) {
			continue
		}
		kept = append(kept, s)
		folders = append(folders, f)
	}
	if len(kept) == 0 {
		return nil, nil, &skillerr.Error{Code: skillerr.SkillNotFound, Reason: ReasonNotInFolder, Subject: under,
			Msg: fmt.Sprintf("the archive holds no skill in %s/ (it holds %d elsewhere)", under, len(skills))}
	}
	return kept, folders, nil
}

// within reports whether folder dir is folder in or lies below it ("."
// holds every folder).
func within(dir, in string) bool {
	return in == skillpath.Root || dir == in || strings.HasPrefix(dir, in+"/")
}

// wrapper returns the top-level folder, with its slash, that every skill
// of the archive lies below or is, or "" when they do not share one.
func wrapper(skills []zipguard.Skill) string {
	top, _, _ := strings.Cut(skills[0].Dir, "/")
	if top == skillpath.Root {
		return ""
	}
	top += "/"
	for _, s := range skills[1:] {
		if !strings.HasPrefix(s.Dir, top) {
			return ""
		}
	}
	return top
}

// CheckDownload compares the installed skills ids, installed from one URL,
// with data, the artifact fetched from it again (source.CheckBytes). A
// skill that came from a download of several (Origin.Dir) is compared by
// its own folder: a repository's download changes with any of its skills,
// and only the ones whose files changed have an update; one whose folder
// is gone is no longer published there.
func (r *Registry) CheckDownload(ctx context.Context, ids []string, data []byte) ([]source.Update, error) {
	in := make([]source.Installed, len(ids))
	digests := make([]string, len(ids))
	for i, id := range ids {
		m, err := r.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if m.Origin == nil {
			return nil, skillerr.New(skillerr.InvalidArgument, id, "the skill was imported from bytes, not installed from a source")
		}
		in[i], digests[i] = source.Installed{ID: m.ID, Origin: *m.Origin}, m.Digest
	}
	ups := source.CheckBytes(in, data)
	var folders map[string]*candidate // the download's skills by folder, read once
	for i := range ups {
		u := &ups[i]
		if u.Status != source.StatusChanged || u.Origin.Dir == "" {
			continue
		}
		if folders == nil {
			_, cands, err := r.readCandidates(data, nil, "")
			if err != nil {
				// Not an archive the registry reads any more: the
				// update says why.
				break
			}
			folders = make(map[string]*candidate, len(cands))
			for _, c := range cands {
				folders[c.folder] = c
			}
		}
		switch c, ok := folders[u.Origin.Dir]; {
		case !ok:
			u.Status, u.Latest = source.StatusGone, ""
		case installedDigest(c, ids[i]) == digests[i]:
			u.Status, u.Latest = source.StatusCurrent, u.Installed
		}
	}
	return ups, nil
}

// installedDigest returns the Digest skill c would have installed as id
// (renamed, when id is not its name: see candidate.filesAs), or "" when
// it cannot be installed so.
func installedDigest(c *candidate, id string) string {
	if c.s == nil {
		return ""
	}
	files, err := c.filesAs(id)
	if err != nil {
		return ""
	}
	if id == c.s.Name {
		setDigests([]*candidate{c})
		return c.digest
	}
	return Digest(files)
}
