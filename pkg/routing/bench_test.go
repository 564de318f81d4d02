package routing

import (
	"fmt"
	"strings"
	"testing"
)

// benchSkills returns n skills of a few words each, every one with
// phrases triggers, all starting with the same word: the worst case for
// matching, where every unit of a request walks the phrase trie.
func benchSkills(n, phrases int) []Skill {
	skills := make([]Skill, n)
	for i := range skills {
		s := Skill{ID: fmt.Sprintf("s%d", i), Name: fmt.Sprintf("skill-%d", i),
			Description: fmt.Sprintf("Handles task %d with tool%d and format%d files.", i, i%37, i%91)}
		for k := range phrases {
			s.Triggers = append(s.Triggers, fmt.Sprintf("pdf tool%d format%d", k, i%91))
		}
		skills[i] = s
	}
	return skills
}

// BenchmarkRouteQueryLength: the cost of a request grows linearly with
// its length, up to MaxQueryBytes (a typical request is about 80 bytes:
// 1×; 10×; the limit).
func BenchmarkRouteQueryLength(b *testing.B) {
	ix := NewIndex(benchSkills(1000, 8))
	unit := "merge the pdf tool3 format7 files now please " // 46 bytes
	for _, size := range []struct {
		name  string
		bytes int
	}{{"1x", 80}, {"10x", 800}, {"limit", MaxQueryBytes}} {
		q := strings.Repeat(unit, size.bytes/len(unit)+1)[:size.bytes]
		b.Run(size.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ix.Route(q, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIndexPhrases: building an index of 1,000 skills grows linearly
// with their phrases, up to MaxPhrases a skill (4: 1×; 40: 10×; the
// limit).
func BenchmarkIndexPhrases(b *testing.B) {
	for _, n := range []struct {
		name    string
		phrases int
	}{{"1x", 4}, {"10x", 40}, {"limit", MaxPhrases}} {
		skills := benchSkills(1000, n.phrases)
		b.Run(n.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				NewIndex(skills)
			}
		})
	}
}
