package registry

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skillfs/skillfs/pkg/confusable"
	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
	"github.com/skillfs/skillfs/pkg/source"
	"github.com/skillfs/skillfs/pkg/vfs"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// ConflictPolicy says what Import does with a skill whose id is taken.
//
// An id is taken by an installed skill whose id is the same once folded as
// zipguard folds names for collisions (zipguard.FoldKey: case, and Unicode
// normalisation): "PDF-tools" is taken by "pdf-tools". Agents look skills
// up by name without regard to case, so two such skills would shadow each
// other.
type ConflictPolicy string

// The conflict policies.
const (
	// ConflictRename installs the skill as id-v2, id-v3, ... (the first
	// one free under folding, keeping the skill's own spelling) and
	// rewrites the name in its SKILL.md to match.
	ConflictRename ConflictPolicy = "rename"
	// ConflictReplace replaces the installed skill in the same commit,
	// keeping its creation time and whether it is enabled. It also keeps
	// its id: a skill named "PDF-tools" replaces "pdf-tools" as
	// "pdf-tools", with the name in its SKILL.md rewritten to match, so
	// that what refers to the id (dependencies, pins, links) still finds
	// it.
	ConflictReplace ConflictPolicy = "replace"
	// ConflictFail refuses the import with a Conflict error.
	ConflictFail ConflictPolicy = "fail"
)

// ImportOptions configure Import.
type ImportOptions struct {
	// OnConflict is ConflictRename when empty.
	OnConflict ConflictPolicy
	// Source is recorded as Meta.Source: a file name or a URL.
	Source string
	// Origin, when set, is recorded as Meta.Origin of every skill
	// installed: where it is published, and the digest verified. Its Dir,
	// when set, installs only the archive's skills in that folder (see
	// source.Origin); each skill records its own folder there.
	Origin *source.Origin
	// Target, when set, makes the import an update of the installed skill
	// Target: the archive must hold exactly one skill, which replaces it
	// whatever its name (the name in its SKILL.md is rewritten to Target),
	// and OnConflict does not apply. A Target not installed fails with
	// SkillNotFound. A skill of a folder of a download of several that
	// depends on skills of the download not installed installs them with
	// it (importUpdate).
	Target string
	// Progress, when set, is called while the writes are prepared, once
	// before the commit and once after it.
	Progress func(Progress)
	// Outside, when set, holds the archive instead of Import's data, and
	// a zip's files are inflated and kept outside Go until they are
	// stored (zipguard.ReadOutside): in the browser, so that an import
	// does not grow the module's memory.
	Outside zipguard.Outside
	// Copy installs a skill byte for byte identical to the installed skill
	// of its name (the same Digest) as a renamed copy. Without it, under
	// ConflictRename, such a skill is not installed again but listed in
	// ImportResult.AlreadyInstalled; the other policies and Target treat
	// it as any skill of that name. Even with it, a skill installed from
	// the same folder of Origin's download (sameSource) is not copied:
	// byte for byte it is already installed, and, of an index entry (as
	// source.ReviewIndex's Target is for an entry of one skill), changed it
	// is updated in place under any OnConflict, unless Choose says
	// otherwise.
	Copy bool
	// Choose, when not nil, is a person's choice after Preview: only the
	// archive's skills named here (by the name in their SKILL.md) are
	// installed, each under its own policy, ConflictRename or
	// ConflictReplace, in place of OnConflict (a skill that replaces, from
	// a download of a URL, replaces the one installed from the same
	// folder of it, whatever its id, when there is one: fromDownload); the others are listed in
	// ImportResult.Skipped, and those that cannot be installed in
	// ImportResult.Invalid. A name the archive does not hold fails the
	// import with InvalidArgument; the name of a skill that cannot be
	// installed, with its error; a skill that depends on one the choice
	// leaves out and that is not installed, with InvalidArgument
	// "unknown-skill" naming that one.
	Choose map[string]ConflictPolicy
	// Compared, with Choose, holds for skills chosen (by name) the digest
	// of the installed skill Preview compared each with
	// (PreviewSkill.InstalledDigest; "" when it was new). When a skill
	// chosen to replace, or one that was new, would now be compared with
	// another (the skill was updated, edited, installed or removed
	// since), the import fails whole with Conflict,
	// source.ReasonChangedSincePreview, naming it: the choice was made
	// for what is no longer so (an Update chosen against one version
	// would replace a newer one with an older; a new skill would be kept
	// as a copy).
	Compared map[string]string
	// Elsewhere, with Target, names the skills Origin's source publishes
	// apart from this download (the other entries of its index): an
	// update refused for depending on one of them, not installed, says to
	// install it from there first (cannotUpdate).
	Elsewhere []string
	// SkipInvalid, without Choose and Target, installs the archive's
	// valid skills under OnConflict and lists those that cannot be
	// installed in ImportResult.Invalid rather than refusing the archive:
	// for an install from a source, whose report lists what was refused.
	SkipInvalid bool
}

// The phases of Progress.
const (
	PhasePrepare = "prepare"
	PhaseCommit  = "commit"
	PhaseDone    = "done"
)

// Progress reports how far an import is.
type Progress struct {
	Phase      string `json:"phase"`
	FilesDone  int    `json:"filesDone"`
	FilesTotal int    `json:"filesTotal"`
	BytesDone  int64  `json:"bytesDone"`
	BytesTotal int64  `json:"bytesTotal"`
}

