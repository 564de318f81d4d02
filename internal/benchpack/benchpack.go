// Package benchpack generates the skill archives the benchmarks import:
// deterministic (fixed seeds), in memory, fast enough to build per run.
package benchpack

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"time"
)

// Names of skills of Pack that benchmarks use.
const (
	// LargeSkillMD is the skill whose SKILL.md is the largest, about 75 KB.
	LargeSkillMD = "pptx"
	// Skill80 is the skill with exactly 80 files.
	Skill80 = "canvas-design"
)

// Prefix is the wrapper of Pack's skills, as in a GitHub download.
const Prefix = "skills-main/skills/"

// skillSpec shapes one skill of Pack.
type skillSpec struct {
	name    string
	files   int // including SKILL.md
	mdSize  int // bytes of SKILL.md, about
	folders []string
	// binaries are incompressible files, path → size.
	binaries map[string]int
}

// packSpecs follow anthropics/skills: 17 skills, 415 files, about 10 MB,
// fonts and PDFs of 1–2 MB, SKILL.md from 2 KB to 75 KB, paths up to five
// levels deep in a skill.
var packSpecs = []skillSpec{
	{name: "canvas-design", files: 80, mdSize: 12_000, folders: []string{"canvas-fonts", "canvas-fonts/licenses"},
		binaries: map[string]int{"canvas-fonts/Display-Bold.ttf": 1_900_000}},
	{name: "pptx", files: 60, mdSize: 75_000, folders: []string{"scripts", "ooxml/scripts", "ooxml/schemas/ISO-IEC29500-4_2016", "ooxml/schemas/ecma/fouth-edition", "ooxml/schemas/microsoft"}},
	{name: "docx", files: 55, mdSize: 20_000, folders: []string{"scripts", "ooxml/scripts/validation", "ooxml/schemas/ISO-IEC29500-4_2016", "ooxml/schemas/mce"},
		binaries: map[string]int{"reference/sample.pdf": 1_300_000}},
	{name: "pdf", files: 30, mdSize: 18_000, folders: []string{"scripts", "reference"},
		binaries: map[string]int{"reference/forms-guide.pdf": 1_600_000}},
	{name: "xlsx", files: 25, mdSize: 15_000, folders: []string{"scripts", "recalc"}},
	{name: "skill-creator", files: 22, mdSize: 16_000, folders: []string{"scripts", "references", "assets/templates"}},
	{name: "mcp-builder", files: 20, mdSize: 14_000, folders: []string{"reference", "scripts"}},
	{name: "webapp-testing", files: 18, mdSize: 6_000, folders: []string{"examples", "scripts"}},
	{name: "theme-factory", files: 16, mdSize: 4_000, folders: []string{"themes"},
		binaries: map[string]int{"theme-showcase.pdf": 1_100_000}},
	{name: "slack-gif-creator", files: 15, mdSize: 9_000, folders: []string{"core", "templates"}},
	{name: "algorithmic-art", files: 14, mdSize: 20_000, folders: []string{"templates"}},
	{name: "web-artifacts-builder", files: 13, mdSize: 5_000, folders: []string{"scripts", "scripts/shadcn/components"}},
	{name: "brand-guidelines", files: 12, mdSize: 3_000, folders: []string{"assets"}},
	{name: "internal-comms", files: 11, mdSize: 2_000, folders: []string{"examples"}},
	{name: "frontend-design", files: 9, mdSize: 5_000, folders: []string{"references"}},
	{name: "doc-coauthoring", files: 8, mdSize: 16_000, folders: []string{"references"}},
	{name: "claude-api", files: 7, mdSize: 9_000, folders: []string{"examples/python", "examples/typescript"}},
}

// textExts are the extensions of generated text files, by folder index.
var textExts = []string{"py", "md", "xsd", "js", "json", "txt", "sh", "html"}

// words make the text: compressible like prose and code, about 3:1.
var words = strings.Fields(`the a skill file document slide table chart font style theme
	script reference template import export render validate convert layout page text
	function return value string number list index option config element attribute
	schema namespace paragraph run shape image color width height border margin
	should must when use before after each every with without from into over under`)

// Pack returns a zip archive shaped like a download of the anthropics/skills
// repository: 17 skills under Prefix with 415 files and about 10 MB in all.
// It holds nothing outside the skills, so that every stack benchmarked on it
// stores the same files.
func Pack() []byte { return Sized(0) }

// Sized returns Pack's skills, repeated under new names ("pdf-copy2") once
// all 17 are in, until the next one could take the inflated size past
// total bytes, then a last skill whose asset makes it total bytes exactly;
// total 0 means the 17 once.
func Sized(total int64) []byte {
	rng := rand.New(rand.NewPCG(2026, 17))
	w := newWriter()
	for copy := 1; ; copy++ {
		for _, s := range packSpecs {
			if copy > 1 && total == 0 {
				return w.close()
			}
			if copy > 1 && w.size+specSize(s) > total {
				fill(w, rng, total)
				return w.close()
			}
			name := s.name
			if copy > 1 {
				name = fmt.Sprintf("%s-copy%d", s.name, copy)
			}
			addSkill(w, rng, name, s)
		}
	}
}

