package registry

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skill"
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
		noun := "skills"
		if len(skills) == 1 {
			noun = "skill"
		}
		return nil, nil, &skillerr.Error{Code: skillerr.SkillNotFound, Reason: ReasonNotInFolder, Subject: under,
			Msg: fmt.Sprintf("the download holds no skill in %s/ (it holds %d %s elsewhere): install from the address of the whole download, or of a folder of it that holds a skill",
				under, len(skills), noun)}
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
// whose files changed have an update. One whose folder is gone has moved
// when the download holds it elsewhere (movedTo): it is compared there,
// and its Update's Origin names that folder, which its update takes;
// otherwise it is no longer published there.
//
// A skill that is the whole download is compared by its files too (the
// same skill in other bytes is current), and needs the download to hold
// one skill still. A skill whose version there an update could not
// install (its SKILL.md broken, a dependency neither installed nor in the
// download: what Import with Target refuses) is source.StatusError, with
// that refusal's code and message, not an update to offer. One that
// depends on skills of the download not installed, which its update
// installs with it (importUpdate), names them (Update.Needs).
//
// Data that changed must be something an update can install: a web page
// or an archive the registry cannot read (a sign-in page, a server's error
// sent with 200, a download cut short) fails the check with that error,
// rather than offering every skill an update that would fail.
//
// Each skill found current whose origin names another download (another
// digest or ETag: a sibling of the download was updated, and recorded the
// new one; or another folder: it moved) records this one
// (followDownload), so that the next check of their URL is asked once,
// with the ETag the server sends now, rather than downloading the archive
// again to find them current.
func (r *Registry) CheckDownload(ctx context.Context, ids []string, data []byte, etag string) ([]source.Update, error) {
	ids, err := batch(ids)
	if err != nil {
		return nil, err
	}
	in := make([]source.Installed, len(ids))
	metas := make([]Meta, len(ids))
	for i, id := range ids {
		m, err := r.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if m.Origin == nil {
			return nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonNoOrigin, Subject: id, Msg: noOrigin}
		}
		in[i], metas[i] = source.Installed{ID: m.ID, Origin: *m.Origin, Digest: m.Digest}, m
	}
	sum := source.Sum(data)
	ups := source.CheckDigest(in, sum)
	var folders map[string]*candidate // the download's skills by folder, read once
	var claimed map[string]bool       // the folders skills were installed from
	var named map[string]*candidate   // the download's skills by name, when a skill needs them
	known := &installedIDs{r: r, ctx: ctx}
	for i := range ups {
		u := &ups[i]
		if u.Status != source.StatusChanged {
			continue
		}
		if folders == nil {
			if folders, err = r.downloadFolders(u.Origin, data); err != nil {
				return nil, err
			}
		}
		c, ok := folders[u.Origin.Dir]
		switch {
		case u.Origin.Dir == "":
			// The skill is the whole download, which an update needs to
			// hold one skill still.
			if c = soleSkill(folders); c == nil {
				u.Status, u.Latest, u.Code, u.Reason = source.StatusError, "", skillerr.InvalidArchive, ReasonNotOneSkill
				u.Message = notOneSkill(len(folders), &u.Origin)
				continue
			}
		case !ok:
			if claimed == nil {
				// Of every skill installed from the URL, not only those
				// checked: update() checks one.
				all, err := r.List(ctx)
				if err != nil {
					return nil, err
				}
				claimed = map[string]bool{}
				for _, m := range all {
					if o := m.Origin; o != nil && o.Kind == source.KindURL && o.URL == u.Origin.URL {
						claimed[o.Dir] = true
					}
				}
			}
			if c = movedTo(folders, claimed, metas[i]); c == nil {
				u.Status, u.Latest = source.StatusGone, ""
				continue
			}
			// A skill that became the whole repository (its SKILL.md at
			// the top) records no folder, as its install would.
			u.Origin.Dir, claimed[c.folder] = c.folder, true
			if c.folder == skillpath.Root {
				u.Origin.Dir = ""
			}
		}
		// What the update's commit would refuse: a SKILL.md broken now, a
		// skill it depends on now that is neither installed nor in the
		// download (one that is, it installs with it: importUpdate).
		if c.invalid == nil {
			if named == nil {
				named = byName(slices.Collect(maps.Values(folders)))
			}
			need, _ := needs(c, named, known.has)
			r.refuseUnmet(append([]*candidate{c}, need...), known.has)
			if known.err != nil {
				return nil, known.err
			}
			for _, d := range need {
				u.Needs = append(u.Needs, d.s.Name)
			}
		}
		switch {
		case c.invalid != nil:
			u.Status, u.Latest, u.Code, u.Reason, u.Needs = source.StatusError, "", c.invalid.Code, c.invalid.Reason, nil
			u.Message = cannotUpdate(c, named, u.ID, &u.Origin, nil)
		case installedDigest(c, ids[i]) == cmp.Or(metas[i].Origin.FilesDigest, metas[i].Digest):
			// As received: edits made here since are no update.
			u.Status, u.Latest, u.Needs = source.StatusCurrent, u.Installed, nil
		}
	}
	var behind []compared
	for i, u := range ups {
		if next := u.Origin.Follow(sum, etag); u.Status == source.StatusCurrent && u.Origin.Kind == source.KindURL && in[i].Origin != next {
			behind = append(behind, compared{id: u.ID, digest: metas[i].Digest, origin: in[i].Origin, next: next})
		}
	}
	followed, err := r.followDownload(ctx, behind)
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

