package skill

import (
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

func TestRewriteName(t *testing.T) {
	for _, c := range []struct {
		name, src, newName, want string
	}{
		{"plain", "---\nname: pdf\ndescription: d\n---\nname: pdf in the body\n", "pdf-v2",
			"---\nname: pdf-v2\ndescription: d\n---\nname: pdf in the body\n"},
		{"crlf and bom", "\xEF\xBB\xBF---\r\nname: pdf  # the id\r\ndescription: d\r\n---\r\nBody\r\n", "pdf-v2",
			"\xEF\xBB\xBF---\r\nname: pdf-v2  # the id\r\ndescription: d\r\n---\r\nBody\r\n"},
		{"double quoted", "---\ndescription: d\nname: \"pdf \\\"x\\\"\" \nlicense: MIT\n---\n", "pdf-v2",
			"---\ndescription: d\nname: \"pdf-v2\" \nlicense: MIT\n---\n"},
		{"single quoted", "---\nname: 'it''s'\ndescription: d\n---\n", "it's-v2",
			"---\nname: 'it''s-v2'\ndescription: d\n---\n"},
		{"plain becomes quoted", "---\nname: pdf\n---\n", "yes",
			"---\nname: \"yes\"\n---\n"},
		{"plain becomes quoted for a colon", "---\nname: pdf\n---\n", "a: b",
			"---\nname: \"a: b\"\n---\n"},
		{"unicode before the value", "---\nmetadata: {ключ: значение}\nname:   навык\n---\n", "навык-v2",
			"---\nmetadata: {ключ: значение}\nname:   навык-v2\n---\n"},
		{"empty value", "---\nname:\ndescription: d\n---\n", "pdf-v2",
			"---\nname: pdf-v2\ndescription: d\n---\n"},
		{"missing name", "---\r\ndescription: d\r\n---\r\n", "pdf-v2",
			"---\r\nname: pdf-v2\r\ndescription: d\r\n---\r\n"},
		{"duplicate keys: the last one counts", "---\nname: a\nname: b\n---\n", "c",
			"---\nname: a\nname: c\n---\n"},
		{"repaired colon elsewhere", "---\ndescription: Use when: asked\nname: pdf\n---\n", "pdf-v2",
			"---\ndescription: Use when: asked\nname: pdf-v2\n---\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := RewriteName([]byte(c.src), c.newName)
			if err != nil {
				t.Fatalf("RewriteName: %v", err)
			}
			if string(got) != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
			if s, diags := Parse(got, Options{}); s != nil && s.Name != c.newName {
				t.Errorf("reparsed name %q (%v)", s.Name, diags)
			}
		})
	}
}

func TestRewriteNameErrors(t *testing.T) {
	for _, c := range []struct {
		name, src, newName string
		code               skillerr.Code
		reason             string
	}{
		{"empty name", minimal, "", skillerr.InvalidArgument, "invalid-name"},
		{"newline in name", minimal, "a\nb", skillerr.InvalidArgument, "invalid-name"},
		{"padded name", minimal, " a", skillerr.InvalidArgument, "invalid-name"},
		{"no frontmatter", "# Title\n", "a", skillerr.InvalidManifest, "frontmatter-missing"},
		{"unclosed", "---\nname: a\n", "a", skillerr.InvalidManifest, "frontmatter-unclosed"},
		{"invalid yaml", "---\nname: [a\n---\n", "a", skillerr.InvalidManifest, "yaml-invalid"},
		{"not a mapping", "---\n- a\n---\n", "a", skillerr.InvalidManifest, "frontmatter-not-mapping"},
		{"block scalar", "---\nname: |\n  a\n---\n", "b", skillerr.InvalidManifest, "name-not-rewritable"},
		{"multi-line plain", "---\nname: a\n  b\n---\n", "c", skillerr.InvalidManifest, "name-not-rewritable"},
		{"alias", "---\nx: &n a\nname: *n\n---\n", "c", skillerr.InvalidManifest, "name-not-rewritable"},
		{"repaired name", "---\nname: a: b\n---\n", "c", skillerr.InvalidManifest, "name-not-rewritable"},
		{"tagged", "---\nname: !!str a\n---\n", "c", skillerr.InvalidManifest, "name-not-rewritable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := RewriteName([]byte(c.src), c.newName)
			if out != nil || skillerr.CodeOf(err) != c.code || skillerr.ReasonOf(err) != c.reason {
				t.Errorf("got %q, %v (%s/%s), want %s/%s", out, err, skillerr.CodeOf(err), skillerr.ReasonOf(err), c.code, c.reason)
			}
		})
	}
}
