package vfs

import (
	"encoding/binary"
	"io/fs"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
)

// Key layout of StoreFiles and StoreBlobs: a path relative to /skills with
// "//" in place of its last slash ("pdf//SKILL.md", "pdf/scripts//run.py";
// a skill's own directory is "//pdf"). Clean paths never contain "//", so
// the children of a directory are exactly the keys starting with dir+"//",
// one key range however deep the tree below; and a skill's whole tree
// except its directory record is the range "pdf/", which a sibling such
// as "pdf-tools" cannot share. StoreFiles holds a record per directory
// (dirrecord.go), StoreBlobs one per file.

// fileKey returns the key of the clean path p ("." is not stored).
func fileKey(p string) string {
	i := strings.LastIndexByte(p, '/')
	return p[:max(i, 0)] + "//" + p[i+1:]
}

// childPrefix returns the key prefix of the children of directory dir.
func childPrefix(dir string) string {
	if dir == "." {
		return "//"
	}
	return dir + "//"
}

// pathOfKey returns the clean path stored under key, which a prefix read
// returned. A key fileKey cannot give (no "//", two of them, a name of ""
// or "..", a parent that is not clean) was put there by another program:
// it is an Internal error, not a path outside its directory or a
// listing's "..".
func pathOfKey(key string) (string, error) {
	i := strings.Index(key, "//")
	if i < 0 || !validName(key[i+2:]) {
		return "", corruptRecord(key)
	}
	dir, name := key[:i], key[i+2:]
	if dir == "" {
		return name, nil
	}
	if path.Clean(dir) != dir || dir[0] == '/' || dir == "." || dir == ".." || strings.HasPrefix(dir, "../") {
		return "", corruptRecord(key)
	}
	return dir + "/" + name, nil
}

// meta is what StoreFiles keeps for a file or directory.
type meta struct {
	mode    fs.FileMode
	modTime time.Time
	size    int64
	gen     string
}

// encode returns m as bytes: uvarint mode, varint Unix milliseconds (the
// precision of a JavaScript Date), uvarint size, then the generation.
func (m meta) encode() []byte {
	b := binary.AppendUvarint(nil, uint64(m.mode))
	b = binary.AppendVarint(b, m.modTime.UnixMilli())
	b = binary.AppendUvarint(b, uint64(m.size))
	return append(b, m.gen...)
}

// storedModes are the bits a stored mode may hold: a directory's or a
// regular file's, with what Chmod may set. A symbolic link, a device or a
// size past int64 was put there by another program: exported, it would be
// an archive entry of that kind; listed, a negative size.
const storedModes = fs.ModeDir | fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// storable reports whether the mode m (as decoded, raw) and the size can
// be stored.
func storable(m fs.FileMode, raw, size uint64) bool {
	return raw == uint64(m) && m&^storedModes == 0 && size <= math.MaxInt64
}

func decodeMeta(key string, b []byte) (meta, error) {
	mode, n1 := binary.Uvarint(b)
	ms, n2 := binary.Varint(b[max(n1, 0):])
	size, n3 := binary.Uvarint(b[max(n1, 0)+max(n2, 0):])
	if n1 <= 0 || n2 <= 0 || n3 <= 0 || !storable(fs.FileMode(mode), mode, size) {
		return meta{}, corruptRecord(key)
	}
	return meta{
		mode:    fs.FileMode(mode),
		modTime: time.UnixMilli(ms),
		size:    int64(size),
		gen:     string(b[n1+n2+n3:]),
	}, nil
}

// File is one entry of a skill tree, handed to PutSkill or returned by
// DecodeSkill.
type File struct {
	// Path is relative to the skill's directory, slash-separated.
	Path string
	Data []byte
	// Ext, when set, is the content instead of Data, held outside Go (an
	// import's inflated files): PutSkill stores it as it is.
	Ext external.Bytes
	// Size and Gen are the file's length and generation stamp as
	// DecodeSkill found them, also when it read no contents; PutSkill
	// ignores both (it stores len(Data) and its own gen).
	Size int64
	Gen  string
	// Mode carries permission bits, plus fs.ModeDir for a directory
	// (useful for empty ones; parents are implied). Zero permissions mean
	// 0644 for a file and 0755 for a directory.
	Mode    fs.FileMode
	ModTime time.Time
}

// Content returns the file's content, wherever it is held.
func (f File) Content() external.Bytes {
	if f.Ext != nil {
		return f.Ext
	}
	return external.Go(f.Data)
}

// PutSkill returns the ops that write files into the directory of skill
// slug, with a record for every parent directory and for the skill's own
// directory, each stamped with generation gen. Implied directories take the
// newest ModTime of files. To replace a skill, commit DeleteSkill's ops
// first in the same commit.
func PutSkill(slug, gen string, files []File) ([]Op, error) {
	t, err := NewTree(slug, files)
	if err != nil {
		return nil, err
	}
	return append(t.Blobs(), t.Records(gen)...), nil
}

