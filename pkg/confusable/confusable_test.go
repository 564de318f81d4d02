package confusable

import "testing"

func TestSkeleton(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"рdf", "pdf", true}, // Cyrillic р
		{"pdf", "pdf", true},
		{"ѕkill", "skill", true}, // Cyrillic ѕ
		{"skill_сontent", "skill_content", true},
		{"paypal", "paypa1", true}, // 1 and l
		{"pdf", "pdg", false},
		{"pdf-tools", "pdf_tools", false},
	} {
		if got := Skeleton(c.a) == Skeleton(c.b); got != c.same {
			t.Errorf("Skeleton(%q) = %q, Skeleton(%q) = %q: same %v, want %v", c.a, Skeleton(c.a), c.b, Skeleton(c.b), got, c.same)
		}
	}
}

func TestDefaultIgnorable(t *testing.T) {
	for _, r := range []rune{0x00ad, 0x034f, 0x115f, 0x1160, 0x200b, 0x200c, 0x200d, 0x2060, 0x3164, 0xfe0f, 0xfeff, 0xffa0, 0xe0001, 0xe0100} {
		if !IsDefaultIgnorable(r) {
			t.Errorf("%U is default-ignorable", r)
		}
	}
	for _, r := range []rune{'a', ' ', '-', 0x0600, 0xfff9, 'р', 0x3000} {
		if IsDefaultIgnorable(r) {
			t.Errorf("%U is not default-ignorable", r)
		}
	}
}