// ImportResult is what an import installed.
type ImportResult struct {
	// Skills are the records of the installed skills in the archive's
	// order; each carries its own Diagnostics.
	Skills []Meta `json:"skills"`
	// Replaced lists the ids of installed skills that were replaced.
	Replaced []string `json:"replaced"`
	// AlreadyInstalled lists the ids of installed skills that the archive
	// holds byte for byte (see ImportOptions.Copy): left as they are,
	// whether chosen or left out by ImportOptions.Choose (Preview's
	// PreviewInstalled), so that a caller need not work it out.
	AlreadyInstalled []string `json:"alreadyInstalled"`
	// Dropped lists archive entries left out: those outside every skill
	// folder, whatever their type, and operating-system clutter.
	Dropped []string `json:"dropped"`
	// Skipped lists the names of the archive's skills that
	// ImportOptions.Choose left out, but for those installed already byte
	// for byte (AlreadyInstalled): Preview shows them installed, and leaving
	// them so is no choice to report.
	Skipped []string `json:"skipped,omitempty"`
	// Invalid lists the archive's skills that cannot be installed, and
	// why, in the archive's order: left out of an import that chose the
	// others (ImportOptions.Choose) or skipped them (SkipInvalid).
	// Otherwise such an archive is refused whole with an
	// *InvalidSkillsError, so this is empty.
	Invalid []SkillError `json:"invalid"`
	// Revision is the registry's revision after the import; 0 when the
	// import changed nothing (every skill was AlreadyInstalled).
	Revision int64 `json:"revision"`
}

// quotaFactor is the margin taken over an import's inflated size when
// checking the quota: IndexedDB stores more than the bytes themselves.
const quotaFactor = 1.2

// candidate is a skill of an archive, parsed, before it gets an id.
type candidate struct {
	dir string // its directory in the archive, for messages
	// folder is its folder as a repository names it (inFolder), which
	// its origin records when the archive holds several skills.
	folder string
	name   string // the base name of dir, "" at the archive root
	size   int64  // bytes of its files
	files  []vfs.File
	// digest is the Digest of files.
	digest string
	s      *skill.Skill // nil when its SKILL.md does not parse
	diags  []skill.Diagnostic
	// err, when set, is why it cannot be installed; invalid says it for
	// the caller.
	err     error
	invalid *SkillError
}

// Import installs every skill of the archive data (a zip, or a .tar.gz as
// the discovery RFC allows: zipguard.ReadAny tells them apart by their
// first bytes), or none: a single skill (at the root or under wrapper
// folders) or a pack of several.
//
// Each skill's SKILL.md (with its skill.yaml) is parsed leniently; its
// name becomes its id, which must be one clean path segment. A skill that
// does not parse, a second skill of the archive with the name of another
// (or a name that differs only in case or normalisation), or a skill
// whose dependencies the commit would refuse (refuseUnmet) cannot be
// installed: unless opts.Choose chooses among the others, which are then
// installed with the invalid ones listed in ImportResult.Invalid, the
// import fails whole with an *InvalidSkillsError naming every one of
// them (its causes: a *ManifestError for a SKILL.md). A name already
// installed, in any case, is handled as opts.OnConflict says. A skill
// that would depend on a disabled one is stored disabled, with a note
// (settleEnabled). Storage is checked first (vfs.Estimate), and the whole
// import is one commit.
func (r *Registry) Import(ctx context.Context, data []byte, opts ImportOptions) (*ImportResult, error) {
	return r.importUpdate(ctx, opts, func() (*zipguard.Archive, error) { return r.readArchive(data, opts.Outside) })
}

// ImportEach imports the archive data once for each of each, as Import
// would (each in its own commit, each an update of its Target from its
// Origin's folder), reading the archive once for all: the skills of one
// download updated together (docs/sources.md). It says what became of
// each, in order: its result, or its error, which leaves the others to go
// on (an archive that cannot be read is every one's error).
func (r *Registry) ImportEach(ctx context.Context, data []byte, each []ImportOptions) ([]*ImportResult, []error) {
	var arc *zipguard.Archive
	var readErr error
	read := func() (*zipguard.Archive, error) {
		if arc == nil && readErr == nil {
			arc, readErr = r.readArchive(data, nil)
		}
		return arc, readErr
	}
	results, errs := make([]*ImportResult, len(each)), make([]error, len(each))
	for i, opts := range each {
		results[i], errs[i] = r.importUpdate(ctx, opts, read)
	}
	return results, errs
}

