package zipguard

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// FoldKey returns the key under which Read compares names for collisions
// (ReasonCollision): two names with the same key would land on one file on
// a case-insensitive or normalising file system, "PDF.md" and "pdf.md",
// "ß" and "ss", "é" composed and decomposed. Other packages compare names
// with it to hold them to the same rule.
func FoldKey(p string) string { return foldKey(p) }

// foldKey computes FoldKey without golang.org/x/text/cases, whose language
// tables cost about 330 KB of WebAssembly.
//
// Simple foldings come from the standard library (foldRune). Of the full
// foldings that differ from the simple ones, all but a few are
// compatibility characters that NFKC has already decomposed; what is left
// is U+00DF ß and U+1E9E ẞ (to "ss"), U+0130 İ (to i U+0307), and the
// Greek letters with ypogegrammeni or prosgegrammeni (U+1F80–U+1FFC, to
// the letter without it and ι). TestFoldKeyMatchesCases checks the result
// against x/text/cases for every code point and for random strings. The one
// difference is on purpose: x/text/cases (v0.43.0) swaps Cherokee's cases
// instead of folding them, so "Ꭰ" (U+13A0) and "ꭰ" (U+AB70) did not clash;
// foldRune folds both to Ꭰ as CaseFolding.txt and strings.EqualFold do.
func foldKey(p string) string {
	s := norm.NFKC.String(p)
	var b strings.Builder
	b.Grow(len(s) + 2)
	for _, r := range s {
		switch {
		case r == 'ß' || r == 'ẞ':
			b.WriteString("ss")
		case r == 'İ':
			b.WriteString("i\u0307")
		case 0x1f80 <= r && r <= 0x1ffc && hasYpogegrammeni(r):
			// The letter is the decomposition less U+0345, composed again.
			d := norm.NFD.String(string(r))
			for _, l := range norm.NFC.String(d[:len(d)-len("\u0345")]) {
				b.WriteRune(foldRune(l))
			}
			b.WriteRune('ι')
		default:
			b.WriteRune(foldRune(r))
		}
	}
	return norm.NFKC.String(b.String())
}

// hasYpogegrammeni reports whether r's canonical decomposition ends in
// U+0345 COMBINING GREEK YPOGEGRAMMENI.
func hasYpogegrammeni(r rune) bool {
	return strings.HasSuffix(norm.NFD.String(string(r)), "\u0345")
}

// foldRune returns r's simple case folding (CaseFolding.txt status C or
// S).
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	// Cherokee is the one script that folds to upper case.
	if unicode.Is(unicode.Cherokee, r) {
		return unicode.ToUpper(r)
	}
	// The orbit's lower-case form, which for U+017F ſ, U+212A K, U+03C2
	// ς and the like is that of its upper-case form. Mappings outside
	// the orbit (U+0131 ı lower-cases through I to i) are not foldings.
	if f := unicode.ToLower(unicode.ToUpper(r)); inOrbit(r, f) {
		return f
	}
	if f := unicode.ToLower(r); inOrbit(r, f) {
		return f
	}
	return r
}

// inOrbit reports whether f is r or folds to the same as r.
func inOrbit(r, f rune) bool {
	for x := r; ; {
		if x == f {
			return true
		}
		if x = unicode.SimpleFold(x); x == r {
			return false
		}
	}
}
