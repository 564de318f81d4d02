package vfs

import (
	"context"
	"io/fs"
	"path"
	"strings"

	"github.com/hack-pad/hackpadfs"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// rename moves the clean path oldp, a file or a whole directory, to newp
// in one read and one commit, under treeLock, so it lands whole or not at all (keyvalue's
// own Rename moves a directory one child at a time, and overwrote a
// directory with a file, or wrote into a missing parent or into the
// directory being moved). It refuses as POSIX rename does: a missing
// source or parent (fs.ErrNotExist), a parent that is a file, a directory
// onto a file (hackpadfs.ErrNotDir), a file onto a directory
// (hackpadfs.ErrIsDir), a directory onto a non-empty one (ErrNotEmpty,
// which matches fs.ErrExist), a directory into its own subtree
// (fs.ErrInvalid). A file replaces a file, a directory an empty one.
func rename(ctx context.Context, db Backend, oldp, newp string) error {
	if oldp == newp {
		_, err := statPath(ctx, db, oldp)
		return err
	}
	return db.Lock(ctx, treeLock, func(ctx context.Context) error {
		qs := append(append(append(lookupQueries(oldp), lookupQueries(path.Dir(newp))...), lookupQueries(newp)...),
			GetPrefix(StoreFiles, childPrefix(newp)),
			GetPrefix(StoreFiles, oldp+"/"),
			GetPrefix(StoreBlobs, oldp+"/"),
			Get(StoreBlobs, fileKey(oldp)),
		)
		res, err := db.Read(ctx, qs...)
		if err != nil {
			return err
		}
		old, err := lookup(oldp, res[0], res[1])
		if err != nil {
			return err
		}
		if old.mode.IsDir() && strings.HasPrefix(newp, oldp+"/") {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonIntoItself, Subject: display(newp),
				Msg: "a directory cannot be moved into itself", Err: fs.ErrInvalid}
		}
		parent, err := statOf(path.Dir(newp), res[2], res[3])
		if err != nil {
			return err
		}
		if !parent.IsDir() {
			return fsErr(path.Dir(newp), hackpadfs.ErrNotDir)
		}
		if target, err := lookup(newp, res[4], res[5]); err == nil {
			switch {
			case !old.mode.IsDir() && target.mode.IsDir():
				return fsErr(newp, hackpadfs.ErrIsDir)
			case old.mode.IsDir() && !target.mode.IsDir():
				return fsErr(newp, hackpadfs.ErrNotDir)
			}
			if in, err := children(res[4], res[6]); err != nil {
				return err
			} else if len(in) > 0 {
				return fsErr(newp, hackpadfs.ErrNotEmpty)
			}
		}
		e := newEdits()
		if err := e.seeAll(oldp, res[0:2]); err != nil {
			return err
		}
		if err := e.seeAll(newp, res[4:6]); err != nil {
			return err
		}
		moved := e.recs[fileKey(oldp)]
		if err := e.remove(oldp); err != nil {
			return err
		}
		var puts []Op
		if old.mode.IsDir() {
			e.set(fileKey(newp), moved)
			// Everything below a directory, under the new name.
			for i, store := range []string{StoreFiles, StoreBlobs} {
				for _, r := range res[7+i] {
					p, err := pathOfKey(r.Key)
					if err != nil {
						return err
					}
					puts = append(puts, Put(store, fileKey(newp+p[len(oldp):]), r.Value))
				}
			}
		} else {
			if err := e.putFile(newp, old); err != nil {
				return err
			}
			if len(res[9]) == 1 {
				puts = append(puts, Put(StoreBlobs, fileKey(newp), res[9][0].Value))
			}
		}
		ops := append(append([]Op{
			Delete(StoreBlobs, fileKey(oldp)),
			DeletePrefix(StoreFiles, oldp+"/"), DeletePrefix(StoreBlobs, oldp+"/"),
		}, e.ops()...), puts...)
		return fsErr(newp, db.Commit(ctx, ops...))
	})
}

// statPath returns the info of the clean path p.
func statPath(ctx context.Context, db Backend, p string) (fs.FileInfo, error) {
	res, err := db.Read(ctx, lookupQueries(p)...)
	if err != nil {
		return nil, err
	}
	return statOf(p, res[0], res[1])
}
