package resolver

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// phrase is a trigger or anti-trigger of a skill.
type phrase struct {
	text  string // folded
	skill int    // position in Index.skills
	anti  bool
}

// phraseIndex is an inverted index of triggers and anti-triggers by their
// first unit (a word, or a single character of CJK or punctuation), so
// that matching a message looks only at phrases that start where one of
// its units does, not at every phrase.
type phraseIndex map[string][]phrase

func newPhraseIndex(skills []Skill) phraseIndex {
	idx := phraseIndex{}
	add := func(i int, list []string, anti bool) {
		for _, p := range list {
			if t := fold(p); t != "" {
				k := t[:unitEnd(t, 0)]
				idx[k] = append(idx[k], phrase{text: t, skill: i, anti: anti})
			}
		}
	}
	for i, s := range skills {
		if !s.DisableModelInvocation {
			add(i, s.Triggers, false)
			add(i, s.AntiTriggers, true)
		}
	}
	return idx
}

// phraseHits is what the phrases of one skill matched in a message.
type phraseHits struct {
	triggers []string // in the order they occur
	anti     bool
}

// match finds the phrases that occur in the folded message q. A phrase
// occurs where a unit of q starts, and must not end inside a word: "pr"
// does not occur in "print", but "天气" occurs in "明天天气怎么样", since
// CJK has no spaces to mark words.
func (idx phraseIndex) match(q string) map[int]*phraseHits {
	hits := map[int]*phraseHits{}
	for i := 0; i < len(q); {
		end := unitEnd(q, i)
		for _, p := range idx[q[i:end]] {
			if !strings.HasPrefix(q[i:], p.text) || !endsAtBoundary(q, i+len(p.text)) {
				continue
			}
			h := hits[p.skill]
			if h == nil {
				h = &phraseHits{}
				hits[p.skill] = h
			}
			if p.anti {
				h.anti = true
			} else if !slices.Contains(h.triggers, p.text) {
				h.triggers = append(h.triggers, p.text)
			}
		}
		i = end
	}
	return hits
}

// endsAtBoundary reports whether a match ending at s[end] ends between
// words, not inside one.
func endsAtBoundary(s string, end int) bool {
	if end == len(s) {
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(s[:end])
	next, _ := utf8.DecodeRuneInString(s[end:])
	return !isWordRune(last) || !isWordRune(next)
}
