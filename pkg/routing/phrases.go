package routing

// Limits on what routing reads of a skill, so that the cost of indexing
// and of matching a message stays linear: a skill's phrases beyond
// MaxPhrases are ignored, as are phrases longer than MaxPhraseUnits units
// (a word, or one character of CJK, punctuation or space) or
// MaxPhraseBytes bytes. Real triggers are a few words; the registry caps
// the lists it stores, and these limits hold whatever a caller passes.
const (
	MaxPhrases     = 64
	MaxPhraseUnits = 24
	MaxPhraseBytes = 256
)

// phraseTrie holds every trigger and anti-trigger, unit by unit, so that
// matching a message walks at most MaxPhraseUnits nodes from each of its
// units: linear in the message, whatever the phrases.
type phraseTrie struct {
	next map[string]*phraseTrie
	// ends are the phrases that end here.
	ends []phraseEnd
}

type phraseEnd struct {
	skill int // position in Index.skills
	anti  bool
	text  string // the phrase, folded
}

// newPhraseTrie indexes the phrases of skills.
func newPhraseTrie(skills []Skill) *phraseTrie {
	root := &phraseTrie{}
	add := func(i int, list []string, anti bool) {
		for _, p := range list[:min(len(list), MaxPhrases)] {
			t := Fold(p)
			if t == "" || len(t) > MaxPhraseBytes {
				continue
			}
			n, units := root, 0
			for k := 0; k < len(t); units++ {
				if units == MaxPhraseUnits {
					n = nil
					break
				}
				end := unitEnd(t, k)
				u := t[k:end]
				if n.next == nil {
					n.next = map[string]*phraseTrie{}
				}
				child := n.next[u]
				if child == nil {
					child = &phraseTrie{}
					n.next[u] = child
				}
				n, k = child, end
			}
			if n == nil {
				continue
			}
			// A phrase listed twice by one skill counts once.
			if k := len(n.ends) - 1; k < 0 || n.ends[k].skill != i || n.ends[k].anti != anti {
				n.ends = append(n.ends, phraseEnd{skill: i, anti: anti, text: t})
			}
		}
	}
	for i, s := range skills {
		if !s.DisableModelInvocation {
			add(i, s.Triggers, false)
			add(i, s.AntiTriggers, true)
		}
	}
	return root
}

// phraseHits is what the phrases of one skill matched in a message.
type phraseHits struct {
	triggers []string // in the order they first occur
	anti     bool
}

// match finds the phrases that occur in the folded message q. A phrase
// matches whole units, so "pr" does not occur in "print"; CJK characters
// are units of their own, so "天气" occurs in "明天天气怎么样". Each phrase
// counts once however often it occurs.
func (root *phraseTrie) match(q string) map[int]*phraseHits {
	hits := map[int]*phraseHits{}
	if root.next == nil {
		return hits
	}
	seen := map[*phraseTrie]bool{}
	for i := 0; i < len(q); {
		first := unitEnd(q, i)
		n := root
		for k, units := i, 0; k < len(q) && units < MaxPhraseUnits; units++ {
			end := unitEnd(q, k)
			if n = n.next[q[k:end]]; n == nil {
				break
			}
			k = end
			if len(n.ends) == 0 || seen[n] {
				continue
			}
			seen[n] = true
			for _, e := range n.ends {
				h := hits[e.skill]
				if h == nil {
					h = &phraseHits{}
					hits[e.skill] = h
				}
				if e.anti {
					h.anti = true
				} else {
					h.triggers = append(h.triggers, e.text)
				}
			}
		}
		i = first
	}
	return hits
}
