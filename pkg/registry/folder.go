package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
	"github.com/skillfs/skillfs/pkg/source"
	"github.com/skillfs/skillfs/pkg/vfs"
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

// CheckDownload compares the installed skills ids (at most MaxBatch),
// installed from one URL, with data, the artifact fetched from it again,
// which its server sent with etag ("" when none). A skill that came from
// a download of several (Origin.Dir) is compared by its own folder: a
// repository's download changes with any of its skills, and only the ones
// whose files changed have an update; one whose folder is gone is no
// longer published there.
//
// Each skill found current whose origin names another download (another
// digest or ETag: a sibling of the download was updated, and recorded the
// new one) records this one (followDownload), so that the next check of
// their URL is asked once, with the ETag the server sends now, rather than
// downloading the archive again to find them current.
func (r *Registry) CheckDownload(ctx context.Context, ids []string, data []byte, etag string) ([]source.Update, error) {
	ids, err := batch(ids)
	if err != nil {
		return nil, err
	}
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
	sum := source.Sum(data)
	ups := source.CheckDigest(in, sum)
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
	var behind []compared
	for i, u := range ups {
		if u.Status == source.StatusCurrent && u.Origin.Kind == source.KindURL && u.Origin != u.Origin.Follow(sum, etag) {
			behind = append(behind, compared{id: u.ID, digest: digests[i], origin: u.Origin})
		}
	}
	followed, err := r.followDownload(ctx, behind, sum, etag)
	if err != nil {
		return nil, err
	}
	for i := range ups {
		if o, ok := followed[ups[i].ID]; ok {
			ups[i].Origin, ups[i].Installed, ups[i].Latest = o, o.Digest, o.Digest
		}
	}
	return ups, nil
}

// compared is a skill as CheckDownload compared it: its id, the digest of
// its files and its origin.
type compared struct {
	id, digest string
	origin     source.Origin
}

// followDownload records that the skills cs, found current against one
// download of their URL (digest sum, ETag etag), were last compared with
// it (source.Origin.Follow), and returns the origins it recorded, by id.
// It writes their records' origins and nothing else, in one commit under
// the registry lock: one change of KindOrigin, which other contexts hear
// (their lists read the records again) and sessions do not count as a
// change of what they show. A skill changed since it was compared (its
// files or its origin: updated, edited, removed meanwhile) is left as it
// is: the comparison says nothing of it any more.
func (r *Registry) followDownload(ctx context.Context, cs []compared, sum, etag string) (map[string]source.Origin, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	qs := make([]vfs.Query, len(cs))
	for i, c := range cs {
		qs[i] = metaQuery(c.id)
	}
	var done map[string]source.Origin
	_, err := r.mutate(ctx, qs, func(read [][]vfs.Record) (*change, error) {
		done = map[string]source.Origin{}
		c := &change{kind: KindOrigin}
		for i, x := range cs {
			if len(read[i]) == 0 {
				continue
			}
			m, err := decodeMeta(read[i][0])
			if err != nil {
				return nil, err
			}
			if m.Digest != x.digest || m.Origin == nil || *m.Origin != x.origin {
				continue
			}
			o := x.origin.Follow(sum, etag)
			m.Origin = &o
			op, err := metaOp(m)
			if err != nil {
				return nil, err
			}
			c.ids, c.ops = append(c.ids, x.id), append(c.ops, op)
			done[x.id] = o
		}
		if len(c.ops) == 0 {
			return nil, nil
		}
		return c, nil
	})
	if err != nil {
		return nil, err
	}
	return done, nil
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

// fromDownload returns, for each candidate of a download of url that a
// skill installed from url's same folder (Origin.Dir) would be updated by,
// the record of that skill, among the installed ones ms: the one of its name
// when that is one of them (as without this), else the first by id (one
// kept beside another of its name: openai's skill-creator installed as
// skill-creator-v2 beside anthropics'). Not one named as another skill of
// the download is: each candidate has an id of its own. Preview reports
// it as the skill installed (PreviewSkill.Installed), and an import that
// replaces replaces it, whatever its id.
func fromDownload(cands []*candidate, ms []Meta, url string) map[*candidate]Meta {
	byFolder := map[string][]Meta{}
	for _, m := range ms {
		if o := m.Origin; o != nil && o.Kind == source.KindURL && o.URL == url && o.Dir != "" {
			byFolder[o.Dir] = append(byFolder[o.Dir], m)
		}
	}
	if len(byFolder) == 0 {
		return nil
	}
	names := make(map[string]bool, len(cands))
	for _, c := range cands {
		if c.s != nil {
			names[idKey(c.s.Name)] = true
		}
	}
	out := map[*candidate]Meta{}
	for _, c := range cands {
		mine := byFolder[c.folder]
		if c.s == nil || len(mine) == 0 {
			continue
		}
		m := slices.MinFunc(mine, func(a, b Meta) int { return strings.Compare(a.ID, b.ID) })
		if i := slices.IndexFunc(mine, func(x Meta) bool { return x.ID == c.s.Name }); i >= 0 {
			m = mine[i]
		}
		if m.ID == c.s.Name || !names[idKey(m.ID)] {
			out[c] = m
		}
	}
	return out
}

// urlMarker is how metaOp (encoding/json) writes an origin's url: the
// records that hold it are the only ones fromDownload needs decoded.
func urlMarker(url string) []byte {
	b, _ := json.Marshal(url) // a string always encodes
	return append([]byte(`"url":`), b...)
}

// metasFrom decodes the records among recs that name url (urlMarker).
func metasFrom(recs []vfs.Record, url string) ([]Meta, error) {
	marker := urlMarker(url)
	var ms []Meta
	for i, rec := range recs {
		pace.StepAt(i)
		if !bytes.Contains(rec.Value, marker) {
			continue
		}
		m, err := decodeMeta(rec)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}
