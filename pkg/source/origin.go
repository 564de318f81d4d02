package source

import "github.com/skillfs/skillfs/pkg/skillerr"

// The kinds of Origin.
const (
	KindIndex = "index" // an entry of a discovery index
	KindMCP   = "mcp"   // a skill of an MCP server
	KindURL   = "url"   // a plain URL
)

// Origin records where an installed skill came from and what it was
// verified against, so that the source can be asked later whether it
// publishes something else now.
type Origin struct {
	Kind string `json:"kind"`
	// Index and Entry: the index's URL and the entry's name (KindIndex).
	Index string `json:"index,omitempty"`
	Entry string `json:"entry,omitempty"`
	// Server and URI: the MCP server's URL and the skill's
	// skill://…/SKILL.md URI (KindMCP).
	Server string `json:"server,omitempty"`
	URI    string `json:"uri,omitempty"`
	// URL is the artifact fetched (KindIndex, KindURL); for a skill
	// fetched file by file, the directory its files are under.
	URL string `json:"url,omitempty"`
	// Dir, for a skill of an archive (a repository's download) that is
	// not the whole of it, is the skill's folder in it, counted from
	// inside the top-level folder all its skills share ("skills/pdf" of
	// "repo-main/skills/pdf"): an update takes that folder of the new
	// download, which may hold more skills by then. Given to an install, only the skills in that folder are
	// installed (a folder of a repository on GitHub, Locate).
	Dir  string `json:"dir,omitempty"`
	Type string `json:"type"` // TypeSkillMD, TypeArchive or TypeFiles
	// Digest identifies what was installed: the published digest of the
	// artifact's bytes, or ManifestDigest of a skill's files. When the
	// source published none (Verified false), it is the digest of what
	// was received, which only tells later whether that changed.
	Digest   string `json:"digest"`
	Verified bool   `json:"verified"`
	// ETag is what a plain URL's server sent with the artifact, if
	// anything: the host asks with it, and downloads nothing on a 304.
	ETag string `json:"etag,omitempty"`
	// FilesDigest is the skill's own digest (its files, as the registry
	// digests them) as the source gave it, which the registry records at
	// install: a skill edited since has another, and a download is
	// compared with what was received, not with the edits.
	FilesDigest string `json:"filesDigest,omitempty"`
}

// Follow returns o as it records a download of its URL found to hold what
// is installed (by its own folder, when the download changed elsewhere):
// that download's digest sum, unverified unless it is the one o holds,
// and its ETag, so that the next check asks with the ETag the server
// sends now and is answered 304 while nothing changes.
func (o Origin) Follow(sum, etag string) Origin {
	if o.Digest != sum {
		o.Digest, o.Verified = sum, false
	}
	o.ETag = keptETag(etag)
	return o
}

// MaxETag bounds the ETag an origin records. Every skill of a download
// records its ETag, so a server's 200 KB one made a download of 50
// skills 10 MB of records, read with every list. Real ones are a quoted
// hash (GitHub's are under 70 bytes); a longer one is not recorded, and
// the check downloads the whole, as from a server that sends none.
const MaxETag = 256

// keptETag is etag as an origin records it: "" when longer than MaxETag.
func keptETag(etag string) string {
	if len(etag) > MaxETag {
		return ""
	}
	return etag
}

// ForEntry returns the origin of index entry e of idx.
func ForEntry(idx *Index, e Entry) Origin {
	return Origin{Kind: KindIndex, Index: idx.URL, Entry: e.Name, URL: e.URL, Type: e.Type, Digest: e.Digest, Verified: e.Digest != ""}
}

// ForMCP returns the origin of MCP skill s of server.
func ForMCP(server string, s MCPSkill) Origin {
	return Origin{Kind: KindMCP, Server: server, URI: s.URI, Type: TypeFiles, Digest: s.Digest, Verified: true}
}

// Unverified is the warning of an install from o, called name, when its
// source published no digest to verify what was received against
// (Verified false): an entry of a v0.1.0 index, a URL given without one.
// It is nil for a verified origin.
func Unverified(name string, o Origin) *Refusal {
	if o.Verified {
		return nil
	}
	msg := "no digest was given: what was received could not be verified"
	if o.Kind == KindIndex {
		msg = "the index (v0.1.0) publishes no digests: what was received could not be verified"
	}
	return &Refusal{Name: name, Code: skillerr.Integrity, Reason: ReasonUnverified, Message: msg}
}
