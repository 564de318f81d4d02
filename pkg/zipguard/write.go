package zipguard

import (
	"archive/zip"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
)

// dosDate1980 is 1980-01-01 in MS-DOS date format, the earliest time a zip
// header can hold: every entry Write emits carries it, at 00:00.
const dosDate1980 = 1<<5 | 1

// storedExts are formats that are compressed already; deflating them again
// costs time in the browser and gains nothing.
var storedExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true,
	".zip": true, ".gz": true, ".tgz": true, ".bz2": true, ".xz": true, ".zst": true,
	".woff": true, ".woff2": true, ".mp3": true, ".mp4": true, ".pdf": true,
}

// Write writes files as a zip archive to w, each under prefix (a directory
// such as "pdf-tools", or "" for the archive root). The output depends only
// on the paths, contents and executable bits: entries are sorted by path,
// dated 1980-01-01, mode 0644 or 0755, deflated (stored for formats that are
// compressed already), with no extra fields. Read accepts what Write writes.
//
// Paths are cleaned with skillpath.Clean; a path that is rejected, or that
// clashes with another as Read would see it, fails with the same reason Read
// would give, before anything is written.
func Write(w io.Writer, files []File, prefix string) error {
	prefix, err := skillpath.Clean(prefix)
	if err != nil {
		return err
	}
	sorted := make([]File, len(files))
	t := newTree()
	for i, f := range files {
		p, err := skillpath.Clean(f.Path)
		if err != nil {
			return err
		}
		if p == skillpath.Root {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonEmptyName, Subject: f.Path, Msg: "a file has no name"}
		}
		if prefix != skillpath.Root {
			p = prefix + "/" + p
		}
		if reason, msg := t.add(p, false); reason != "" {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: reason, Subject: f.Path, Msg: msg}
		}
		f.Path = p
		sorted[i] = f
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })

	zw := zip.NewWriter(w)
	for _, f := range sorted {
		h := &zip.FileHeader{
			Name:   f.Path,
			Method: zip.Deflate,
			// Set directly, not through Modified, which would add an
			// extended-timestamp extra field.
			ModifiedDate: dosDate1980,
		}
		if storedExts[strings.ToLower(path.Ext(f.Path))] {
			h.Method = zip.Store
		}
		h.SetMode(0o644)
		if f.Mode&0o111 != 0 {
			h.SetMode(0o755)
		}
		fw, err := zw.CreateHeader(h)
		if err == nil {
			_, err = fw.Write(f.Data)
		}
		if err != nil {
			return skillerr.Wrap(skillerr.Internal, f.Path, err, "cannot write the archive")
		}
	}
	if err := zw.Close(); err != nil {
		return skillerr.Wrap(skillerr.Internal, "", err, "cannot write the archive")
	}
	return nil
}
