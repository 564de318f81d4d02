package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An author indexes a folder of skills, the site serves it over real HTTP
// on 127.0.0.1, and install-check finds every skill installable; once an
// artifact is changed behind its index's back, it is refused by digest.
func TestIndexThenInstallCheck(t *testing.T) {
	src, pub := t.TempDir(), t.TempDir()
	writeTree(t, src, map[string]string{
		"lone/SKILL.md":       skillMD("lone", "Only a SKILL.md."),
		"tools/SKILL.md":      skillMD("tools", "Has scripts."),
		"tools/scripts/go.sh": "echo go\n",
	})
	out := filepath.Join(pub, "index.json")
	if code, stdout, stderr := runCLI("index", src, "-o", out); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, f := range []string{"lone/SKILL.md", "tools.zip"} {
		if _, err := os.Stat(filepath.Join(pub, filepath.FromSlash(f))); err != nil {
			t.Errorf("the artifact %s was not written: %v", f, err)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/.well-known/agent-skills/", http.StripPrefix("/.well-known/agent-skills/", http.FileServer(http.Dir(pub))))
	srv := httptest.NewServer(mux) // 127.0.0.1
	defer srv.Close()
	indexURL := srv.URL + "/.well-known/agent-skills/index.json"

	code, stdout, stderr := runCLI("install-check", indexURL)
	if code != 0 || !strings.Contains(stdout, "ok lone: 1 file(s), verified sha256:") || !strings.Contains(stdout, "ok tools: 2 file(s)") {
		t.Errorf("install-check: exit %d\n%s%s", code, stdout, stderr)
	}
	// One artifact, with and without a digest to match.
	if code, stdout, _ := runCLI("install-check", srv.URL+"/.well-known/agent-skills/tools.zip"); code != 0 || !strings.Contains(stdout, "UNVERIFIED") {
		t.Errorf("install-check of the zip: exit %d\n%s", code, stdout)
	}
	if code, stdout, _ := runCLI("install-check", "--digest", "sha256:"+strings.Repeat("0", 64), srv.URL+"/.well-known/agent-skills/tools.zip"); code != 1 || !strings.Contains(stdout, "Integrity (digest-mismatch)") {
		t.Errorf("install-check with a wrong digest: exit %d\n%s", code, stdout)
	}

	writeTree(t, pub, map[string]string{"lone/SKILL.md": skillMD("lone", "Changed behind the index's back.")})
	code, stdout, _ = runCLI("install-check", indexURL)
	if code != 1 || !strings.Contains(stdout, "refused lone: Integrity (digest-mismatch)") || !strings.Contains(stdout, "ok tools") {
		t.Errorf("install-check after tampering: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runCLI("install-check", srv.URL+"/nothing"); code != 1 || !strings.Contains(stderr, "FetchFailed (http-status)") {
		t.Errorf("install-check of a missing URL: exit %d\n%s", code, stderr)
	}
}
