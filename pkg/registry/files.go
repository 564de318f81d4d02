package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
	"github.com/skillfs/skillfs/pkg/vfs"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// The names of a skill's manifest and of its optional sidecar.
const (
	skillMD   = "SKILL.md"
	skillYAML = skill.SidecarName
)

// Entry is one file or directory of a skill, as Tree lists it.
type Entry struct {
	Path    string    `json:"path"` // relative to the skill's directory
	IsDir   bool      `json:"isDir"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime"`
}

// textExts are the extensions WriteFile accepts (text types
// only). Files without an extension (LICENSE, Makefile) are accepted too;
// their content is checked like any other.
var textExts = map[string]bool{
	"md": true, "txt": true, "py": true, "js": true, "mjs": true, "ts": true,
	"json": true, "yaml": true, "yml": true, "toml": true, "sh": true,
	"html": true, "css": true, "csv": true, "xml": true,
}

// Tree returns every file and directory of skill id, enabled or not,
// sorted by path. It reads the tree's records, not the contents.
func (r *Registry) Tree(ctx context.Context, id string) ([]Entry, error) {
	_, entries, err := r.readSkill(ctx, id, false)
	return entries, err
}

// ReadFile returns the contents of the file at p in skill id, enabled or
// not.
func (r *Registry) ReadFile(ctx context.Context, id, p string) ([]byte, error) {
	rel, err := skillpath.Clean(p)
	if err != nil {
		return nil, err
	}
	if err := checkID(id); err != nil {
		return nil, err
	}
	data, err := r.fsys.ReadFile(id + "/" + rel)
	if errors.Is(err, fs.ErrNotExist) {
		// Say which is missing: the skill or the file.
		if _, err := r.Get(ctx, id); err != nil {
			return nil, err
		}
	}
	return data, err
}

// ExportZip returns skill id as a zip archive with one folder named id,
// deterministic (see zipguard.Write): importing it gives a skill with the
// same digest. Empty directories are not kept.
func (r *Registry) ExportZip(ctx context.Context, id string) ([]byte, error) {
	files, _, err := r.readSkill(ctx, id, true)
	if err != nil {
		return nil, err
	}
	var zfiles []zipguard.File
	for _, f := range files {
		if !f.Mode.IsDir() {
			zfiles = append(zfiles, zipguard.File{Path: f.Path, Data: f.Data, Mode: f.Mode})
		}
	}
	var buf bytes.Buffer
	if err := zipguard.Write(&buf, zfiles, id); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile creates or replaces the text file at p in skill id and returns
// the skill's new record. Only text is accepted: an allowed extension (or
// none), UTF-8 without NUL bytes, at most Options.MaxTextFile bytes. A
// path that an export of the skill would lose is refused with PathRejected:
// operating-system clutter (ReasonClutter) or one deeper than
// Options.Limits allows (ReasonTooDeep).
// Saving SKILL.md or skill.yaml re-reads the skill's metadata; a save that
// makes SKILL.md invalid, or renames the skill, is refused, and so is one
// that changes the declared dependencies to ones SetDependencies would
// refuse.
func (r *Registry) WriteFile(ctx context.Context, id, p, text string) (Meta, error) {
	rel, err := editPath(p, "write")
	if err != nil {
		return Meta{}, err
	}
	if err := r.checkExportable(rel); err != nil {
		return Meta{}, err
	}
	if err := r.checkText(rel, text); err != nil {
		return Meta{}, err
	}
	return r.edit(ctx, id, func(files []vfs.File, now time.Time) ([]vfs.File, error) {
		if i, found := slices.BinarySearchFunc(files, rel, byPath); found {
			if files[i].Mode.IsDir() {
				return nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: vfs.ReasonIsDir, Subject: p, Msg: "is a directory"}
			}
			files[i].Data, files[i].ModTime = []byte(text), now
			return files, nil
		}
		if err := checkNew(files, rel); err != nil {
			return nil, err
		}
		return append(files, vfs.File{Path: rel, Data: []byte(text), Mode: 0o644, ModTime: now}), nil
	})
}

