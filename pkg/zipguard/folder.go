package zipguard

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
)

// skipDirs are folders a working copy holds beside its skills that no
// archive of it carries: they are not walked.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// ReadFolder reads the folder dir as Read reads an archive, so that a
// download and its extracted folder get the same verdict: the same skills,
// entries outside them dropped, links or special files inside a skill
// refused, the same names, collisions and limits (MaxArchiveSize excepted).
// .git and node_modules folders are not walked.
//
// Nothing is followed: entries are typed from the directory listing
// without following links, files are opened through an os.Root (no path
// can leave dir) without following a final link and without blocking on a
// pipe, their type and size are checked again once open, and reads stop at
// the size the listing gave. Only the files of skills are read.
func ReadFolder(dir string, limits Limits) (*Archive, error) {
	l := limits.withDefaults()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var ms []member
	pending := []string{"."}
	for len(pending) > 0 {
		d := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		entries, err := listDir(root, d, l.MaxEntries-len(ms))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			p := path.Join(d, e.Name())
			m := member{name: p, packed: -1}
			switch t := e.Type(); {
			case t.IsDir():
				if skipDirs[e.Name()] {
					continue
				}
				m.kind, m.name = kindDir, p+"/"
				pending = append(pending, p)
			case t&fs.ModeSymlink != 0:
				m.kind = kindSymlink
			case t.IsRegular():
				info, err := e.Info()
				if err != nil {
					return nil, err
				}
				m.size, m.exec, m.modified = info.Size(), info.Mode()&0o111 != 0, info.ModTime()
				m.read = func() ([]byte, error) { return readRegular(root, p, info.Size()) }
			default:
				m.kind, m.special = kindSpecial, t.String()
			}
			if len(ms) >= l.MaxEntries {
				return nil, fail(ReasonTooManyEntries, "", nil, "the folder has more than %d entries", l.MaxEntries)
			}
			ms = append(ms, m)
		}
	}
	return assemble(ms, l)
}

// listDir lists the directory d of root, failing once it holds more than
// room entries.
func listDir(root *os.Root, d string, room int) ([]fs.DirEntry, error) {
	f, err := root.OpenFile(d, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var all []fs.DirEntry
	for {
		batch, err := f.ReadDir(256)
		all = append(all, batch...)
		if len(all) > room {
			return nil, fail(ReasonTooManyEntries, "", nil, "the folder has too many entries")
		}
		if errors.Is(err, io.EOF) || err == nil && len(batch) == 0 {
			return all, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readRegular reads the regular file p of root, which the listing said
// holds size bytes.
func readRegular(root *os.Root, p string, size int64) ([]byte, error) {
	f, err := root.OpenFile(p, os.O_RDONLY|openNoFollow|openNonBlock, 0)
	if err != nil {
		return nil, fail(ReasonSpecialFile, p, err, "the file cannot be opened as a regular file")
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil, fail(ReasonSpecialFile, p, err, "the file changed into something else than a regular file while being read")
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, fail(ReasonSizeMismatch, p, err, "the file is shorter than its listing said")
	}
	var extra [1]byte
	if n, _ := f.Read(extra[:]); n > 0 {
		return nil, fail(ReasonSizeMismatch, p, nil, "the file grew while being read")
	}
	return buf, nil
}
