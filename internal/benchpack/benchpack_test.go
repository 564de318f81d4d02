package benchpack

import (
	"bytes"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

func TestPack(t *testing.T) {
	data := Pack()
	if !bytes.Equal(data, Pack()) {
		t.Fatal("Pack is not deterministic")
	}
	arc, err := zipguard.Read(data, zipguard.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if arc.Layout != zipguard.LayoutPack || len(arc.Skills) != 17 {
		t.Fatalf("layout %s with %d skills", arc.Layout, len(arc.Skills))
	}
	var files, binaries, maxDepth int
	var total int64
	minMD, maxMD := 1<<30, 0
	found := map[string]int{}
	for _, s := range arc.Skills {
		if !strings.HasPrefix(s.Dir+"/", Prefix) {
			t.Errorf("skill in %s, outside %s", s.Dir, Prefix)
		}
		found[s.Name] = len(s.Files)
		files += len(s.Files)
		for _, f := range s.Files {
			total += int64(len(f.Data))
			maxDepth = max(maxDepth, strings.Count(f.Path, "/")+1)
			if n := len(f.Data); n >= 1<<20 && n <= 2<<20 {
				binaries++
			}
			if f.Path == "SKILL.md" {
				minMD, maxMD = min(minMD, len(f.Data)), max(maxMD, len(f.Data))
				sk, diags := skill.Parse(f.Data, skill.Options{Mode: skill.Strict, DirName: s.Name})
				if sk == nil || len(diags) != 0 {
					t.Errorf("%s: %v", s.Name, diags)
				}
				if s.Name == LargeSkillMD && (len(f.Data) < 74_000 || len(f.Data) > 77_000) {
					t.Errorf("%s/SKILL.md is %d bytes, want about 75 KB", s.Name, len(f.Data))
				}
			}
		}
	}
	t.Logf("%d skills, %d files, %.1f MB, %d binaries of 1–2 MB, SKILL.md %d–%d bytes, depth %d, archive %.1f MB",
		len(arc.Skills), files, float64(total)/1e6, binaries, minMD, maxMD, maxDepth, float64(len(data))/1e6)
	if files != 415 {
		t.Errorf("%d files in skills, want 415", files)
	}
	if total < 9_500_000 || total > 11_000_000 {
		t.Errorf("%d bytes in skills, want about 10 MB", total)
	}
	if binaries < 3 {
		t.Errorf("%d binaries of 1–2 MB, want a few", binaries)
	}
	if minMD < 2_000 || minMD > 2_500 || maxMD < 74_000 {
		t.Errorf("SKILL.md sizes %d–%d, want about 2 KB to 75 KB", minMD, maxMD)
	}
	if maxDepth != 5 {
		t.Errorf("paths are up to %d deep in a skill, want 5", maxDepth)
	}
	if found[Skill80] != 80 {
		t.Errorf("%s has %d files, want 80", Skill80, found[Skill80])
	}
}

func TestSmall(t *testing.T) {
	arc, err := zipguard.Read(Small(1000), zipguard.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(arc.Skills) != 1000 || arc.Skills[0].Name != "skill-0001" || arc.Skills[999].Name != "skill-1000" {
		t.Fatalf("%d skills, from %s", len(arc.Skills), arc.Skills[0].Name)
	}
	for _, s := range arc.Skills {
		if len(s.Files) != 1 {
			t.Fatalf("%s has %d files", s.Name, len(s.Files))
		}
		if sk, diags := skill.Parse(s.Files[0].Data, skill.Options{DirName: s.Name}); sk == nil || len(diags) != 0 {
			t.Fatalf("%s: %v", s.Name, diags)
		}
	}
}

func TestFiles(t *testing.T) {
	arc, err := zipguard.Read(Files(9000), zipguard.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(arc.Files) != 9000 || len(arc.Skills) != 300 {
		t.Fatalf("%d files in %d skills, want 9,000 in 300", len(arc.Files), len(arc.Skills))
	}
	for _, s := range arc.Skills {
		if sk, diags := skill.Parse(s.Files[0].Data, skill.Options{DirName: s.Name}); s.Files[0].Path != "SKILL.md" || sk == nil || len(diags) != 0 {
			t.Fatalf("%s: %s %v", s.Name, s.Files[0].Path, diags)
		}
	}
}

// TestSized checks the large pack of the memory benchmark: the size asked,
// and importable under the default limits.
func TestSized(t *testing.T) {
	const total = 28_000_000
	arc, err := zipguard.Read(Sized(total), zipguard.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range arc.Files {
		n += int64(len(f.Data))
	}
	if n != total {
		t.Errorf("Sized(%d) holds %d bytes", total, n)
	}
	if len(arc.Skills) <= 17 {
		t.Errorf("Sized(%d) has %d skills, no copies", total, len(arc.Skills))
	}
}
