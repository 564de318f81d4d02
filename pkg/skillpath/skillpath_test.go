package skillpath

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

func TestCleanAccepts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "."},
		{".", "."},
		{"./", "."},
		{"./.", "."},
		{"SKILL.md", "SKILL.md"},
		{"scripts/run.py", "scripts/run.py"},
		{"./scripts/run.py", "scripts/run.py"},
		{"a/./b", "a/b"},
		{"a//b", "a/b"},
		{"a/b/", "a/b"},
		{".hidden/.curated/x.md", ".hidden/.curated/x.md"},
		{"..foo", "..foo"},
		{"a..b/c", "a..b/c"},
		{"100%.md", "100%.md"},
		{"50%off", "50%off"},
		{"%zz", "%zz"},
		{"café/été.md", "café/été.md"},
		{"日本語/ノート.md", "日本語/ノート.md"},
		{"wait….md", "wait….md"}, // ellipsis folds to "...", but inside a name
		{"console.md", "console.md"},
		{"com10.txt", "com10.txt"},
		{"auxiliary/x", "auxiliary/x"},
		{"emoji-😀.png", "emoji-😀.png"},
		{strings.Repeat("a", MaxSegmentLen), strings.Repeat("a", MaxSegmentLen)},
	} {
		got, err := Clean(tc.in)
		if err != nil {
			t.Errorf("Clean(%q) = error %v, want %q", tc.in, err, tc.want)
			continue
		}
		if got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCleanRejects(t *testing.T) {
	long := strings.Repeat("abcdefgh/", MaxLen/9+1)
	for _, tc := range []struct{ in, reason string }{
		// Traversal, before and after cleaning.
		{"..", ReasonDotDot},
		{"../x", ReasonDotDot},
		{"a/../b", ReasonDotDot},
		{"a/b/..", ReasonDotDot},
		{"a/../../etc/passwd", ReasonDotDot},
		{"./../x", ReasonDotDot},
		{"...", ReasonDotDot},
		{"a/..../b", ReasonDotDot},
		// Names Windows merges or refuses.
		{"foo..", ReasonWindowsName},
		{"notes.md.", ReasonWindowsName},
		{"a /b", ReasonWindowsName},
		{"what?.md", ReasonWindowsName},
		{"a<b", ReasonWindowsName},
		{"x|y", ReasonWindowsName},
		{`say"hi"`, ReasonWindowsName},
		{"glob*", ReasonWindowsName},
		// Characters that render as nothing.
		{"pdf\u3164.md", ReasonFormatChar},
		{"pdf\u034f.md", ReasonFormatChar},
		{"pdf\ufe0f.md", ReasonFormatChar},
		// Absolute and Windows spellings.
		{"/etc/passwd", ReasonAbsolute},
		{"//server/share", ReasonAbsolute},
		{"/", ReasonAbsolute},
		{`..\x`, ReasonBackslash},
		{`a\b`, ReasonBackslash},
		{`\abs`, ReasonBackslash},
		{`C:\Windows\x`, ReasonDriveLetter},
		{"C:/Windows", ReasonDriveLetter},
		{"c:", ReasonDriveLetter},
		{"z:foo", ReasonDriveLetter},
		{"a/b:stream", ReasonColon},
		{"file.txt::$DATA", ReasonColon},
		{"CON", ReasonReserved},
		{"a/nul.txt", ReasonReserved},
		{"Com1.md", ReasonReserved},
		{"lpt9", ReasonReserved},
		{"aux .md", ReasonReserved},
		// Percent escapes, in any case.
		{"%2e%2e/x", ReasonPercentEncoded},
		{"%2E%2E%2Fx", ReasonPercentEncoded},
		{"a%2fb", ReasonPercentEncoded},
		{"a%5cb", ReasonPercentEncoded},
		{"%00", ReasonPercentEncoded},
		{"name%41.md", ReasonPercentEncoded},
		// Bytes that are not text.
		{"a\x00b", ReasonNUL},
		{"a\nb", ReasonControlChar},
		{"a\tb", ReasonControlChar},
		{"a\x7fb", ReasonControlChar},
		{"a\u0085b", ReasonControlChar},
		{"a\u202eb", ReasonFormatChar},
		{"a\u200bb", ReasonFormatChar},
		{"\ufeffSKILL.md", ReasonFormatChar},
		{"a\u2028b", ReasonFormatChar},
		{"a\xffb", ReasonNotUTF8},
		// Noncharacters: valid UTF-8 that storage cannot key.
		{"x\uffff.md", ReasonNoncharacter},
		{"\ufffe", ReasonNoncharacter},
		{"a/\ufdd0/b", ReasonNoncharacter},
		{"a\ufdefb", ReasonNoncharacter},
		{"a\U0001fffeb", ReasonNoncharacter},
		{"a\U0010ffff", ReasonNoncharacter},
		{"\xc0\xae\xc0\xae/x", ReasonNotUTF8}, // overlong "..": invalid UTF-8
		// Lookalikes that NFKC folds to / \ . : %.
		{"a\uff0fb", ReasonLookalike},             // fullwidth solidus
		{"..\uff0fx", ReasonLookalike},            // ..／x
		{"a\uff3cb", ReasonLookalike},             // fullwidth reverse solidus
		{"a\ufe68b", ReasonLookalike},             // small reverse solidus
		{"\uff0e\uff0e/x", ReasonLookalike},       // fullwidth full stops
		{"\u2024\u2024/x", ReasonLookalike},       // one-dot leaders
		{"\u2025/x", ReasonLookalike},             // two-dot leader
		{"\u2026", ReasonLookalike},               // ellipsis alone
		{"\ufe52\ufe52/x", ReasonLookalike},       // small full stops
		{".\uff0e/x", ReasonLookalike},            // mixed
		{"C\uff1a/x", ReasonLookalike},            // fullwidth colon
		{"\uff23:/x", ReasonColon},                // fullwidth C, ASCII colon
		{"\uff05\uff12\uff45x", ReasonLookalike},  // fullwidth %2e
		{"a\u2100b", ReasonLookalike},             // account-of folds to "a/c"
		{"COM\u00b9", ReasonLookalike},            // superscript one folds to COM1
		{"a\u2215b", ReasonLookalike},             // division slash
		{"a\u2044b", ReasonLookalike},             // fraction slash
		{"a\u29f8b", ReasonLookalike},             // big solidus
		{"a\u29f9b", ReasonLookalike},             // big reverse solidus
		{"a\u2216b", ReasonLookalike},             // set minus
		{"a\u0338b", ReasonLookalike},             // combining long solidus overlay
		{"\ua4f8\ua4f8/x", ReasonLookalike},       // Lisu dots
		{"\U00010a50\U00010a50", ReasonLookalike}, // Kharoshthi dots
		{".\ua4f8", ReasonLookalike},              // dot + lookalike dot
		{strings.Repeat("a", MaxSegmentLen+1), ReasonTooLong},
		{"x/" + strings.Repeat("é", 128), ReasonTooLong}, // 256 bytes, 128 runes
		{long, ReasonTooLong},
	} {
		got, err := Clean(tc.in)
		if err == nil {
			t.Errorf("Clean(%q) = %q, want rejection %q", tc.in, got, tc.reason)
			continue
		}
		var e *skillerr.Error
		if !errors.As(err, &e) {
			t.Errorf("Clean(%q) error %T is not a *skillerr.Error", tc.in, err)
			continue
		}
		if e.Code != skillerr.PathRejected || e.Reason != tc.reason || e.Subject != tc.in {
			t.Errorf("Clean(%q) = {%s %s %q}, want {PathRejected %s %q}", tc.in, e.Code, e.Reason, e.Subject, tc.reason, tc.in)
		}
		if e.Msg == "" {
			t.Errorf("Clean(%q): empty message", tc.in)
		}
	}
}

// Every one of the 66 noncharacters is rejected, in any position, and the
// code points around them are not.
func TestCleanNoncharacters(t *testing.T) {
	var non []rune
	for r := rune(0xFDD0); r <= 0xFDEF; r++ {
		non = append(non, r)
	}
	for plane := rune(0); plane <= 0x10; plane++ {
		non = append(non, plane<<16|0xFFFE, plane<<16|0xFFFF)
	}
	if len(non) != 66 {
		t.Fatalf("%d noncharacters, want 66", len(non))
	}
	for _, r := range non {
		for _, p := range []string{string(r), "a" + string(r) + ".md", "dir/" + string(r) + "/x.md"} {
			_, err := Clean(p)
			var e *skillerr.Error
			if !errors.As(err, &e) || e.Code != skillerr.PathRejected || e.Reason != ReasonNoncharacter || e.Subject != p {
				t.Errorf("Clean(%+q) = %v, want PathRejected/%s", p, err, ReasonNoncharacter)
			} else if !strings.Contains(e.Msg, fmt.Sprintf("%U", r)) {
				t.Errorf("Clean(%+q): message %q does not name %U", p, e.Msg, r)
			}
		}
	}
	for _, r := range []rune{0xFDCF, 0xFDF0, 0xFFFD, 0x1FFFD, 0x10000, 0x10FFFD} {
		if _, err := Clean("a" + string(r) + ".md"); err != nil {
			t.Errorf("Clean(a%+q.md) = %v, want it accepted", string(r), err)
		}
	}
}

// A path exactly at the limit passes; one byte more does not.
func TestCleanLengthBoundary(t *testing.T) {
	seg := strings.Repeat("a", 200)
	p := strings.Repeat(seg+"/", 6)[:MaxLen-1] + "b"
	if len(p) != MaxLen {
		t.Fatalf("fixture length %d", len(p))
	}
	if _, err := Clean(p); err != nil {
		t.Fatalf("Clean(%d bytes) = %v", len(p), err)
	}
	if _, err := Clean(p + "c"); skillerr.ReasonOf(err) != ReasonTooLong {
		t.Fatalf("Clean(%d bytes) = %v, want too-long", len(p)+1, err)
	}
}

// Whatever Clean accepts, it accepts again unchanged.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"a/b", "./a//b/", "..", "a\uff0fb", "%2e", "C:", "x/\u2026", "é", "x\uffff.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := Clean(p)
		if err != nil {
			if skillerr.CodeOf(err) != skillerr.PathRejected || skillerr.ReasonOf(err) == "" {
				t.Fatalf("Clean(%q): %v has no PathRejected reason", p, err)
			}
			return
		}
		again, err := Clean(got)
		if err != nil || again != got {
			t.Fatalf("Clean(%q) = %q, but Clean(%q) = %q, %v", p, got, got, again, err)
		}
		if got != Root && (strings.HasPrefix(got, "/") || strings.HasSuffix(got, "/") || strings.Contains(got, "//")) {
			t.Fatalf("Clean(%q) = %q is not clean", p, got)
		}
	})
}