// downloadFolders reads data, a download of o's URL, as an update would
// (source.ArtifactOf, then the archive's skills), and returns its skills
// by folder; an error when an update could not read it.
func (r *Registry) downloadFolders(o source.Origin, data []byte) (map[string]*candidate, error) {
	zb, _, err := source.ArtifactOf(o, "", data)
	if err != nil {
		return nil, err
	}
	_, cands, err := r.readCandidates(zb, nil, "")
	if err != nil {
		return nil, err
	}
	folders := make(map[string]*candidate, len(cands))
	for _, c := range cands {
		folders[c.folder] = c
	}
	return folders, nil
}

// cannotUpdate says why c, the version of the installed skill id that
// its source o publishes now (nil: an archive given as bytes), cannot be
// installed by its update: for a skill it now depends on that is not
// installed, which one, what the update takes (o's download, nothing
// else) and what to do (install it from o's source first when elsewhere,
// ImportOptions.Elsewhere, says o's index publishes it apart); when that
// one is a skill of the download (named, by name) that cannot be
// installed itself, why; else c's own refusal.
func cannotUpdate(c *candidate, named map[string]*candidate, id string, o *source.Origin, elsewhere []string) string {
	version := fmt.Sprintf("the version of '%s' published now", id)
	if o == nil {
		version = fmt.Sprintf("this version of '%s'", id)
	}
	// Its SKILL.md's own words, not "the skill in repo-main/skills/x/ is
	// invalid": a folder of a download the person never saw.
	if e, ok := skill.AsError(c.dir, c.diags).(*skillerr.Error); ok {
		return fmt.Sprintf("%s is invalid, so it cannot be installed (the version installed stays): %s", version, e.Msg)
	}
	var se *skillerr.Error
	if !errors.As(c.err, &se) {
		return version + " cannot be installed: " + c.invalid.Message
	}
	switch se.Reason {
	case "unknown-skill":
	case "self-dependency", "unknown-tool", "unknown-mcp-server", "tools-not-registered", "mcp-not-registered":
		// checkDependencies' verdict, about what it depends on.
		return fmt.Sprintf("%s depends on '%s': %s", version, skillerr.Clip(se.Subject), se.Msg)
	default:
		return version + " cannot be installed: " + c.invalid.Message
	}
	dep := skillerr.Clip(se.Subject)
	if d := named[se.Subject]; d != nil && d.invalid != nil {
		return fmt.Sprintf("%s depends on '%s', of the same download: %s", version, dep, d.invalid.Message)
	}
	// An update takes its own download and nothing else: a skill published
	// elsewhere is a download, and a choice, of its own (docs/sources.md).
	switch {
	case o != nil && o.Kind == source.KindIndex && slices.Contains(elsewhere, se.Subject):
		return fmt.Sprintf("%s depends on '%s', which is not installed and which the index publishes as an entry of its own, apart from '%s': "+
			"install '%[2]s' from the index first, then update '%[4]s'", version, dep, skillerr.Clip(o.Entry), id)
	case o != nil && o.Kind == source.KindIndex:
		return fmt.Sprintf("%s depends on '%s', which is not installed and is no part of the index's entry '%s': "+
			"install '%[2]s' first (from the index, if it publishes it as an entry of its own), then update '%[4]s'",
			version, dep, skillerr.Clip(o.Entry), id)
	case o != nil && o.Kind == source.KindMCP:
		return fmt.Sprintf("%s depends on '%s', which is not installed, and an update reads only this skill's files: "+
			"install '%[2]s' first (from the server, if it lists it), then update '%[3]s'", version, dep, id)
	case o != nil:
		return fmt.Sprintf("%s depends on '%s', which is not installed and not in this download: install '%[2]s' first, then update '%[3]s'", version, dep, id)
	}
	return fmt.Sprintf("%s depends on '%s', which is not installed and not in this archive: install '%[2]s' first, then update '%[3]s'", version, dep, id)
}

