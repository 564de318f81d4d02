package zipguard

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// FS returns a read-only io/fs view of the skill's files, rooted at the
// skill directory, so that SKILL.md is "SKILL.md". Errors follow io/fs
// conventions (*fs.PathError wrapping fs.ErrNotExist, fs.ErrInvalid).
// Files share their bytes with s; readers get copies through io.Reader.
func (s Skill) FS() fs.FS {
	m := memFS{files: make(map[string]*File, len(s.Files)), dirs: map[string][]fs.DirEntry{".": nil}}
	for i := range s.Files {
		f := &s.Files[i]
		m.files[f.Path] = f
		m.link(f.Path, fileInfo{name: path.Base(f.Path), f: f})
	}
	for _, entries := range m.dirs {
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	return m
}

// memFS is an immutable in-memory file system built from clean paths.
type memFS struct {
	files map[string]*File
	dirs  map[string][]fs.DirEntry // directory path → its sorted entries
}

// link lists info in the directory holding p, creating the directories
// above it as needed.
func (m memFS) link(p string, info fileInfo) {
	parent := path.Dir(p)
	if _, ok := m.dirs[parent]; !ok {
		m.dirs[parent] = nil
		m.link(parent, fileInfo{name: path.Base(parent)})
	}
	m.dirs[parent] = append(m.dirs[parent], fs.FileInfoToDirEntry(info))
}

func (m memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if f, ok := m.files[name]; ok {
		return &openFile{Reader: bytes.NewReader(f.Data), info: fileInfo{name: path.Base(name), f: f}}, nil
	}
	if entries, ok := m.dirs[name]; ok {
		return &openDir{info: fileInfo{name: path.Base(name)}, entries: entries}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// fileInfo describes a file (f set) or a directory (f nil).
type fileInfo struct {
	name string
	f    *File
}

func (i fileInfo) Name() string { return i.name }
func (i fileInfo) IsDir() bool  { return i.f == nil }
func (i fileInfo) Sys() any     { return nil }

func (i fileInfo) Size() int64 {
	if i.f == nil {
		return 0
	}
	return int64(len(i.f.Data))
}

func (i fileInfo) Mode() fs.FileMode {
	if i.f == nil {
		return fs.ModeDir | 0o755
	}
	return i.f.Mode
}

func (i fileInfo) ModTime() time.Time {
	if i.f == nil {
		return time.Time{}
	}
	return i.f.Modified
}

type openFile struct {
	*bytes.Reader // Read, ReadAt, Seek
	info          fileInfo
}

func (f *openFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *openFile) Close() error               { return nil }

type openDir struct {
	info    fileInfo
	entries []fs.DirEntry
	next    int
}

func (d *openDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *openDir) Close() error               { return nil }

func (d *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: fs.ErrInvalid}
}

// ReadDir follows fs.ReadDirFile: n <= 0 returns the rest at once.
func (d *openDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.next:]
	if n <= 0 {
		d.next = len(d.entries)
		return slices.Clone(rest), nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.next += len(rest)
	return slices.Clone(rest), nil
}
