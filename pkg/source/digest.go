package source

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// Reasons carried by Integrity errors.
const (
	ReasonDigestMismatch  = "digest-mismatch"
	ReasonMalformedDigest = "malformed-digest"
)

// Sum returns the digest of data as sources publish it: "sha256:" and the
// 64 lowercase hexadecimal digits of its SHA-256.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(h[:])
}

// checkDigest requires d to be a digest as Sum writes it.
func checkDigest(d, subject string) error {
	hexPart, ok := strings.CutPrefix(d, "sha256:")
	if ok && len(hexPart) == 64 && strings.Trim(hexPart, "0123456789abcdef") == "" {
		return nil
	}
	return &skillerr.Error{Code: skillerr.Integrity, Reason: ReasonMalformedDigest, Subject: subject,
		Msg: fmt.Sprintf("the published digest %q is not \"sha256:\" and 64 lowercase hexadecimal digits", skillerr.Clip(d))}
}

// Verify returns nil when the digest of data is want, else an Integrity
// error about subject. kind is the Origin.Kind of the source that gave
// want, which the message names, with what to do. Callers verify before
// they parse a single byte.
func Verify(data []byte, want, subject, kind string) error {
	if err := checkDigest(want, subject); err != nil {
		return err
	}
	got := Sum(data)
	if got == want {
		return nil
	}
	var msg string
	switch kind {
	case KindIndex:
		msg = fmt.Sprintf("not the %s the index publishes for them: the site may be publishing a new version (try again later), or they were altered on the way (if it stays so, tell the site)", want)
	case KindMCP:
		msg = fmt.Sprintf("not the %s the server listed for them: the server may have changed the skill since it listed it (install it again), or they were altered on the way", want)
	default:
		msg = fmt.Sprintf("not the %s given to check them by: the address serves other bytes than the digest names (check the digest, or install without one)", want)
	}
	return &skillerr.Error{Code: skillerr.Integrity, Reason: ReasonDigestMismatch, Subject: subject,
		Msg: fmt.Sprintf("nothing of the %d bytes received was used: their digest is %s, %s", len(data), got, msg)}
}

// ManifestDigest returns the digest of a skill made of files, each with the
// digest of its bytes, as the discovery RFC defines a skill-level digest:
// the SHA-256 of "path\x00hex\n" for each file in byte order of path. It
// identifies a skill served file by file (MCP, a v0.1.0 index) so that a
// new listing can be compared without downloading anything.
func ManifestDigest(files []FileRef) string {
	sorted := slices.Clone(files)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	h := sha256.New()
	for _, f := range sorted {
		fmt.Fprintf(h, "%s\x00%s\n", f.Path, strings.TrimPrefix(f.Digest, "sha256:"))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
