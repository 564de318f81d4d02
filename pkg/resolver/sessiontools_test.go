package resolver

import (
	"context"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/toolrule"
)

// TestSessionWorkingDirectory: a session told the agent's working
// directory judges an absolute path below it as the path relative to it,
// for relative allowed-tools patterns (Claude Code's Read sends
// file_path: "/home/u/proj/a.md"), and refuses one outside it; a
// working directory that is not absolute and clean is refused.
func TestSessionWorkingDirectory(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.install(t, skillFiles("notes", "# Notes", `allowed-tools: "Read(*.md) Write(out/**)"`)...)
		s := e.open(t, SessionOptions{AvailableTools: []string{"Read", "Write"}, WorkingDirectory: "/home/u/proj"})
		mustActivate(t, s, "notes")
		for _, c := range []struct {
			tool, path string
			allowed    bool
		}{
			{"Read", "/home/u/proj/docs/a.md", true},
			{"Write", "/home/u/proj/out/x.txt", true},
			{"Read", "/home/u/other/a.md", false},
			{"Write", "/home/u/proj/x.txt", false},
		} {
			err := s.CheckToolInput(c.tool, map[string]any{"file_path": c.path}, nil)
			if c.allowed != (err == nil) {
				t.Errorf("%s(%s): %v", c.tool, c.path, err)
			} else if err != nil {
				wantErr(t, c.tool, err, skillerr.ToolNotAllowed, toolrule.ReasonInputNotMatched)
			}
		}
		if err := s.CheckTool("Read", "/home/u/a.md"); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("a path outside the working directory: %v", err)
		}
		for _, dir := range []string{"proj", "/home/u/proj/", "/home/u/../proj", "/" + strings.Repeat("d", toolrule.MaxPath)} {
			_, err := e.res.OpenSession(context.Background(), SessionOptions{ContextID: "c", WorkingDirectory: dir})
			wantErr(t, "working directory "+dir[:min(len(dir), 20)], err, skillerr.InvalidArgument, toolrule.ReasonWorkingDirectory)
		}
	})
}
