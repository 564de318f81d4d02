package registry

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/skillfs/skillfs/pkg/pace"
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
	// or index entry previewed (Preview's origin), whatever its id, else the one of its
	// name (comparedWith, which Import asks too).
	Installed string `json:"installed"`
	// Update: Installed is that skill installed from the same folder of
	// a download of the URL previewed, or from the folder it moved from
	// (fromDownload), or the one of its name installed from the whole of
	// such a download, not only one of its name: replacing it is its
	// update.
	Update bool `json:"update,omitempty"`
	// InstalledDigest is the digest of Installed, compared with: given
	// back as ImportOptions.Compared, an import refuses to act on a
	// choice made against a version no longer installed.
	InstalledDigest string `json:"installedDigest,omitempty"`
	// Diagnostics are its SKILL.md's, and the note an import under its
	// default (every skill, ConflictRename) would store it with
	// (disabledNote; under another choice, PreviewNotes); for an invalid
	// skill they are in Error.Diagnostics only, not twice: an archive of
	// thousands of broken skills would preview each list twice.
	Diagnostics []skill.Diagnostic `json:"diagnostics"`
	// Dependencies are the skills it depends on (skill_dependencies), for
	// PreviewNotes.
	Dependencies []string `json:"dependencies"`
	// Error says why an invalid skill cannot be installed; nil otherwise.
	Error *SkillError `json:"error,omitempty"`
}

// ImportPreview is what an import of an archive would install, for a
// person to choose from (ImportOptions.Choose) before anything is stored.
type ImportPreview struct {
	Skills []PreviewSkill `json:"skills"`
	// Dropped lists the entries Import would leave out (see ImportResult).
	Dropped []string `json:"dropped"`
	// InstalledSkills are the installed skills the archive's skills name,
	// as a dependency or as the one they would update (Installed), by id:
	// what PreviewNotes reads of them.
	InstalledSkills map[string]InstalledSkill `json:"installedSkills"`
}

// InstalledSkill is what PreviewNotes needs of an installed skill.
type InstalledSkill struct {
	Enabled bool `json:"enabled"`
	// Noted: it carries disabledNote (hasDisabledNote), which an update
	// keeps.
	Noted bool `json:"noted"`
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
// same folder of a download of its URL or index entry is the one a skill of the archive
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
	// Every installed skill's id folded to its skeleton (byKey), and every
	// skill of the archive's: thousands of each take longer than a task
	// should.
	byID := make(map[string]int, len(installed)) // installed[byID[id]] is id's
	ids := make([]string, len(installed))        // sorted, as List is
	for i, m := range installed {
		pace.StepAt(i)
		byID[m.ID], ids[i] = i, m.ID
	}
	keys := byKey(ids)
	var viaFolder map[*candidate]Meta
	if byDownload(origin) {
		viaFolder = fromDownload(valid, cands, installed, *origin, under)
	}
	p := &ImportPreview{Skills: make([]PreviewSkill, len(cands)), Dropped: append([]string{}, arc.Dropped...),
		InstalledSkills: map[string]InstalledSkill{}}
	keep := func(id string) { // in InstalledSkills, when installed
		if i, ok := byID[id]; ok {
			m := installed[i]
			p.InstalledSkills[id] = InstalledSkill{Enabled: m.Enabled, Noted: hasDisabledNote(m)}
		}
	}
	for i, c := range cands {
		pace.StepAt(i)
		ps := PreviewSkill{Dir: c.dir, Folder: c.folder, Size: c.size, FileCount: len(c.files), Digest: c.digest, Status: PreviewNew,
			Diagnostics: []skill.Diagnostic{}, Dependencies: []string{}}
		if c.s != nil {
			ps.Name, ps.Description, ps.Version = c.s.Name, c.s.Description, c.s.Version
		}
		if c.invalid != nil {
			ps.Name, ps.Status, ps.Error = c.invalid.Name, PreviewInvalid, c.invalid
			p.Skills[i] = ps
			continue
		}
		ps.Diagnostics = append(ps.Diagnostics, c.diags...)
		ps.Dependencies = append(ps.Dependencies, dependenciesOf(c.s).Skills...)
		for _, d := range ps.Dependencies {
			keep(d)
		}
		if id, update := comparedWith(c, viaFolder, keys); id != "" {
			m := installed[byID[id]]
			ps.Installed, ps.InstalledDigest, ps.Status = m.ID, m.Digest, PreviewConflict
			if isInstalled(c, m, update) {
				ps.Status = PreviewInstalled
			}
			// The skill of its name installed from the whole of this
			// download (a lone SKILL.md, an archive of one skill) is the
			// one it updates too, which no folder names.
			ps.Update = update || byDownload(origin) && sameDownload(m.Origin, *origin) && m.Origin.Dir == ""
		}
		keep(ps.Installed)
		p.Skills[i] = ps
	}
	notes, err := PreviewNotes(p, nil, false)
	if err != nil {
		return nil, err
	}
	for i := range p.Skills {
		if d, ok := notes[p.Skills[i].Name]; ok && p.Skills[i].Error == nil {
			p.Skills[i].Diagnostics = append(p.Skills[i].Diagnostics, d)
		}
	}
	return p, nil
}