// Mkdir creates the directory p, and any missing parents, in skill id and
// returns the skill's new record. p must not exist yet, and is held to
// WriteFile's rules for paths.
func (r *Registry) Mkdir(ctx context.Context, id, p string) (Meta, error) {
	rel, err := editPath(p, "create")
	if err != nil {
		return Meta{}, err
	}
	if err := r.checkExportable(rel); err != nil {
		return Meta{}, err
	}
	return r.edit(ctx, id, func(files []vfs.File, now time.Time) ([]vfs.File, error) {
		if _, found := slices.BinarySearchFunc(files, rel, byPath); found {
			return nil, &skillerr.Error{Code: skillerr.Conflict, Reason: vfs.ReasonExist, Subject: p, Msg: "already exists"}
		}
		if err := checkNew(files, rel); err != nil {
			return nil, err
		}
		return append(files, vfs.File{Path: rel, Mode: fs.ModeDir | 0o755, ModTime: now}), nil
	})
}

// RemovePath removes the file or the directory (with everything in it) at
// p in skill id and returns the skill's new record. SKILL.md cannot be
// removed: remove the skill instead.
func (r *Registry) RemovePath(ctx context.Context, id, p string) (Meta, error) {
	rel, err := editPath(p, "remove")
	if err != nil {
		return Meta{}, err
	}
	if rel == skillMD {
		return Meta{}, &skillerr.Error{Code: skillerr.PermissionDenied, Reason: "skill-md", Subject: p,
			Msg: "SKILL.md cannot be removed; remove the skill instead"}
	}
	return r.edit(ctx, id, func(files []vfs.File, _ time.Time) ([]vfs.File, error) {
		kept := slices.DeleteFunc(files, func(f vfs.File) bool {
			return f.Path == rel || strings.HasPrefix(f.Path, rel+"/")
		})
		if len(kept) == len(files) {
			return nil, &skillerr.Error{Code: skillerr.SkillNotFound, Reason: vfs.ReasonNotExist, Subject: p, Msg: "no such file or directory"}
		}
		return kept, nil
	})
}

// Rename moves the file or the directory (with everything in it) at from
// to the path to in skill id, in one commit, and returns the skill's new
// record; contents, modes and times are kept. to must not exist (a change
// of case alone is allowed) and is held to WriteFile's rules for paths;
// its missing parents are created. SKILL.md cannot be renamed, and a
// directory cannot be moved into itself.
func (r *Registry) Rename(ctx context.Context, id, from, to string) (Meta, error) {
	src, err := editPath(from, "rename")
	if err != nil {
		return Meta{}, err
	}
	dst, err := editPath(to, "rename to")
	if err != nil {
		return Meta{}, err
	}
	switch {
	case src == skillMD:
		return Meta{}, &skillerr.Error{Code: skillerr.PermissionDenied, Reason: "skill-md", Subject: from,
			Msg: "SKILL.md cannot be renamed: a skill is the folder that holds it"}
	case dst == src:
		return Meta{}, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "same-path", Subject: to,
			Msg: "the new path is the same as the old one"}
	case strings.HasPrefix(dst, src+"/"):
		return Meta{}, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "into-itself", Subject: to,
			Msg: fmt.Sprintf("%s cannot be moved into itself", src)}
	}
	if err := r.checkExportable(dst); err != nil {
		return Meta{}, err
	}
	return r.edit(ctx, id, func(files []vfs.File, _ time.Time) ([]vfs.File, error) {
		var moved, kept []vfs.File
		for _, f := range files {
			if f.Path == src || strings.HasPrefix(f.Path, src+"/") {
				f.Path = dst + f.Path[len(src):]
				moved = append(moved, f)
			} else {
				kept = append(kept, f)
			}
		}
		if len(moved) == 0 {
			return nil, &skillerr.Error{Code: skillerr.SkillNotFound, Reason: vfs.ReasonNotExist, Subject: from, Msg: "no such file or directory"}
		}
		if _, found := slices.BinarySearchFunc(kept, dst, byPath); found {
			return nil, &skillerr.Error{Code: skillerr.Conflict, Reason: vfs.ReasonExist, Subject: to, Msg: "already exists"}
		}
		if err := checkNew(kept, dst); err != nil {
			return nil, err
		}
		for _, f := range moved {
			if err := r.checkExportable(f.Path); err != nil {
				return nil, err
			}
		}
		files = append(kept, moved...)
		// sort.Slice, not slices.SortFunc: a sort instantiated for a
		// struct this large is ~20 KB of the module.
		sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
		return files, nil
	})
}

