package vfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/hack-pad/hackpadfs"
	"github.com/hack-pad/hackpadfs/keyvalue"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
)

// Root is where the skills tree is mounted: skill s lives at /skills/s.
const Root = "/skills"

// FS is the skills tree as a hackpadfs file system, or a view of part of
// it. Every name is cleaned by skillpath.Clean and must stay inside the
// view; a name may be relative to the view ("SKILL.md", "pdf/SKILL.md") or
// spelled from the mount point ("/skills/pdf/SKILL.md"). Errors are
// *skillerr.Error values; a missing file also matches fs.ErrNotExist.
//
// Reads (Stat, ReadDir, ReadFile, ReadFileGen) take one read transaction
// each. Writes go through hackpadfs's keyvalue file system, one commit per
// call; import whole skills with PutSkill ops instead.
type FS struct {
	db       Backend
	kv       *keyvalue.FS
	base     string // the view's directory relative to Root; "." for all of it
	readOnly bool
}

// New returns the skills tree stored in db.
func New(db Backend) (*FS, error) {
	kv, err := keyvalue.NewFS(kvStore{db: db})
	if err != nil {
		return nil, fsErr(".", err)
	}
	return &FS{db: db, kv: kv, base: "."}, nil
}

// ReadOnly returns a view of f that refuses every write with
// PermissionDenied, including through the files it opens.
func (f *FS) ReadOnly() *FS {
	v := *f
	v.readOnly = true
	return &v
}

// Sub returns a view of directory dir of f (a skill's slug, say): names are
// relative to dir, and nothing outside it can be reached by any spelling.
// Sub of a read-only view is read-only.
func (f *FS) Sub(dir string) (*FS, error) {
	p, err := f.resolve(dir)
	if err != nil {
		return nil, err
	}
	v := *f
	v.base = p
	return &v, nil
}

// resolve returns name as a clean path relative to Root, or a PathRejected
// error when it is malformed or leaves the view.
func (f *FS) resolve(name string) (string, error) {
	rel, abs := strings.CutPrefix(name, Root)
	if abs && (rel == "" || rel[0] == '/') {
		rel = strings.TrimPrefix(rel, "/")
	} else {
		rel, abs = name, false
	}
	clean, err := skillpath.Clean(rel)
	if err != nil {
		var e *skillerr.Error
		if errors.As(err, &e) {
			e.Subject = name
		}
		return "", err
	}
	if !abs {
		return path.Join(f.base, clean), nil
	}
	if f.base != "." && clean != f.base && !strings.HasPrefix(clean, f.base+"/") {
		return "", &skillerr.Error{Code: skillerr.PathRejected, Reason: ReasonOutsideView, Subject: name,
			Msg: "the path is outside " + display(f.base)}
	}
	return clean, nil
}

// resolveWrite is resolve for an operation that changes name: it refuses
// read-only views and the view's own directory.
func (f *FS) resolveWrite(name string) (string, error) {
	if f.readOnly {
		return "", &skillerr.Error{Code: skillerr.PermissionDenied, Reason: ReasonReadOnly, Subject: name,
			Msg: "this view of the skills is read-only", Err: fs.ErrPermission}
	}
	p, err := f.resolve(name)
	if err == nil && p == f.base {
		return "", &skillerr.Error{Code: skillerr.PermissionDenied, Reason: ReasonRoot, Subject: name,
			Msg: display(p) + " is the root of this view and cannot be changed", Err: fs.ErrPermission}
	}
	return p, err
}

// display spells p, relative to Root, as the absolute path people see.
func display(p string) string { return path.Join(Root, p) }

// Open implements fs.FS.
func (f *FS) Open(name string) (fs.File, error) {
	return f.OpenFile(name, hackpadfs.FlagReadOnly, 0)
}

// OpenFile implements hackpadfs.OpenFileFS. A read-only view opens files
// for reading only, and its files have no Write, Truncate or Chmod.
func (f *FS) OpenFile(name string, flag int, perm fs.FileMode) (fs.File, error) {
	const writeFlags = hackpadfs.FlagWriteOnly | hackpadfs.FlagReadWrite | hackpadfs.FlagCreate |
		hackpadfs.FlagTruncate | hackpadfs.FlagAppend
	resolve := f.resolve
	if flag&writeFlags != 0 {
		resolve = f.resolveWrite
	}
	p, err := resolve(name)
	if err != nil {
		return nil, err
	}
	file, err := f.kv.OpenFile(p, flag, perm)
	if err != nil {
		return nil, fsErr(p, err)
	}
	if flag&writeFlags != 0 {
		return file, nil
	}
	// Stat answers from the record just read: no extra request.
	if info, _ := file.Stat(); info.IsDir() {
		return &dirFile{fsys: f, path: p, info: info}, nil
	}
	if f.readOnly {
		return readOnlyFile{file.(readFile)}, nil
	}
	return file, nil
}

