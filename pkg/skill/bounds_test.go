package skill

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// TestListBounds: list fields drop repeats and keep at most MaxListItems,
// with a warning; before, a 160,000-item trigger list was kept whole.
func TestListBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: a\ndescription: d\ntriggers:\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "- t%d\n- t%d\n", i, i) // each twice
	}
	b.WriteString("allowed-tools: Read Read Bash Read\n---\n")
	s, diags := Parse([]byte(b.String()), Options{})
	if s == nil {
		t.Fatalf("refused: %v", diags)
	}
	if len(s.Triggers) != MaxListItems || s.Triggers[0] != "t0" || s.Triggers[1] != "t1" {
		t.Errorf("%d triggers, first %q: want %d, repeats dropped", len(s.Triggers), s.Triggers[:2], MaxListItems)
	}
	if got := strings.Join(s.AllowedTools, " "); got != "Read Bash" {
		t.Errorf("allowed-tools %q, want %q", got, "Read Bash")
	}
	if !hasCode(diags, "list-truncated") {
		t.Errorf("no list-truncated warning: %v", diags)
	}
}

// TestDiagnosticBounds: thousands of problems of one kind make a few
// diagnostics and one that counts the rest, as severe as they were.
func TestDiagnosticBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: a\ndescription: d\n")
	for i := range 4000 {
		fmt.Fprintf(&b, "u%d: x\n", i)
	}
	b.WriteString("---\n")
	_, diags := Parse([]byte(b.String()), Options{})
	if len(diags) > maxDiagnostics+10 {
		t.Fatalf("%d diagnostics", len(diags))
	}
	var merged *Diagnostic
	for i, d := range diags {
		if d.Code == "diagnostics-merged" {
			merged = &diags[i]
		}
	}
	if merged == nil || !strings.Contains(merged.Message, "3995 more") {
		t.Fatalf("no count of the merged diagnostics: %v", diags)
	}
	_, strict := Parse([]byte(b.String()), Options{Mode: Strict})
	if !HasErrors(strict) || len(strict) > maxDiagnostics+10 {
		t.Errorf("strict: %d diagnostics, errors %v", len(strict), HasErrors(strict))
	}
}

func hasCode(diags []Diagnostic, code string) bool {
	for _, d := range diags {
		if d.Code == code {
			return true
		}
	}
	return false
}

// BenchmarkBounds parses frontmatter whose lists and problems grow to the
// limits: 1×, 10× and as many as 64 KiB of frontmatter holds. Time and
// memory should grow linearly and stop at the limit.
func BenchmarkBounds(b *testing.B) {
	build := func(n int, line string) []byte {
		var sb strings.Builder
		sb.WriteString("---\nname: a\ndescription: d\n")
		if strings.HasPrefix(line, "- ") {
			sb.WriteString("triggers:\n")
		}
		for i := 0; i < n && sb.Len() < MaxFrontmatter-64; i++ {
			fmt.Fprintf(&sb, line, i)
		}
		sb.WriteString("---\n")
		return []byte(sb.String())
	}
	for _, c := range []struct {
		name string
		src  []byte
	}{
		{"triggers/1x", build(25, "- phrase %d\n")},
		{"triggers/10x", build(250, "- phrase %d\n")},
		{"triggers/limit", build(1<<20, "- phrase %d\n")},
		{"unknown-keys/1x", build(10, "u%d: x\n")},
		{"unknown-keys/10x", build(100, "u%d: x\n")},
		{"unknown-keys/limit", build(1<<20, "u%d: x\n")},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.src)))
			for b.Loop() {
				Parse(c.src, Options{})
			}
		})
	}
}

// TestDiagnosticQuotesClipped: a name of 30,000 characters is quoted in
// no diagnostic whole: each quotes at most skillerr.MaxQuoted bytes of it.
func TestDiagnosticQuotesClipped(t *testing.T) {
	name := "../" + strings.Repeat("N", 30_000)
	_, diags := Read([]byte("---\nname: "+name+"\ndescription: d\n---\n"), Options{DirName: "d"})
	if len(diags) < 3 {
		t.Fatalf("diagnostics %v", diags)
	}
	for _, d := range diags {
		if len(d.Message) > 2*skillerr.MaxQuoted {
			t.Errorf("%s: a message of %d bytes", d.Code, len(d.Message))
		}
	}
}