// ReasonNoOrigin: an update or its check of a skill that records no
// source (imported from an archive's bytes), as the bridge's update says.
const ReasonNoOrigin = "no-origin"

// noOrigin says why a skill imported from an archive has no update, and
// what to do instead: the bridge's update says it in the same words.
const noOrigin = "the skill was imported from an archive, not installed from where it is published, so nothing says where to update it from: import its new version instead"

// ReasonNotOneSkill: an update of a skill that is the whole of its download
// (or archive) got one that holds several skills.
const ReasonNotOneSkill = "not-one-skill"

// notOneSkill says that the new version of a skill that was the whole of
// what its source o (nil: an archive given as bytes) gave holds n skills,
// which an update cannot install, and what to do instead.
func notOneSkill(n int, o *source.Origin) string {
	again := "install from its address again to choose among them"
	switch {
	case o == nil:
		return fmt.Sprintf("this archive holds %d skills, and an update replaces one skill with one: import it to choose among them", n)
	case o.Kind == source.KindIndex:
		again = fmt.Sprintf("install the index's entry '%s' again to choose among them", skillerr.Clip(o.Entry))
	}
	return fmt.Sprintf("the version published now holds %d skills, and an update replaces one skill with one: %s", n, again)
}

// soleSkill returns the one skill of a download (folders), or nil when it
// holds more or none.
func soleSkill(folders map[string]*candidate) *candidate {
	if len(folders) != 1 {
		return nil
	}
	for _, c := range folders {
		return c
	}
	return nil
}

// movedTo returns the skill of a download (folders) that m, installed
// from a folder the download no longer has, moved to, among the valid
// skills in folders none of the skills installed from the download was
// installed from (claimed): the one of m's name (names are distinct in a
// download), else the one in a folder of the same last name ("skills/pdf"
// moved to "document-skills/pdf") when there is one only; else nil.
func movedTo(folders map[string]*candidate, claimed map[string]bool, m Meta) *candidate {
	base := path.Base(m.Origin.Dir)
	var byBase *candidate
	n := 0
	for folder, c := range folders {
		switch {
		case c.s == nil || claimed[folder]:
		case c.s.Name == m.Name:
			return c
		case path.Base(folder) == base:
			byBase = c
			n++
		}
	}
	if n != 1 {
		return nil
	}
	return byBase
}

// compared is a skill as CheckDownload compared it: its id, the digest of
// its files, its origin and the origin that records the download.
type compared struct {
	id, digest string
	// origin is what it records, next what it is to record.
	origin, next source.Origin
}

