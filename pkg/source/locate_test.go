package source

import "testing"

func TestLocate(t *testing.T) {
	for _, c := range []struct{ in, url, dir string }{
		// A repository's page: its default branch.
		{"https://github.com/anthropics/skills", "https://github.com/anthropics/skills/archive/HEAD.zip", ""},
		{"https://github.com/anthropics/skills/", "https://github.com/anthropics/skills/archive/HEAD.zip", ""},
		{"https://github.com/anthropics/skills.git", "https://github.com/anthropics/skills/archive/HEAD.zip", ""},
		{"https://www.GitHub.com/obra/superpowers?tab=readme#top", "https://github.com/obra/superpowers/archive/HEAD.zip", ""},
		// A folder, at a branch, tag or commit.
		{"https://github.com/anthropics/skills/tree/main/skills/pdf", "https://github.com/anthropics/skills/archive/main.zip", "skills/pdf"},
		{"https://github.com/openai/skills/tree/main/skills/.curated/", "https://github.com/openai/skills/archive/main.zip", "skills/.curated"},
		{"https://github.com/o/r/tree/v1.2.0", "https://github.com/o/r/archive/v1.2.0.zip", ""},
		{"https://github.com/o/r/tree/0123abcd/a//b", "https://github.com/o/r/archive/0123abcd.zip", "a/b"},
		{"https://github.com/o/r/tree/main/my%20skill", "https://github.com/o/r/archive/main.zip", "my skill"},
		// A file: its folder.
		{"https://github.com/anthropics/skills/blob/main/skills/pdf/SKILL.md", "https://github.com/anthropics/skills/archive/main.zip", "skills/pdf"},
		{"https://github.com/o/r/blob/main/SKILL.md", "https://github.com/o/r/archive/main.zip", ""},
		// A SKILL.md's raw address: the skill's folder, at that ref.
		{"https://raw.githubusercontent.com/anthropics/skills/main/skills/pdf/SKILL.md", "https://github.com/anthropics/skills/archive/main.zip", "skills/pdf"},
		{"https://Raw.GitHubUserContent.com/o/r/0123abcd/SKILL.md", "https://github.com/o/r/archive/0123abcd.zip", ""},
		{"https://raw.githubusercontent.com/o/r/refs/heads/main/a/b/SKILL.md", "https://github.com/o/r/archive/refs/heads/main.zip", "a/b"},
		{"https://raw.githubusercontent.com/o/r/refs/tags/v1/a/SKILL.md?token=x", "https://github.com/o/r/archive/refs/tags/v1.zip", "a"},
		{"https://raw.githubusercontent.com/o/r/my%20branch/my%20skill/SKILL.md", "https://github.com/o/r/archive/my%20branch.zip", "my skill"},
		// Any other raw file, or a SKILL.md with no ref, is downloaded as it is.
		{"https://raw.githubusercontent.com/o/r/main/skills/pdf/scripts/run.py", "https://raw.githubusercontent.com/o/r/main/skills/pdf/scripts/run.py", ""},
		{"https://raw.githubusercontent.com/o/r/main/skills/pdf/skill.md", "https://raw.githubusercontent.com/o/r/main/skills/pdf/skill.md", ""},
		{"https://raw.githubusercontent.com/o/r/SKILL.md", "https://raw.githubusercontent.com/o/r/SKILL.md", ""},
		{"https://raw.githubusercontent.com/o/r//SKILL.md", "https://raw.githubusercontent.com/o/r//SKILL.md", ""},
		{"https://raw.githubusercontent.com/o/r/refs/heads/SKILL.md", "https://raw.githubusercontent.com/o/r/refs/heads/SKILL.md", ""},
		{"https://raw.githubusercontent.com:8443/o/r/main/SKILL.md", "https://raw.githubusercontent.com:8443/o/r/main/SKILL.md", ""},
		{"http://raw.githubusercontent.com/o/r/main/SKILL.md", "http://raw.githubusercontent.com/o/r/main/SKILL.md", ""},
		{"https://example.test/o/r/main/SKILL.md", "https://example.test/o/r/main/SKILL.md", ""},
		// A folder that climbs out is passed on, for the install to refuse.
		{"https://github.com/o/r/tree/main/../x", "https://github.com/o/r/archive/main.zip", "../x"},
		// Anything else is downloaded as it is.
		{"https://github.com/o/r/archive/refs/heads/main.zip", "https://github.com/o/r/archive/refs/heads/main.zip", ""},
		{"https://github.com/o/r/releases/download/v1/s.zip", "https://github.com/o/r/releases/download/v1/s.zip", ""},
		{"https://github.com/o", "https://github.com/o", ""},
		{"https://github.com/o/r/tree/", "https://github.com/o/r/tree/", ""},
		{"http://github.com/o/r", "http://github.com/o/r", ""},
		{"https://github.com:8443/o/r", "https://github.com:8443/o/r", ""},
		{"https://user@github.com/o/r", "https://user@github.com/o/r", ""},
		{"https://github.com.evil.test/o/r", "https://github.com.evil.test/o/r", ""},
		{"https://gist.github.com/o/r", "https://gist.github.com/o/r", ""},
		{"https://github.com/o/r%3F/tree/main", "https://github.com/o/r%3F/tree/main", ""},
		{"https://github.com/../r", "https://github.com/../r", ""},
		{"https://example.test/s.zip", "https://example.test/s.zip", ""},
		{"not a url\x7f", "not a url\x7f", ""},
	} {
		got := Locate(c.in)
		if got.URL != c.url || got.Dir != c.dir {
			t.Errorf("Locate(%q) = %+v, want {%s %s}", c.in, got, c.url, c.dir)
		}
	}
}
