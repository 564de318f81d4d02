package zipguard

import (
	"fmt"
	"strings"
)

// tree is an archive's paths as a trie of segments. It answers the two
// questions Read asks of every entry in time linear in the entry's path,
// whatever its depth: which skill directory holds it (owner), and whether it
// lands on the same file as another kept entry on a case-insensitive or
// normalising file system (keep): "A.md" and "a.md", "é" composed and
// decomposed, a file "x" and a directory "x/". Each segment is folded once,
// when its node is first kept, so an archive costs the folding of its
// distinct segments, never that of every prefix of every path.
type tree struct {
	root *node
	// The edges of the trie in two maps for the whole tree, not maps
	// per node: most directories of an archive hold one entry, and a
	// map per node would cost hundreds of bytes each.
	kids   map[edge]*node // by exact segment
	folded map[edge]*node // kept children by folded segment (foldKey)
	// folds caches foldKey of the segments seen: repositories repeat
	// names ("scripts", "references") in every skill.
	folds map[string]string
}

// edge names a child of parent: by its segment, or by the segment folded.
type edge struct {
	parent *node
	seg    string
}

type node struct {
	name     string // the segment; "." for the root
	parent   *node
	owner    *node // outermost skill directory at or above this node
	kept     bool  // registered in tree.folded
	file     bool  // kept as a file
	dir      bool  // kept as a directory
	skill    bool  // holds an entry named SKILL.md
	resolved bool  // owner is computed
}

func newTree() *tree {
	return &tree{root: &node{name: "."}, kids: make(map[edge]*node), folded: make(map[edge]*node)}
}

// insert returns the node of p, a clean path, creating it and its parents.
func (t *tree) insert(p string) *node {
	n := t.root
	if p == "." {
		return n
	}
	for rest := p; ; {
		seg, tail, more := strings.Cut(rest, "/")
		c := t.kids[edge{n, seg}]
		if c == nil {
			c = &node{name: seg, parent: n}
			t.kids[edge{n, seg}] = c
		}
		n = c
		if !more {
			return n
		}
		rest = tail
	}
}

// path returns n's clean path.
func (n *node) path() string {
	if n.parent == nil {
		return "."
	}
	var segs []string
	for x := n; x.parent != nil; x = x.parent {
		segs = append(segs, x.name)
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; i-- {
		b.WriteString(segs[i])
		if i > 0 {
			b.WriteByte('/')
		}
	}
	return b.String()
}

// add records p, a clean path, and its parent directories as kept. It
// returns a reason and message when p clashes with a kept name, or "".
func (t *tree) add(p string, dir bool) (reason, msg string) {
	return t.keep(t.insert(p), dir)
}

// keep records n, and the directories above it, as kept: as a directory
// when dir is set, else as a file. It returns a reason and message when n
// clashes with a kept name, or "".
func (t *tree) keep(n *node, dir bool) (reason, msg string) {
	// The ancestors not kept yet, nearest first: each is registered once.
	var chain []*node
	for x := n; x.parent != nil && !x.kept; x = x.parent {
		chain = append(chain, x)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		x := chain[i]
		k := edge{x.parent, t.fold(x.name)}
		if other := t.folded[k]; other != nil {
			return ReasonCollision, fmt.Sprintf("the name clashes with %q: they differ only in case or Unicode normalisation", other.path())
		}
		t.folded[k] = x
		x.kept = true
	}
	for x := n.parent; x != nil && !x.dir; x = x.parent {
		if x.file {
			return ReasonCollision, "the name is both a file and a directory"
		}
		x.dir = true
	}
	switch {
	case dir && n.file, !dir && n.dir:
		return ReasonCollision, "the name is both a file and a directory"
	case !dir && n.file:
		return ReasonDuplicate, "the archive holds this file twice"
	case dir:
		n.dir = true
	default:
		n.file = true
	}
	return "", ""
}

// fold returns foldKey(seg), computed once per distinct segment. Folding
// a path segment by segment gives the key of the whole path, since "/"
// neither folds nor composes with its neighbours under NFKC; foldKey must
// keep that property.
func (t *tree) fold(seg string) string {
	k, ok := t.folds[seg]
	if !ok {
		if t.folds == nil {
			t.folds = make(map[string]string)
		}
		k = foldKey(seg)
		t.folds[seg] = k
	}
	return k
}

// ownerOf returns the outermost skill directory at or above n, or nil. Each
// node is resolved once, top down, so the cost over an archive is its
// number of nodes.
func ownerOf(n *node) *node {
	var chain []*node
	for x := n; x != nil && !x.resolved; x = x.parent {
		chain = append(chain, x)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		x := chain[i]
		if x.parent != nil {
			x.owner = x.parent.owner
		}
		if x.owner == nil && x.skill {
			x.owner = x
		}
		x.resolved = true
	}
	return n.owner
}
