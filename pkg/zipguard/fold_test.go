package zipguard

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// casesKey is the collision key as it was computed with x/text/cases, the
// reference foldKey must reproduce exactly, with one correction: x/text/cases
// (v0.43.0) swaps Cherokee's cases instead of folding them (Ꭰ U+13A0 to ꭰ
// U+AB70 and ꭰ to Ꭰ), so "Ꭰ" and "ꭰ" never matched. CaseFolding.txt folds
// Cherokee to upper case, as foldKey and strings.EqualFold do.
func casesKey(p string) string {
	k := cases.Fold().String(norm.NFKC.String(p))
	k = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cherokee, r) {
			return unicode.ToUpper(r)
		}
		return r
	}, k)
	return norm.NFKC.String(k)
}

// TestFoldKeyMatchesCases compares foldKey with full case folding by
// x/text/cases for every code point alone, and after letters it could
// combine with. The code is the same on every platform, so in the browser,
// where this takes ten times longer, it samples the code points outside the
// scripts with case.
func TestFoldKeyMatchesCases(t *testing.T) {
	bad := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) || runtime.GOOS == "js" && r >= 0x2000 && r%16 != 0 && !isCased(r) {
			continue
		}
		for _, s := range []string{string(r), "A" + string(r), "\u03b1" + string(r)} {
			if got, want := foldKey(s), casesKey(s); got != want {
				if bad++; bad <= 20 {
					t.Errorf("%U in %+q: foldKey gives %+q, x/text/cases %+q", r, s, got, want)
				}
			}
		}
	}
	if bad > 20 {
		t.Errorf("… %d mismatches in all", bad)
	}
}

// foldAlphabet holds what is hard to fold: letters with several foldings,
// full foldings, combining marks in and out of canonical order, and
// compatibility characters.
var foldAlphabet = []rune(
	"aAiIıİjJsSſkKKåÅÅßẞσςΣιΙͅ\u0345\u0399\u1fbe\u03b9" +
		"ᾀᾈᾳᾼᾴῃῌῳῼᾷΐΰǰŉẖẗẘẙẚ" +
		"\u0300\u0301\u0307\u0308\u030c\u0313\u0314\u0323\u0342" +
		"eéEÉoōǪǫ" +
		"ﬀﬁﬃﬓﬗǄǅǆǱǲǳ" +
		"ᏸᏰꭰᎠ" +
		"ＡａＢｂＳｓ①Ⅻⅻ" +
		"ΑαΒβϐΘθϑ" +
		"ДдЁёᲀВв" +
		"Ⴀⴀ𐐀𐐨" +
		"._-0")

// isCased reports whether r has other case forms, or is a compatibility
// character NFKC may turn into one.
func isCased(r rune) bool {
	return unicode.SimpleFold(r) != r || norm.NFKC.String(string(r)) != string(r)
}

func TestFoldKeyMatchesCasesOnStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 200_000
	if testing.Short() || runtime.GOOS == "js" {
		n = 20_000
	}
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteRune(foldAlphabet[rng.IntN(len(foldAlphabet))])
		}
		s := b.String()
		if got, want := foldKey(s), casesKey(s); got != want {
			t.Fatalf("foldKey(%+q) = %+q, x/text/cases gives %+q", s, got, want)
		}
	}
}

func FuzzFoldKey(f *testing.F) {
	for _, s := range []string{"Straße.md", "ᾼ/İ", "ꭰᏸ", "ＡＢＣ", "e\u0301\u0345"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // skillpath.Clean rejects such names before they get here
		}
		if got, want := foldKey(s), casesKey(s); got != want {
			t.Fatalf("foldKey(%+q) = %+q, x/text/cases gives %+q", s, got, want)
		}
	})
}

// TestFoldCollisions pins the collisions (and non-collisions) Read and
// Write rely on.
func TestFoldCollisions(t *testing.T) {
	for _, c := range []struct {
		a, b    string
		collide bool
	}{
		{"a.md", "A.md", true},
		{"straße.md", "STRASSE.md", true},
		{"straße.md", "strasse.md", true},
		{"STRAẞE.md", "strasse.md", true},
		{"caf\u00e9.md", "cafe\u0301.md", true}, // NFC vs NFD
		{"ＲＥＡＤＭＥ.md", "readme.md", true},        // fullwidth (NFKC)
		{"\ufb01le.md", "FILE.md", true},        // ligature (NFKC)
		{"\u212a.md", "k.md", true},             // Kelvin sign
		{"\u017f.md", "S.md", true},             // long s
		{"σ.md", "ς.md", true},                  // final sigma
		{"\u1fb3.md", "\u0391\u0399.md", true},  // ᾳ vs ΑΙ (full folding)
		{"\u1fbc.md", "\u03b1\u0345.md", true},  // ᾼ vs α + ypogegrammeni
		{"\u13a0.md", "\uab70.md", true},        // Cherokee
		{"\u0130.md", "i\u0307.md", true},       // İ folds to i + dot above
		{"\u0130.md", "i.md", false},            // but not to i (no Turkic rules)
		{"\u0131.md", "i.md", false},            // ı is its own letter
		{"a.md", "b.md", false},
		{"\u2460.md", "1.md", true}, // ① is 1 under NFKC
	} {
		if got := foldKey(c.a) == foldKey(c.b); got != c.collide {
			t.Errorf("%+q vs %+q: collide = %v, want %v", c.a, c.b, got, c.collide)
		}
		tr := newTree()
		tr.add(c.a, false)
		reason, _ := tr.add(c.b, false)
		if got := reason == ReasonCollision; got != c.collide {
			t.Errorf("tree: %+q then %+q: reason %q", c.a, c.b, reason)
		}
	}
}

// TestFoldKeyBySegment: the collision tree folds a path segment by
// segment; that must give the key of the whole path.
func TestFoldKeyBySegment(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20_000 {
		segs := make([]string, 1+rng.IntN(4))
		for i := range segs {
			segs[i] = randomFoldString(rng)
		}
		whole := foldKey(strings.Join(segs, "/"))
		var parts []string
		for _, s := range segs {
			parts = append(parts, foldKey(s))
		}
		if got := strings.Join(parts, "/"); got != whole {
			t.Fatalf("segments %+q fold to %+q; the whole path to %+q", segs, got, whole)
		}
	}
}

// randomFoldString returns one to six letters of foldAlphabet.
func randomFoldString(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(6) {
		b.WriteRune(foldAlphabet[rng.IntN(len(foldAlphabet))])
	}
	return b.String()
}
