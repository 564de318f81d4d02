// Package skillpath decides whether a path inside a skill is acceptable and
// cleans it.
//
// A skill path is relative, slash-separated and stays inside the skill: it is
// checked, never resolved. Anything that could mean something else on
// another system or to another decoder — a backslash, a drive letter, a
// percent escape, a Unicode character that looks like "/" or "." — is
// rejected rather than interpreted, because the same path is read by the
// browser file system, zip tools and operating systems the skill is exported
// to. So are Unicode noncharacters (U+FFFF and the like), which programs
// reserve for their own use: the browser store cannot keep them in a key.
package skillpath

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/skillfs/skillfs/pkg/confusable"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// Length limits, in bytes.
const (
	MaxLen        = 1024 // a whole path
	MaxSegmentLen = 255  // one name between slashes, as most file systems allow
)

// Reasons carried by the *skillerr.Error that Clean returns.
const (
	ReasonTooLong        = "too-long"
	ReasonNotUTF8        = "not-utf8"
	ReasonNUL            = "nul"
	ReasonControlChar    = "control-char"
	ReasonFormatChar     = "format-char" // invisible: bidi overrides, zero-width characters
	ReasonAbsolute       = "absolute"
	ReasonDriveLetter    = "drive-letter"
	ReasonColon          = "colon" // NTFS alternate data streams, classic Mac separator
	ReasonBackslash      = "backslash"
	ReasonPercentEncoded = "percent-encoded"
	ReasonDotDot         = "dot-dot"
	ReasonReserved       = "reserved" // Windows device names
	ReasonLookalike      = "lookalike"
	ReasonNoncharacter   = "noncharacter" // U+FDD0–U+FDEF, U+xxFFFE, U+xxFFFF
	ReasonWindowsName    = "windows-name" // a trailing dot or space, or < > " | ? *
)

// Root is what Clean returns for the skill's own directory ("" or ".").
const Root = "."

// Clean returns p as a clean, relative, slash-separated path such as
// "scripts/run.py", or a *skillerr.Error with Code PathRejected, Subject p
// and one of the Reason constants.
//
// "", "." and "./" mean the skill's root and clean to Root: callers decide
// whether the root is acceptable. "." segments, repeated slashes and a
// trailing slash are removed, since they mean the same thing everywhere.
// ".." is rejected wherever it appears, even when "a/../b" would stay inside
// the skill: a path that needs resolving is suspect.
func Clean(p string) (string, error) {
	if p == "" || p == Root {
		return Root, nil
	}
	if len(p) > MaxLen {
		return "", reject(p, ReasonTooLong, "path is longer than %d bytes", MaxLen)
	}
	if !utf8.ValidString(p) {
		return "", reject(p, ReasonNotUTF8, "path is not valid UTF-8")
	}
	ascii := true
	for _, r := range p {
		if r >= 0x7f {
			ascii = false
		}
		switch {
		case ' ' <= r && r < 0x7f:
			// Printable ASCII, nearly every path: none of the checks
			// below apply, and the Unicode tables cost an import of
			// thousands of files a third of its header scan.
		case r == 0:
			return "", reject(p, ReasonNUL, "path contains a NUL byte")
		case unicode.IsControl(r):
			return "", reject(p, ReasonControlChar, "path contains control character %U", r)
		case confusable.IsDefaultIgnorable(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029':
			return "", reject(p, ReasonFormatChar, "path contains invisible character %U", r)
		case isNoncharacter(r):
			return "", reject(p, ReasonNoncharacter, "path contains %U, a Unicode noncharacter", r)
		case separatorLookalikes[r]:
			return "", reject(p, ReasonLookalike, "path contains %U, which looks like a path separator", r)
		}
	}
	if reason, msg := checkShape(p); reason != "" {
		return "", reject(p, reason, "%s", msg)
	}
	// Compatibility forms (fullwidth solidus, one-dot leader, ...) fold to
	// ASCII under NFKC; a path whose folded form would be rejected, or
	// gains a separator, is a disguise.
	if !ascii { // printable ASCII is its own NFKC form
		if folded := norm.NFKC.String(p); folded != p {
			if reason, _ := checkShape(folded); reason != "" || strings.Count(folded, "/") != strings.Count(p, "/") {
				return "", reject(p, ReasonLookalike, "path contains characters that read as %q once normalised", folded)
			}
		}
	}

	// Most paths are clean already: no empty or "." segment to drop.
	if !strings.Contains(p, "//") && !strings.HasSuffix(p, "/") && p != "." && !strings.HasPrefix(p, "./") &&
		!strings.HasSuffix(p, "/.") && !strings.Contains(p, "/./") {
		return p, nil
	}
	segs := make([]string, 0, strings.Count(p, "/")+1)
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			segs = append(segs, s)
		}
	}
	if len(segs) == 0 {
		return Root, nil
	}
	return strings.Join(segs, "/"), nil
}

