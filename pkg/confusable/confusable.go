// Package confusable tells strings that look the same apart from strings
// that are the same: the confusable skeleton of Unicode's security
// mechanisms (UTS #39), under which "рdf" (Cyrillic р) is "pdf", and the
// default-ignorable characters that render as nothing ("pdf\u3164").
// Skill ids are compared by skeleton so that two skills a model would read
// as one name cannot both be installed (docs/architecture.md).
package confusable

import (
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Skeleton returns the UTS #39 skeleton of s: s in NFD, each character
// replaced by its prototype in confusables.txt, and NFD again. Two strings
// are confusable when their skeletons are equal.
func Skeleton(s string) string {
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if p, ok := prototype(r); ok {
			b.WriteString(p)
		} else {
			b.WriteRune(r)
		}
	}
	return norm.NFD.String(b.String())
}

func prototype(r rune) (string, bool) {
	i := sort.Search(len(table), func(i int) bool { return rune(table[i]>>32) >= r })
	if i == len(table) || rune(table[i]>>32) != r {
		return "", false
	}
	e := table[i]
	off, n := int(e>>8&0xffffff), int(e&0xff)
	return protos[off : off+n], true
}

// IsDefaultIgnorable reports whether r is a Default_Ignorable_Code_Point:
// a character that renders as nothing where it is not supported (zero
// width spaces and joiners, soft hyphens, variation selectors, Hangul
// fillers, tags…). The property is derived as Unicode derives it:
// Other_Default_Ignorable_Code_Point, format characters (Cf) and
// variation selectors, less white space, the prepended concatenation
// marks and the interlinear annotation characters U+FFF9–U+FFFB.
func IsDefaultIgnorable(r rune) bool {
	if !unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector) {
		return false
	}
	return !unicode.In(r, unicode.White_Space, unicode.Prepended_Concatenation_Mark) && (r < 0xfff9 || r > 0xfffb)
}

// HasDefaultIgnorable reports whether s holds a default-ignorable character.
func HasDefaultIgnorable(s string) bool {
	return strings.IndexFunc(s, IsDefaultIgnorable) >= 0
}

// LookAlikes returns the characters whose prototype is proto in
// confusables.txt, in code point order.
func LookAlikes(proto string) []rune {
	var out []rune
	for _, e := range table {
		off, n := int(e>>8&0xffffff), int(e&0xff)
		if protos[off:off+n] == proto {
			out = append(out, rune(e>>32))
		}
	}
	return out
}