// importRead is Import of the archive read returns, whose skills in
// opts.Origin's folder (candidatesIn) are parsed, unless parsed holds them
// already (withNeeds read them).
func (r *Registry) importRead(ctx context.Context, opts ImportOptions, read func() (*zipguard.Archive, error), parsed []*candidate) (*ImportResult, error) {
	policy := opts.OnConflict
	switch policy {
	case "":
		policy = ConflictRename
	case ConflictRename, ConflictReplace, ConflictFail:
	default:
		return nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "on-conflict", Subject: string(policy),
			Msg: `the conflict policy must be "rename", "replace" or "fail"`}
	}
	// Asked for while the archive is read: the browser answers in a task
	// of its own, which the import need not wait for. An import that
	// fails first stops the asking.
	ectx, stop := context.WithCancel(ctx)
	defer stop()
	estimate := r.estimate(ectx)
	under := ""
	if opts.Origin != nil {
		under = opts.Origin.Dir
	}
	arc, err := read()
	if err != nil {
		return nil, err
	}
	all := parsed
	if all == nil {
		if all, err = candidatesIn(arc, under); err != nil {
			return nil, err
		}
	}
	known := &installedIDs{r: r, ctx: ctx}
	r.refuseUnmet(all, known.has)
	if known.err != nil {
		return nil, known.err
	}
	cands, bad := usable(all)
	valid := cands // all of them, whatever is chosen: what Preview compares
	var skipped []string
	invalid := []SkillError{}
	if len(bad) > 0 && opts.Choose == nil && opts.Target != "" {
		return nil, updateRefused(bad, len(cands), opts, nil)
	}
	if len(bad) > 0 && opts.Choose == nil && !opts.SkipInvalid {
		return nil, invalidSkills(bad, len(cands), len(bad), false)
	}
	if opts.Choose != nil {
		if cands, skipped, err = chosen(cands, bad, opts.Choose); err == nil {
			err = needsUnchosen(cands, skipped, known.has)
		}
		if err == nil {
			err = known.err
		}
		if err != nil {
			return nil, err
		}
	}
	for _, c := range bad {
		invalid = append(invalid, *c.invalid)
	}
	policyOf := func(c *candidate) ConflictPolicy {
		if p, ok := opts.Choose[c.s.Name]; ok {
			return p
		}
		return policy
	}
	if opts.Target != "" && len(cands) != 1 {
		return nil, &skillerr.Error{Code: skillerr.InvalidArchive, Reason: ReasonNotOneSkill, Subject: opts.Target, Msg: notOneSkill(len(cands), opts.Origin)}
	}
	total := progressOf(cands)
	if err := checkQuota(estimate(), opts.Source, total.BytesTotal); err != nil {
		return nil, err
	}
	progress := func(p Progress) {
		if opts.Progress != nil {
			opts.Progress(p)
		}
	}

	res := &ImportResult{Skills: []Meta{}, Dropped: append([]string{}, arc.Dropped...), Replaced: []string{}, AlreadyInstalled: []string{}, Skipped: skipped, Invalid: invalid}
	if len(cands) == 0 && len(skipped) == 0 {
		return res, nil // everything was left out: nothing changes
	}
	done, err := r.mutate(ctx, []vfs.Query{allMeta, retainedQuery()}, func(read [][]vfs.Record) (*change, error) {
		// Only the records of replaced skills need decoding.
		old := make(map[string]vfs.Record, len(read[0]))
		for _, rec := range read[0] {
			old[rec.Key] = rec
		}
		// A skill whose name is taken is compared with the installed one
		// by digest before anything is written; the others' digests are
		// computed while their contents are written.
		cands := cands
		installed := byKey(slices.Sorted(maps.Keys(old)))
		// The skills the choice left out (Skipped), in its order.
		left := slices.DeleteFunc(slices.Clone(valid), func(c *candidate) bool {
			_, chosen := opts.Choose[c.s.Name]
			return chosen || opts.Choose == nil
		})
		setDigests(slices.DeleteFunc(slices.Concat(cands, left), func(c *candidate) bool { return installed[idKey(c.s.Name)] == nil }))
		var viaFolder map[*candidate]Meta
		if byDownload(opts.Origin) && opts.Target == "" {
			ms, err := metasFrom(read[0], *opts.Origin)
			if err != nil {
				return nil, err
			}
			viaFolder = fromDownload(valid, all, ms, *opts.Origin, under)
		}
		// An index entry's skill installed from there is updated in place
		// by its folder's new version, as the entry of one skill is
		// (source.ReviewIndex's Target), unless a person chose otherwise.
		inPlace := func(c *candidate) bool {
			_, mine := viaFolder[c]
			return mine && opts.Origin.Kind == source.KindIndex && opts.Choose == nil
		}
		// Copy makes a copy of a skill installed from elsewhere byte for
		// byte, but not, unless a person chose it so, of the one
		// installed from this very source (its folder of the download):
		// installing from an address twice is no reason for copies.
		same, mine := func(Meta, *candidate) bool { return true }, map[*candidate]Meta(nil)
		if opts.Copy && opts.Origin != nil {
			same = func(prev Meta, c *candidate) bool {
				_, chosen := opts.Choose[c.s.Name]
				return !chosen && sameSource(prev.Origin, *opts.Origin, c.folder)
			}
			mine = viaFolder
		}
		if opts.Target == "" && (!opts.Copy || opts.Origin != nil) {
			if cands, err = res.skipInstalled(cands, old, installed, mine, func(c *candidate) bool { return policyOf(c) == ConflictRename || inPlace(c) }, same); err != nil {
				return nil, err
			}
		}
		// Of the skills the choice left out, those installed byte for
		// byte are already installed, not skipped (ImportResult.Skipped).
		if left, err = res.skipInstalled(left, old, installed, mine, func(*candidate) bool { return true }, same); err != nil {
			return nil, err
		}
		if len(left) < len(skipped) {
			res.Skipped = make([]string, len(left))
			for i, c := range left {
				res.Skipped[i] = c.s.Name
			}
		}
		// The progress counts what is written: a download installed again
		// (a batch's retry, docs/sources.md) does not count again the
		// skills it installed before.
		total = progressOf(cands)
		if len(cands) == 0 {
			return nil, nil // nothing to install: nothing changes
		}
		if err := sinceCompared(cands, opts.Compared, policyOf, viaFolder, installed, old); err != nil {
			return nil, err
		}
		ids, err := assignIDs(cands, installed, viaFolder, func(c *candidate) ConflictPolicy {
			if inPlace(c) {
				return ConflictReplace
			}
			return policyOf(c)
		})
		if opts.Target != "" {
			if _, ok := old[opts.Target]; !ok {
				return nil, notInstalled(opts.Target)
			}
			ids, err = []string{opts.Target}, nil
		}
		if err != nil {
			return nil, err
		}
		rt, err := r.retention(read[1])
		if err != nil {
			return nil, err
		}
		p := total
		var first []vfs.Op
		var overwritten []Meta // the versions this commit replaces, in order
		metas := make([]Meta, len(cands))
		trees := make([]*vfs.Tree, len(cands))
		now := r.now()
		for i, c := range cands {
			pace.Step()
			m, files, err := c.install(r, ids[i], old, ids, opts.Target != "" || ids[i] == viaFolder[c].ID)
			if err != nil {
				return nil, err
			}
			m.Source, m.CreatedAt, m.UpdatedAt, m.Enabled = opts.Source, now, now, true
			if opts.Origin != nil {
				o := *opts.Origin
				// A skill's folder, to update it from, also when it is
				// the one skill of a repository that later holds more;
				// one that is the whole download needs none.
				o.Dir = ""
				if c.folder != skillpath.Root {
					o.Dir = c.folder
				}
				m.Origin = &o
			}
			m.Instance = newInstance()
			if rec, ok := old[m.ID]; ok {
				prev, err := decodeMeta(rec)
				if err != nil {
					return nil, err
				}
				m.Instance, m.CreatedAt, m.Enabled = prev.Instance, prev.CreatedAt, prev.Enabled
				res.Replaced = append(res.Replaced, m.ID)
				// Its old tree goes before any new content is written.
				// Only a replaced skill has one: every commit writes or
				// deletes a tree together with its record, and the
				// records were read under the lock. Three requests a new
				// skill does not issue (900 of an import of 300).
				del, err := vfs.DeleteSkill(m.ID)
				if err != nil {
					return nil, err
				}
				first = append(first, del...)
				if m.Digest == "" {
					return nil, internal(m.ID, nil, "the skill it replaces was not compared by digest")
				}
				if prev.Digest != m.Digest {
					overwritten = append(overwritten, prev)
				}
			}
			if trees[i], err = vfs.NewTree(m.ID, files); err != nil {
				return nil, err
			}
			first = append(first, trees[i].Blobs()...)
			metas[i] = m
			p.FilesDone += len(c.files)
			p.BytesDone += c.size
			progress(p)
		}
		if err := settleEnabled(metas, old, read[0]); err != nil {
			return nil, err
		}
		// Only the versions the bounds keep are read: the commit would
		// collect the others at once, and what is read is held in Go.
		for _, prev := range rt.newest(overwritten) {
			if err := r.keepVersion(ctx, rt, prev); err != nil {
				return nil, err
			}
		}
		p.Phase = PhaseCommit
		progress(p)
		kind := KindImport
		if len(res.Replaced) > 0 {
			kind = KindReplace
		}
		// The records carry the digests: built while the contents above
		// are written.
		later := func() ([]vfs.Op, error) {
			var unhashed []*candidate
			for i, m := range metas {
				if m.Digest == "" {
					unhashed = append(unhashed, cands[i])
				}
			}
			setDigests(unhashed)
			var ops []vfs.Op
			for i, m := range metas {
				pace.Step()
				if m.Digest == "" {
					m.Digest = cands[i].digest
				}
				if m.Origin != nil {
					// What the source gave, to tell later edits from
					// what it publishes (source.Origin.FilesDigest).
					o := *m.Origin
					o.FilesDigest = m.Digest
					m.Origin = &o
				}
				op, err := metaOp(m)
				if err != nil {
					return nil, err
				}
				ops = append(append(ops, trees[i].Records(m.Digest)...), op)
				metas[i] = m
			}
			// metas themselves, not a copy appended one by one: thousands
			// of Metas are garbage the collector marks and sweeps in the
			// host's tasks.
			res.Skills = metas
			kept, err := rt.ops()
			if err != nil {
				return nil, err
			}
			return append(ops, kept...), nil
		}
		// Not pins, stats, audit, vectors: an agent's writes there need not
		// wait for an import.
		stores := []string{vfs.StoreFiles, vfs.StoreBlobs, vfs.StoreMeta, vfs.StoreState}
		return &change{kind: kind, ids: ids, ops: first, later: later, stores: stores}, nil
	})
	if err != nil {
		return nil, err
	}
	res.Revision = done.Revision
	p := total
	p.Phase, p.FilesDone, p.BytesDone = PhaseDone, p.FilesTotal, p.BytesTotal
	progress(p)
	return res, nil
}