// checkShape applies the ASCII-level rules to p, which is valid UTF-8 free of
// control characters. It returns the reason and message of the first rule p
// breaks, or "" when it breaks none.
func checkShape(p string) (reason, msg string) {
	if len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]) {
		return ReasonDriveLetter, "path starts with a drive letter"
	}
	if strings.HasPrefix(p, "/") {
		return ReasonAbsolute, "path is absolute"
	}
	if strings.Contains(p, `\`) {
		return ReasonBackslash, "path contains a backslash"
	}
	if strings.Contains(p, ":") {
		return ReasonColon, "path contains a colon"
	}
	if i := percentEscape(p); i >= 0 {
		return ReasonPercentEncoded, fmt.Sprintf("path contains the percent escape %q", p[i:i+3])
	}
	for rest, more := p, true; more; {
		var s string
		s, rest, more = strings.Cut(rest, "/")
		if len(s) > MaxSegmentLen {
			return ReasonTooLong, fmt.Sprintf("a path segment is longer than %d bytes", MaxSegmentLen)
		}
		if s == "." || s == "" {
			continue
		}
		if n, disguised := countDots(s); n >= 2 {
			// ".." is the parent everywhere; Windows trims trailing dots,
			// so "..." is the parent there too.
			if disguised {
				return ReasonLookalike, fmt.Sprintf("path segment %q looks like a run of dots", s)
			}
			return ReasonDotDot, fmt.Sprintf("path segment %q refers to a parent directory", s)
		}
		if isReserved(s) {
			return ReasonReserved, fmt.Sprintf("%q is a reserved device name on Windows", s)
		}
		// Windows drops a trailing dot or space, so "a." and "a" are one
		// file there, and refuses these characters in names.
		if strings.HasSuffix(s, ".") || strings.HasSuffix(s, " ") {
			return ReasonWindowsName, fmt.Sprintf("path segment %q ends in a dot or a space, which Windows drops", s)
		}
		if i := strings.IndexAny(s, `<>"|?*`); i >= 0 {
			return ReasonWindowsName, fmt.Sprintf("path segment %q holds %q, which Windows does not allow in names", s, s[i])
		}
	}
	return "", ""
}

// separatorLookalikes are characters that render like "/" or "\" but that
// NFKC leaves alone, so the folded-form check cannot catch them.
var separatorLookalikes = map[rune]bool{
	'\u0337': true, // combining short solidus overlay
	'\u0338': true, // combining long solidus overlay
	'\u1735': true, // Philippine single punctuation
	'\u2044': true, // fraction slash
	'\u20E5': true, // combining reverse solidus overlay
	'\u2215': true, // division slash
	'\u2216': true, // set minus
	'\u2571': true, // box drawings light diagonal upper right to lower left
	'\u2572': true, // box drawings light diagonal upper left to lower right
	'\u27CB': true, // mathematical rising diagonal
	'\u27CD': true, // mathematical falling diagonal
	'\u29F5': true, // reverse solidus operator
	'\u29F8': true, // big solidus
	'\u29F9': true, // big reverse solidus
}

// dotLookalikes render like "." without folding to it under NFKC. They only
// matter in a segment made of nothing but dots.
var dotLookalikes = map[rune]bool{
	'\u0701':     true, // Syriac supralinear full stop
	'\u0702':     true, // Syriac sublinear full stop
	'\uA4F8':     true, // Lisu letter tone mya ti
	'\uA60E':     true, // Vai full stop
	'\U00010A50': true, // Kharoshthi punctuation dot
}

// countDots returns how many characters of s are dots, counting lookalikes,
// when s is made of nothing else (0 otherwise), and whether any was a
// lookalike.
func countDots(s string) (n int, disguised bool) {
	for _, r := range s {
		switch {
		case r == '.':
		case dotLookalikes[r]:
			disguised = true
		default:
			return 0, false
		}
		n++
	}
	return n, disguised
}

// percentEscape returns the index of the first "%XX" with two hex digits in
// p, or -1. A lone "%" ("100%.md") is an ordinary character.
func percentEscape(p string) int {
	for i := 0; i+2 < len(p); i++ {
		if p[i] == '%' && isHex(p[i+1]) && isHex(p[i+2]) {
			return i
		}
	}
	return -1
}

// isReserved reports whether name is a Windows device name, alone or with an
// extension ("con", "NUL.txt", "com1.md"): such files cannot be created when
// a skill is exported and unpacked there.
func isReserved(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.TrimRight(base, " ")
	if len(base) > 8 {
		// Longer than any name below can be before upper-casing (a letter
		// that upper-cases to ASCII takes at most two bytes, as ı and ſ):
		// most segments skip ToUpper's allocation, which an import of
		// thousands of files made for every segment of every path.
		return false
	}
	base = strings.ToUpper(base)
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		return base[3] >= '0' && base[3] <= '9'
	}
	return false
}

// isNoncharacter reports whether r is one of Unicode's 66 noncharacters:
// U+FDD0–U+FDEF and the last two code points of every plane (U+FFFE,
// U+FFFF, U+1FFFE, ...). They are valid UTF-8, but reserved for a
// program's internal use: storage uses U+FFFF as the end of key ranges and
// cannot keep a name holding it, and other systems may replace or refuse
// them.
func isNoncharacter(r rune) bool {
	return 0xFDD0 <= r && r <= 0xFDEF || r&0xFFFE == 0xFFFE
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func reject(p, reason, format string, args ...any) *skillerr.Error {
	return &skillerr.Error{
		Code:    skillerr.PathRejected,
		Reason:  reason,
		Subject: p,
		Msg:     fmt.Sprintf(format, args...),
	}
}
