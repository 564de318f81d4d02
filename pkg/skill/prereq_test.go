package skill

import (
	"reflect"
	"testing"
)

func TestPrerequisitesOf(t *testing.T) {
	src := "---\nname: notes\ndescription: Take notes.\nprerequisites:\n" +
		"  - Read\n  - tool: Grep\n  - {mcp: github, tools: [Read, WebFetch]}\n  - mcp-server: docs\n" +
		"  - command: pdftotext\n  - env: HOME\n  - tool: \"  \"\n  - 42\n---\nBody"
	s, _ := mustParse(t, src, Options{DirName: "notes"})
	got := PrerequisitesOf(s.Prerequisites)
	want := []Prerequisite{{PrereqTool, "Read"}, {PrereqTool, "Grep"}, {PrereqMCP, "github"}, {PrereqTool, "WebFetch"}, {PrereqMCP, "docs"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, raw := range []any{nil, "Read", map[string]any{"tool": "Read"}, int64(3)} {
		n := len(PrerequisitesOf(raw))
		if wantN := map[bool]int{true: 0, false: 1}[raw == nil || raw == int64(3)]; n != wantN {
			t.Errorf("%#v: %d prerequisites, want %d", raw, n, wantN)
		}
	}
}
