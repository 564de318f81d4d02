package zipguard

import (
	"fmt"
	"path"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// tree records the files and directories of an archive under a folded key,
// so that names which would land on the same file on a case-insensitive or
// normalising file system (macOS, Windows) are caught: "A.md" and "a.md",
// "é" composed and decomposed, a file "x" and a directory "x/".
type tree struct {
	fold  cases.Caser // not safe for concurrent use: one per tree
	nodes map[string]node
}

type node struct {
	path string
	dir  bool
}

func newTree() *tree {
	return &tree{fold: cases.Fold(), nodes: make(map[string]node)}
}

// key folds case after NFKC, the same order as Unicode's NFKC_Casefold,
// then normalises again because folding can denormalise.
func (t *tree) key(p string) string {
	return norm.NFKC.String(t.fold.String(norm.NFKC.String(p)))
}

// add records p, a clean path, and its parent directories. It returns a
// reason and message when p clashes with a recorded name, or "".
func (t *tree) add(p string, dir bool) (reason, msg string) {
	if parent := path.Dir(p); parent != "." {
		if reason, msg := t.add(parent, true); reason != "" {
			return reason, msg
		}
	}
	k := t.key(p)
	n, ok := t.nodes[k]
	switch {
	case !ok:
		t.nodes[k] = node{p, dir}
		return "", ""
	case n.path != p:
		return ReasonCollision, fmt.Sprintf("the name clashes with %q: they differ only in case or Unicode normalisation", n.path)
	case n.dir && dir:
		return "", ""
	case !n.dir && !dir:
		return ReasonDuplicate, "the archive holds this file twice"
	default:
		return ReasonCollision, "the name is both a file and a directory"
	}
}
