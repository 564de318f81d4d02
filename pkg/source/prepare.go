package source

import (
	"bytes"
	"fmt"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// PrepareArtifact verifies data, the artifact fetched for origin o, before
// anything else, and returns the archive to import (a SKILL.md is wrapped
// under dir) and the origin to record. An origin whose source published no
// digest (Verified false) records the digest of what was received; one
// without a type (a plain URL) records the type its bytes show.
func PrepareArtifact(o Origin, dir string, data []byte) ([]byte, Origin, error) {
	if !o.Verified {
		o.Digest = Sum(data)
	} else if err := Verify(data, o.Digest, subjectOf(o), o.Kind); err != nil {
		return nil, o, err
	}
	return ArtifactOf(o, dir, data)
}

// ArtifactOf is PrepareArtifact once data's digest is o's: the archive to
// import, and o with the type data show when it has none. A web page
// (a sign-in page, a repository's page not recognised, a server's error
// page sent with 200) is neither an archive nor a SKILL.md, which starts
// with its frontmatter: it is refused as such (ReasonWebPage), not read
// as a SKILL.md whose frontmatter is missing.
func ArtifactOf(o Origin, dir string, data []byte) ([]byte, Origin, error) {
	if zipguard.Sniff(data) == "" && isMarkup(data) {
		return nil, o, &skillerr.Error{Code: skillerr.InvalidArchive, Reason: ReasonWebPage, Subject: subjectOf(o),
			Msg: "the address answered with a web page, not an archive or a SKILL.md: give the address of the .zip or of the SKILL.md itself, or of a repository or folder on GitHub"}
	}
	if o.Type == "" {
		o.Type = typeOf(data)
	}
	o.ETag = keptETag(o.ETag)
	if o.Type == TypeSkillMD {
		if err := publishedAs(o.Kind, dir, data); err != nil {
			return nil, o, err
		}
	}
	zb, err := Artifact(o.Type, dir, data)
	return zb, o, err
}

// ReasonWebPage: what an address answered, an artifact or an index, is
// a web page (HTML or XML).
const ReasonWebPage = "web-page"

// isMarkup reports whether data, past a byte order mark and white space,
// starts with '<': HTML or XML, which no SKILL.md does.
func isMarkup(data []byte) bool {
	data = bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	return len(data) > 0 && data[0] == '<'
}

// ReasonChangedSincePreview: what a person previewed is no longer what
// would be installed: the bytes given to install a preview are not the
// ones previewed, or (the registry's, ImportOptions.Compared) a skill
// chosen is compared now with another installed skill than the preview
// compared it with. Its code is Conflict: one reason, one code, and
// previewing again is the way on; Integrity is for bytes that are not
// the ones their publisher's digest names.
const ReasonChangedSincePreview = "changed-since-preview"

// PreparePreviewed is PrepareArtifact for bytes a person reviewed first: o
// is the origin PrepareArtifact returned for them then, and data must
// still be exactly those bytes (o.Digest), so what is installed is what
// was shown, even when the digest is only that of what was received.
func PreparePreviewed(o Origin, dir string, data []byte) ([]byte, Origin, error) {
	if _, err := CheckPreviewed(data, o.Digest, subjectOf(o)); err != nil {
		return nil, o, err
	}
	// Checked to be o.Digest: hashed once, not again as PrepareArtifact would.
	return ArtifactOf(o, dir, data)
}

// CheckPreviewed returns nil when data, given to install what a person
// reviewed (an artifact, an index, an MCP listing), are exactly the bytes
// previewed, whose digest was previewed; else a Conflict
// (ReasonChangedSincePreview) about subject.
func CheckPreviewed(data []byte, previewed, subject string) (string, error) {
	if err := checkDigest(previewed, subject); err != nil {
		return "", err
	}
	got := Sum(data)
	if got != previewed {
		return "", &skillerr.Error{Code: skillerr.Conflict, Reason: ReasonChangedSincePreview, Subject: subject,
			Msg: fmt.Sprintf("the %d bytes to install have digest %s, but the ones previewed had %s; nothing was installed: preview again to choose", len(data), got, previewed)}
	}
	return got, nil
}

// What ListingDigest is given, as its messages call it.
const (
	ListingIndex = "index"          // a discovery index
	ListingMCP   = "skills listing" // an MCP server's skills/list, all its pages
)

// checkListingSize refuses data, an index or a listing (what, about
// subject), when it is larger than MaxIndexSize.
func checkListingSize(data []byte, what, subject string) error {
	if len(data) <= MaxIndexSize {
		return nil
	}
	return &skillerr.Error{Code: skillerr.TooLarge, Reason: "index-too-large", Subject: subject,
		Msg: fmt.Sprintf("the %s is %d bytes; the limit is %d", what, len(data), MaxIndexSize)}
}

// ListingDigest returns the digest of data, an index or an MCP listing
// (what, about subject) to install from. Data larger than MaxIndexSize
// are refused first, before a byte is hashed; when previewed is set, data
// must be the bytes a person reviewed (CheckPreviewed).
func ListingDigest(data []byte, previewed, what, subject string) (string, error) {
	if err := checkListingSize(data, what, subject); err != nil {
		return "", err
	}
	if previewed == "" {
		return Sum(data), nil
	}
	return CheckPreviewed(data, previewed, subject)
}

// PrepareFiles verifies the files of skill dir fetched one by one for
// origin o (see Assemble) and returns the archive to import and the origin
// to record: its digest is ManifestDigest of the files as received, which
// is the published one when every file was verified.
func PrepareFiles(o Origin, dir string, files []FileRef, lengths []int64, blob []byte) ([]byte, Origin, error) {
	zb, err := Assemble(o.Kind, dir, files, lengths, blob)
	if err != nil {
		return nil, o, err
	}
	received := make([]FileRef, len(files))
	var at int64
	for i, f := range files {
		received[i] = FileRef{Path: f.Path, Digest: Sum(blob[at : at+lengths[i]])}
		at += lengths[i]
	}
	o.Digest = ManifestDigest(received)
	return zb, o, nil
}

// subjectOf names what an origin points to, for errors.
func subjectOf(o Origin) string {
	switch {
	case o.URL != "":
		return o.URL
	case o.URI != "":
		return o.URI
	}
	return o.Entry
}