// followDownload records that the skills cs, found current against one
// download of their URL, were last compared with it (their next origins:
// source.Origin.Follow, and the folder a skill moved to), and returns the
// origins it recorded, by id.
// It writes their records' origins and nothing else, in one commit under
// the registry lock: one change of KindOrigin, which other contexts hear
// (their lists read the records again) and sessions do not count as a
// change of what they show. A skill changed since it was compared (its
// files or its origin: updated, edited, removed meanwhile) is left as it
// is: the comparison says nothing of it any more.
func (r *Registry) followDownload(ctx context.Context, cs []compared) (map[string]source.Origin, error) {
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
			o := x.next
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

// fromDownload returns, for each candidate of a download from o (of its
// URL, or of its index entry: sameDownload) that a skill installed from
// the same folder of it (Origin.Dir) would be updated by,
// the record of that skill, among the installed ones ms: the one of its name
// when that is one of them (as without this), else the first by id (one
// kept beside another of its name: openai's skill-creator installed as
// skill-creator-v2 beside anthropics'). Not one named as another skill of
// the download is: each candidate has an id of its own. A skill whose
// folder, below under (the folder read: all of the download when ""), the
// download no longer has (among all the skills read) is the one of the
// folder it moved to (movedTo), as a check finds it. Preview reports it
// as the skill installed (PreviewSkill.Installed), and an import that
// replaces replaces it, whatever its id.
func fromDownload(cands, all []*candidate, ms []Meta, o source.Origin, under string) map[*candidate]Meta {
	byFolder := map[string][]Meta{}
	for _, m := range ms {
		if sameDownload(m.Origin, o) && m.Origin.Dir != "" {
			byFolder[m.Origin.Dir] = append(byFolder[m.Origin.Dir], m)
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
	take := func(c *candidate, m Meta) {
		if m.ID == c.s.Name || !names[idKey(m.ID)] {
			out[c] = m
		}
	}
	for _, c := range cands {
		mine := byFolder[c.folder]
		if c.s == nil || len(mine) == 0 {
			continue
		}
		m := slices.MinFunc(mine, func(a, b Meta) int { return strings.Compare(a.ID, b.ID) })
		if i := slices.IndexFunc(mine, func(x Meta) bool { return x.ID == c.s.Name }); i >= 0 {
			m = mine[i]
		}
		take(c, m)
	}
	folders := make(map[string]*candidate, len(all))
	for _, c := range all {
		folders[c.folder] = c
	}
	claimed := make(map[string]bool, len(byFolder))
	var moved []Meta
	for dir, mine := range byFolder {
		claimed[dir] = true
		if folders[dir] == nil && within(dir, cmp.Or(under, skillpath.Root)) {
			moved = append(moved, mine...)
		}
	}
	// sort.Slice, not slices.SortFunc: a sort instantiated for a struct
	// this large is ~20 KB of the module (see files.go).
	sort.Slice(moved, func(i, j int) bool { return moved[i].ID < moved[j].ID })
	chosen := make(map[*candidate]bool, len(cands))
	for _, c := range cands {
		chosen[c] = true
	}
	for _, m := range moved {
		if c := movedTo(folders, claimed, m); c != nil && chosen[c] {
			claimed[c.folder] = true
			take(c, m)
		}
	}
	return out
}

// byDownload reports whether the skills installed from o are told by
// their folder of its download (fromDownload): a URL's, or an index
// entry's archive, which may hold several skills as a repository's does.
func byDownload(o *source.Origin) bool {
	return o != nil && (o.Kind == source.KindURL || o.Kind == source.KindIndex)
}

// sameDownload reports whether have, an installed skill's origin, is of
// o's download, whatever its folder in it: the same URL, or the same
// entry of the same index (whose artifact's URL may change with each
// version it publishes).
func sameDownload(have *source.Origin, o source.Origin) bool {
	if have == nil || have.Kind != o.Kind {
		return false
	}
	switch o.Kind {
	case source.KindURL:
		return have.URL == o.URL
	case source.KindIndex:
		return have.Index == o.Index && have.Entry == o.Entry
	}
	return false
}

// downloadMarker is how metaOp (encoding/json) writes the url of o's
// kind that sameDownload compares (an index's for an index entry): the
// records that hold it are the only ones fromDownload needs decoded.
func downloadMarker(o source.Origin) []byte {
	key, url := `"url":`, o.URL
	if o.Kind == source.KindIndex {
		key, url = `"index":`, o.Index
	}
	b, _ := json.Marshal(url) // a string always encodes
	return append([]byte(key), b...)
}

// metasFrom decodes the records among recs that name o's download
// (downloadMarker).
func metasFrom(recs []vfs.Record, o source.Origin) ([]Meta, error) {
	marker := downloadMarker(o)
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