// fill adds a skill whose one asset brings the inflated size to total.
func fill(w *writer, rng *rand.Rand, total int64) {
	md := skillMD(rng, "filler", 1_000)
	if rest := total - w.size - int64(len(md)); rest > 0 {
		w.add(Prefix+"filler/SKILL.md", md)
		w.add(Prefix+"filler/reference/filler.pdf", random(rng, int(rest)))
	}
}

// specSize bounds the inflated bytes of a skill of spec s.
func specSize(s skillSpec) int64 {
	n := int64(s.mdSize) + 1_000 + int64(s.files)*20_000
	for _, b := range s.binaries {
		n += int64(b)
	}
	return n
}

func addSkill(w *writer, rng *rand.Rand, name string, s skillSpec) {
	dir := Prefix + name + "/"
	w.add(dir+"SKILL.md", skillMD(rng, name, s.mdSize))
	n := 1
	for _, p := range slices.Sorted(maps.Keys(s.binaries)) {
		w.add(dir+p, random(rng, s.binaries[p]))
		n++
	}
	for i := 0; n < s.files; i, n = i+1, n+1 {
		folder := s.folders[i%len(s.folders)]
		ext := textExts[i%len(textExts)]
		w.add(fmt.Sprintf("%s%s/file-%03d.%s", dir, folder, i, ext), text(rng, 1_000+rng.IntN(19_000)))
	}
}

// Small returns a pack of n small skills, skill-0001 to skill-n, each a
// SKILL.md of about 500 bytes.
func Small(n int) []byte {
	rng := rand.New(rand.NewPCG(2026, uint64(n)))
	w := newWriter()
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("skill-%04d", i)
		w.add("small-pack/"+name+"/SKILL.md", skillMD(rng, name, 500))
	}
	return w.close()
}

// Files returns a pack of about n files in skills of 30 (a SKILL.md and
// 29 scripts and references of 200 bytes to 2 KB in three folders),
// deflated: the per-file costs of an import, where Pack weighs its bytes.
func Files(n int) []byte {
	rng := rand.New(rand.NewPCG(2026, 9000))
	w := newWriter()
	folders := []string{"scripts", "references", "assets/templates"}
	for s := 1; s <= (n+29)/30; s++ {
		name := fmt.Sprintf("skill-%04d", s)
		dir := "many-files/" + name + "/"
		w.add(dir+"SKILL.md", skillMD(rng, name, 1_000))
		for i := range 29 {
			w.add(fmt.Sprintf("%s%s/file-%02d.%s", dir, folders[i%3], i, textExts[i%len(textExts)]), text(rng, 200+rng.IntN(1_800)))
		}
	}
	return w.close()
}

// skillMD returns a SKILL.md for name of about size bytes.
func skillMD(rng *rand.Rand, name string, size int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\nlicense: Proprietary\n---\n\n# %s\n\n", name, sentence(rng, 30), name)
	for b.Len() < size {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", sentence(rng, 4), sentence(rng, 60))
	}
	return b.Bytes()
}

// text returns about size bytes of lines of words.
func text(rng *rand.Rand, size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 100)
	for b.Len() < size {
		b.WriteString(sentence(rng, 12))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func sentence(rng *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[rng.IntN(len(words))]
	}
	return strings.Join(ws, " ") + "."
}

// random returns size incompressible bytes.
func random(rng *rand.Rand, size int) []byte {
	b := make([]byte, size+7)
	for i := 0; i < size; i += 8 {
		v := rng.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b[:size]
}

// modified is the time of every entry, for a deterministic archive.
var modified = time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC)

// writer writes a deterministic zip: fixed times and modes; text deflated
// at the fastest level, binaries stored.
type writer struct {
	buf  bytes.Buffer
	zw   *zip.Writer
	size int64 // inflated bytes added
}

func newWriter() *writer {
	w := &writer{}
	w.zw = zip.NewWriter(&w.buf)
	w.zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestSpeed)
	})
	return w
}

func (w *writer) add(name string, data []byte) {
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modified}
	switch path.Ext(name) {
	case ".ttf", ".pdf":
		h.Method = zip.Store
	}
	h.SetMode(0o644)
	w.size += int64(len(data))
	f, err := w.zw.CreateHeader(h)
	if err == nil {
		_, err = f.Write(data)
	}
	if err != nil {
		panic(err) // writing to memory cannot fail
	}
}

func (w *writer) close() []byte {
	if err := w.zw.Close(); err != nil {
		panic(err)
	}
	return w.buf.Bytes()
}
