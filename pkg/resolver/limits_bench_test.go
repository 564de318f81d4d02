package resolver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/toolrule"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// The costs of the limits in limits.go, at a hundredth of the limit (1×),
// a tenth (10×) and the limit itself: time and memory grow linearly up to
// the limit, and stop there. `make bench` prints them.

// scales returns the three sizes of a limit.
func scales(limit int) []struct {
	name string
	n    int
} {
	return []struct {
		name string
		n    int
	}{{"1x", limit / 100}, {"10x", limit / 10}, {"limit", limit}}
}

// BenchmarkSubstituteExpansion: $0 over a 1 KiB argument, as many times as
// the expansion allows.
func BenchmarkSubstituteExpansion(b *testing.B) {
	arg := strings.Repeat("a", 1024)
	for _, sc := range scales(MaxExpansion) {
		body := strings.Repeat("$0 ", sc.n/1024-1)
		b.Run(sc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Substitute(body, arg, nil, "/skills/x"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("over", func(b *testing.B) {
		body := strings.Repeat("$0 ", 100*MaxExpansion/1024) // refused after building the limit
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Substitute(body, arg, nil, "/skills/x"); err == nil {
				b.Fatal("accepted")
			}
		}
	})
}

// BenchmarkSelection: a session opened with a selection of n ids, every
// one named twice (the dedupe) and none installed (a diagnostic each).
func BenchmarkSelection(b *testing.B) {
	e := envOn(b, testBackends[len(testBackends)-1].open(b))
	e.installSkills(b, "pdf")
	ctx := context.Background()
	for _, sc := range scales(MaxSelection) {
		ids := make([]string, 0, 2*sc.n)
		for i := range sc.n {
			ids = append(ids, fmt.Sprintf("id-%d", i))
		}
		ids = append(ids, ids...)
		b.Run(sc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, err := e.res.OpenSession(ctx, SessionOptions{ContextID: "bench", Skills: ids, AvailableTools: ids})
				if err != nil {
					b.Fatal(err)
				}
				s.Close(ctx)
			}
		})
	}
}

// BenchmarkAuditEntry: 100 entries recorded and flushed, naming
// skills of n bytes (up to the 16 KiB an agent may send); what is stored per entry stops growing at
// auditField.
func BenchmarkAuditEntry(b *testing.B) {
	e := envOn(b, testBackends[len(testBackends)-1].open(b))
	e.installSkills(b, "pdf")
	ctx := context.Background()
	s := e.open(b, SessionOptions{ContextID: "bench"})
	for _, sc := range []struct {
		name string
		n    int
	}{{"1x", 16}, {"10x", 160}, {"limit", auditField}, {"agentMax", 16 << 10}} {
		name := strings.Repeat("n", sc.n)
		b.Run(sc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for range 100 {
					s.Activate(ctx, name)
				}
				if err := e.res.Flush(ctx); err != nil {
					b.Fatal(err)
				}
			}
			res, err := e.db.Read(ctx, vfs.GetPrefix(vfs.StoreAudit, ""))
			if err != nil {
				b.Fatal(err)
			}
			stored := 0
			for _, r := range res[0] {
				var entry AuditEntry
				if json.Unmarshal(r.Value, &entry) == nil && entry.Skill != "" {
					stored = max(stored, len(r.Value))
				}
			}
			b.ReportMetric(float64(stored), "stored-B/entry")
		})
	}
}

// BenchmarkToolCheck: a tool call of n bytes, up to toolrule.MaxInput (a
// path's up to toolrule.MaxPath),
// checked against the costliest patterns of toolrule.MaxSpec bytes: a
// path of one-letter segments against a Read pattern of ** and literal
// segments (the specifier's length times the input's), a command against
// a Bash pattern that is a * and then text (linear, where backtracking
// took the product: 1.2 s native for a 30 KB pattern), a command of
// one-letter words against a prefix of * in words, each of which has the
// word it begins in checked (each word once), and a pipeline of admitted
// commands (the parser's and the checker's cost).
func BenchmarkToolCheck(b *testing.B) {
	path := "Read(" + strings.Repeat("**/a/", (toolrule.MaxSpec-2)/5) + "x)"
	wild := "Bash(*" + strings.Repeat("a", toolrule.MaxSpec-2) + "b)"
	words := "Bash(x " + strings.Repeat("*a", (toolrule.MaxSpec-8)/2) + ":*)"
	for _, sc := range scales(toolrule.MaxInput) {
		for _, c := range []struct {
			name, rule, tool, input string
		}{
			{"path", path, "Read", strings.Repeat("a/", sc.n*toolrule.MaxPath/toolrule.MaxInput/2)},
			{"wildcard", wild, "Bash", strings.Repeat("a", sc.n)},
			{"wildcard-words", words, "Bash", "x" + strings.Repeat(" a", sc.n/2-1)},
			{"pipeline", "Bash(git:*)", "Bash", strings.Repeat("git|", sc.n/4-1) + "git"},
		} {
			b.Run(c.name+"/"+sc.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					toolrule.Check([]string{c.rule}, c.tool, c.input, "")
				}
			})
		}
	}
}
