package vfs

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hack-pad/hackpadfs"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// A directory's record in StoreFiles holds its own meta and the meta of
// every regular file directly in it; a subdirectory has a record of its
// own. So a skill's tree is one record per directory plus one content per
// file, and an import writes one request per file, not two
// (docs/architecture.md, Import). The stores of schema version 2 gave each
// file a record of its own, and a file directly in /skills, which has no
// record to list it, still gets one: both are read wherever a file's
// parent would list it, and a write through the file system replaces such
// a record with an entry.

// listsFiles marks, in a record's encoded mode, a record that lists files
// (above any fs.FileMode bit).
const listsFiles = 1 << 32

// MaxDirFiles bounds the files one directory's record lists, which bounds
// what decoding it holds: 72 bytes an entry in Go besides the names, where
// an entry may take six bytes stored, so a record of another program's
// could make its decoding hold twelve times its bytes. An import holds a
// directory to 10,000 files (zipguard.DefaultLimits), and no write stores
// one past this (NewTree, a write through the file system): a record
// listing more is refused wherever it is read, TooLarge with
// ReasonTooManyFiles, before anything is allocated for its entries.
const MaxDirFiles = 100_000

// record is one decoded value of StoreFiles.
type record struct {
	meta
	files []entry // sorted by name; only in a directory's record
}

// entry is a regular file as its directory's record lists it.
type entry struct {
	name string
	meta
}

// encode returns r as bytes. A directory's record is meta.encode's layout
// with listsFiles set in the mode, the generation's length before it, then
// the number of files and, for each, its name's length and name, mode,
// Unix milliseconds, size and generation: its length plus one, or 0 for
// the directory's own (an import stamps them all alike). A file's own
// record is meta.encode's.
func (r *record) encode() []byte {
	if !r.mode.IsDir() {
		return r.meta.encode()
	}
	b := binary.AppendUvarint(nil, uint64(r.mode)|listsFiles)
	b = binary.AppendVarint(b, r.modTime.UnixMilli())
	b = binary.AppendUvarint(b, uint64(r.size))
	b = binary.AppendUvarint(b, uint64(len(r.gen)))
	b = append(b, r.gen...)
	b = binary.AppendUvarint(b, uint64(len(r.files)))
	for _, e := range r.files {
		b = binary.AppendUvarint(b, uint64(len(e.name)))
		b = append(b, e.name...)
		b = binary.AppendUvarint(b, uint64(e.mode))
		b = binary.AppendVarint(b, e.modTime.UnixMilli())
		b = binary.AppendUvarint(b, uint64(e.size))
		if e.gen == r.gen {
			b = append(b, 0)
		} else {
			b = binary.AppendUvarint(b, uint64(len(e.gen))+1)
			b = append(b, e.gen...)
		}
	}
	return b
}

// decodeRecord decodes the StoreFiles value b stored under key.
func decodeRecord(key string, b []byte) (*record, error) { return decodeListing(key, b, nil) }

// decodeListing is decodeRecord keeping, of the files a directory's record
// lists, only the one called *only when only is not nil (none for
// &noFile). Every entry is checked all the same, but only that one
// allocates: a stat of a file in a directory of 10,000, or of the
// directory itself (docs/architecture.md, Storage).
func decodeListing(key string, b []byte, only *string) (*record, error) {
	d := decoder{b: b}
	mode := d.uvarint()
	if mode&listsFiles == 0 {
		m, err := decodeMeta(key, b)
		return &record{meta: m}, err
	}
	r := &record{meta: meta{mode: fs.FileMode(mode &^ listsFiles)}}
	var size uint64
	r.modTime, size, r.gen = d.millis(), d.uvarint(), d.str(d.uvarint())
	r.size = int64(size)
	n := d.uvarint()
	// An entry takes six bytes at least: a name of one, its length, mode,
	// time, size and generation.
	if d.bad || n > uint64(len(d.b))/6 || !storable(r.mode, mode&^listsFiles, size) || !r.mode.IsDir() {
		return nil, corruptRecord(key)
	}
	if n > MaxDirFiles {
		return nil, tooManyFiles(keyPath(key), n)
	}
	if only == nil {
		r.files = make([]entry, 0, n)
	}
	var prev []byte
	for range n {
		name := d.bytes(d.uvarint())
		mode := d.uvarint()
		ms := d.varint()
		size := d.uvarint()
		g := d.uvarint()
		gen := d.bytes(g - min(g, 1))
		// Lookups binary-search the names, and each becomes a path.
		if d.bad || !storable(fs.FileMode(mode), mode, size) || !fs.FileMode(mode).IsRegular() ||
			!validName(name) || prev != nil && string(prev) >= string(name) {
			return nil, corruptRecord(key)
		}
		prev = name
		if only != nil && string(name) != *only {
			continue
		}
		e := entry{name: string(name), meta: meta{mode: fs.FileMode(mode), modTime: time.UnixMilli(ms), size: int64(size), gen: r.gen}}
		if g > 0 {
			e.gen = string(gen)
		}
		r.files = append(r.files, e)
	}
	if d.bad || len(d.b) != 0 {
		return nil, corruptRecord(key)
	}
	return r, nil
}

