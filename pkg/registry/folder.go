package registry

import (
	"fmt"
	"strings"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// ReasonNotInFolder: an install or update asked for the skills of a folder
// of the archive (source.Origin's Dir), and the archive holds none there.
const ReasonNotInFolder = "not-in-folder"

// inFolder returns the skills of the archive that lie in folder under ("",
// or ".", for all of them) and, for each, the folder an origin records of
// it (source.Origin's Dir). Both name a folder as a repository does: its
// path in the archive less the top-level folder that every skill of the
// archive lies in, if there is one — a repository download's "repo-main/",
// whose name changes with the branch or commit downloaded. The folder
// recorded is "" when the archive holds one skill: its update is the
// archive's one skill, wherever it lies then.
func inFolder(skills []zipguard.Skill, under string) ([]zipguard.Skill, []string, error) {
	if under != "" && under != skillpath.Root {
		clean, err := skillpath.Clean(under)
		if err != nil || clean != under {
			return nil, nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonNotInFolder, Subject: under,
				Msg: "the folder to install from must be a clean relative path, such as skills/pdf"}
		}
	}
	top := wrapper(skills)
	kept := make([]zipguard.Skill, 0, len(skills))
	folders := make([]string, 0, len(skills))
	for _, s := range skills {
		f := strings.TrimPrefix(s.Dir, top)
		if under != "" && under != skillpath.Root && f != under && !strings.HasPrefix(f, under+"/") {
			continue
		}
		if len(skills) == 1 {
			f = ""
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

// wrapper returns the top-level folder, with its slash, that every skill
// of the archive lies below, or "" when they do not share one (or one of
// them is that folder itself).
func wrapper(skills []zipguard.Skill) string {
	top, _, ok := strings.Cut(skills[0].Dir, "/")
	if !ok {
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