// progressOf is the progress of an import of cands before any is written.
func progressOf(cands []*candidate) Progress {
	p := Progress{Phase: PhasePrepare}
	for _, c := range cands {
		p.FilesTotal += len(c.files)
		p.BytesTotal += c.size
	}
	return p
}

// readArchive reads the archive in data, or held by out when set.
func (r *Registry) readArchive(data []byte, out zipguard.Outside) (*zipguard.Archive, error) {
	if out == nil {
		return zipguard.ReadAny(data, r.opts.Limits)
	}
	return zipguard.ReadAnyOutside(r.opts.Limits, out)
}

// readCandidates reads the archive (see readArchive) and parses its
// skills, the invalid ones included (candidate.err), without their
// digests (setDigests): what Import and Preview start from.
func (r *Registry) readCandidates(data []byte, out zipguard.Outside, under string) (*zipguard.Archive, []*candidate, error) {
	arc, err := r.readArchive(data, out)
	if err != nil {
		return nil, nil, err
	}
	all, err := candidatesIn(arc, under)
	return arc, all, err
}

// candidatesIn parses the skills of arc in its folder under ("" for all).
func candidatesIn(arc *zipguard.Archive, under string) ([]*candidate, error) {
	skills, folders, err := inFolder(arc.Skills, under)
	if err != nil {
		return nil, err
	}
	return parseArchive(skills, folders), nil
}

// setDigests computes the digest of each of cands that has none yet, in
// one batch.
func setDigests(cands []*candidate) {
	cands = slices.DeleteFunc(slices.Clone(cands), func(c *candidate) bool { return c.digest != "" })
	versions := make([][]vfs.File, len(cands))
	for i, c := range cands {
		versions[i] = c.files
	}
	for i, d := range digests(versions) {
		cands[i].digest = d
	}
}

// skipInstalled leaves out of cands, listing them as already installed,
// those renamed (under ConflictRename) that are byte for byte the skill
// installed they are compared with (comparedWith, given viaFolder and the
// installed skills by key, whose records are old) when same says that one
// counts.
func (res *ImportResult) skipInstalled(cands []*candidate, old map[string]vfs.Record, installed map[string][]string,
	viaFolder map[*candidate]Meta, renamed func(*candidate) bool, same func(Meta, *candidate) bool) ([]*candidate, error) {
	var fresh []*candidate
	for _, c := range cands {
		if !renamed(c) {
			fresh = append(fresh, c)
			continue
		}
		if id, update := comparedWith(c, viaFolder, installed); id != "" {
			prev, err := decodeMeta(old[id])
			if err != nil {
				return nil, err
			}
			if isInstalled(c, prev, update) && same(prev, c) {
				res.AlreadyInstalled = append(res.AlreadyInstalled, prev.ID)
				continue
			}
		}
		fresh = append(fresh, c)
	}
	return fresh, nil
}

