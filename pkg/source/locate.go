package source

import (
	"net/url"
	"path"
	"strings"
)

// Location is what an install from a plain URL downloads, and the folder
// of it whose skills it installs (Origin's Dir).
type Location struct {
	URL string `json:"url"`
	Dir string `json:"dir"`
}

// URLInstall is an install from the address a person gave: what to
// download, the origin its skills record (but the ETag, known once it is
// downloaded, and the type, PrepareArtifact's), and the warnings of it.
type URLInstall struct {
	URL      string    `json:"url"`
	Origin   Origin    `json:"origin"`
	Warnings []Refusal `json:"warnings"`
}

// ForURL returns the install from address (Locate), pinned to digest
// when one is given, and otherwise with the warning that what is
// received cannot be verified (Unverified). An address that is not an
// absolute http or https URL is refused (InvalidArgument, bad-url), as an
// index's is: a relative one would be fetched from the caller's own
// origin (an extension's files), a data: one would be recorded as the
// origin an update check asks again.
func ForURL(address, digest string) (URLInstall, error) {
	if _, err := httpURL(address); err != nil {
		return URLInstall{}, err
	}
	at := Locate(address)
	in := URLInstall{URL: at.URL, Origin: Origin{Kind: KindURL, URL: at.URL, Dir: at.Dir, Digest: digest, Verified: digest != ""}, Warnings: []Refusal{}}
	if w := Unverified(address, in.Origin); w != nil {
		in.Warnings = append(in.Warnings, *w)
	}
	return in, nil
}

// Locate returns what to download for the URL a person gave. The address
// of a repository on GitHub as its pages show it — the repository
// (https://github.com/o/r), a folder (…/tree/<ref>/<path>) or a file
// (…/blob/<ref>/<path>) — is a web page, not an archive: it becomes the
// archive GitHub serves of that ref (the default branch for the
// repository itself) and the folder named, or the file's folder. A ref is
// one path segment there: a branch with a slash in its name cannot be
// told from its folders, and is read as its first segment. The raw
// address of a skill's SKILL.md in a repository
// (https://raw.githubusercontent.com/o/r/<ref>/<path>/SKILL.md, or
// …/refs/heads/<branch>/… as GitHub's Raw button gives it) is that
// skill's folder of the archive, not a lone SKILL.md: a person pasting it
// means the skill, with its scripts and references. Any other URL is
// downloaded as it is: a SKILL.md elsewhere is a skill of that one file.
func Locate(raw string) Location {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User != nil || u.Port() != "" {
		return Location{URL: raw}
	}
	host := strings.ToLower(u.Hostname())
	seg := strings.Split(strings.Trim(u.Path, "/"), "/")
	if (host != "github.com" && host != "www.github.com" && host != "raw.githubusercontent.com") ||
		len(seg) < 2 || !repoName(seg[0]) || !repoName(strings.TrimSuffix(seg[1], ".git")) {
		return Location{URL: raw}
	}
	repo := "https://github.com/" + seg[0] + "/" + strings.TrimSuffix(seg[1], ".git") + "/archive/"
	if host == "raw.githubusercontent.com" {
		return rawFile(raw, repo, seg[2:])
	}
	switch {
	case len(seg) == 2:
		return Location{URL: repo + "HEAD.zip"}
	case len(seg) >= 4 && seg[2] == "tree" && seg[3] != "":
		return Location{URL: repo + url.PathEscape(seg[3]) + ".zip", Dir: folder(seg[4:])}
	case len(seg) >= 5 && seg[2] == "blob" && seg[3] != "":
		return Location{URL: repo + url.PathEscape(seg[3]) + ".zip", Dir: folder(seg[4 : len(seg)-1])}
	}
	return Location{URL: raw}
}

// rawFile locates the raw address of a file of a repository whose
// archives are at repo, rest being its path after the repository: the ref
// (one segment, or refs/heads/<branch> and refs/tags/<tag>) then the
// file's path. Only a SKILL.md is a skill's folder; another file is
// downloaded as it is.
func rawFile(raw, repo string, rest []string) Location {
	ref := 1
	if len(rest) > 2 && rest[0] == "refs" && (rest[1] == "heads" || rest[1] == "tags") {
		ref = 3
	}
	if len(rest) <= ref || rest[ref-1] == "" || rest[len(rest)-1] != "SKILL.md" {
		return Location{URL: raw}
	}
	refPath := make([]string, ref)
	for i, s := range rest[:ref] {
		refPath[i] = url.PathEscape(s)
	}
	return Location{URL: repo + strings.Join(refPath, "/") + ".zip", Dir: folder(rest[ref : len(rest)-1])}
}

// folder joins the segments of a folder's path, "" for the repository's
// root; path.Join drops the empty ones a doubled slash leaves.
func folder(seg []string) string {
	if d := path.Join(seg...); d != "." {
		return d
	}
	return ""
}

// repoName reports whether s can be an owner's or a repository's name on
// GitHub: letters, digits, '-', '_' and '.', and not "." or "..".
func repoName(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
