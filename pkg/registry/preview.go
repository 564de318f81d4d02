package registry

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/source"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// What Preview says about one skill of an archive, against what is installed.
const (
	// PreviewNew: no installed skill has its name.
	PreviewNew = "new"
	// PreviewConflict: an installed skill has its name (folded, as ids are
	// compared) and other contents; PreviewSkill.Installed names it.
	PreviewConflict = "conflict"
	// PreviewInstalled: the installed skill of its name is this one, byte
	// for byte; importing under ConflictRename leaves it as it is.
	PreviewInstalled = "installed"
	// PreviewInvalid: it cannot be installed; PreviewSkill.Error says why.
	PreviewInvalid = "invalid"
)

// PreviewSkill is one skill of an archive, parsed as Import would.
type PreviewSkill struct {
	// Name is the name its SKILL.md gives, or its folder's when it gives
	// none; for an invalid skill, SkillError.Name.
	Name        string `json:"name"`
	Description string `json:"description"`
	Version     string `json:"version"`
	// Dir is its folder in the archive, "." at the root.
	Dir string `json:"dir"`
	// Folder is Dir as a repository names it, counted from inside the
	// top-level folder all the archive's skills share ("." for one that
	// is the whole archive): what an install from a source records
	// (source.Origin's Dir).
	Folder    string `json:"folder"`
	Size      int64  `json:"size"`
	FileCount int    `json:"fileCount"`
	// Digest is "" for an invalid skill.
	Digest string `json:"digest"`
	// Status is PreviewNew, PreviewConflict, PreviewInstalled or
	// PreviewInvalid.
	Status string `json:"status"`
	// Installed is the id of the installed skill it would update, if any:
	// the one installed from the same folder of a download of the URL
	// previewed (Preview's origin), whatever its id, else the one of its
	// name.
	Installed string `json:"installed"`
	// Update: Installed is that skill installed from the same folder of
	// a download of the URL previewed, or from the folder it moved from
	// (fromDownload), not only one of its name: replacing it is its update.
	Update bool `json:"update,omitempty"`
	// Diagnostics are its SKILL.md's, and the note an import would store
	// disabled it with (disabledNote); for an invalid skill they are in
	// Error.Diagnostics only, not twice: an archive of thousands of
	// broken skills would preview each list twice.
	Diagnostics []skill.Diagnostic `json:"diagnostics"`
	// Error says why an invalid skill cannot be installed; nil otherwise.
	Error *SkillError `json:"error,omitempty"`
}

// ImportPreview is what an import of an archive would install, for a
// person to choose from (ImportOptions.Choose) before anything is stored.
type ImportPreview struct {
	Skills []PreviewSkill `json:"skills"`
	// Dropped lists the entries Import would leave out (see ImportResult).
	Dropped []string `json:"dropped"`
}

// Preview reads the archive data as Import does, within the same limits,
// and says what each of its skills is against the installed ones, the
// ones that cannot be installed (a SKILL.md that does not parse, a second
// skill of one name, dependencies the commit would refuse) included, each with its error. It stores nothing. An
// archive Import refuses whole whatever is chosen (not an archive, over a
// limit) is refused here with the same error. data and outside are as
// Import's data and ImportOptions.Outside; origin, when set, is the
// origin an install from the archive would record (ImportOptions.Origin):
// only the skills of its Dir are previewed, and a skill installed from the
// same folder of a download of its URL is the one a skill of the archive
// is compared with and would update, whatever its id (fromDownload).
func (r *Registry) Preview(ctx context.Context, data []byte, outside zipguard.Outside, origin *source.Origin) (*ImportPreview, error) {
	under := ""
	if origin != nil {
		under = origin.Dir
	}
	arc, cands, err := r.readCandidates(data, outside, under)
	if err != nil {
		return nil, err
	}
	known := &installedIDs{r: r, ctx: ctx}
	r.refuseUnmet(cands, known.has)
	if known.err != nil {
		return nil, known.err
	}
	valid, _ := usable(cands)
	setDigests(valid)
	installed, err := r.List(ctx)
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]Meta, len(installed))
	for _, m := range installed {
		k := idKey(m.ID)
		// An exact spelling wins over a folded look-alike.
		if prev, ok := byKey[k]; !ok || prev.ID != m.Name {
			byKey[k] = m
		}
	}
	var viaFolder map[*candidate]Meta
	if origin != nil && origin.Kind == source.KindURL {
		viaFolder = fromDownload(valid, cands, installed, origin.URL, under)
	}
	bad, err := disabledOnImport(valid, installed, byKey)
	if err != nil {
		return nil, err
	}
	p := &ImportPreview{Skills: make([]PreviewSkill, len(cands)), Dropped: append([]string{}, arc.Dropped...)}
	for i, c := range cands {
		ps := PreviewSkill{Dir: c.dir, Folder: c.folder, Size: c.size, FileCount: len(c.files), Digest: c.digest, Status: PreviewNew,
			Diagnostics: []skill.Diagnostic{}}
		if c.s != nil {
			ps.Name, ps.Description, ps.Version = c.s.Name, c.s.Description, c.s.Version
		}
		if c.invalid != nil {
			ps.Name, ps.Status, ps.Error = c.invalid.Name, PreviewInvalid, c.invalid
			p.Skills[i] = ps
			continue
		}
		ps.Diagnostics = append(ps.Diagnostics, c.diags...)
		if b := bad[c]; len(b) > 0 {
			ps.Diagnostics = append(ps.Diagnostics, disabledNote(b))
		}
		if m, ok := viaFolder[c]; ok {
			ps.Installed, ps.Status, ps.Update = m.ID, PreviewConflict, true
			if installedDigest(c, m.ID) == m.Digest {
				ps.Status = PreviewInstalled
			}
		} else if m, ok := byKey[idKey(c.s.Name)]; ok {
			ps.Installed, ps.Status = m.ID, PreviewConflict
			if m.ID == c.s.Name && m.Digest == ps.Digest {
				ps.Status = PreviewInstalled
			}
		}
		p.Skills[i] = ps
	}
	return p, nil
}