// Tree is what PutSkill writes, in two parts: the files' contents, which
// do not depend on the generation, and the records, which carry it. An
// import writes the contents while it computes the generation (a digest of
// them).
type Tree struct {
	entries map[string]meta    // by key path; gen left empty
	order   []string           // directories, first seen order: deterministic ops
	files   map[string][]entry // each directory's files, by key path
	blobs   []Op
}

// NewTree checks files as PutSkill does and returns them ready to write
// into the directory of skill slug.
func NewTree(slug string, files []File) (*Tree, error) {
	if err := checkSlug(slug); err != nil {
		return nil, err
	}
	var newest time.Time
	for _, f := range files {
		if f.ModTime.After(newest) {
			newest = f.ModTime
		}
	}
	// Directories are implied first and replaced by an explicit entry.
	t := &Tree{entries: map[string]meta{slug: {mode: fs.ModeDir | 0o755, modTime: newest}}, files: map[string][]entry{}}
	for _, f := range files {
		rel, err := skillpath.Clean(f.Path)
		if err != nil {
			return nil, err
		}
		if rel == skillpath.Root {
			return nil, badTree(slug, f.Path, "a file cannot be the skill's own directory")
		}
		if f.Mode&^(fs.ModeDir|fs.ModePerm) != 0 {
			return nil, badTree(slug, f.Path, "only regular files and directories can be stored")
		}
		p := slug + "/" + rel
		m := meta{mode: f.Mode, modTime: f.ModTime, size: int64(f.Content().Len())}
		if m.mode.IsDir() {
			m.size = 0
			if m.mode.Perm() == 0 {
				m.mode |= 0o755
			}
		} else if m.mode.Perm() == 0 {
			m.mode |= 0o644
		}
		if old, dup := t.entries[p]; dup && !(old.mode.IsDir() && m.mode.IsDir()) {
			return nil, badTree(slug, f.Path, "the path appears twice, or as both a file and a directory")
		}
		if _, seen := t.entries[p]; !seen && m.mode.IsDir() {
			t.order = append(t.order, p)
		}
		t.entries[p] = m
		if !m.mode.IsDir() {
			t.blobs = append(t.blobs, Op{Kind: OpPut, Store: StoreBlobs, Key: fileKey(p), Value: f.Data, Ext: f.Ext})
		}
		for dir := path.Dir(p); dir != slug; dir = path.Dir(dir) {
			if d, ok := t.entries[dir]; ok {
				if !d.mode.IsDir() {
					return nil, badTree(slug, f.Path, "a parent directory is also a file")
				}
				break
			}
			t.entries[dir] = meta{mode: fs.ModeDir | 0o755, modTime: newest}
			t.order = append(t.order, dir)
		}
	}
	t.order = append(t.order, slug)
	for p, m := range t.entries {
		if !m.mode.IsDir() {
			dir := path.Dir(p)
			t.files[dir] = append(t.files[dir], entry{name: path.Base(p), meta: m})
		}
	}
	for dir, files := range t.files {
		if len(files) > MaxDirFiles {
			return nil, tooManyFiles(dir, uint64(len(files)))
		}
		sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	}
	return t, nil
}

// Blobs returns the ops that write the files' contents.
func (t *Tree) Blobs() []Op { return slices.Clip(t.blobs) }

// Records returns the ops that write the record of every directory, which
// lists its files, all stamped with generation gen.
func (t *Tree) Records(gen string) []Op {
	ops := make([]Op, len(t.order))
	for i, p := range t.order {
		r := record{meta: t.entries[p], files: t.files[p]}
		r.gen = gen
		for j := range r.files {
			r.files[j].gen = gen
		}
		// Set field by field: an Op copied whole into a large slice
		// while the collector marks costs a bulk write barrier, which in
		// WebAssembly took ~13 µs an op (a CPU profile of an import).
		op := &ops[i]
		op.Kind, op.Store, op.Key, op.Value = OpPut, StoreFiles, fileKey(p), r.encode()
	}
	return ops
}

// DeleteSkill returns the ops that delete the whole tree of skill slug,
// touching no other skill: three requests however many files it has.
// slug may be any name the stores hold (checkStoredSlug): a removal
// writes no name.
func DeleteSkill(slug string) ([]Op, error) {
	if err := checkStoredSlug(slug); err != nil {
		return nil, err
	}
	return []Op{
		DeletePrefix(StoreFiles, slug+"/"),
		DeletePrefix(StoreBlobs, slug+"/"),
		Delete(StoreFiles, fileKey(slug)),
	}, nil
}

