package resolver

import "testing"

// Extensions a system table might know differently (mime reads
// /etc/mime.types natively) are avoided: .zzq is in none.
func TestMediaType(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"SKILL.md", []byte("# hi\n"), "text/markdown; charset=utf-8"},
		{"scripts/run.zzq", []byte("print(1)\n"), "text/plain; charset=utf-8"},
		{"a.json", []byte(`{}`), "application/json"},
		{"fonts/x.zzq", []byte{0, 1, 0, 0}, "application/octet-stream"},
		{"logo.png", []byte{0x89, 'P', 'N', 'G', 0}, "image/png"},
		{"doc.pdf", []byte("%PDF-1.7\n\xff\xfe"), "application/pdf"},
		{"notes.txt", []byte{0xff, 0xfe}, "application/octet-stream"},
	} {
		if got := MediaType(c.name, c.data); got != c.want {
			t.Errorf("MediaType(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