// disabledOnImport returns the disabled dependencies of each of the valid
// skills of an archive for which an import would store it disabled
// (settleEnabled), the installed skills being installed, byKey. A skill of
// an installed skill's name starts as that one is, as an update keeps it
// (one kept beside it starts enabled, but its dependents name the
// installed one).
func disabledOnImport(valid []*candidate, installed []Meta, byKey map[string]Meta) (map[*candidate][]string, error) {
	enabled := make(map[string]bool, len(installed))
	for _, m := range installed {
		enabled[m.ID] = m.Enabled
	}
	names, deps, on := make([]string, len(valid)), make([][]string, len(valid)), make([]bool, len(valid))
	for i, c := range valid {
		m, ok := byKey[idKey(c.s.Name)]
		names[i], deps[i], on[i] = c.s.Name, dependenciesOf(c.s).Skills, !ok || m.Enabled
	}
	bad, err := disabledDependencies(names, deps, on, func(d string) (bool, error) {
		// refuseUnmet left out those depending on a skill not installed.
		return enabled[d], nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[*candidate][]string, len(valid))
	for i, c := range valid {
		out[c] = bad[i]
	}
	return out, nil
}

// CheckChoose refuses a choice (ImportOptions.Choose, or an install from
// an MCP server's review) that holds a policy other than rename and
// replace, with InvalidArgument "on-conflict" naming the skill.
func CheckChoose(choose map[string]ConflictPolicy) error {
	// In order, so that the same choice is refused with the same error.
	for _, name := range slices.Sorted(maps.Keys(choose)) {
		if p := choose[name]; p != ConflictRename && p != ConflictReplace {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "on-conflict", Subject: name,
				Msg: fmt.Sprintf(`the choice for %q must be "rename" or "replace"`, name)}
		}
	}
	return nil
}

// chosen keeps the candidates named in choose and returns the names of
// the others. A name the archive does not hold, or a policy other than
// rename and replace, is refused: the choice was made for another archive.
// A name only the invalid skills bad have is refused with their errors.
func chosen(cands, bad []*candidate, choose map[string]ConflictPolicy) (kept []*candidate, skipped []string, err error) {
	if err := CheckChoose(choose); err != nil {
		return nil, nil, err
	}
	names := slices.Sorted(maps.Keys(choose))
	held := make(map[string]bool, len(cands))
	for _, c := range cands {
		held[c.s.Name] = true
		if _, ok := choose[c.s.Name]; ok {
			kept = append(kept, c)
		} else {
			skipped = append(skipped, c.s.Name)
		}
	}
	var refused []*candidate
	for _, c := range bad {
		if _, ok := choose[c.invalid.Name]; ok && !held[c.invalid.Name] {
			refused = append(refused, c)
		}
	}
	if len(refused) > 0 {
		return nil, nil, invalidSkills(refused, len(cands), len(bad), false)
	}
	for _, name := range names {
		if !held[name] {
			return nil, nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "not-in-archive", Subject: name,
				Msg: fmt.Sprintf("the archive holds no skill named %q", name)}
		}
	}
	return kept, skipped, nil
}
