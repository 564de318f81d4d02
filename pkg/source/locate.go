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

// Locate returns what to download for the URL a person gave. The address
// of a repository on GitHub as its pages show it — the repository
// (https://github.com/o/r), a folder (…/tree/<ref>/<path>) or a file
// (…/blob/<ref>/<path>) — is a web page, not an archive: it becomes the
// archive GitHub serves of that ref (the default branch for the
// repository itself) and the folder named, or the file's folder. A ref is
// one path segment there: a branch with a slash in its name cannot be
// told from its folders, and is read as its first segment. Any other URL
// is downloaded as it is.
func Locate(raw string) Location {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User != nil || u.Port() != "" ||
		(!strings.EqualFold(u.Hostname(), "github.com") && !strings.EqualFold(u.Hostname(), "www.github.com")) {
		return Location{URL: raw}
	}
	seg := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(seg) < 2 || !repoName(seg[0]) || !repoName(strings.TrimSuffix(seg[1], ".git")) {
		return Location{URL: raw}
	}
	repo := "https://github.com/" + seg[0] + "/" + strings.TrimSuffix(seg[1], ".git") + "/archive/"
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
