package zipguard

import (
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

func sampleFiles() []File {
	return []File{
		{Path: "scripts/fill.py", Data: []byte("print('fill')\n"), Mode: 0o755, Modified: time.Now()},
		{Path: "SKILL.md", Data: []byte(skillMD), Mode: 0o644},
		{Path: "assets/logo.png", Data: []byte("\x89PNG not really"), Mode: 0o600},
		{Path: "reference/forms.md", Data: bytes.Repeat([]byte("form field\n"), 500)},
	}
}

func write(t *testing.T, files []File, prefix string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, files, prefix); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteIsDeterministic(t *testing.T) {
	files := sampleFiles()
	first := write(t, files, "pdf")
	// Same files in another order, with other times and permissions that
	// map to the same mode.
	shuffled := []File{files[3], files[0], files[2], files[1]}
	shuffled[1].Modified = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	shuffled[1].Mode = 0o700
	second := write(t, shuffled, "pdf/")
	if !bytes.Equal(first, second) {
		t.Fatal("two writes of the same files differ")
	}

	zr, err := zip.NewReader(bytes.NewReader(first), int64(len(first)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	epoch := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range zr.File {
		names = append(names, f.Name)
		if len(f.Extra) != 0 {
			t.Errorf("%s: extra field %x", f.Name, f.Extra)
		}
		if !f.Modified.Equal(epoch) {
			t.Errorf("%s: modified %v, want %v", f.Name, f.Modified, epoch)
		}
		wantMethod := zip.Deflate
		if f.Name == "pdf/assets/logo.png" {
			wantMethod = zip.Store
		}
		if f.Method != wantMethod {
			t.Errorf("%s: method %d, want %d", f.Name, f.Method, wantMethod)
		}
	}
	want := []string{"pdf/SKILL.md", "pdf/assets/logo.png", "pdf/reference/forms.md", "pdf/scripts/fill.py"}
	if len(names) != len(want) {
		t.Fatalf("entries %q, want %q", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("entries %q, want %q", names, want)
		}
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	files := sampleFiles()
	for _, prefix := range []string{"", "pdf"} {
		a, err := Read(write(t, files, prefix), Limits{})
		if err != nil {
			t.Fatalf("prefix %q: %v", prefix, err)
		}
		wantLayout := LayoutRoot
		if prefix != "" {
			wantLayout = LayoutWrapped
		}
		if a.Layout != wantLayout || len(a.Skills) != 1 || a.Skills[0].Name != prefix {
			t.Fatalf("prefix %q: layout %q, skills %+v", prefix, a.Layout, a.Skills)
		}
		got := map[string]File{}
		for _, f := range a.Skills[0].Files {
			got[f.Path] = f
		}
		for _, f := range files {
			g, ok := got[f.Path]
			wantMode := fs.FileMode(0o644)
			if f.Mode&0o111 != 0 {
				wantMode = 0o755
			}
			if !ok || !bytes.Equal(g.Data, f.Data) || g.Mode != wantMode {
				t.Errorf("prefix %q: %s came back as %+v", prefix, f.Path, g)
			}
		}
		if len(got) != len(files) {
			t.Errorf("prefix %q: %d files back, want %d", prefix, len(got), len(files))
		}
	}
}

func TestWriteRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   []File
		prefix  string
		code    skillerr.Code
		reason  string
		subject string
	}{
		{"escaping path", []File{{Path: "../x"}}, "", skillerr.PathRejected, "dot-dot", "../x"},
		{"escaping prefix", []File{{Path: "x"}}, "../p", skillerr.PathRejected, "dot-dot", "../p"},
		{"root as a file", []File{{Path: "."}}, "", skillerr.InvalidArgument, ReasonEmptyName, "."},
		{"duplicate", []File{{Path: "a.md"}, {Path: "./a.md"}}, "", skillerr.InvalidArgument, ReasonDuplicate, "./a.md"},
		{"case collision", []File{{Path: "a.md"}, {Path: "A.md"}}, "p", skillerr.InvalidArgument, ReasonCollision, "A.md"},
		{"file and directory", []File{{Path: "a"}, {Path: "a/b"}}, "", skillerr.InvalidArgument, ReasonCollision, "a/b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, tc.files, tc.prefix)
			var e *skillerr.Error
			if !errors.As(err, &e) || e.Code != tc.code || e.Reason != tc.reason || e.Subject != tc.subject {
				t.Fatalf("Write = %#v, want {%s %s %q}", err, tc.code, tc.reason, tc.subject)
			}
			if buf.Len() != 0 {
				t.Fatalf("Write wrote %d bytes before failing", buf.Len())
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteReportsWriterErrors(t *testing.T) {
	err := Write(failingWriter{}, sampleFiles(), "")
	if skillerr.CodeOf(err) != skillerr.Internal {
		t.Fatalf("Write = %v, want an Internal error", err)
	}
	var e *skillerr.Error
	if !errors.As(err, &e) || e.Err == nil || e.Err.Error() != "disk full" {
		t.Fatalf("Write = %v, want the cause kept", err)
	}
}
