package skill

import (
	"reflect"
	"strings"
	"testing"
)

func TestHeadings(t *testing.T) {
	body := "# PDF tools\r\nIntro.\n\n## Merge documents ##\n```bash\n# not a heading\n```\n" +
		"~~~\n## nor this\n~~~\n#hashtag\n   ### Fill forms\n####### seven\n## \n## " + strings.Repeat("é", 100) + "\n"
	got := Headings(body)
	want := []string{"PDF tools", "Merge documents", "Fill forms", strings.Repeat("é", 60)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if n := len(Headings(strings.Repeat("## a\n", 100))); n != MaxHeadings {
		t.Errorf("%d headings, want at most %d", n, MaxHeadings)
	}
}