// sameSource reports whether have, an installed skill's origin, is o's
// source for a skill of folder in its download: the same URL or index
// entry (sameDownload), and the same folder. (An MCP server's skills
// reach Import as source.ChooseMCP decided: one installed byte for byte
// is left out there unless chosen.)
func sameSource(have *source.Origin, o source.Origin, folder string) bool {
	dir := folder
	if dir == skillpath.Root {
		dir = ""
	}
	return sameDownload(have, o) && have.Dir == dir
}

// estimate asks for the storage estimate now, and returns the wait for
// its answer: no estimate (Known false) when the browser gives none.
func (r *Registry) estimate(ctx context.Context) func() vfs.StorageEstimate {
	c := make(chan vfs.StorageEstimate, 1)
	go func() {
		est, err := r.opts.Estimate(ctx)
		if err != nil {
			est = vfs.StorageEstimate{}
		}
		c <- est
	}()
	return func() vfs.StorageEstimate { return <-c }
}

// checkQuota fails with QuotaExceeded when storing size more bytes would
// exceed the origin's quota, as far as the browser tells (est). Without an
// estimate the commit itself is the check: it fails whole.
func checkQuota(est vfs.StorageEstimate, source string, size int64) error {
	if !est.Known || est.Quota <= 0 {
		return nil
	}
	need := int64(float64(size) * quotaFactor)
	if est.Usage+need <= est.Quota {
		return nil
	}
	const mb = 1 << 20
	return &skillerr.Error{Code: skillerr.QuotaExceeded, Subject: source,
		Msg: fmt.Sprintf("the import needs about %.1f MB of storage, but only %.1f MB of this site's %.1f MB quota is free",
			float64(need)/mb, float64(max(est.Quota-est.Usage, 0))/mb, float64(est.Quota)/mb)}
}

// idKey is what ids are compared by: zipguard.FoldKey, then the UTS #39
// confusable skeleton.
func idKey(id string) string { return confusable.Skeleton(zipguard.FoldKey(id)) }

// IDKey returns what the registry compares id by: two ids of one key are
// one id, and an import of a skill named b conflicts with the installed
// skill a when IDKey(a) == IDKey(b).
func IDKey(id string) string { return idKey(id) }

// parseArchive parses every skill of arc. A skill that is invalid, has a
// name that cannot be an id, or has the name of an earlier one once folded
// (zipguard.FoldKey) is kept with its error (candidate.err): Preview lists
// it, Import leaves it out or refuses the archive.
func parseArchive(skills []zipguard.Skill, folders []string) []*candidate {
	cands := make([]*candidate, 0, len(skills))
	seen := make(map[string]*candidate, len(skills)) // folded name → first skill
	for k, zs := range skills {
		pace.Step()
		c := &candidate{dir: zs.Dir, folder: folders[k], name: zs.Name, files: make([]vfs.File, len(zs.Files))}
		cands = append(cands, c)
		for i, f := range zs.Files {
			c.files[i] = vfs.File{Path: f.Path, Data: f.Data, Ext: f.Ext, Mode: f.Mode, ModTime: f.Modified}
			c.size += int64(c.files[i].Content().Len())
		}
		what := c.what()
		s, diags := readFiles(c.files, zs.Name)
		c.diags = diags
		if skill.HasErrors(diags) {
			c.refuse(manifestError(zs.Dir, what, c.diags))
			if s != nil {
				// Named as far as it was read: Choose and the
				// preview know it by that name.
				c.invalid.Name = s.Name
			}
			continue
		}
		c.s = s
		if err := checkID(c.s.Name); err != nil {
			c.refuse(&ManifestError{Skill: zs.Dir, Diagnostics: c.diags, Err: &skillerr.Error{
				Code: skillerr.InvalidManifest, Reason: "name-not-an-id", Subject: zs.Dir, Err: err,
				Msg: fmt.Sprintf("%s is named %q, which cannot be a directory name", what, skillerr.Clip(c.s.Name))}})
			continue
		}
		if zipguard.IsClutter(c.s.Name) {
			// Its export, a folder of that name, would be dropped on import.
			c.refuse(&ManifestError{Skill: zs.Dir, Diagnostics: c.diags, Err: &skillerr.Error{
				Code: skillerr.InvalidManifest, Reason: "name-not-an-id", Subject: zs.Dir,
				Msg: fmt.Sprintf("%s is named %q, which archivers treat as operating-system clutter and drop", what, c.s.Name)}})
			continue
		}
		key := idKey(c.s.Name)
		if prev, dup := seen[key]; dup {
			c.refuseDuplicate(prev)
			continue
		}
		seen[key] = c
	}
	return cands
}

// refuseDuplicate refuses c, a skill of an archive after prev, whose name
// is prev's once folded (idKey).
func (c *candidate) refuseDuplicate(prev *candidate) {
	names := fmt.Sprintf("two skills named %q", c.s.Name)
	if prev.s.Name != c.s.Name {
		names = fmt.Sprintf("two skills named %q and %q, which differ only in case, normalisation or look-alike letters,", prev.s.Name, c.s.Name)
	}
	c.refuse(&skillerr.Error{Code: skillerr.InvalidArchive, Reason: "duplicate-skill", Subject: c.dir,
		Msg: fmt.Sprintf("the archive holds %s (in %s/ and %s/)", names, prev.dir, c.dir)})
}

// what names c in a message: by its folder in the archive.
func (c *candidate) what() string {
	if c.dir == "." {
		return "the skill"
	}
	return fmt.Sprintf("the skill in %s/", c.dir)
}

