package resolver

import "testing"

// The table is the module's own, so natively and in the browser a file
// gets the same type (mime read /etc/mime.types natively).
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
		{"icon.SVG", []byte("<svg/>"), "image/svg+xml"},
		{"data.csv", []byte("a,b\n"), "text/csv; charset=utf-8"},
		{"page.html", []byte{0, 1}, "application/octet-stream"},
		{"deck.pptx", []byte("PK\x03\x04\x00"), "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
		{"song.mp3", []byte{0xff, 0xfb, 0}, "audio/mpeg"},
	} {
		if got := MediaType(c.name, c.data); got != c.want {
			t.Errorf("MediaType(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