// noFile is a name no file has.
var noFile = ""

// validName reports whether name can be an entry of a directory.
func validName[S string | []byte](name S) bool {
	if len(name) == 0 || string(name) == "." || string(name) == ".." {
		return false
	}
	for i := range len(name) {
		if name[i] == '/' {
			return false
		}
	}
	return true
}

// corruptRecord is the error of the StoreFiles record under key, which
// another program wrote.
func corruptRecord(key string) error {
	return skillerr.New(skillerr.Internal, skillerr.Clip(keyPath(key)), "corrupt file record")
}

// keyPath is the path below /skills that key stands for, which an error
// names: a person reads "pdf/notes.md", not the key "pdf//notes.md". A key
// fileKey cannot give is named as it is.
func keyPath(key string) string {
	dir, name, ok := strings.Cut(key, "//")
	switch {
	case !ok:
		return key
	case dir == "":
		return name
	}
	return dir + "/" + name
}

// tooManyFiles is the error of directory p listing n files, past
// MaxDirFiles. A record another program wrote may name a long path: the
// subject is clipped.
func tooManyFiles(p string, n uint64) error {
	return &skillerr.Error{Code: skillerr.TooLarge, Reason: ReasonTooManyFiles, Subject: skillerr.Clip(p),
		Msg: fmt.Sprintf("%d files in one directory, more than the %d one may hold", n, MaxDirFiles)}
}

// decoder reads a record's fields; a short or malformed field sets bad.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	if len(d.b) > 0 && d.b[0] < 0x80 { // most of an entry's fields, without a call
		v := d.b[0]
		d.b = d.b[1:]
		return uint64(v)
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) millis() time.Time { return time.UnixMilli(d.varint()) }

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str(n uint64) string { return string(d.bytes(n)) }

// bytes returns the next n bytes, a view of the record's.
func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return nil
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}

// file returns the entry of the file called name.
func (r *record) file(name string) (entry, bool) {
	i, ok := r.find(name)
	if !ok {
		return entry{}, false
	}
	return r.files[i], true
}

// find returns where the file called name is listed, or would be. (The
// generic slices functions would be compiled again for entry, which the
// module's size pays for: sort's are already in it.)
func (r *record) find(name string) (int, bool) {
	i := sort.Search(len(r.files), func(i int) bool { return r.files[i].name >= name })
	return i, i < len(r.files) && r.files[i].name == name
}

// lookupQueries returns the queries that find the clean path p: its own
// record (a directory's, or a file's that has one) and its parent
// directory's, which lists it when it is a file. Hand their results to
// lookup.
func lookupQueries(p string) []Query {
	return []Query{Get(StoreFiles, fileKeyOrRoot(p)), Get(StoreFiles, fileKeyOrRoot(path.Dir(p)))}
}

// lookup returns the meta of the clean path p from the results of
// lookupQueries(p).
func lookup(p string, own, parent []Record) (meta, error) {
	if p == "." {
		return rootMeta, nil
	}
	if len(own) > 0 {
		r, err := decodeListing(own[0].Key, own[0].Value, &noFile)
		if err != nil {
			return meta{}, err
		}
		return r.meta, nil
	}
	if len(parent) > 0 {
		name := path.Base(p)
		r, err := decodeListing(parent[0].Key, parent[0].Value, &name)
		if err != nil {
			return meta{}, err
		}
		if len(r.files) > 0 {
			return r.files[0].meta, nil
		}
	}
	return meta{}, fsErr(p, hackpadfs.ErrNotExist)
}