// installedIDs answers whether a skill of an id is installed, as the list
// cache says; it reads the list on its first question only.
type installedIDs struct {
	r    *Registry
	ctx  context.Context
	recs []vfs.Record // sorted by id
	read bool
	err  error
}

func (in *installedIDs) has(id string) bool {
	if !in.read {
		var lc listCache
		lc, in.err = in.r.current(in.ctx, true)
		in.recs, in.read = lc.recs, true
	}
	_, ok := findRecord(in.recs, id)
	return ok
}

// refuseUnmet refuses the valid candidates whose dependencies get
// checkDependencies' verdict against the skills installed and the
// archive's other valid skills, and those that depend on a skill so
// refused, so that Preview, the refusal's count and SkipInvalid leave out
// what the commit would refuse (install checks again, under the lock).
func (r *Registry) refuseUnmet(cands []*candidate, installed func(string) bool) {
	valid := make(map[string]*candidate, len(cands)) // by name
	// Each skill's name, as far as read: true when one of that name was
	// valid before any was refused here, false when only broken ones are.
	named := make(map[string]bool, len(cands))
	dependents := map[string][]*candidate{}
	for _, c := range cands {
		if c.err == nil {
			valid[c.s.Name], named[c.s.Name] = c, true
		} else if c.invalid.Name != "" && !named[c.invalid.Name] {
			named[c.invalid.Name] = false
		}
	}
	var refused []*candidate
	check := func(c *candidate) {
		err := r.checkDependencies(c.s.Name, dependenciesOf(c.s), func(d string) bool { return valid[d] != nil || installed(d) })
		var se *skillerr.Error
		if errors.As(err, &se) {
			c.refuse(err)
			// Said of the skill refused, by the name a person sees it
			// under, and of what it depends on as SKILL.md wrote it
			// (clipped); the registry's message is about that one.
			dep := skillerr.Clip(se.Subject)
			why := fmt.Sprintf("it depends on '%s': %s", dep, se.Msg)
			parsed, inArchive := named[se.Subject]
			switch {
			case se.Reason == "unknown-skill" && inArchive:
				why = fmt.Sprintf("it depends on '%s', which cannot be installed either", dep)
				// Broken here, it may still be installed from elsewhere:
				// a batch waits for another download of it (Needs). One
				// refused here for what it depends on waits with c.
				if !parsed {
					c.invalid.Needs = se.Subject
				}
			case se.Reason == "unknown-skill":
				why = fmt.Sprintf("it depends on '%s', which is not installed and is not part of this install: install '%[1]s' first", dep)
				c.invalid.Needs = se.Subject
			}
			c.invalid.Message = fmt.Sprintf("'%s' cannot be installed: %s", c.s.Name, why)
			delete(valid, c.s.Name)
			refused = append(refused, c)
		}
	}
	for _, c := range cands {
		if c.err == nil {
			pace.Step()
			for _, d := range dependenciesOf(c.s).Skills {
				dependents[d] = append(dependents[d], c)
			}
			check(c)
		}
	}
	// Each refusal checks its dependents again, once: a chain of skills
	// costs its length, not its square.
	for len(refused) > 0 {
		gone := refused[0]
		refused = refused[1:]
		for _, c := range dependents[gone.s.Name] {
			if c.err == nil {
				check(c)
			}
		}
	}
}

// disabledDependencies settles which of the skills an import brings are
// stored disabled, so that no enabled skill depends on a disabled one (see
// "Dependencies" in docs/architecture.md): ids are their ids, deps their
// skill dependencies and on whether each would be enabled; a dependency
// among ids is as settled here, another as enabled says of the installed
// skill; an id "" is one no dependency names (a skill kept beside
// another under a new id, in a preview). It returns each skill's disabled
// dependencies, directly or through others of ids (one disabled for its
// own disables its dependents); one with any is stored disabled. The cost
// is linear in the dependencies, and enabled is asked once per dependency
// outside ids.
func disabledDependencies(ids []string, deps [][]string, on []bool, enabled func(string) (bool, error)) ([][]string, error) {
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	outside := map[string]bool{}
	dependents := map[int][]int{}
	bad := make([][]string, len(ids))
	final := slices.Clone(on)
	var off []int // turned disabled, to tell their dependents
	for i := range ids {
		pace.Step()
		for _, d := range deps[i] {
			if j, ok := at[d]; ok {
				dependents[j] = append(dependents[j], i)
				if !on[j] {
					bad[i] = append(bad[i], d)
				}
				continue
			}
			e, asked := outside[d]
			if !asked {
				var err error
				if e, err = enabled(d); err != nil {
					return nil, err
				}
				outside[d] = e
			}
			if !e {
				bad[i] = append(bad[i], d)
			}
		}
		if final[i] && len(bad[i]) > 0 {
			final[i], off = false, append(off, i)
		}
	}
	for len(off) > 0 {
		j := off[0]
		off = off[1:]
		for _, i := range dependents[j] {
			bad[i] = append(bad[i], ids[j])
			if final[i] {
				final[i], off = false, append(off, i)
			}
		}
	}
	return bad, nil
}

// disabledNote is the diagnostic of a skill an import stores disabled for
// its disabled dependencies bad, which Preview shows before.
func disabledNote(bad []string) skill.Diagnostic {
	is, them := isThem(bad)
	return skill.Diagnostic{Code: codeDependencyDisabled, Severity: skill.SeverityWarning, Field: "skill_dependencies",
		Message: fmt.Sprintf("Installed disabled, since it depends on %s, which %s disabled: enable %s, then this skill.", namedList(bad), is, them)}
}

// codeDependencyDisabled is the code of disabledNote's diagnostic, which
// enabling the skill drops.
const codeDependencyDisabled = "dependency-disabled"

