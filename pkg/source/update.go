package source

import (
	"slices"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// The statuses of Update.
const (
	StatusCurrent = "current" // the source publishes what is installed
	StatusChanged = "changed" // it publishes something else: Latest
	StatusGone    = "gone"    // it no longer publishes the skill
	// StatusUnknown: the source publishes no digest to compare; only
	// fetching it again would tell.
	StatusUnknown = "unknown"
	// StatusError: it publishes something else, which an update could not
	// install (a SKILL.md broken, a dependency not installed): Code and
	// Message say why.
	StatusError = "error"
)

// Installed is an installed skill with the origin it was installed from
// and its digest now.
type Installed struct {
	ID     string `json:"id"`
	Origin Origin `json:"origin"`
	Digest string `json:"digest"`
}

// Edited reports whether the skill's files were changed here since its
// source gave them: its digest is no longer the one recorded at install
// (Origin.FilesDigest; a skill installed before that was recorded has
// none, and is not known to be edited).
func (in Installed) Edited() bool {
	return in.Origin.FilesDigest != "" && in.Origin.FilesDigest != in.Digest
}

// Update is what a source says about an installed skill now.
type Update struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// Installed is the digest recorded at install; Latest the one the
	// source publishes now ("" when gone or unknown).
	Installed string `json:"installed"`
	Latest    string `json:"latest"`
	Origin    Origin `json:"origin"`
	// Code, Reason and Message, of StatusError, say why: the code and
	// reason of the error an update would be refused with.
	Code    skillerr.Code `json:"code,omitempty"`
	Reason  string        `json:"reason,omitempty"`
	Message string        `json:"message,omitempty"`
	// Needs, of StatusChanged, names the skills of the same download the
	// version published now depends on and that are not installed: its
	// update installs them with it.
	Needs []string `json:"needs,omitempty"`
}

func compare(in Installed, latest string, listed bool) Update {
	u := Update{ID: in.ID, Installed: in.Origin.Digest, Latest: latest, Origin: in.Origin}
	switch {
	case !listed:
		u.Status, u.Latest = StatusGone, ""
	case latest == "":
		u.Status = StatusUnknown
	case latest == in.Origin.Digest:
		u.Status = StatusCurrent
	default:
		u.Status = StatusChanged
	}
	return u
}

// CheckIndex compares the skills in installed that came from idx with
// what idx publishes now, by digest: nothing needs downloading to tell.
// A skill whose entry idx lists but skipped is an error, as its update
// would be refused (Index.Unusable). Skills from other sources are left
// out.
func CheckIndex(installed []Installed, idx *Index) []Update {
	out := []Update{}
	for _, in := range installed {
		if in.Origin.Kind != KindIndex || in.Origin.Index != idx.URL {
			continue
		}
		i := slices.IndexFunc(idx.Entries, func(e Entry) bool { return e.Name == in.Origin.Entry })
		if i < 0 {
			u := compare(in, "", false)
			// Listed in a form this version cannot install: not gone.
			if r, ok := idx.unusable(in.Origin.Entry); ok {
				u.Status, u.Code, u.Reason, u.Message = StatusError, r.Code, r.Reason, r.Message
			}
			out = append(out, u)
			continue
		}
		out = append(out, compare(in, idx.Entries[i].Digest, true))
	}
	return out
}

// CheckMCP compares the skills in installed that came from server with
// the skills it lists now, by the digests of their files. A skill whose
// URI the server no longer lists has moved when it lists one skill of its
// name (the installed id) under a URI no skill was installed from: it is
// compared with that one, and its Update's Origin names the new URI,
// which update() takes.
func CheckMCP(installed []Installed, server string, skills []MCPSkill) []Update {
	out := []Update{}
	claimed := map[string]bool{}
	for _, in := range installed {
		if in.Origin.Kind == KindMCP && in.Origin.Server == server {
			claimed[in.Origin.URI] = true
		}
	}
	for _, in := range installed {
		if in.Origin.Kind != KindMCP || in.Origin.Server != server {
			continue
		}
		i := slices.IndexFunc(skills, func(s MCPSkill) bool { return s.URI == in.Origin.URI })
		if i >= 0 {
			out = append(out, compare(in, skills[i].Digest, true))
			continue
		}
		i = slices.IndexFunc(skills, func(s MCPSkill) bool { return s.Name == in.ID && !claimed[s.URI] })
		if i < 0 {
			out = append(out, compare(in, "", false))
			continue
		}
		claimed[skills[i].URI] = true
		u := compare(in, skills[i].Digest, true)
		u.Origin.URI = skills[i].URI
		out = append(out, u)
	}
	return out
}

// CheckDigest compares installed skills with the artifact fetched again
// from the URL they were installed from (the skills of one repository's
// download share it), whose digest (Sum) is sum.
func CheckDigest(in []Installed, sum string) []Update {
	out := make([]Update, len(in))
	for i, s := range in {
		out[i] = compare(s, sum, true)
	}
	return out
}
