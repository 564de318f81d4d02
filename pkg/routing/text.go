package routing

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"golang.org/x/text/unicode/norm"
)

// Fold returns s as routing compares text: NFKC-normalized (so full-width
// "ＰＤＦ" is "pdf"), lower-cased, each run of white space one space, none
// at either end.
func Fold(s string) string {
	t := strings.ToLower(norm.NFKC.String(s))
	for i, r := range t {
		// Most text has single spaces only: then it is folded already.
		if unicode.IsSpace(r) && (r != ' ' || i == 0 || i == len(t)-1 || t[i-1] == ' ') {
			return strings.Join(strings.Fields(t), " ")
		}
	}
	return t
}

// isCJK reports whether r belongs to a script written without spaces
// between words.
func isCJK(r rune) bool {
	// Hangul Jamo, at U+1100, is the first of these scripts.
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// IsWordRune reports whether r belongs to a word of a script written with
// spaces between words.
func IsWordRune(r rune) bool {
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
	if IsWordRune(r) {
		for end < len(s) {
			// ASCII without a call per byte: most text is ASCII, and
			// calls are dear in WebAssembly.
			if c := s[end]; c < utf8.RuneSelf {
				if !asciiWord[c] {
					break
				}
				end++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[end:])
			if !IsWordRune(r) {
				break
			}
			end += n
		}
	}
	return end
}

// asciiWord marks the ASCII bytes IsWordRune accepts.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = IsWordRune(rune(c))
	}
	return t
}()

// term is a token of the lexical index.
type term struct {
	text string
	// cjk marks a CJK bigram or single character, which, unlike a word,
	// often straddles two words.
	cjk bool
}

// terms splits folded text into index terms: words of letters and digits
// (so "pdf-tools" is "pdf" and "tool"), stemmed by the Snowball English
// stemmer ("merging" and "merge" are "merg"), with stop words and single
// letters dropped; and CJK runs as overlapping character bigrams, or the
// character alone in a run of one, so that "查一下天气" shares "天气" with
// "天气预报".
func terms(folded string) []term {
	var out []term
	scanTerms(folded, func(w string) {
		if st, ok := wordTerm(w); ok {
			out = append(out, term{text: st})
		}
	}, func(c string) {
		if !stopWords[c] {
			out = append(out, term{text: c, cjk: true})
		}
	})
	return out
}

// wordTerm returns the term of a word of letters and digits, or false for
// a word dropped: a stop word, or a single letter.
func wordTerm(w string) (string, bool) {
	if stopWords[w] || len(w) == 1 && (w[0] < '0' || w[0] > '9') {
		return "", false
	}
	return stem(w), true
}

// scanTerms calls word with each word of letters and digits of folded
// text, and cjk with each bigram of its CJK runs, or their character in a
// run of one, in order. Both get substrings of folded.
func scanTerms(folded string, word, cjk func(string)) {
	for i := 0; i < len(folded); {
		if c := folded[i]; c < utf8.RuneSelf && !asciiWord[c] {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(folded[i:])
		switch {
		case IsWordRune(r):
			end := unitEnd(folded, i)
			word(folded[i:end])
			i = end
		case isCJK(r):
			// prev is where the run's previous character starts.
			prev, end := -1, i
			for end < len(folded) {
				r, n := utf8.DecodeRuneInString(folded[end:])
				if !isCJK(r) {
					break
				}
				if prev >= 0 {
					cjk(folded[prev : end+n])
				}
				prev, end = end, end+n
			}
			if prev == i {
				cjk(folded[i:end])
			}
			i = end
		default:
			i += size
		}
	}
}

// stem returns the Snowball stem of an English word; other words (those
// with letters outside ASCII) are left as they are, since the English
// stemmer would mangle them.
func stem(w string) string {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return w
		}
	}
	if len(w) <= 2 {
		return w
	}
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	st := env.Current()
	// Snowball keeps the "s" of a plural without a vowel before it:
	// acronyms such as "pdfs" or "csvs", common in requests.
	if st == w && len(w) > 3 && w[len(w)-1] == 's' && w[len(w)-2] != 's' && !strings.ContainsAny(w, "aeiouy") {
		return w[:len(w)-1]
	}
	return dropUre(st)
}

// ureNouns are the Snowball stems of "-ure" nouns that name their verb's
// act, by the stem of the verb: Snowball keeps the suffix ("failure" is
// "failur", "failing" "fail"), so the noun would not meet its verb. A
// table, not a rule: most "-ure" words are not their root's act
// ("posture" is no "post", "texture" no "text", "feature" no "feat").
var ureNouns = map[string]string{
	"failur": "fail", "pressur": "press", "exposur": "expos", "closur": "close", "disclosur": "disclos",
	"enclosur": "enclos", "departur": "depart", "seizur": "seiz", "erasur": "eras", "configur": "config",
}

// dropUre gives an "-ure" noun of ureNouns its verb's stem.
func dropUre(st string) string {
	if v, ok := ureNouns[st]; ok {
		return v
	}
	return st
}

// stopWords say nothing about which skill a message needs. They are
// matched before stemming.
var stopWords = setOf(
	"a", "about", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
	"could", "do", "does", "doing", "done", "for", "from", "get", "give", "got", "has", "have", "help",
	"here", "how", "i", "if", "in", "into", "is", "it", "its", "it's", "just", "let", "like", "make",
	"me", "my", "need", "needs", "not", "now", "of", "on", "one", "or", "our", "out", "please", "should",
	"skill", "skills", "so", "some", "something", "that", "the", "their", "them", "then", "there",
	"these", "this", "those", "to", "up", "us", "use", "used", "using", "want", "was", "we", "what",
	"when", "where", "which", "who", "why", "will", "with", "would", "you", "your", "i'm", "can't", "don't",
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