// storedWithNote reports whether an import stores a skill that would
// depend on the disabled skills bad (disabledDependencies) with
// disabledNote: when it would be enabled (it is stored disabled), or when
// it replaces a skill that carries the note (noted, hasDisabledNote).
func storedWithNote(enabled, noted bool, bad []string) bool {
	return len(bad) > 0 && (enabled || noted)
}

// hasDisabledNote reports whether m carries disabledNote. A new version
// of such a skill, saved or imported, carries it again while it depends
// on a disabled skill (naming those disabled then): it is why the skill
// is disabled, and the version's SKILL.md alone does not say it. A skill
// disabled by hand gets none.
func hasDisabledNote(m Meta) bool {
	return slices.ContainsFunc(m.Diagnostics, func(d skill.Diagnostic) bool { return d.Code == codeDependencyDisabled })
}

// settleEnabled stores disabled, with disabledNote, the skills of an
// import (metas, enabled as they would be) that would depend on a
// disabled skill (disabledDependencies; old holds the installed skills'
// records), rather than refuse the import or enable what the user
// disabled. A replaced skill it so disables must not leave an enabled
// skill outside the import (among all, every installed skill's record)
// depending on it, as a disable must not: that is refused, Conflict
// "has-dependents".
func settleEnabled(metas []Meta, old map[string]vfs.Record, all []vfs.Record) error {
	ids, deps, on := make([]string, len(metas)), make([][]string, len(metas)), make([]bool, len(metas))
	for i, m := range metas {
		ids[i], deps[i], on[i] = m.ID, m.Dependencies.Skills, m.Enabled
	}
	bad, err := disabledDependencies(ids, deps, on, func(d string) (bool, error) {
		// install found every dependency outside ids installed.
		m, err := decodeMeta(old[d])
		return m.Enabled, err
	})
	if err != nil {
		return err
	}
	var off []string // replaced skills that were enabled
	for i := range metas {
		m := &metas[i]
		rec, replaced := old[m.ID]
		noted := false
		if replaced && !m.Enabled && len(bad[i]) > 0 {
			prev, err := decodeMeta(rec)
			if err != nil {
				return err
			}
			noted = hasDisabledNote(prev)
		}
		if !storedWithNote(m.Enabled, noted, bad[i]) {
			continue
		}
		m.Diagnostics = append(m.Diagnostics, disabledNote(bad[i]))
		if m.Enabled && replaced {
			off = append(off, m.ID)
		}
		m.Enabled = false
	}
	if len(off) == 0 {
		return nil
	}
	// The skills of the import were settled above, in their new versions.
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	outside := slices.DeleteFunc(slices.Clone(all), func(rec vfs.Record) bool { _, in := at[rec.Key]; return in })
	dependents, of, err := dependentsOf(off, outside, true)
	if err != nil || len(dependents) == 0 {
		return err
	}
	is, them := isThem(bad[at[of]])
	depend, they := "depends", "'"+dependents[0]+"'"
	if len(dependents) > 1 {
		depend, they = "depend", "them"
	}
	return &skillerr.Error{Code: skillerr.Conflict, Reason: "has-dependents", Subject: of,
		Msg: fmt.Sprintf("this version depends on %s, which %s disabled, so it would be installed disabled, but %s, enabled, %s on it: enable %s first, or disable %s",
			namedList(bad[at[of]]), is, namedList(dependents), depend, them, they)}
}

// needsUnchosen refuses a choice of a skill that depends on one the
// choice leaves out (skipped) and that is not installed: the commit would
// refuse it, and the person can choose that one too.
func needsUnchosen(kept []*candidate, skipped []string, installed func(string) bool) error {
	left := make(map[string]bool, len(skipped))
	for _, name := range skipped {
		left[name] = true
	}
	for _, c := range kept {
		for _, d := range dependenciesOf(c.s).Skills {
			if left[d] && !installed(d) {
				return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "unknown-skill", Subject: d,
					Msg: fmt.Sprintf("'%s' depends on it, and it is not installed: choose it too", c.s.Name)}
			}
		}
	}
	return nil
}

// refuse marks c as a skill that cannot be installed, because of err.
func (c *candidate) refuse(err error) {
	se := &skillerr.Error{Code: skillerr.Internal}
	errors.As(err, &se)
	c.err = err
	c.invalid = &SkillError{Code: se.Code, Reason: se.Reason, Subject: c.dir, Message: se.Msg,
		Diagnostics: append([]skill.Diagnostic{}, c.diags...)}
	if c.s != nil {
		c.invalid.Name = c.s.Name
	}
}

// usable splits cands into those that can be installed and those that
// cannot (candidate.err).
func usable(cands []*candidate) (valid, invalid []*candidate) {
	for _, c := range cands {
		if c.err != nil {
			invalid = append(invalid, c)
		} else {
			valid = append(valid, c)
		}
	}
	return valid, invalid
}

// byKey returns the ids of the installed skills, ids (sorted), by idKey,
// each list sorted.
func byKey(ids []string) map[string][]string {
	installed := make(map[string][]string, len(ids))
	for i, id := range ids {
		pace.StepAt(i) // a skeleton each, thousands of them
		k := idKey(id)
		installed[k] = append(installed[k], id)
	}
	return installed
}

// sinceCompared refuses the import when a candidate of cands that
// compared names is compared now with an installed skill (comparedWith,
// given viaFolder and installed, whose records are old) whose digest is
// not the one compared holds for it, and that makes a difference: it
// replaces that skill, or it was new and would be kept beside one now.
// (Kept beside a skill that changed, it is still kept beside it.)
func sinceCompared(cands []*candidate, compared map[string]string, policyOf func(*candidate) ConflictPolicy,
	viaFolder map[*candidate]Meta, installed map[string][]string, old map[string]vfs.Record) error {
	for _, c := range cands {
		want, ok := compared[c.s.Name]
		if !ok || (want != "" && policyOf(c) != ConflictReplace) {
			continue
		}
		id, _ := comparedWith(c, viaFolder, installed)
		now := ""
		if id != "" {
			m, err := decodeMeta(old[id])
			if err != nil {
				return err
			}
			now = m.Digest
		}
		if now == want {
			continue
		}
		msg := fmt.Sprintf("%q was installed since the preview; nothing was installed: preview again to choose", id)
		switch {
		case want != "" && now == "":
			msg = fmt.Sprintf("the installed skill the preview compared %q with was removed since; nothing was installed: preview again to choose", c.s.Name)
		case want != "":
			msg = fmt.Sprintf("%q changed since the preview (updated or edited); nothing was installed: preview again to choose", id)
		}
		return &skillerr.Error{Code: skillerr.Conflict, Reason: source.ReasonChangedSincePreview, Subject: c.s.Name, Msg: msg}
	}
	return nil
}

