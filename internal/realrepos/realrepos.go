// Package realrepos locates the real skill repository downloads that tests
// and benchmarks run against. Their contents are public repositories that
// never enter our commits, so they live outside the tree: a folder of
// OWNER+NAME.zip files (GitHub's "Download ZIP", one NAME-main/ wrapper)
// named by SKILLFS_REAL_REPOS, or /work/data when that exists.
//
// Every test that uses them has a generated counterpart that always runs;
// when they are absent, Require skips with the reason so the output says so.
package realrepos

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// EnvVar names the folder of downloads.
const EnvVar = "SKILLFS_REAL_REPOS"

// DefaultDir is used when EnvVar is unset.
const DefaultDir = "/work/data"

// Repo is one download.
type Repo struct {
	Name string // OWNER+NAME, the file name without .zip
	Path string // absolute path of the .zip
	// Skills is how many skills the repository holds (counted when the
	// downloads were made), or 0 for a download this package does not know.
	Skills int
}

// known lists the six downloads and their skills: 263 in all.
var known = map[string]int{
	"anthropics+skills":                   18,
	"obra+superpowers":                    14,
	"trailofbits+skills":                  80,
	"K-Dense-AI+claude-scientific-skills": 134,
	"vercel-labs+agent-skills":            7,
	"openai+skills":                       10,
}

// Dir returns the folder of downloads and whether it exists.
func Dir() (string, bool) {
	dir := os.Getenv(EnvVar)
	if dir == "" {
		dir = DefaultDir
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

// Zips returns the downloads in Dir sorted by name, or nil when there is
// no such folder.
func Zips() ([]Repo, error) {
	dir, ok := Dir()
	if !ok {
		return nil, nil
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.zip"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	repos := make([]Repo, 0, len(paths))
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".zip")
		repos = append(repos, Repo{Name: name, Path: p, Skills: known[name]})
	}
	return repos, nil
}

// Require returns the downloads, or skips t saying why there are none.
func Require(t testing.TB) []Repo {
	t.Helper()
	repos, err := Zips()
	if err != nil {
		t.Fatal(err)
	}
	if len(repos) == 0 {
		dir, _ := Dir()
		t.Skipf("SKIPPED: no real repository downloads in %s (set %s to a folder of OWNER+NAME.zip files)", dir, EnvVar)
	}
	return repos
}

// Each runs fn as a subtest of t, named by the download, with the bytes
// of each download, or skips t as Require does.
func Each(t *testing.T, fn func(t *testing.T, r Repo, data []byte)) {
	t.Helper()
	for _, r := range Require(t) {
		t.Run(r.Name, func(t *testing.T) {
			data, err := os.ReadFile(r.Path)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, r, data)
		})
	}
}