// SkillQueries returns the queries that read the whole tree of skill slug,
// and the contents of its files too when data is set. Run them in one
// Read (with any other queries) and hand the results to DecodeSkill.
func SkillQueries(slug string, data bool) ([]Query, error) {
	if err := checkSlug(slug); err != nil {
		return nil, err
	}
	qs := []Query{Get(StoreFiles, fileKey(slug)), GetPrefix(StoreFiles, slug+"/")}
	if data {
		qs = append(qs, GetPrefix(StoreBlobs, slug+"/"))
	}
	return qs, nil
}

// DecodeSkill returns the files and directories below skill slug, sorted by
// path, from the results of SkillQueries(slug, data) in the same order.
// Directories carry fs.ModeDir; files carry their contents when data was
// read.
func DecodeSkill(slug string, read [][]Record) ([]File, error) {
	if len(read) < 2 || len(read) > 3 {
		return nil, skillerr.New(skillerr.InvalidArgument, slug, "DecodeSkill takes the results of SkillQueries")
	}
	var blobs map[string][]byte
	if len(read) == 3 {
		blobs = make(map[string][]byte, len(read[2]))
		for i, r := range read[2] {
			pace.StepAt(i)
			blobs[r.Key] = r.Value
		}
	}
	var files []File
	// 10,000 files, an import's most, took 12-16 ms in Chromium.
	add := func(p string, m meta) error {
		pace.StepAt(len(files))
		f := File{Path: strings.TrimPrefix(p, slug+"/"), Mode: m.mode, ModTime: m.modTime, Size: m.size, Gen: m.gen}
		if blobs != nil && !m.mode.IsDir() {
			data, ok := blobs[fileKey(p)]
			if err := checkContents(p, m.size, data, ok); err != nil {
				return err
			}
			f.Data = data
		}
		files = append(files, f)
		return nil
	}
	for i, recs := range read[:2] {
		for _, rec := range recs {
			r, err := decodeRecord(rec.Key, rec.Value)
			if err != nil {
				return nil, err
			}
			dir, err := pathOfKey(rec.Key)
			if err != nil {
				return nil, err
			}
			if i == 1 {
				if err := add(dir, r.meta); err != nil {
					return nil, err
				}
			}
			for _, e := range r.files {
				if err := add(dir+"/"+e.name, e.meta); err != nil {
					return nil, err
				}
			}
		}
	}
	// Keys order "a//x" apart from "a/b//y"; paths sort as paths.
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for i := 1; i < len(files); i++ {
		if files[i].Path == files[i-1].Path { // listed and with a record of its own
			return nil, corruptRecord(fileKey(slug + "/" + files[i].Path))
		}
	}
	return files, nil
}

// valueOf returns the value a Get found, if it found one.
func valueOf(found []Record) ([]byte, bool) {
	if len(found) == 0 {
		return nil, false
	}
	return found[0].Value, true
}

// checkContents reports a file of size bytes listed without contents
// (found false), or whose contents are of another length: a file's record
// and its contents are written in one commit, so another program changed
// them, and the file is not merely absent.
func checkContents(p string, size int64, data []byte, found bool) error {
	switch {
	case !found:
		return skillerr.New(skillerr.Internal, p, "the file's contents are missing")
	case int64(len(data)) != size:
		return skillerr.New(skillerr.Internal, p, "the file's contents are not as long as its record says")
	}
	return nil
}

// checkSlug requires slug to be one clean path segment.
func checkSlug(slug string) error {
	clean, err := skillpath.Clean(slug)
	if err != nil {
		return err
	}
	if clean != slug || clean == skillpath.Root || strings.Contains(clean, "/") {
		return badSlug(slug)
	}
	return nil
}

// checkStoredSlug requires slug, a skill's directory as the stores may
// hold it, to address that tree and nothing else: one name (not empty,
// "." or "..", no "/"), whose key range cannot reach the retained
// versions' either. skillpath's rules have grown since some skills were
// stored ("x\u3164", with an invisible Hangul filler, was a name until
// 2026-11-23), and a skill that can no longer be named must still be
// removable; a name written anew is held to today's rules (checkSlug).
func checkStoredSlug(slug string) error {
	if !validName(slug) || strings.HasPrefix(slug, retainedPrefix) {
		return badSlug(slug)
	}
	return nil
}

func badSlug(slug string) error {
	return &skillerr.Error{Code: skillerr.PathRejected, Reason: ReasonBadSlug, Subject: skillerr.Clip(slug),
		Msg: "a skill's directory name must be a single clean path segment"}
}

func badTree(slug, p, msg string) error {
	return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonBadTree, Subject: slug + "/" + p, Msg: msg}
}