// assignIDs returns the id each candidate is installed as, given the
// installed skills by key (byKey). Ids are compared folded
// (zipguard.FoldKey), so that no two installed skills differ only in
// case; parseArchive has checked that the candidates' names are distinct
// folded. A candidate that replaces replaces the skill it is compared
// with (comparedWith): the one installed from the same download's folder
// (viaFolder, fromDownload), whatever its id, else the one of its name.
func assignIDs(cands []*candidate, installed map[string][]string, viaFolder map[*candidate]Meta, policyOf func(*candidate) ConflictPolicy) ([]string, error) {
	taken := make(map[string]bool, len(installed)+len(cands)) // folded ids
	for k := range installed {
		taken[k] = true
	}
	for i, c := range cands {
		pace.StepAt(i)
		taken[idKey(c.s.Name)] = true // a pack's own names are not free for renames
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		pace.StepAt(i)
		id := c.s.Name
		if with, update := comparedWith(c, viaFolder, installed); with != "" && policyOf(c) == ConflictReplace {
			// Skills installed before ids were compared folded may
			// share a folded id; the one spelt exactly so is replaced,
			// and none is guessed.
			if same := installed[idKey(id)]; !update && with != id && len(same) > 1 {
				return nil, &skillerr.Error{Code: skillerr.Conflict, Reason: "ambiguous", Subject: id,
					Msg: fmt.Sprintf(`the installed skills "%s" differ from this name only in case; `+
						"remove all but the one to replace, or import with its exact name", strings.Join(same, `", "`))}
			}
			ids[i] = with
			continue
		}
		if same := installed[idKey(id)]; len(same) > 0 {
			switch policyOf(c) {
			case ConflictFail:
				msg := "a skill with this name is installed already"
				if !slices.Contains(same, id) {
					msg = fmt.Sprintf("the installed skill %q has this name but for case, normalisation or look-alike letters", same[0])
				}
				return nil, &skillerr.Error{Code: skillerr.Conflict, Reason: "exists", Subject: id, Msg: msg}
			case ConflictRename:
				for n := 2; taken[idKey(id)]; n++ {
					id = fmt.Sprintf("%s-v%d", c.s.Name, n)
				}
				taken[idKey(id)] = true
			}
		}
		ids[i] = id
	}
	return ids, nil
}

// filesAs returns c's files as installed with id: a skill installed
// under another name than its own has its SKILL.md name that id.
func (c *candidate) filesAs(id string) ([]vfs.File, error) {
	if id == c.s.Name {
		return c.files, nil
	}
	files := slices.Clone(c.files)
	i := slices.IndexFunc(files, func(f vfs.File) bool { return f.Path == skillMD })
	renamed, err := skill.RewriteName(files[i].Content().Copy(), id)
	if err != nil {
		return nil, &skillerr.Error{Code: skillerr.CodeOf(err), Reason: skillerr.ReasonOf(err), Subject: c.dir, Err: err,
			Msg: fmt.Sprintf("cannot rename the skill %q to %q in its SKILL.md", c.s.Name, id)}
	}
	files[i].Data, files[i].Ext = renamed, nil
	return files, nil
}

// install prepares c to be installed in r as id, next to the installed skills
// old and the pack's skills pack; update says it replaces id as its update. It returns the skill's files, with the
// name in SKILL.md rewritten when id is not the skill's name, and its
// record, without Source, times and Enabled. Its dependencies get
// SetDependencies' verdict.
func (c *candidate) install(r *Registry, id string, old map[string]vfs.Record, pack []string, update bool) (Meta, []vfs.File, error) {
	s, diags := c.s, c.diags
	files, err := c.filesAs(id)
	if err != nil {
		return Meta{}, nil, err
	}
	if id != c.s.Name || id != c.name {
		// The diagnostics describe the skill as stored, in directory id.
		if s, diags = parseFiles(files, id); s == nil || s.Name != id {
			return Meta{}, nil, internal(id, nil, "the renamed SKILL.md does not read back")
		}
	}
	if id != c.s.Name {
		msg := fmt.Sprintf("A skill named '%s' is installed already; this one was installed as '%s'.", c.s.Name, id)
		if _, replaced := old[id]; replaced {
			msg = fmt.Sprintf("The installed skill '%s' differs from '%s' only in case; this one replaced it and keeps its id '%s'.", id, c.s.Name, id)
		}
		if update {
			msg = fmt.Sprintf("This update of '%s' is named '%s'; it keeps the id '%s'.", id, c.s.Name, id)
		}
		diags = append(diags, skill.Diagnostic{Code: "renamed", Severity: skill.SeverityWarning, Field: "name", Message: msg})
	}
	deps := dependenciesOf(s)
	if err := r.checkDependencies(id, deps, func(d string) bool {
		_, ok := old[d]
		return ok || slices.Contains(pack, d)
	}); err != nil {
		return Meta{}, nil, err
	}
	digest := c.digest
	if id != c.s.Name {
		digest = Digest(files) // the name in SKILL.md was rewritten
	}
	var m Meta
	m.describe(id, s, diags, files, digest)
	m.Dependencies = deps
	return m, files, nil
}
