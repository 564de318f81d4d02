package resolver

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
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
		ix.Route(benchQueries[i%len(benchQueries)], opts)
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
