package resolver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/internal/benchpack"
	"github.com/skillfs/skillfs/pkg/registry"
)

// generatedSkills returns n skills with realistic lengths: names of two
// or three words, descriptions of 20 to 40 words (one in ten in Chinese),
// two or three triggers and an anti-trigger for one in four, drawn from a
// vocabulary of 2,000 words.
func generatedSkills(n int) []Skill {
	rng := rand.New(rand.NewPCG(1, 2))
	syllables := []string{"ka", "lo", "mi", "ter", "san", "po", "vel", "dra", "qui", "zen", "mor", "tal", "ex", "bri", "cor", "fen", "gal", "hu", "jin", "ny"}
	vocab := make([]string, 2000)
	for i := range vocab {
		vocab[i] = syllables[i%20] + syllables[i/20%20] + syllables[i/400]
	}
	chinese := []rune("查询天气文件表格翻译代码审查提交搜索图片生成数据分析报告邮件会议记录部署测试")
	words := func(k int) []string {
		out := make([]string, k)
		for i := range out {
			out[i] = vocab[rng.IntN(len(vocab))]
		}
		return out
	}
	skills := make([]Skill, n)
	for i := range skills {
		name := strings.Join(words(2+rng.IntN(2)), "-")
		s := Skill{ID: fmt.Sprintf("%s-%d", name, i), Name: name, UserInvocable: true, CostHint: []string{"low", "medium", "high"}[rng.IntN(3)], ParallelSafe: rng.IntN(2) == 0}
		if i%10 == 0 {
			var b strings.Builder
			for k := 0; k < 30; k++ {
				b.WriteRune(chinese[rng.IntN(len(chinese))])
			}
			s.Description = b.String() + "。"
		} else {
			s.Description = strings.Join(words(20+rng.IntN(21)), " ") + ". Use when the user asks for it."
		}
		s.Triggers = words(2 + rng.IntN(2))
		if i%4 == 0 {
			s.AntiTriggers = []string{strings.Join(words(2), " ")}
		}
		skills[i] = s
	}
	return skills
}

var benchQueries = func() []string {
	skills := generatedSkills(1000)
	var qs []string
	for i := 0; i < 50; i++ {
		s := skills[i*19%len(skills)]
		words := strings.Fields(s.Description)
		qs = append(qs, fmt.Sprintf("please %s the %s with %s, thanks", s.Triggers[0], words[len(words)/2], words[0]))
	}
	return append(qs, "帮我查询一下明天的天气和会议记录", "$"+skills[7].Name+" run it on report.pdf", "hello there")
}()

func BenchmarkIndex1000(b *testing.B) {
	skills := generatedSkills(1000)
	for b.Loop() {
		NewIndex(skills)
	}
}

func BenchmarkRoute1000(b *testing.B) {
	ix := NewIndex(generatedSkills(1000))
	opts := RouteOptions{History: []string{"earlier we talked about " + benchQueries[3]}, Stats: map[string]Stats{}}
	i := 0
	for b.Loop() {
		if _, err := ix.Route(benchQueries[i%len(benchQueries)], opts); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkCatalog1000(b *testing.B) {
	skills := generatedSkills(1000)
	for _, c := range []struct {
		name string
		opts CatalogOptions
	}{
		{"xml-full", CatalogOptions{}},
		{"xml-names", CatalogOptions{Mode: ModeNames}},
		{"json-full", CatalogOptions{Format: FormatJSON}},
		// 8,000 characters (2,000 tokens): shortening fails, names are cut.
		{"xml-budget-8k", CatalogOptions{Budget: 8000}},
		// 200,000 characters: descriptions are cut to a common length.
		{"xml-budget-200k", CatalogOptions{Budget: 200000}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Catalog(skills, c.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchEnv returns a resolver over the skills of archive, on the
// platform's benchmark backend (IndexedDB in the browser).
func benchEnv(b *testing.B, archive []byte) *env {
	b.Helper()
	e := envOn(b, benchBackend(b))
	if _, err := e.reg.Import(context.Background(), archive, registry.ImportOptions{}); err != nil {
		b.Fatal(err)
	}
	// The import's garbage would otherwise be collected inside the timed
	// loop; in the browser a collection of a heap this size takes
	// milliseconds.
	runtime.GC()
	return e
}

// BenchmarkOpenSession1000 opens (and closes) a session over 1,000
// skills: "shared" reuses the snapshot another session of the selection
// built at this revision (two reads: the revision and the pins), "fresh"
// builds it from the registry's records each time. Both start after a
// first session, which pays for the registry decoding its records once
// after a change.
func BenchmarkOpenSession1000(b *testing.B) {
	e := benchEnv(b, benchpack.Small(1000))
	ctx := context.Background()
	e.open(b, SessionOptions{}).Close(ctx)
	for _, fresh := range []bool{false, true} {
		name := map[bool]string{false: "shared", true: "fresh"}[fresh]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if fresh {
					e.res.dropSnapshots()
				}
				s, err := e.res.OpenSession(ctx, SessionOptions{ContextID: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				if n := len(s.Status().Visible); n != 1000 {
					b.Fatalf("%d visible", n)
				}
				s.Close(ctx)
			}
		})
	}
}

// BenchmarkActivateCold activates a skill whose content is not cached:
// its file list and its SKILL.md come from storage. "small-1000" is a
// session over 1,000 small skills; "pack-pptx" the bench pack's largest
// SKILL.md (75 KB, 60 files).
func BenchmarkActivateCold(b *testing.B) {
	ctx := context.Background()
	b.Run("small-1000", func(b *testing.B) {
		e := benchEnv(b, benchpack.Small(1000))
		s := e.open(b, SessionOptions{})
		ids := s.Status().Visible
		i := 0
		for b.Loop() {
			e.res.cache.purge()
			if _, err := s.Activate(ctx, ids[i%len(ids)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("pack-pptx", func(b *testing.B) {
		e := benchEnv(b, benchpack.Pack())
		s := e.open(b, SessionOptions{})
		for b.Loop() {
			e.res.cache.purge()
			if _, err := s.Activate(ctx, benchpack.LargeSkillMD); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkActivateWarm activates a skill again: everything comes from
// the cache.
func BenchmarkActivateWarm(b *testing.B) {
	e := benchEnv(b, benchpack.Small(1000))
	s := e.open(b, SessionOptions{})
	ctx := context.Background()
	id := s.Status().Visible[500]
	mustActivate(b, s, id)
	for b.Loop() {
		if _, err := s.Activate(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFileWarm reads a cached file: the hot path of level 3,
// whose target is 0.1 ms.
func BenchmarkReadFileWarm(b *testing.B) {
	e := benchEnv(b, benchpack.Pack())
	s := e.open(b, SessionOptions{})
	ctx := context.Background()
	p := "/skills/" + benchpack.LargeSkillMD + "/SKILL.md"
	mustRead(b, s, p)
	for b.Loop() {
		if _, err := s.ReadFile(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}
