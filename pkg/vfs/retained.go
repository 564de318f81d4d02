package vfs

// Retained versions (docs/architecture.md, Snapshots): the files of a
// skill as an earlier version had them, kept after a replace or an edit
// while sessions that started before still read that version. Their
// contents live in StoreBlobs under "retained:<digest>/<path>", a key no
// path of the tree can have (a skill path holds no colon), so the tree's
// reads and DeleteSkill never see them; the registry keeps a record of
// each beside them and decides how long they live.

const retainedPrefix = "retained:"

// RetainedBlobKey is the key of file path (relative to its skill) of the
// retained version digest.
func RetainedBlobKey(digest, path string) string { return retainedPrefix + digest + "/" + path }

// PutRetained returns the ops that keep the regular files of files (a
// skill's tree as DecodeSkill returns it, with contents) as the retained
// version digest.
func PutRetained(digest string, files []File) []Op {
	var ops []Op
	for _, f := range files {
		if !f.Mode.IsDir() {
			data := f.Data
			if data == nil {
				data = []byte{}
			}
			ops = append(ops, Put(StoreBlobs, RetainedBlobKey(digest, f.Path), data))
		}
	}
	return ops
}

// DeleteRetained returns the op that deletes the files of the retained
// version digest: one request however many there are.
func DeleteRetained(digest string) Op { return DeletePrefix(StoreBlobs, retainedPrefix+digest+"/") }

// RetainedFiles returns the query that reads every file of the retained
// version digest; a record's key less RetainedBlobKey(digest, "") is its
// path.
func RetainedFiles(digest string) Query { return GetPrefix(StoreBlobs, retainedPrefix+digest+"/") }