// edit is the change behind WriteFile, Mkdir, RemovePath and Rename. It rewrites
// skill id's whole tree as apply leaves it (apply gets the files sorted by
// path and may change them in place), so that every file of the new
// version carries the new digest as its generation, and re-derives the
// skill's record from the new SKILL.md in the same commit.
func (r *Registry) edit(ctx context.Context, id string, apply func(files []vfs.File, now time.Time) ([]vfs.File, error)) (Meta, error) {
	if err := checkID(id); err != nil {
		return Meta{}, err
	}
	tq, err := vfs.SkillQueries(id, true)
	if err != nil {
		return Meta{}, err
	}
	var m Meta
	qs := slices.Concat([]vfs.Query{metaQuery(id)}, tq, []vfs.Query{retainedQuery()})
	_, err = r.mutate(ctx, qs, func(read [][]vfs.Record) (*change, error) {
		var err error
		if m, err = installed(id, read[0]); err != nil {
			return nil, err
		}
		files, err := vfs.DecodeSkill(id, read[1:1+len(tq)])
		if err != nil {
			return nil, internal(id, err, "the skill's tree is unreadable")
		}
		rt, err := r.retention(read[1+len(tq)])
		if err != nil {
			return nil, err
		}
		prev, prevFiles := m, slices.Clone(files)
		before, _ := parseFiles(files, id) // stored versions always parse
		now := r.now()
		if files, err = apply(files, now); err != nil {
			return nil, err
		}
		if err := r.checkImportable(id, prevFiles, files); err != nil {
			return nil, err
		}
		s, diags := parseFiles(files, id)
		if s == nil {
			return nil, manifestError(id, "the saved SKILL.md", diags)
		}
		if s.Name != id {
			return nil, &ManifestError{Skill: id, Diagnostics: diags, Err: &skillerr.Error{
				Code: skillerr.InvalidManifest, Reason: "rename-refused", Subject: id,
				Msg: fmt.Sprintf("SKILL.md now names the skill %q, but a skill cannot be renamed by editing it; "+
					"keep the name %q, or export the skill and import it under the new name", s.Name, id)}}
		}
		m.describe(id, s, diags, files, Digest(files))
		m.UpdatedAt = now
		// Dependencies are managed with SetDependencies; an edit takes
		// the frontmatter's only when it changes them.
		var found [][]vfs.Record // the records of m's skill dependencies, once read
		if deps := dependenciesOf(s); before == nil || !dependenciesOf(before).equal(deps) {
			// Read under the lock: the cached list may not have heard of
			// another context's delete yet.
			if found, err = r.db.Read(ctx, metaQueries(deps.Skills)...); err != nil {
				return nil, err
			}
			err = r.checkDependencies(id, deps, func(d string) bool {
				return len(found[slices.Index(deps.Skills, d)]) > 0
			})
			if err == nil {
				err = checkNewDependencies(prev, deps.Skills, found)
			}
			if err != nil {
				return nil, err
			}
			m.Dependencies = deps
		}
		// describe took the diagnostics from SKILL.md alone.
		if hasDisabledNote(prev) && len(m.Dependencies.Skills) > 0 {
			if found == nil {
				if found, err = r.db.Read(ctx, metaQueries(m.Dependencies.Skills)...); err != nil {
					return nil, err
				}
			}
			bad, err := disabledIn(m.Dependencies.Skills, found, nil)
			if err != nil {
				return nil, err
			}
			if len(bad) > 0 {
				m.Diagnostics = append(m.Diagnostics, disabledNote(bad))
			}
		}
		ops, err := replaceTree(id, m.Digest, files)
		if err != nil {
			return nil, err
		}
		op, err := metaOp(m)
		if err != nil {
			return nil, err
		}
		if prev.Digest != m.Digest {
			rt.keep(prev, prevFiles)
		}
		kept, err := rt.ops()
		if err != nil {
			return nil, err
		}
		return &change{kind: KindEdit, ids: []string{id}, ops: slices.Concat(ops, []vfs.Op{op}, kept)}, nil
	})
	if err != nil {
		return Meta{}, err
	}
	return m, nil
}