// children returns what the directory whose record is own holds: the files
// it lists and the records of its key range (below), by name.
func children(own, below []Record) ([]entry, error) {
	var out []entry
	if len(own) > 0 {
		r, err := decodeRecord(own[0].Key, own[0].Value)
		if err != nil {
			return nil, err
		}
		out = r.files[:len(r.files):len(r.files)]
	}
	for _, rec := range below {
		r, err := decodeListing(rec.Key, rec.Value, &noFile) // a subdirectory: its own meta
		if err != nil {
			return nil, err
		}
		p, err := pathOfKey(rec.Key)
		if err != nil {
			return nil, err
		}
		out = append(out, entry{name: path.Base(p), meta: r.meta})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	for i := 1; i < len(out); i++ {
		if out[i].name == out[i-1].name { // listed and with a record of its own
			return nil, corruptRecord(own[0].Key)
		}
	}
	return out, nil
}

// edits changes StoreFiles records a path at a time, starting from what
// a Read found, and returns the ops that store the result: a write of one
// file rewrites its directory's record.
type edits struct {
	recs    map[string]*record // by key; nil: none
	changed []string           // keys, in the order first changed
}

func newEdits() *edits { return &edits{recs: map[string]*record{}} }

// see records what Get(StoreFiles, key) found, unless the key is known.
func (e *edits) see(key string, found []Record) error {
	if _, ok := e.recs[key]; ok {
		return nil
	}
	var r *record
	if len(found) > 0 {
		var err error
		if r, err = decodeRecord(key, found[0].Value); err != nil {
			return err
		}
	}
	e.recs[key] = r
	return nil
}

// seeAll records the results of lookupQueries(p).
func (e *edits) seeAll(p string, res [][]Record) error {
	qs := lookupQueries(p)
	for i, q := range qs {
		if err := e.see(q.Key, res[i]); err != nil {
			return err
		}
	}
	return nil
}

func (e *edits) set(key string, r *record) {
	if !slices.Contains(e.changed, key) {
		e.changed = append(e.changed, key)
	}
	e.recs[key] = r
}

// seenDir returns the record of directory p, which must have been seen.
func (e *edits) seenDir(p string) (*record, error) {
	r := e.recs[fileKey(p)]
	switch {
	case r == nil:
		return nil, fsErr(p, hackpadfs.ErrNotExist)
	case !r.mode.IsDir():
		return nil, fsErr(p, hackpadfs.ErrNotDir)
	}
	return r, nil
}

// dir returns a copy of the record of directory p, which must have been
// seen, to change and set.
func (e *edits) dir(p string) (*record, error) {
	r, err := e.seenDir(p)
	if err != nil {
		return nil, err
	}
	c := *r
	c.files = append([]entry(nil), r.files...)
	return &c, nil
}

// putDir stores directory p with meta m, keeping the files it lists.
// keyvalue checked before the lock that p is no file and (Mkdir) that its
// parent exists: it must also be a directory, and none of it changed since.
func (e *edits) putDir(p string, m meta) error {
	if dir := path.Dir(p); dir != "." {
		parent, err := e.seenDir(dir)
		if err != nil {
			return err
		}
		if _, ok := parent.file(path.Base(p)); ok {
			return fsErr(p, hackpadfs.ErrExist)
		}
	}
	old := e.recs[fileKey(p)]
	if old != nil && !old.mode.IsDir() {
		return fsErr(p, hackpadfs.ErrExist)
	}
	r := &record{meta: m}
	if old != nil {
		r.files = old.files
	}
	e.set(fileKey(p), r)
	return nil
}

// putFile lists file p with meta m in its directory's record (replacing a
// record of its own), or in a record of its own directly in /skills.
// keyvalue checked before the lock that p is no directory.
func (e *edits) putFile(p string, m meta) error {
	if old := e.recs[fileKey(p)]; old != nil && old.mode.IsDir() {
		return fsErr(p, hackpadfs.ErrIsDir)
	}
	dir := path.Dir(p)
	if dir == "." {
		e.set(fileKey(p), &record{meta: m})
		return nil
	}
	r, err := e.dir(dir)
	if err != nil {
		return err
	}
	i, found := r.find(path.Base(p))
	if !found && len(r.files) >= MaxDirFiles {
		return tooManyFiles(p, uint64(len(r.files))+1)
	}
	if !found {
		r.files = append(r.files, entry{})
		copy(r.files[i+1:], r.files[i:])
	}
	r.files[i] = entry{name: path.Base(p), meta: m}
	e.set(fileKey(dir), r)
	e.drop(p)
	return nil
}

// remove deletes p's own record and its entry in its directory's record.
func (e *edits) remove(p string) error {
	e.drop(p)
	return e.unlist(p)
}

// unlist deletes p's entry in its directory's record, if it has one.
func (e *edits) unlist(p string) error {
	dir := path.Dir(p)
	if dir == "." {
		return nil
	}
	if r := e.recs[fileKey(dir)]; r == nil {
		return nil
	} else if _, ok := r.file(path.Base(p)); !ok {
		return nil
	}
	r, err := e.dir(dir)
	if err != nil {
		return err
	}
	i, _ := r.find(path.Base(p))
	r.files = append(r.files[:i], r.files[i+1:]...)
	e.set(fileKey(dir), r)
	return nil
}

// drop deletes p's own record, if it has one.
func (e *edits) drop(p string) {
	if e.recs[fileKey(p)] != nil {
		e.set(fileKey(p), nil)
	}
}

// ops returns the writes of every change.
func (e *edits) ops() []Op {
	ops := make([]Op, len(e.changed))
	for i, key := range e.changed {
		if r := e.recs[key]; r != nil {
			ops[i] = Put(StoreFiles, key, r.encode())
		} else {
			ops[i] = Delete(StoreFiles, key)
		}
	}
	return ops
}
