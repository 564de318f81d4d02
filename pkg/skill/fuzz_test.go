package skill

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzParse checks that Parse never panics, is deterministic, returns a
// skill exactly when there is no error, and that RewriteName's output reads
// back with the new name. The seed corpus is every SKILL.md of the tests.
func FuzzParse(f *testing.F) {
	for _, v := range refVectors {
		if v.content != "" {
			f.Add([]byte(v.content), v.dir)
		}
		for _, file := range v.files {
			f.Add(file.Data, v.dir)
		}
	}
	for _, c := range parseCases {
		f.Add([]byte(c.src), c.dir)
	}
	f.Add(largeSkill(), "big")
	f.Fuzz(func(t *testing.T, src []byte, dir string) {
		orig := bytes.Clone(src)
		for _, mode := range []Mode{Lenient, Strict} {
			opts := Options{Mode: mode, DirName: dir, SkillYAML: src}
			s1, d1 := Parse(src, opts)
			s2, d2 := Parse(src, opts)
			if !reflect.DeepEqual(s1, s2) || !reflect.DeepEqual(d1, d2) {
				t.Fatalf("%v: two parses differ", mode)
			}
			if (s1 == nil) != HasErrors(d1) {
				t.Fatalf("%v: skill %v with diagnostics %v", mode, s1 != nil, d1)
			}
			for _, d := range d1 {
				if d.Code == "" || d.Message == "" || (d.Severity != SeverityError && d.Severity != SeverityWarning) {
					t.Fatalf("%v: malformed diagnostic %+v", mode, d)
				}
			}
		}
		if !bytes.Equal(src, orig) {
			t.Fatalf("Parse changed its input")
		}
		if s, _ := Parse(src, Options{}); s != nil {
			out, err := RewriteName(src, "fuzz-name")
			if err != nil {
				return // some spellings of a name cannot be edited in place
			}
			if s2, diags := Parse(out, Options{}); s2 == nil || s2.Name != "fuzz-name" {
				t.Fatalf("after RewriteName: %v %v\n%q", s2, diags, out)
			}
		}
	})
}