// replaceTree returns the ops that replace skill id's tree, if any, by
// files stamped gen.
func replaceTree(id, gen string, files []vfs.File) ([]vfs.Op, error) {
	del, err := vfs.DeleteSkill(id)
	if err != nil {
		return nil, err
	}
	put, err := vfs.PutSkill(id, gen, files)
	if err != nil {
		return nil, err
	}
	return append(del, put...), nil
}

// readSkill reads skill id's files, with their contents when data is set,
// in one read transaction with its record, and returns them and their
// entries.
func (r *Registry) readSkill(ctx context.Context, id string, data bool) ([]vfs.File, []Entry, error) {
	if err := checkID(id); err != nil {
		return nil, nil, err
	}
	tq, err := vfs.SkillQueries(id, data)
	if err != nil {
		return nil, nil, err
	}
	read, err := r.db.Read(ctx, append([]vfs.Query{metaQuery(id)}, tq...)...)
	if err != nil {
		return nil, nil, err
	}
	if _, err := installed(id, read[0]); err != nil {
		return nil, nil, err
	}
	files, err := vfs.DecodeSkill(id, read[1:])
	if err != nil {
		return nil, nil, internal(id, err, "the skill's tree is unreadable")
	}
	entries := make([]Entry, len(files))
	for i, f := range files {
		entries[i] = Entry{Path: f.Path, IsDir: f.Mode.IsDir(), Size: f.Size, ModTime: f.ModTime}
	}
	return files, entries, nil
}

// parseFiles parses the SKILL.md of files, with the skill.yaml beside it,
// leniently, for a skill in directory dir: nil when it has errors.
func parseFiles(files []vfs.File, dir string) (*skill.Skill, []skill.Diagnostic) {
	s, diags := readFiles(files, dir)
	if skill.HasErrors(diags) {
		return nil, diags
	}
	return s, diags
}

// readFiles is parseFiles as skill.Read: the skill as far as it was read,
// errors and all.
func readFiles(files []vfs.File, dir string) (*skill.Skill, []skill.Diagnostic) {
	var md, sidecar []byte
	for _, f := range files {
		switch f.Path {
		case skillMD:
			md = f.Content().Copy()
		case skillYAML:
			sidecar = f.Content().Copy()
		}
	}
	return skill.Read(md, skill.Options{Mode: skill.Lenient, DirName: dir, SkillYAML: sidecar})
}

func byPath(f vfs.File, p string) int { return strings.Compare(f.Path, p) }

// editPath cleans p, a path to change in a skill, which must not be the
// skill's own directory.
func editPath(p, verb string) (string, error) {
	rel, err := skillpath.Clean(p)
	if err != nil {
		return "", err
	}
	if rel == skillpath.Root {
		return "", &skillerr.Error{Code: skillerr.PermissionDenied, Reason: vfs.ReasonRoot, Subject: p,
			Msg: "cannot " + verb + " the skill's own directory"}
	}
	return rel, nil
}

// The Reasons of the PathRejected errors of WriteFile and Mkdir, besides
// skillpath's.
const (
	// ReasonClutter: the name is one that archivers add behind the
	// user's back ("._x", "__MACOSX/", ".DS_Store"; zipguard.IsClutter),
	// which an import drops.
	ReasonClutter = "clutter"
	// ReasonTooDeep: the path has more segments than an import of the
	// skill's export would accept (Options.Limits.MaxDepth).
	ReasonTooDeep = zipguard.ReasonTooDeep
)

// checkNew checks that rel, a path not in files, can be added: its parents
// are not files, and no name on the way is one an existing name already
// holds once folded as an import folds names (zipguard.FoldKey: case and
// Unicode normalisation, so "ﬁle.md" clashes with "file.md"), which would
// make the export unreadable on macOS and Windows, or on import.
func checkNew(files []vfs.File, rel string) error {
	onTheWay := map[string]string{} // folded → the path on the way to rel
	for q := rel; q != "."; q = path.Dir(q) {
		onTheWay[zipguard.FoldKey(q)] = q
	}
	for _, f := range files {
		q, ok := onTheWay[zipguard.FoldKey(f.Path)]
		switch {
		case !ok:
		case f.Path == q && !f.Mode.IsDir():
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: vfs.ReasonNotDir, Subject: rel,
				Msg: fmt.Sprintf("%s is a file, not a directory", q)}
		case f.Path != q:
			return &skillerr.Error{Code: skillerr.Conflict, Reason: zipguard.ReasonCollision, Subject: rel,
				Msg: fmt.Sprintf("the name clashes with %s, which differs only in case or normalisation", f.Path)}
		}
	}
	return nil
}

