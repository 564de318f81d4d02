package registry

import (
	"context"
	"slices"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// needs returns the skills of a download (byName) that c's update must
// install with it: those c depends on, directly or through one another,
// that are not installed (installed says which are). ok is false when
// one of them is no skill of the download that can be installed: the
// update cannot be, and need, with c, is what refuseUnmet names the
// missing one from.
func needs(c *candidate, byName map[string]*candidate, installed func(string) bool) (need []*candidate, ok bool) {
	seen := map[string]bool{c.s.Name: true}
	ok = true
	for next := []*candidate{c}; len(next) > 0; next = next[1:] {
		pace.Step()
		for _, d := range dependenciesOf(next[0].s).Skills {
			if seen[d] || installed(d) {
				continue
			}
			seen[d] = true
			if dc := byName[d]; dc != nil {
				need = append(need, dc)
				next = append(next, dc)
			} else {
				ok = false
			}
		}
	}
	return need, ok
}

// byName returns the skills of cands that can be installed, by name
// (parseArchive refuses all but the first of a name).
func byName(cands []*candidate) map[string]*candidate {
	out := make(map[string]*candidate, len(cands))
	for _, c := range cands {
		if c.err == nil {
			out[c.s.Name] = c
		}
	}
	return out
}

// importUpdate is importRead, but for an update (opts.Target) of a skill
// that came from a folder of a download of several (Origin.Dir: a
// repository's at a URL, an index entry's archive) whose version there
// depends on skills of the same download that are not installed: those
// are installed with it, in its commit, as an import of the download
// choosing them would (Choose: the update replaces the skill installed
// from its folder, fromDownload; the others are new, and refused should
// one of their names be installed by then), rather than the update being
// refused. The result lists the skill updated first, then those installed
// with it.
func (r *Registry) importUpdate(ctx context.Context, opts ImportOptions, read func() (*zipguard.Archive, error)) (*ImportResult, error) {
	// Read once, whether or not the update needs more.
	var arc *zipguard.Archive
	var readErr error
	once := func() (*zipguard.Archive, error) {
		if arc == nil && readErr == nil {
			arc, readErr = read()
		}
		return arc, readErr
	}
	with, parsed, err := r.withNeeds(ctx, opts, once)
	if err != nil {
		return nil, err
	}
	if with == nil {
		return r.importRead(ctx, opts, once, parsed)
	}
	res, err := r.importRead(ctx, *with, once, parsed)
	if err != nil {
		return nil, err
	}
	if first := slices.IndexFunc(res.Skills, func(m Meta) bool { return m.ID == opts.Target }); first > 0 {
		updated := res.Skills[first]
		res.Skills = append([]Meta{updated}, slices.Delete(res.Skills, first, first+1)...)
	}
	// The download's other skills are no part of the update.
	res.Skipped, res.Invalid, res.AlreadyInstalled = nil, []SkillError{}, []string{}
	return res, nil
}

// withNeeds returns the import that updates opts.Target together with the
// skills its version in the download needs (needs), or nil when the update
// needs none (left to importRead to install or refuse); and the skills it
// parsed, which that import reads (those of opts.Origin's folder, or with
// the others those of the whole download), nil when it parsed none. Any
// download told by its folders (byDownload) holds them alike; an MCP
// server's skill is downloaded alone, and another skill of the server is
// no part of its download. Only an update whose skill depends on one not
// installed parses the rest of the download, and one whose skill depends
// on one neither installed nor of the download that can be installed is
// refused here, where the download is known whole (updateRefused).
func (r *Registry) withNeeds(ctx context.Context, opts ImportOptions, read func() (*zipguard.Archive, error)) (*ImportOptions, []*candidate, error) {
	o := opts.Origin
	if opts.Target == "" || !byDownload(o) || o.Dir == "" {
		return nil, nil, nil
	}
	arc, err := read()
	if err != nil {
		return nil, nil, nil
	}
	known := &installedIDs{r: r, ctx: ctx}
	mine, err := candidatesIn(arc, o.Dir)
	if err != nil {
		return nil, nil, nil
	}
	if len(mine) != 1 || mine[0].err != nil ||
		!slices.ContainsFunc(dependenciesOf(mine[0].s).Skills, func(d string) bool { return !known.has(d) }) {
		return nil, mine, known.err
	}
	c := mine[0]
	all := besides(arc, c)
	if all == nil {
		return nil, mine, nil
	}
	named := byName(all)
	need, ok := needs(c, named, known.has)
	if known.err != nil {
		return nil, nil, known.err
	}
	if !ok {
		// What the commit would refuse, said of this update: which skill
		// it needs, and whether the download holds it.
		r.refuseUnmet(append([]*candidate{c}, need...), known.has)
		if known.err != nil || c.err == nil {
			return nil, nil, known.err
		}
		return nil, nil, updateRefused([]*candidate{c}, 0, opts, named)
	}
	if len(need) == 0 {
		return nil, mine, nil
	}
	// The import replaces the skill installed from c's folder (or the one
	// it moved from): it must be Target.
	list, err := r.List(ctx)
	if err != nil {
		return nil, nil, err
	}
	target := slices.IndexFunc(list, func(m Meta) bool { return m.ID == opts.Target })
	if m, ok := fromDownload(append([]*candidate{c}, need...), all, list, *o, "")[c]; target < 0 || !ok || m.ID != opts.Target {
		return nil, mine, nil
	}
	whole := *o
	whole.Dir = ""
	// Compared: Target as it is now, and no skill of the others' names;
	// a change before the commit refuses it whole (changed-since-preview).
	with := ImportOptions{OnConflict: ConflictRename, Source: opts.Source, Origin: &whole, Progress: opts.Progress, Copy: opts.Copy,
		Choose: map[string]ConflictPolicy{c.s.Name: ConflictReplace}, Compared: map[string]string{c.s.Name: list[target].Digest}}
	for _, d := range need {
		with.Choose[d.s.Name], with.Compared[d.s.Name] = ConflictRename, ""
	}
	return &with, all, nil
}

// besides returns the skills of arc in its order, as candidatesIn(arc, "")
// would, but with c, the valid skill of a folder of it parsed already, in
// its place rather than parsed again; nil when c would not be valid among
// them: a skill before it has its name (parseArchive keeps the first of a
// name, once folded). One after it of its name is refused, as
// parseArchive refuses it.
func besides(arc *zipguard.Archive, c *candidate) []*candidate {
	skills, folders, err := inFolder(arc.Skills, "")
	k := slices.Index(folders, c.folder)
	if err != nil || k < 0 {
		return nil
	}
	all := parseArchive(slices.Delete(skills, k, k+1), slices.Delete(folders, k, k+1))
	key := idKey(c.s.Name)
	namesake := func(d *candidate) bool { return d.err == nil && idKey(d.s.Name) == key }
	if slices.ContainsFunc(all[:k], namesake) {
		return nil
	}
	for _, d := range all[k:] {
		if namesake(d) {
			d.refuseDuplicate(c)
		}
	}
	return slices.Insert(all, k, c)
}