// PreviewNotes returns, by name, the note (disabledNote) with which an
// import of the archive that p previews would store each of its skills
// (see settleEnabled), under the choice choose (ImportOptions.Choose; nil
// for Import's default, every skill under ConflictRename) and copies
// (ImportOptions.Copy): a skill that updates an installed one starts as
// that one is and takes its id, which the archive's skills that depend on
// it then name; one kept beside it (a new id) starts enabled and leaves
// them depending on the installed one, as does one not chosen. A skill
// without a note is not in it. It reads nothing but p, so that a preview
// can say what each change of choice does: its cost is linear in the
// skills and their dependencies, and its loops step (pace.StepAt): an
// archive of thousands of skills that each depend on one is thousands of
// rows and notes.
func PreviewNotes(p *ImportPreview, choose map[string]ConflictPolicy, copies bool) (map[string]skill.Diagnostic, error) {
	if err := CheckChoose(choose); err != nil {
		return nil, err
	}
	var rows []PreviewSkill
	policies := []ConflictPolicy{}
	for i, s := range p.Skills {
		pace.StepAt(i)
		policy, chosen := choose[s.Name]
		if choose == nil {
			policy, chosen = ConflictRename, true
		}
		// An identical skill kept beside itself is installed only as a copy.
		if s.Error == nil && chosen && (s.Status != PreviewInstalled || policy == ConflictReplace || copies) {
			rows, policies = append(rows, s), append(policies, policy)
		}
	}
	ids, deps, on, noted := make([]string, len(rows)), make([][]string, len(rows)), make([]bool, len(rows)), make([]bool, len(rows))
	for i, s := range rows {
		pace.StepAt(i)
		ids[i], deps[i], on[i] = s.Name, s.Dependencies, true
		switch {
		case s.Installed == "":
		case policies[i] == ConflictReplace:
			was := p.InstalledSkills[s.Installed]
			ids[i], on[i], noted[i] = s.Installed, was.Enabled, was.Noted
		default:
			ids[i] = "" // its new id, which none of the archive's skills names
		}
	}
	bad, err := disabledDependencies(ids, deps, on, func(d string) (bool, error) {
		// One not installed either: the import refuses the skill.
		m, ok := p.InstalledSkills[d]
		return m.Enabled || !ok, nil
	})
	if err != nil {
		return nil, err
	}
	notes := map[string]skill.Diagnostic{}
	for i, s := range rows {
		pace.StepAt(i)
		if storedWithNote(on[i], noted[i], bad[i]) {
			notes[s.Name] = disabledNote(bad[i])
		}
	}
	return notes, nil
}

// CheckChoose refuses a choice (ImportOptions.Choose, or an install from
// an MCP server's review) that holds a policy other than rename and
// replace, with InvalidArgument "on-conflict" naming the skill.
func CheckChoose(choose map[string]ConflictPolicy) error {
	// The first refused in order, so that the same choice is refused with
	// the same error: found, not sorted, since previewNotes checks the
	// choice for thousands of skills at each change.
	name, refused, i := "", false, 0
	for n, p := range choose {
		pace.StepAt(i)
		i++
		if p != ConflictRename && p != ConflictReplace && (!refused || n < name) {
			name, refused = n, true
		}
	}
	if refused {
		return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "on-conflict", Subject: name,
			Msg: fmt.Sprintf(`the choice for %q must be "rename" or "replace"`, name)}
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