// checkExportable refuses rel, a path to write or create, when an export
// of the skill would lose it on import: zipguard.Read drops it as clutter,
// or finds it deeper than the registry's Limits allow (the export puts the
// skill in a folder of its own, which counts as one level). Removing such
// a path is never refused.
func (r *Registry) checkExportable(rel string) error {
	if zipguard.IsClutter(rel) {
		return &skillerr.Error{Code: skillerr.PathRejected, Reason: ReasonClutter, Subject: rel,
			Msg: "names such as ._*, __MACOSX/, .DS_Store, Thumbs.db and desktop.ini are operating-system clutter " +
				"that importing drops, so the skill's export would lose this; choose another name"}
	}
	limit := r.opts.Limits.WithDefaults().MaxDepth - 1
	if depth := strings.Count(rel, "/") + 1; depth > limit {
		return &skillerr.Error{Code: skillerr.PathRejected, Reason: ReasonTooDeep, Subject: rel,
			Msg: fmt.Sprintf("the path is %d levels deep; the limit inside a skill is %d, so that its export can be imported again", depth, limit)}
	}
	return nil
}

// checkImportable refuses an edit that takes skill id from before to after
// past what an import of its export would accept (the registry's Limits:
// entries, bytes, the bytes of the names): the skill's size stays bounded
// however many edits it takes, each of which rewrites it whole. An edit
// that shrinks what is over is never refused.
func (r *Registry) checkImportable(id string, before, after []vfs.File) error {
	l := r.opts.Limits.WithDefaults()
	measure := func(files []vfs.File) (entries, size, names int64) {
		for _, f := range files {
			size += int64(len(f.Data))
			names += int64(len(id) + 1 + len(f.Path)) // the export's folder, then the path
		}
		return int64(len(files)) + 1, size, names + int64(len(id)+1) // and the folder itself
	}
	n0, size0, names0 := measure(before)
	n, size, names := measure(after)
	for _, c := range []struct {
		reason, what    string
		now, was, limit int64
	}{
		{zipguard.ReasonTooManyEntries, "files and folders", n, n0, int64(l.MaxEntries)},
		{zipguard.ReasonTotalTooLarge, "bytes", size, size0, l.MaxTotalSize},
		{zipguard.ReasonNamesTooLong, "bytes of names", names, names0, int64(l.MaxNameBytes)},
	} {
		if c.now > c.limit && c.now > c.was {
			return &skillerr.Error{Code: skillerr.TooLarge, Reason: c.reason, Subject: id, Msg: fmt.Sprintf(
				"the skill would hold %d %s; an import accepts %d, so that its export can be imported again", c.now, c.what, c.limit)}
		}
	}
	return nil
}

// checkText checks that text may be saved as the file rel.
func (r *Registry) checkText(rel, text string) error {
	if ext := path.Ext(path.Base(rel)); ext != "" && !textExts[strings.ToLower(ext[1:])] {
		return &skillerr.Error{Code: skillerr.NotText, Reason: "extension", Subject: rel,
			Msg: fmt.Sprintf("only text files can be edited, and %s files are not among them", ext)}
	}
	if int64(len(text)) > r.opts.MaxTextFile {
		return &skillerr.Error{Code: skillerr.TooLarge, Subject: rel,
			Msg: fmt.Sprintf("the text is %d bytes; the limit is %d", len(text), r.opts.MaxTextFile)}
	}
	if !utf8.ValidString(text) {
		return &skillerr.Error{Code: skillerr.NotText, Reason: "not-utf8", Subject: rel,
			Msg: "the content is not UTF-8 text"}
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		return &skillerr.Error{Code: skillerr.NotText, Reason: "nul", Subject: rel,
			Msg: fmt.Sprintf("the content has a NUL byte at offset %d, so it is binary, not text", i)}
	}
	return nil
}
