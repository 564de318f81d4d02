package resolver

import "testing"

// Extensions a system table might know differently (mime reads
// /etc/mime.types natively) are avoided: .zzq is in none.
func TestMediaType(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want string
		text bool
	}{
		{"SKILL.md", []byte("# hi\n"), "text/markdown; charset=utf-8", true},
		{"scripts/run.zzq", []byte("print(1)\n"), "text/plain; charset=utf-8", true},
		{"a.json", []byte(`{}`), "application/json", true},
		{"fonts/x.zzq", []byte{0, 1, 0, 0}, "application/octet-stream", false},
		{"logo.png", []byte{0x89, 'P', 'N', 'G', 0}, "image/png", false},
		{"doc.pdf", []byte("%PDF-1.7\n\xff\xfe"), "application/pdf", false},
		{"notes.txt", []byte{0xff, 0xfe}, "application/octet-stream", false},
	} {
		got := MediaType(c.name, c.data)
		if got != c.want || IsText(got) != c.text {
			t.Errorf("MediaType(%q) = %q (text %v), want %q (text %v)", c.name, got, IsText(got), c.want, c.text)
		}
	}
}