// readFile is the part of an open regular file a read-only view passes on;
// the keyvalue file under it could otherwise Truncate or Chmod.
type readFile interface {
	fs.File
	io.ReaderAt
	io.Seeker
}

type readOnlyFile struct{ readFile }

// dirFile is an open directory. Its ReadDir is FS.ReadDir (one read)
// rather than keyvalue's, which stats every entry in its own transaction
// and restarts after the last entry instead of reporting io.EOF.
type dirFile struct {
	fsys    *FS
	path    string
	info    fs.FileInfo
	entries []fs.DirEntry // not yet returned
	loaded  bool
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error)   { return 0, fsErr(d.path, hackpadfs.ErrIsDir) }
func (d *dirFile) Close() error               { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.loaded {
		entries, err := d.fsys.readDir(d.path)
		if err != nil {
			return nil, err
		}
		d.entries, d.loaded = entries, true
	}
	if n <= 0 {
		rest := d.entries
		d.entries = nil
		return rest, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	k := min(n, len(d.entries))
	out := d.entries[:k]
	d.entries = d.entries[k:]
	return out, nil
}

// Mkdir implements hackpadfs.MkdirFS.
func (f *FS) Mkdir(name string, perm fs.FileMode) error {
	return f.write(name, func(p string) error { return f.kv.Mkdir(p, perm) })
}

// MkdirAll implements hackpadfs.MkdirAllFS.
func (f *FS) MkdirAll(name string, perm fs.FileMode) error {
	return f.write(name, func(p string) error { return f.kv.MkdirAll(p, perm) })
}

// Remove implements hackpadfs.RemoveFS. Remove a whole skill with
// DeleteSkill's ops instead: one commit, not one per file.
func (f *FS) Remove(name string) error {
	return f.write(name, f.kv.Remove)
}

// Chmod implements hackpadfs.ChmodFS.
func (f *FS) Chmod(name string, mode fs.FileMode) error {
	return f.write(name, func(p string) error { return f.kv.Chmod(p, mode) })
}

// Chtimes implements hackpadfs.ChtimesFS. Times are kept to the millisecond.
func (f *FS) Chtimes(name string, atime, mtime time.Time) error {
	return f.write(name, func(p string) error { return f.kv.Chtimes(p, atime, mtime) })
}

// Rename implements hackpadfs.RenameFS; both names must be in the view.
// See rename for what it refuses.
func (f *FS) Rename(oldname, newname string) error {
	return f.write(oldname, func(oldp string) error {
		return f.write(newname, func(newp string) error { return rename(context.Background(), f.db, oldp, newp) })
	})
}

// write resolves name for writing and runs op on the clean path.
func (f *FS) write(name string, op func(p string) error) error {
	p, err := f.resolveWrite(name)
	if err != nil {
		return err
	}
	return fsErr(p, op(p))
}

// Stat implements hackpadfs.StatFS. Generation(info) gives the stamp.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	p, err := f.resolve(name)
	if err != nil {
		return nil, err
	}
	return statPath(context.Background(), f.db, p)
}

// ReadDir implements hackpadfs.ReadDirFS with one read of the directory's
// record and of its subdirectories', sorted by name.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := f.resolve(name)
	if err != nil {
		return nil, err
	}
	return f.readDir(p)
}

// readDir lists the clean path p: its own record lists its files, and the
// records of its key range are its subdirectories.
func (f *FS) readDir(p string) ([]fs.DirEntry, error) {
	res, err := f.db.Read(context.Background(), Get(StoreFiles, fileKeyOrRoot(p)), GetPrefix(StoreFiles, childPrefix(p)))
	if err != nil {
		return nil, err
	}
	if p != "." && len(res[0]) == 0 {
		// A file or nothing: the stat says which.
		if _, err := statPath(context.Background(), f.db, p); err != nil {
			return nil, err
		}
		return nil, fsErr(p, hackpadfs.ErrNotDir)
	}
	info, err := statOf(p, res[0], nil)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fsErr(p, hackpadfs.ErrNotDir)
	}
	found, err := children(res[0], res[1])
	if err != nil {
		return nil, err
	}
	entries := make([]fs.DirEntry, len(found))
	for i, e := range found {
		entries[i] = fs.FileInfoToDirEntry(fileInfo{name: e.name, meta: e.meta})
	}
	return entries, nil
}

