package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// skipDirs are folders a working copy holds beside its skills that no
// archive of it carries: they are not walked.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// readFolder reads the folder dir through the archive guard
// (zipguard.ReadEntries), so that a download and its extracted folder get
// the same verdict. .git and node_modules folders are not walked.
//
// Nothing is followed: entries are typed from the directory listing
// without following links, files are opened through an os.Root (no path
// can leave dir) without following a final link and without blocking on a
// pipe, their type is checked again once open, and reads stop at the size
// the listing gave. Only the files of skills are read.
func readFolder(dir string, l zipguard.Limits) (*zipguard.Archive, error) {
	l = l.WithDefaults()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var entries []zipguard.Entry
	pending := []string{"."}
	for len(pending) > 0 {
		d := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		list, err := listDir(root, d, l.MaxEntries-len(entries))
		if err != nil {
			return nil, err
		}
		for _, de := range list {
			p := path.Join(d, de.Name())
			e := zipguard.Entry{Name: p}
			switch t := de.Type(); {
			case t.IsDir():
				if skipDirs[de.Name()] {
					continue
				}
				e.Type, e.Name = zipguard.EntryDir, p+"/"
				pending = append(pending, p)
			case t&fs.ModeSymlink != 0:
				e.Type = zipguard.EntrySymlink
			case t.IsRegular():
				info, err := de.Info()
				if err != nil {
					return nil, err
				}
				e.Size, e.Exec, e.Modified = info.Size(), info.Mode()&0o111 != 0, info.ModTime()
				e.Read = func() ([]byte, error) { return readRegular(root, p, info.Size()) }
			default:
				e.Type, e.Special = zipguard.EntrySpecial, t.String()
			}
			if len(entries) >= l.MaxEntries {
				return nil, tooMany(l)
			}
			entries = append(entries, e)
		}
	}
	return zipguard.ReadEntries(entries, l)
}

func tooMany(l zipguard.Limits) error {
	return &skillerr.Error{Code: skillerr.InvalidArchive, Reason: zipguard.ReasonTooManyEntries,
		Msg: fmt.Sprintf("the folder has more than %d entries", l.MaxEntries)}
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
			return nil, &skillerr.Error{Code: skillerr.InvalidArchive, Reason: zipguard.ReasonTooManyEntries, Subject: d,
				Msg: "the folder has more entries than an archive may"}
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
	refuse := func(reason string, err error, msg string) error {
		return &skillerr.Error{Code: skillerr.InvalidArchive, Reason: reason, Subject: p, Msg: msg, Err: err}
	}
	f, err := root.OpenFile(p, os.O_RDONLY|openNoFollow|openNonBlock, 0)
	if err != nil {
		return nil, refuse(zipguard.ReasonSpecialFile, err, "the file cannot be opened as a regular file")
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, refuse(zipguard.ReasonSpecialFile, err, "the file changed into something else than a regular file")
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, refuse(zipguard.ReasonSizeMismatch, err, "the file is shorter than its listing said")
	}
	var extra [1]byte
	if n, _ := f.Read(extra[:]); n > 0 {
		return nil, refuse(zipguard.ReasonSizeMismatch, nil, "the file grew while being read")
	}
	return buf, nil
}
