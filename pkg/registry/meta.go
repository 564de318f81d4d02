package registry

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/skillfs/skillfs/pkg/confusable"
	"github.com/skillfs/skillfs/pkg/digest"
	"github.com/skillfs/skillfs/pkg/external"
	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
	"github.com/skillfs/skillfs/pkg/source"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// Meta is the record the registry keeps for an installed skill, as JSON in
// the vfs.StoreMeta store under its ID. Lists are never nil, so they cross
// into JavaScript as arrays.
type Meta struct {
	// ID is the skill's name, which is also its directory: /skills/<id>/.
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Location    string `json:"location"` // "/skills/<id>/SKILL.md"
	BaseDir     string `json:"baseDir"`  // "/skills/<id>/"
	// Source is where the skill came from: a file name or a URL, as the
	// importer said.
	Source string `json:"source"`
	// Origin, for a skill installed from where it is published (a
	// discovery index, an MCP server, a URL), records that place and the
	// digest verified; nil for one imported from bytes a page held.
	Origin *source.Origin `json:"origin"`
	// Enabled is false for a skill that is stored but hidden from every
	// agent-facing read.
	Enabled bool `json:"enabled"`
	// Instance identifies the installed instance of the skill: an opaque
	// random id given when the skill is installed fresh (an import of an
	// id not installed, a rename to -vN included) and kept by every change
	// of it (an import that replaces it, edits, SetEnabled,
	// SetDependencies). A skill removed and installed again under its id
	// is another instance, however soon, unlike CreatedAt, which is
	// stamped to the millisecond. Things bound to what the user installed,
	// such as pins and usage statistics, are bound to it.
	Instance  string    `json:"instance"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Version is the version the frontmatter declares, "" when none.
	Version string `json:"version"`
	// Digest identifies the content of this version of the skill (see
	// Digest); it is also the generation stamp of every file of the
	// version in the tree, which vfs.FS.ReadFileGen returns.
	Digest    string `json:"digest"`
	Size      int64  `json:"size"` // bytes of all files
	FileCount int    `json:"fileCount"`

	AllowedTools           []string     `json:"allowedTools"`
	UserInvocable          bool         `json:"userInvocable"`
	DisableModelInvocation bool         `json:"disableModelInvocation"`
	Dependencies           Dependencies `json:"dependencies"`
	// Prerequisites are the tools and MCP servers skill.yaml's
	// prerequisites name: routing counts a skill whose host lacks one as
	// unavailable (seed 004).
	Prerequisites []skill.Prerequisite `json:"prerequisites,omitempty"`
	Triggers      []string             `json:"triggers"`
	AntiTriggers  []string             `json:"antiTriggers"`
	WhenToUse     string               `json:"whenToUse"`
	// Headings are the titles of SKILL.md's sections (skill.Headings),
	// which routing reads beside the description.
	Headings     []string `json:"headings,omitempty"`
	ArgumentHint string   `json:"argumentHint"`
	Arguments    []string `json:"arguments"`
	CostHint     string   `json:"costHint"`
	ParallelSafe bool     `json:"parallelSafe"`
	Always       bool     `json:"always"`
	HostFields
	// Diagnostics are the warnings about this version: the lenient
	// parser's, and the registry's own from its import ("renamed";
	// "dependency-disabled" for one stored disabled, which enabling it
	// drops).
	Diagnostics []skill.Diagnostic `json:"diagnostics"`
}

// HostFields are the frontmatter fields a host acts on rather than the
// model reads (Claude Code's format; docs/architecture.md): which model to use, whether to
// fork a sub-agent (Context "fork") and which agent, hooks to run, and
// the skill's license, compatibility and author to show. They are kept
// as written; skillfs itself does nothing with them.
type HostFields struct {
	Model         string `json:"model,omitempty"`
	Context       string `json:"context,omitempty"`
	Agent         string `json:"agent,omitempty"`
	License       string `json:"license,omitempty"`
	Compatibility string `json:"compatibility,omitempty"`
	Author        string `json:"author,omitempty"`
	// Hooks is the frontmatter's hooks value as JSON, nil when absent.
	Hooks json.RawMessage `json:"hooks,omitempty"`
}

// hostFieldsOf returns the HostFields of s.
func hostFieldsOf(s *skill.Skill) HostFields {
	h := HostFields{Model: s.Model, Context: s.Context, Agent: s.Agent,
		License: s.License, Compatibility: s.Compatibility, Author: s.Author}
	if s.Hooks != nil {
		// skill keeps hooks as JSON-encodable values, bounded by the
		// frontmatter's size.
		h.Hooks, _ = json.Marshal(s.Hooks)
	}
	return h
}

// Clone returns a copy of h that shares no memory with it.
func (h HostFields) Clone() HostFields {
	h.Hooks = slices.Clone(h.Hooks)
	return h
}

// Dependencies are what a skill needs besides itself (docs/architecture.md, Sessions): tools and
// MCP servers made available once it is activated, and skills made visible
// with it.
type Dependencies struct {
	Tools  []string `json:"tools"`
	MCP    []string `json:"mcp"`
	Skills []string `json:"skills"`
}

// dependenciesOf returns the dependencies s declares.
func dependenciesOf(s *skill.Skill) Dependencies {
	return Dependencies{
		Tools:  names(s.ToolDependencies),
		MCP:    names(s.MCPDependencies),
		Skills: names(s.SkillDependencies),
	}
}

func (d Dependencies) equal(o Dependencies) bool {
	return slices.Equal(d.Tools, o.Tools) && slices.Equal(d.MCP, o.MCP) && slices.Equal(d.Skills, o.Skills)
}

// names returns list trimmed, without empty items or repeats, in order,
// and never nil.
func names(list []string) []string {
	out := make([]string, 0, len(list))
	for _, n := range list {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// describe sets the fields of m that a version of the skill determines:
// those of its parsed SKILL.md (s, with diagnostics diags) and of its files.
// Dependencies are left to the caller, which decides whose win.
func (m *Meta) describe(id string, s *skill.Skill, diags []skill.Diagnostic, files []vfs.File, digest string) {
	m.ID = id
	m.Name = s.Name
	m.Description = s.Description
	m.Location = vfs.Root + "/" + id + "/SKILL.md"
	m.BaseDir = vfs.Root + "/" + id + "/"
	m.Version = s.Version
	m.Digest = digest
	m.Size, m.FileCount = 0, 0
	for _, f := range files {
		if !f.Mode.IsDir() {
			m.Size += int64(f.Content().Len())
			m.FileCount++
		}
	}
	m.AllowedTools = names(s.AllowedTools)
	m.UserInvocable = s.UserInvocable
	m.DisableModelInvocation = s.DisableModelInvocation
	m.Triggers = names(s.Triggers)
	m.AntiTriggers = names(s.AntiTriggers)
	m.Prerequisites = skill.PrerequisitesOf(s.Prerequisites)
	m.WhenToUse = s.WhenToUse
	m.Headings = skill.Headings(s.Body)
	m.ArgumentHint = s.ArgumentHint
	m.Arguments = names(s.Arguments)
	m.CostHint = s.CostHint
	m.ParallelSafe = s.ParallelSafe
	m.Always = s.Always
	m.HostFields = hostFieldsOf(s)
	m.Diagnostics = append(make([]skill.Diagnostic, 0, len(diags)), diags...)
}

// clone returns a copy of m that shares no slice with it, so that callers
// cannot change the registry's cache.
func (m Meta) clone() Meta {
	m.AllowedTools = slices.Clone(m.AllowedTools)
	m.Dependencies = Dependencies{
		Tools:  slices.Clone(m.Dependencies.Tools),
		MCP:    slices.Clone(m.Dependencies.MCP),
		Skills: slices.Clone(m.Dependencies.Skills),
	}
	m.Triggers = slices.Clone(m.Triggers)
	m.AntiTriggers = slices.Clone(m.AntiTriggers)
	m.Prerequisites = slices.Clone(m.Prerequisites)
	m.Arguments = slices.Clone(m.Arguments)
	m.Headings = slices.Clone(m.Headings)
	m.Diagnostics = slices.Clone(m.Diagnostics)
	m.HostFields = m.HostFields.Clone()
	if m.Origin != nil {
		o := *m.Origin
		m.Origin = &o
	}
	return m
}

// Digest returns the digest of a skill version made of files: "sha256:"
// and the hexadecimal SHA-256 of, for each regular file in byte order of
// path, the path, a NUL byte, the length of the contents as 8 big-endian
// bytes, and the contents. Directories, modes and times do not count, so a
// skill exported and imported again keeps its digest.
func Digest(files []vfs.File) string { return digests([][]vfs.File{files})[0] }

// digests returns the Digest of each skill version, hashed in one batch.
func digests(versions [][]vfs.File) []string {
	lists := make([][]external.Bytes, len(versions))
	for i, files := range versions {
		pace.Step() // 9,000 files' headers take longer than a task should
		lists[i] = digestParts(files)
	}
	out := make([]string, len(versions))
	for i, sum := range digest.SHA256All(lists) {
		out[i] = "sha256:" + hex.EncodeToString(sum[:])
	}
	return out
}

// digestParts returns what Digest hashes of files.
func digestParts(files []vfs.File) []external.Bytes {
	regular := make([]vfs.File, 0, len(files))
	for _, f := range files {
		if !f.Mode.IsDir() {
			regular = append(regular, f)
		}
	}
	sort.Slice(regular, func(i, j int) bool { return regular[i].Path < regular[j].Path })
	// One header (path, NUL, length) and the contents per file.
	parts := make([]external.Bytes, 0, 2*len(regular))
	for _, f := range regular {
		data := f.Content()
		head := make([]byte, 0, len(f.Path)+9)
		head = append(append(head, f.Path...), 0)
		head = binary.BigEndian.AppendUint64(head, uint64(data.Len()))
		parts = append(parts, external.Go(head), data)
	}
	return parts
}

// newInstance returns a fresh Meta.Instance: 16 hexadecimal digits of
// crypto/rand, which never collide in practice.
func newInstance() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (Go 1.24 and later)
	return hex.EncodeToString(b[:])
}

// metaOp returns the op that stores m.
func metaOp(m Meta) (vfs.Op, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return vfs.Op{}, internal(m.ID, err, "cannot encode the skill's record")
	}
	return vfs.Put(vfs.StoreMeta, m.ID, b), nil
}

// decodeMeta returns the Meta stored in rec.
func decodeMeta(rec vfs.Record) (Meta, error) {
	var m Meta
	if err := json.Unmarshal(rec.Value, &m); err != nil {
		return Meta{}, internal(rec.Key, err, "the skill's record is corrupt")
	}
	return m, nil
}

// decodeMetas returns the Metas stored in recs, in order.
func decodeMetas(recs []vfs.Record) ([]Meta, error) {
	out := make([]Meta, len(recs))
	for i, rec := range recs {
		pace.StepAt(i) // thousands of records take longer than a task should
		var err error
		if out[i], err = decodeMeta(rec); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkID requires id to be usable as a skill's id: one clean path
// segment, which is also what vfs.PutSkill requires of a directory name,
// and a slug: letters (of any script, as the specification allows names
// to be), digits and hyphens, nothing that renders as nothing. Ids appear
// in /skills/<id>/ paths that agents paste into commands and in download
// names, so HTML and shell metacharacters are never part of one.
func checkID(id string) error {
	clean, err := skillpath.Clean(id)
	if err != nil {
		return err
	}
	if clean != id || id == skillpath.Root || strings.Contains(id, "/") {
		return &skillerr.Error{Code: skillerr.PathRejected, Reason: "not-a-segment", Subject: id,
			Msg: "a skill id must be a single path segment"}
	}
	for _, r := range id {
		if confusable.IsDefaultIgnorable(r) || !(unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || r == '-') {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: "not-a-slug", Subject: id,
				Msg: fmt.Sprintf("a skill id may hold letters, digits and hyphens only, not %q", r)}
		}
	}
	return nil
}
