package source

import (
	"errors"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// FuzzParse feeds arbitrary bytes to ParseIndex and ParseMCP: they never
// panic, fail only with a *skillerr.Error, and whatever they accept has
// clean paths and well-formed digests.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"$schema":"` + SchemaV2 + `","skills":[{"name":"a","type":"archive","url":"../a.zip","digest":"` + Sum(nil) + `"}]}`))
	f.Add([]byte(`{"skills":[{"name":"a","files":["SKILL.md","x/../y"]}]}`))
	f.Add([]byte(`{"skills":[{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":[{"uri":"skill://a/%2e%2e/b","digest":"` + Sum(nil) + `","size":1}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var e *skillerr.Error
		idx, err := ParseIndex(indexURL, data)
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("ParseIndex: %T %v", err, err)
		}
		if err == nil {
			for _, en := range idx.Entries {
				if checkName(en.Name) != nil || (en.Digest != "" && checkDigest(en.Digest, "") != nil) {
					t.Fatalf("accepted %+v", en)
				}
				for _, fr := range en.Files {
					if _, err := cleanRel(fr.Path); err != nil {
						t.Fatalf("accepted path %q", fr.Path)
					}
				}
			}
		}
		skills, _, err := ParseMCP(data)
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("ParseMCP: %T %v", err, err)
		}
		for _, s := range skills {
			for _, fr := range s.Files {
				if _, err := cleanRel(fr.Path); err != nil || checkDigest(fr.Digest, "") != nil {
					t.Fatalf("accepted file %+v", fr)
				}
			}
		}
	})
}
