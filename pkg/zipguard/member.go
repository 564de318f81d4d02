package zipguard

import (
	"archive/zip"
	"slices"
	"strings"
	"time"

	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skillpath"
)

// kind is what an archive entry is, whatever the format says it with.
type kind uint8

const (
	kindFile kind = iota
	kindDir
	kindSymlink
	kindHardlink
	kindSpecial // device, pipe, socket, or a type the reader does not keep
)

// member is one entry of an archive of any format, as the shared rules see
// it. The format readers fill it; assemble decides.
type member struct {
	name     string // as written in the archive
	path     string // clean
	kind     kind
	special  string // what a kindSpecial entry is, for the message
	exec     bool   // marked executable
	modified time.Time
	size     int64 // inflated size the archive declares
	packed   int64 // compressed size, or -1 when the format does not say (tar)
	// refused is a format-specific reason not to read the entry
	// (encryption, an unknown method): it matters only inside a skill.
	refused error
	node    *node
	// read returns the content; called once per kept file, in archive
	// order, after every rule has passed.
	read func() ([]byte, error)
	// zf is the entry of a zip archive, for ReadOutside, and data where
	// its compressed bytes start (checkLayout).
	zf   *zip.File
	data int64
}

// classify cleans the names of ms and drops clutter, in archive order. It
// returns the entries that remain, each with its node in t, and the names
// of those dropped. The depth limit applies to every entry, in a skill or
// not, so that the tree holds at most MaxEntries × MaxDepth nodes.
func classify(ms []member, t *tree, l Limits) (kept []member, dropped []string, err error) {
	kept = ms[:0]
	for i, m := range ms {
		pace.StepAt(i) // thousands of entries take longer than a task should
		p, err := skillpath.Clean(m.name)
		if err != nil {
			return nil, nil, err
		}
		if IsClutter(p) {
			dropped = append(dropped, m.name)
			continue
		}
		if p == skillpath.Root && m.kind != kindDir {
			return nil, nil, fail(ReasonEmptyName, m.name, nil, "a file entry has no name")
		}
		if depth := strings.Count(p, "/") + 1; depth > l.MaxDepth {
			return nil, nil, fail(ReasonTooDeep, m.name, nil, "the path is %d levels deep; the limit is %d", depth, l.MaxDepth)
		}
		m.path = p
		m.node = t.insert(p)
		kept = append(kept, m)
	}
	return kept, dropped, nil
}

// assemble applies the rules every format shares and returns the clean
// tree. Entries outside every skill directory are dropped whatever their
// type (a repository's README, its symbolic links), and listed; inside a
// skill, a link or special file fails the whole archive, as do clashing
// names, depth and size limits. Only then is any content read.
func assemble(ms []member, l Limits, out Outside) (*Archive, error) {
	names := 0
	for _, m := range ms {
		if names += len(m.name); names > l.MaxNameBytes {
			return nil, fail(ReasonNamesTooLong, m.name, nil, "the entry names together are longer than %d bytes", l.MaxNameBytes)
		}
	}
	t := newTree()
	ms, dropped, err := classify(ms, t, l)
	if err != nil {
		return nil, err
	}
	skills, err := findSkills(ms)
	if err != nil {
		return nil, err
	}
	var files []*member
	for i := range ms {
		pace.StepAt(i)
		m := &ms[i]
		if ownerOf(m.node) == nil {
			if m.kind != kindDir {
				dropped = append(dropped, m.name)
			}
			continue
		}
		if err := checkKept(m); err != nil {
			return nil, err
		}
		if reason, msg := t.keep(m.node, m.kind == kindDir); reason != "" {
			return nil, fail(reason, m.name, nil, "%s", msg)
		}
		if m.kind == kindFile {
			files = append(files, m)
		}
	}
	if err := checkSizes(files, l); err != nil {
		return nil, err
	}
	a := &Archive{Dropped: dropped}
	read := readInGo
	if out != nil {
		read = readOutside(out)
	}
	contents, err := read(files)
	if err != nil {
		return nil, err
	}
	for i, m := range files {
		pace.StepAt(i) // the first in a task of its own: read's last ran in JavaScript
		mode := fileMode
		if m.exec {
			mode = execMode
		}
		a.Files = append(a.Files, File{Path: m.path, Mode: mode, Modified: m.modified})
		if out != nil {
			a.Files[i].Ext = contents[i]
		} else {
			a.Files[i].Data = contents[i].Copy() // external.Go: itself
		}
	}
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return strings.Compare(files[x].path, files[y].path) })
	sorted := make([]File, len(files))
	owners := make([]*node, len(files))
	for i, k := range order {
		sorted[i], owners[i] = a.Files[k], files[k].node.owner
	}
	a.Files = sorted
	a.Layout, a.Skills = layout(skills, a.Files, owners)
	return a, nil
}