// ReadFile implements hackpadfs.ReadFileFS.
func (f *FS) ReadFile(name string) ([]byte, error) {
	data, _, err := f.ReadFileGen(name)
	return data, err
}

// ReadFileGen returns the contents of the file name and the generation
// stamp stored with them, read in one transaction, so a reader can tell a
// file of another version of the skill from the one it expects.
func (f *FS) ReadFileGen(name string) (data []byte, gen string, err error) {
	p, qs, err := f.FileQueries(name)
	if err != nil {
		return nil, "", err
	}
	res, err := f.db.Read(context.Background(), qs...)
	if err != nil {
		return nil, "", err
	}
	return DecodeFile(p, res)
}

// FileQueries returns the queries that read the file name (in this view)
// and its record, and its clean path from the mount point: run them in one
// Read with any other queries and hand their results to DecodeFile.
func (f *FS) FileQueries(name string) (p string, qs []Query, err error) {
	if p, err = f.resolve(name); err != nil {
		return "", nil, err
	}
	return p, append(lookupQueries(p), Get(StoreBlobs, fileKey(p))), nil
}

// DecodeFile returns the contents and the generation stamp of the file at
// clean path p from the results of the queries FileQueries gave for it.
func DecodeFile(p string, read [][]Record) (data []byte, gen string, err error) {
	if len(read) != 3 {
		return nil, "", skillerr.New(skillerr.InvalidArgument, p, "DecodeFile takes the results of FileQueries")
	}
	info, err := statOf(p, read[0], read[1])
	switch {
	case err != nil:
		return nil, "", err
	case info.IsDir():
		return nil, "", fsErr(p, hackpadfs.ErrIsDir)
	}
	data, found := valueOf(read[2])
	if err := checkContents(display(p), info.Size(), data, found); err != nil {
		return nil, "", err
	}
	return data, Generation(info), nil
}

// statOf returns the info of p from the results of lookupQueries(p).
func statOf(p string, own, parent []Record) (fs.FileInfo, error) {
	m, err := lookup(p, own, parent)
	if err != nil {
		return nil, err
	}
	return fileInfo{name: path.Base(p), meta: m}, nil
}

// fileInfo is the fs.FileInfo of a StoreFiles record.
type fileInfo struct {
	name string
	meta
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return i.mode }
func (i fileInfo) ModTime() time.Time { return i.modTime }
func (i fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fileInfo) Sys() any           { return fileSys{gen: i.gen} }

// fileSys is what FileInfo.Sys returns for entries of the skills tree.
type fileSys struct{ gen string }

// Generation returns the generation stamp stored with the file or directory
// info describes ("" when it was written outside PutSkill or info does not
// come from this package).
func Generation(info fs.FileInfo) string {
	sys, _ := info.Sys().(fileSys)
	return sys.gen
}

// fsErr turns an error of the keyvalue file system about p into a
// *skillerr.Error that still matches the fs.Err... value it carries.
func fsErr(p string, err error) error {
	if err == nil {
		return nil
	}
	var e *skillerr.Error
	if errors.As(err, &e) {
		return e
	}
	code, reason, msg := skillerr.Internal, "", "file system error"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code, reason, msg = skillerr.SkillNotFound, ReasonNotExist, "no such file or directory"
	case errors.Is(err, hackpadfs.ErrNotEmpty): // before ErrExist, which it also matches
		code, reason, msg = skillerr.Conflict, ReasonNotEmpty, "directory is not empty"
	case errors.Is(err, fs.ErrExist):
		code, reason, msg = skillerr.Conflict, ReasonExist, "already exists"
	case errors.Is(err, hackpadfs.ErrIsDir):
		code, reason, msg = skillerr.InvalidArgument, ReasonIsDir, "is a directory"
	case errors.Is(err, hackpadfs.ErrNotDir):
		code, reason, msg = skillerr.InvalidArgument, ReasonNotDir, "not a directory"
	case errors.Is(err, fs.ErrPermission):
		code, msg = skillerr.PermissionDenied, "permission denied"
	case errors.Is(err, hackpadfs.ErrInvalid):
		code, msg = skillerr.InvalidArgument, "invalid argument"
	}
	return &skillerr.Error{Code: code, Reason: reason, Subject: display(p), Msg: msg, Err: err}
}
