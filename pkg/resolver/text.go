package resolver

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// fold returns s as routing compares text: NFKC-normalized (so full-width
// "ＰＤＦ" is "pdf"), lower-cased, each run of white space one space, none
// at either end.
func fold(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(norm.NFKC.String(s))), " ")
}

// isCJK reports whether r belongs to a script written without spaces
// between words.
func isCJK(r rune) bool {
	// Hangul Jamo, at U+1100, is the first of these scripts.
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// isWordRune reports whether r belongs to a word of a script written with
// spaces between words.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc)) && !isCJK(r)
}

// unitEnd returns where the unit starting at s[i] ends: a run of word
// runes is one unit, any other rune is a unit of its own.
func unitEnd(s string, i int) int {
	r, size := utf8.DecodeRuneInString(s[i:])
	end := i + size
	if isWordRune(r) {
		for end < len(s) {
			r, n := utf8.DecodeRuneInString(s[end:])
			if !isWordRune(r) {
				break
			}
			end += n
		}
	}
	return end
}

// term is a token of the lexical index.
type term struct {
	text string
	// cjk marks a CJK bigram or single character, which, unlike a word,
	// often straddles two words.
	cjk bool
}

// terms splits folded text into index terms: words of letters and digits
// (so "pdf-tools" is "pdf" and "tool"), with plurals stemmed and stop
// words and single letters dropped, and CJK runs as overlapping character bigrams, or the
// character alone in a run of one, so that "查一下天气" shares "天气" with
// "天气预报".
func terms(folded string) []term {
	var out []term
	for i := 0; i < len(folded); {
		r, size := utf8.DecodeRuneInString(folded[i:])
		switch {
		case isWordRune(r):
			end := unitEnd(folded, i)
			if w := stem(folded[i:end]); !stopWords[w] && (len(w) > 1 || w[0] >= '0' && w[0] <= '9') {
				out = append(out, term{text: w})
			}
			i = end
		case isCJK(r):
			var run []rune
			end := i
			for end < len(folded) {
				r, n := utf8.DecodeRuneInString(folded[end:])
				if !isCJK(r) {
					break
				}
				run = append(run, r)
				end += n
			}
			out = appendCJK(out, run)
			i = end
		default:
			i += size
		}
	}
	return out
}

func appendCJK(out []term, run []rune) []term {
	if len(run) == 1 {
		if t := string(run); !stopWords[t] {
			out = append(out, term{text: t, cjk: true})
		}
		return out
	}
	for k := 0; k+1 < len(run); k++ {
		if t := string(run[k : k+2]); !stopWords[t] {
			out = append(out, term{text: t, cjk: true})
		}
	}
	return out
}

// stem strips English plural endings, so that "tables" finds "table".
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// stopWords say nothing about which skill a message needs. They are
// written as stem leaves them: "doe" is "does".
var stopWords = setOf(
	"about", "all", "an", "and", "any", "are", "as", "at", "be", "but", "by", "can", "could",
	"do", "doe", "for", "from", "get", "give", "has", "have", "help", "how", "if", "in", "into",
	"is", "it", "its", "just", "me", "my", "need", "not", "of", "on", "or", "our", "out", "please",
	"should", "skill", "so", "some", "that", "the", "their", "them", "then", "there", "these",
	"this", "those", "to", "up", "us", "use", "used", "using", "want", "was", "we", "what",
	"when", "where", "which", "who", "will", "with", "would", "you", "your",
	"一下", "一个", "一些", "帮我", "请帮", "我们", "你们", "我想", "可以", "这个", "那个", "什么",
	"怎么", "如何", "需要", "使用", "技能", "的", "了", "吗", "吧", "呢", "请", "我", "你", "是", "在", "和", "把",
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