// readInGo reads the files' contents in archive order, stopping at the
// first that fails.
func readInGo(files []*member) ([]external.Bytes, error) {
	out := make([]external.Bytes, len(files))
	for i, m := range files {
		pace.Step()
		b, err := m.read()
		if err != nil {
			return nil, err
		}
		out[i] = external.Go(b)
	}
	return out, nil
}

// checkKept applies the per-entry rules to an entry inside a skill.
func checkKept(m *member) error {
	switch m.kind {
	case kindSymlink:
		return fail(ReasonSymlink, m.name, nil, "the skill contains a symbolic link; links are never followed or stored")
	case kindHardlink:
		return fail(ReasonHardlink, m.name, nil, "the skill contains a hard link; links are never followed or stored")
	case kindSpecial:
		return fail(ReasonSpecialFile, m.name, nil, "the skill contains a special file (%s)", m.special)
	}
	return m.refused
}

// checkSizes applies the size and ratio limits to the sizes the archive
// declares. The readers then hold every entry to its declared size, so a
// lie is caught without inflating more than the limits allow.
func checkSizes(files []*member, l Limits) error {
	var total, packed int64
	for _, m := range files {
		if m.size > l.MaxFileSize {
			return fail(ReasonFileTooLarge, m.name, nil, "the file inflates to %d bytes; the limit is %d", m.size, l.MaxFileSize)
		}
		if m.packed >= 0 && tooCompressed(m.size, m.packed, l) {
			return fail(ReasonRatio, m.name, nil, "the file inflates %d bytes to %d, more than %g:1", m.packed, m.size, l.MaxRatio)
		}
		total += m.size
		packed += max(m.packed, 0)
		if total > l.MaxTotalSize {
			return fail(ReasonTotalTooLarge, m.name, nil, "the archive inflates to more than %d bytes", l.MaxTotalSize)
		}
	}
	if packed > 0 && tooCompressed(total, packed, l) {
		return fail(ReasonRatio, "", nil, "the archive inflates %d bytes to %d, more than %g:1", packed, total, l.MaxRatio)
	}
	return nil
}

func tooCompressed(inflated, compressed int64, l Limits) bool {
	return inflated >= l.RatioMinSize && float64(inflated) > l.MaxRatio*float64(max(compressed, 1))
}

// EntryType is what an Entry is.
type EntryType uint8

// The entry types ReadEntries knows.
const (
	EntryFile     EntryType = EntryType(kindFile)
	EntryDir      EntryType = EntryType(kindDir)
	EntrySymlink  EntryType = EntryType(kindSymlink)
	EntryHardlink EntryType = EntryType(kindHardlink)
	EntrySpecial  EntryType = EntryType(kindSpecial) // device, pipe, socket
)

// Entry is one entry of a tree that is not a zip or tar archive (a folder
// on disk, walked by the caller), for ReadEntries.
type Entry struct {
	Name     string // slash-separated, as an archive would write it
	Type     EntryType
	Special  string // what an EntrySpecial is, for the message
	Exec     bool
	Modified time.Time
	Size     int64 // of a file
	// Read returns a file's content. ReadEntries calls it only for the
	// files of skills, after every rule has passed; it must return no
	// more than Size bytes.
	Read func() ([]byte, error)
}

// ReadEntries applies Read's rules to entries and returns the same clean
// tree, so that a folder gets the verdict its archive would: the same
// skills, entries outside them dropped, links or special files inside a
// skill refused, the same names, collisions and limits (MaxArchiveSize
// and MaxEntries aside, which bound what the caller walks).
func ReadEntries(entries []Entry, limits Limits) (*Archive, error) {
	ms := make([]member, len(entries))
	for i, e := range entries {
		ms[i] = member{name: e.Name, kind: kind(e.Type), special: e.Special, exec: e.Exec,
			modified: e.Modified, size: e.Size, packed: -1, read: e.Read}
	}
	return assemble(ms, limits.withDefaults(), nil)
}
