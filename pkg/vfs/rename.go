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
// in one read and one commit, so it lands whole or not at all (keyvalue's
// own Rename moves a directory one child at a time, and overwrote a
// directory with a file, or wrote into a missing parent or into the
// directory being moved). It refuses as POSIX rename does: a missing
// source or parent (fs.ErrNotExist), a parent that is a file, a directory
// onto a file (hackpadfs.ErrNotDir), a file onto a directory
// (hackpadfs.ErrIsDir), a directory onto a non-empty one (ErrNotEmpty,
// which matches fs.ErrExist), a directory into its own subtree
// (fs.ErrInvalid). A file replaces a file, a directory an empty one.
func rename(ctx context.Context, db Backend, oldp, newp string) error {
	res, err := db.Read(ctx,
		Get(StoreFiles, fileKey(oldp)),
		Get(StoreFiles, fileKeyOrRoot(path.Dir(newp))),
		Get(StoreFiles, fileKey(newp)),
		GetPrefix(StoreFiles, childPrefix(newp)),
		GetPrefix(StoreFiles, oldp+"/"),
		GetPrefix(StoreBlobs, oldp+"/"),
		Get(StoreBlobs, fileKey(oldp)),
	)
	if err != nil {
		return err
	}
	old, err := statOf(oldp, res[0])
	if err != nil {
		return err
	}
	if oldp == newp {
		return nil
	}
	if old.IsDir() && strings.HasPrefix(newp, oldp+"/") {
		return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonIntoItself, Subject: display(newp),
			Msg: "a directory cannot be moved into itself", Err: fs.ErrInvalid}
	}
	parent, err := statOf(path.Dir(newp), res[1])
	if err != nil {
		return err
	}
	if !parent.IsDir() {
		return fsErr(path.Dir(newp), hackpadfs.ErrNotDir)
	}
	ops := []Op{
		Delete(StoreFiles, fileKey(oldp)), Delete(StoreBlobs, fileKey(oldp)),
		DeletePrefix(StoreFiles, oldp+"/"), DeletePrefix(StoreBlobs, oldp+"/"),
	}
	if len(res[2]) == 1 {
		target, err := statOf(newp, res[2])
		switch {
		case err != nil:
			return err
		case !old.IsDir() && target.IsDir():
			return fsErr(newp, hackpadfs.ErrIsDir)
		case old.IsDir() && !target.IsDir():
			return fsErr(newp, hackpadfs.ErrNotDir)
		case target.IsDir() && len(res[3]) > 0:
			return fsErr(newp, hackpadfs.ErrNotEmpty)
		}
		ops = append(ops, Delete(StoreBlobs, fileKey(newp)))
	}
	ops = append(ops, Put(StoreFiles, fileKey(newp), res[0][0].Value))
	if len(res[6]) == 1 {
		ops = append(ops, Put(StoreBlobs, fileKey(newp), res[6][0].Value))
	}
	// Everything below a directory, under the new name.
	for _, store := range []struct {
		name string
		recs []Record
	}{{StoreFiles, res[4]}, {StoreBlobs, res[5]}} {
		for _, r := range store.recs {
			ops = append(ops, Put(store.name, fileKey(newp+pathOfKey(r.Key)[len(oldp):]), r.Value))
		}
	}
	return fsErr(newp, db.Commit(ctx, ops...))
}

// pathOfKey returns the clean path stored under key (see fileKey).
func pathOfKey(key string) string {
	i := strings.LastIndex(key, "//")
	return strings.TrimPrefix(key[:i]+"/"+key[i+2:], "/")
}
