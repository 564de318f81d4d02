package routing

import (
	"fmt"
	"math/rand/v2"
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

// vocabularySkills returns n skills whose names, descriptions (60
// words) and section titles (20 of 3 words) draw on a vocabulary of
// `words` words, the commonest most often (Zipf's law), as real text does.
func vocabularySkills(n, words int) []Skill {
	syllables := []string{"ka", "lo", "mi", "ter", "san", "po", "vel", "dra", "qui", "zen", "mor", "tal", "ex", "bri", "cor", "fen", "gal", "hu", "jin", "ny", "ing", "tion", "ed", "er"}
	vocab := make([]string, words)
	for i := range vocab {
		for k := i; ; k /= len(syllables) {
			vocab[i] += syllables[k%len(syllables)]
			if k < len(syllables) {
				break
			}
		}
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(5, 6)), 1.1, 1, uint64(words-1))
	text := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	skills := make([]Skill, n)
	for i := range skills {
		s := Skill{ID: fmt.Sprintf("s%d", i), Name: strings.ReplaceAll(text(2), " ", "-"), Description: text(60) + "."}
		for range 20 {
			s.Headings = append(s.Headings, text(3))
		}
		skills[i] = s
	}
	return skills
}

// BenchmarkIndexVocabulary: an index of 1,000 skills costs more the more
// distinct words their text has, since each is stemmed once per index:
// 2,000 distinct words, and 11,400, about what 1,000 skills like the real
// ones would have (the 263 real skills have 4,500 distinct words, and the
// count grows about 1.5 times each time the skills double).
func BenchmarkIndexVocabulary(b *testing.B) {
	for _, v := range []struct {
		name  string
		vocab int
	}{{"2k-words", 2000}, {"11k-words", 20000}} {
		skills := vocabularySkills(1000, v.vocab)
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				NewIndex(skills)
			}
		})
	}
}
