package source

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/pace/pacetest"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillerr/skillerrtest"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

const indexURL = "https://site.test/.well-known/agent-skills/index.json"

func indexOf(t *testing.T, schema any, entries ...any) []byte {
	t.Helper()
	m := map[string]any{"skills": entries}
	if schema != nil {
		m["$schema"] = schema
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func entry(name, typ, url, digest string) map[string]any {
	return map[string]any{"name": name, "type": typ, "description": "d", "url": url, "digest": digest}
}

var d1 = Sum([]byte("one"))

func TestParseIndexV2(t *testing.T) {
	idx, err := ParseIndex(indexURL, indexOf(t, SchemaV2,
		entry("rel", TypeArchive, "rel.zip", d1),
		entry("up", TypeSkillMD, "../../skills/up/SKILL.md", d1),
		entry("abs", TypeArchive, "https://cdn.test/a.tar.gz#frag", d1),
		entry("net", TypeArchive, "//other.test/n.zip", d1),
		entry("query", TypeArchive, "?v=2", d1),
		entry("weird", "mcp-server", "w", d1),
		entry("js", TypeArchive, "javascript:alert(1)", d1),
		entry("nodigest", TypeArchive, "n.zip", ""),
		entry("upper", TypeArchive, "n.zip", "sha256:"+strings.Repeat("A", 64)),
		entry("Bad_Name", TypeArchive, "n.zip", d1),
		entry("rel", TypeArchive, "again.zip", d1),
		"not an object",
	))
	if err != nil {
		t.Fatal(err)
	}
	if idx.Version != V2 {
		t.Errorf("version %q", idx.Version)
	}
	// RFC 3986 section 5.4's resolution against the index's URL.
	want := map[string]string{
		"rel":   "https://site.test/.well-known/agent-skills/rel.zip",
		"up":    "https://site.test/skills/up/SKILL.md",
		"abs":   "https://cdn.test/a.tar.gz",
		"net":   "https://other.test/n.zip",
		"query": "https://site.test/.well-known/agent-skills/index.json?v=2",
	}
	if len(idx.Entries) != len(want) {
		t.Errorf("entries = %+v", idx.Entries)
	}
	for _, e := range idx.Entries {
		if want[e.Name] != e.URL || e.Digest != d1 {
			t.Errorf("%s: url %q digest %q, want %q", e.Name, e.URL, e.Digest, want[e.Name])
		}
	}
	skipped := map[string]string{}
	for _, r := range idx.Skipped {
		skipped[r.Name] = string(r.Code) + "/" + r.Reason
		if r.Message == "" {
			t.Errorf("%s: no message", r.Name)
		}
	}
	for name, code := range map[string]string{
		"weird": "InvalidIndex/unknown-type", "js": "InvalidIndex/bad-url", "nodigest": "Integrity/malformed-digest",
		"upper": "Integrity/malformed-digest", "Bad_Name": "InvalidIndex/bad-entry", "rel": "InvalidIndex/bad-entry",
		"#12": "InvalidIndex/bad-entry",
	} {
		if skipped[name] != code {
			t.Errorf("%s skipped as %q, want %q", name, skipped[name], code)
		}
	}
	// A name the index lists but skipped says why, not that the index
	// does not list it.
	sel, refused := idx.Select([]string{"abs", "missing", "weird"})
	if len(sel) != 1 || sel[0].Name != "abs" || len(refused) != 2 || refused[0].Code != skillerr.SkillNotFound || refused[1].Reason != ReasonNotListed ||
		refused[0].Message != "the index lists no entry of this name: check it against the entries the index lists" ||
		refused[1].Message != `the index lists it, but not so that it can be installed: the entry's type "mcp-server" is not one this version of skillfs installs (skill-md, archive); it was skipped` {
		t.Errorf("Select = %+v, %+v", sel, refused)
	}
}

// TestMaxURL: an entry's URL longer than MaxURL, as written or once
// resolved against the index's, is skipped; an address given that long is
// refused. One of MaxURL bytes is not.
func TestMaxURL(t *testing.T) {
	dir := indexURL[:strings.LastIndex(indexURL, "/")+1]
	fits := "f.zip?" + strings.Repeat("q", MaxURL-len(dir)-len("f.zip?"))
	idx, err := ParseIndex(indexURL, indexOf(t, SchemaV2,
		entry("fits", TypeArchive, fits, d1),
		entry("long", TypeArchive, "https://cdn.test/l.zip?"+strings.Repeat("q", MaxURL), d1),
		entry("resolved", TypeArchive, fits+"q", d1),
	))
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Entries) != 1 || idx.Entries[0].Name != "fits" || len(idx.Entries[0].URL) != MaxURL {
		t.Errorf("entries = %d, want fits alone", len(idx.Entries))
	}
	for _, r := range idx.Skipped {
		if r.Code != skillerr.InvalidIndex || r.Reason != ReasonBadURL || !strings.Contains(r.Message, fmt.Sprintf("longer than the %d an address to download may be", MaxURL)) {
			t.Errorf("%s skipped as %s/%s: %s", r.Name, r.Code, r.Reason, r.Message)
		}
	}
	if len(idx.Skipped) != 2 {
		t.Errorf("skipped = %+v", idx.Skipped)
	}
	long := "https://a.test/s.zip?" + strings.Repeat("q", MaxURL)
	_, err = ForURL(long, "")
	skillerrtest.Want(t, "an address given", err, skillerr.InvalidArgument, ReasonBadURL)
	_, err = ParseIndex(long, indexOf(t, SchemaV2))
	skillerrtest.Want(t, "an index's address", err, skillerr.InvalidArgument, ReasonBadURL)
}

func TestParseIndexRefused(t *testing.T) {
	_, err := ParseIndex(indexURL, indexOf(t, "https://schemas.agentskills.io/discovery/9.0.0/schema.json", entry("a", TypeArchive, "a.zip", d1)))
	skillerrtest.Want(t, "unknown schema", err, skillerr.InvalidIndex, ReasonUnknownSchema)
	// In a person's words, with where to look, not encoding/json's Go
	// types ("cannot unmarshal number into Go struct field rawIndex.skills").
	for body, want := range map[string]string{
		`{"skills": 3}`: `it is not a JSON object with a "skills" list`,
		`skills: []`:    "it is not valid JSON (at byte 1)",
	} {
		_, err = ParseIndex(indexURL, []byte(body))
		if skillerrtest.Want(t, body, err, skillerr.InvalidIndex, ReasonMalformed) != nil &&
			err.Error() != indexURL+": this is not a discovery index: "+want+": give the address of the site's index, such as https://example.com/.well-known/agent-skills/index.json" {
			t.Errorf("%s: %v", body, err)
		}
	}
	_, _, err = ParseMCP([]byte(`{"skills": {}}`))
	if skillerrtest.Want(t, "an MCP answer", err, skillerr.InvalidIndex, ReasonMalformed) != nil &&
		err.Error() != `the server's answer is not a skills/list or skills/get result: it is not a JSON object with a "skills" list or a "skill"; the server does not serve skills as the skills extension says (its operator can tell why)` {
		t.Errorf("an MCP answer: %v", err)
	}
	_, err = ParseIndex(indexURL, []byte("\n<!DOCTYPE html><html><body>Sign in</body></html>"))
	skillerrtest.Want(t, "a web page", err, skillerr.InvalidIndex, ReasonWebPage)
	_, err = ParseIndex("file:///etc/index.json", indexOf(t, SchemaV2))
	skillerrtest.Want(t, "file URL", err, skillerr.InvalidArgument, ReasonBadURL)
	_, err = ParseIndex(indexURL, make([]byte, MaxIndexSize+1))
	skillerrtest.Want(t, "too large", err, skillerr.TooLarge, "")
}

func TestParseIndexV1(t *testing.T) {
	u := "https://site.test/.well-known/skills/index.json"
	idx, err := ParseIndex(u, indexOf(t, nil,
		map[string]any{"name": "pdf", "description": "PDFs", "files": []string{"SKILL.md", "references/a b.md"}},
		map[string]any{"name": "esc", "description": "x", "files": []string{"SKILL.md", "../../etc/passwd"}},
		map[string]any{"name": "nomd", "description": "x", "files": []string{"README.md"}},
	))
	if err != nil {
		t.Fatal(err)
	}
	if idx.Version != V1 || len(idx.Entries) != 1 {
		t.Fatalf("index = %+v", idx)
	}
	e := idx.Entries[0]
	if e.Type != TypeFiles || e.Digest != "" || e.URL != "https://site.test/.well-known/skills/pdf/" ||
		e.Files[1].URL != "https://site.test/.well-known/skills/pdf/references/a%20b.md" || e.Files[1].Digest != "" {
		t.Errorf("entry = %+v", e)
	}
	if len(idx.Skipped) != 2 || idx.Skipped[0].Code != skillerr.PathRejected || idx.Skipped[1].Reason != zipguard.ReasonNoSkill {
		t.Errorf("skipped = %+v", idx.Skipped)
	}
}

func TestVerify(t *testing.T) {
	if err := Verify([]byte("one"), d1, "x", KindIndex); err != nil {
		t.Error(err)
	}
	skillerrtest.Want(t, "md5", Verify([]byte("one"), "md5:abc", "x", KindIndex), skillerr.Integrity, ReasonMalformedDigest)
	// A mismatch says whose digest it is and what to do: the digest given
	// with a URL is the caller's, not "the source published".
	got := Sum([]byte("one!"))
	for kind, want := range map[string]string{
		KindIndex: "x: nothing of the 4 bytes received was used: their digest is " + got + ", not the " + d1 +
			" the index publishes for them: the site may be publishing a new version (try again later), or they were altered on the way (if it stays so, tell the site)",
		KindMCP: "x: nothing of the 4 bytes received was used: their digest is " + got + ", not the " + d1 +
			" the server listed for them: the server may have changed the skill since it listed it (install it again), or they were altered on the way",
		KindURL: "x: nothing of the 4 bytes received was used: their digest is " + got + ", not the " + d1 +
			" given to check them by: the address serves other bytes than the digest names (check the digest, or install without one)",
	} {
		err := Verify([]byte("one!"), d1, "x", kind)
		if skillerrtest.Want(t, kind, err, skillerr.Integrity, ReasonDigestMismatch) != nil && err.Error() != want {
			t.Errorf("%s: %v\nwant %s", kind, err, want)
		}
	}
	_, _, err := PrepareArtifact(Origin{Kind: KindURL, URL: "u", Type: TypeArchive, Digest: d1, Verified: true}, "", []byte("two"))
	if skillerrtest.Want(t, "artifact", err, skillerr.Integrity, ReasonDigestMismatch) != nil && !strings.Contains(err.Error(), "given to check them by") {
		t.Errorf("artifact: %v", err)
	}
}

func TestPreparePreviewed(t *testing.T) {
	// Unverified: the digest previewed is what was received, and binds the install to it.
	_, o, err := PrepareArtifact(Origin{Kind: KindURL, URL: "u"}, "hello", []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	zb, got, err := PreparePreviewed(o, "hello", []byte(md))
	if err != nil || got != o || len(zb) == 0 {
		t.Fatalf("previewed bytes: %+v, %v", got, err)
	}
	_, _, err = PreparePreviewed(o, "hello", []byte(md+"changed\n"))
	skillerrtest.Want(t, "other bytes", err, skillerr.Conflict, ReasonChangedSincePreview)
	_, _, err = PreparePreviewed(Origin{Kind: KindURL, URL: "u"}, "hello", []byte(md))
	skillerrtest.Want(t, "no digest", err, skillerr.Integrity, ReasonMalformedDigest)
}

// The worked example of the discovery RFC's skill-level digest.
func TestManifestDigest(t *testing.T) {
	got := ManifestDigest([]FileRef{
		{Path: "scripts/run.sh", Digest: Sum([]byte("#!/bin/sh\n"))},
		{Path: "SKILL.md", Digest: Sum([]byte("# Hello\n"))},
	})
	if got != "sha256:34f7a8c484e9991f3e71a309f31332d6335efc01f544105c4185a7c4ab12eb1e" {
		t.Errorf("got %s", got)
	}
}

const md = "---\nname: hello\ndescription: Says hello.\n---\nHi.\n"

// TestPublishedAs: a SKILL.md an index entry lists under another name
// than its own is refused, before anything is imported; a plain URL
// lists no name, and one whose name cannot be read is the import's to
// refuse.
func TestPublishedAs(t *testing.T) {
	entry := Origin{Kind: KindIndex, URL: "u", Entry: "differs", Type: TypeSkillMD, Digest: Sum([]byte(md)), Verified: true}
	_, _, err := PrepareArtifact(entry, "differs", []byte(md))
	if skillerrtest.Want(t, "entry", err, skillerr.InvalidIndex, ReasonNameMismatch) != nil &&
		!strings.Contains(err.Error(), "the index lists this skill as 'differs', but its SKILL.md names it 'hello'") {
		t.Errorf("entry: %v", err)
	}
	if _, _, err := PrepareArtifact(entry, "hello", []byte(md)); err != nil {
		t.Errorf("its own name: %v", err)
	}
	if _, _, err := PrepareArtifact(Origin{Kind: KindURL, URL: "u"}, "differs", []byte(md)); err != nil {
		t.Errorf("a plain URL: %v", err)
	}
	broken := []byte("---\nname: [\n---\n")
	if _, _, err := PrepareArtifact(Origin{Kind: KindIndex, URL: "u", Type: TypeSkillMD}, "differs", broken); err != nil {
		t.Errorf("no name to read: %v", err)
	}
}

// TestKeptETag: an ETag longer than MaxETag is not recorded, where every
// skill of a download kept a copy of it; a real one is.
func TestKeptETag(t *testing.T) {
	long := `"` + strings.Repeat("e", MaxETag) + `"`
	for etag, want := range map[string]string{`W/"5d41402abc4b2a76"`: `W/"5d41402abc4b2a76"`, long: ""} {
		_, o, err := PrepareArtifact(Origin{Kind: KindURL, URL: "u", ETag: etag}, "", []byte(md))
		if err != nil || o.ETag != want {
			t.Errorf("PrepareArtifact records ETag %q (%v), want %q", o.ETag, err, want)
		}
		if got := (Origin{Kind: KindURL, URL: "u"}).Follow(d1, etag).ETag; got != want {
			t.Errorf("Follow records ETag %q, want %q", got, want)
		}
	}
}

func TestArtifactSkillMD(t *testing.T) {
	zb, o, err := PrepareArtifact(Origin{Kind: KindURL, URL: "u"}, "hello", []byte(md))
	if err != nil || o.Type != TypeSkillMD || o.Digest != Sum([]byte(md)) {
		t.Fatalf("origin %+v, %v", o, err)
	}
	arc, err := zipguard.Read(zb, zipguard.Limits{})
	if err != nil || len(arc.Skills) != 1 || arc.Skills[0].Name != "hello" || string(arc.Skills[0].Files[0].Data) != md {
		t.Fatalf("archive = %+v, %v", arc, err)
	}
}

// TestArtifactWebPage: a web page where an archive or a SKILL.md was
// expected (whatever type the origin records, verified or not) is refused
// as one, naming the address, not read as a SKILL.md without frontmatter.
func TestArtifactWebPage(t *testing.T) {
	for _, c := range []struct {
		page string
		o    Origin
	}{
		{"\n\n<!DOCTYPE html>\n<html><body>Sign in</body></html>", Origin{Kind: KindURL, URL: "https://a.test/s.zip"}},
		{"\xef\xbb\xbf<?xml version=\"1.0\"?><Error>AccessDenied</Error>", Origin{Kind: KindURL, URL: "https://a.test/s.zip", Type: TypeArchive}},
		{"<html></html>", Origin{Kind: KindURL, URL: "https://a.test/SKILL.md", Type: TypeSkillMD}},
	} {
		_, _, err := PrepareArtifact(c.o, "", []byte(c.page))
		if skillerr.CodeOf(err) != skillerr.InvalidArchive || skillerr.ReasonOf(err) != ReasonWebPage || !strings.Contains(err.Error(), c.o.URL) {
			t.Errorf("%q: %v", c.page, err)
		}
	}
	// A SKILL.md after white space and a byte order mark is still one.
	if _, o, err := PrepareArtifact(Origin{Kind: KindURL, URL: "u"}, "", []byte("\xef\xbb\xbf\n"+md)); err != nil || o.Type != TypeSkillMD {
		t.Errorf("a SKILL.md: %+v, %v", o, err)
	}
}

func mcpList(t *testing.T, skills ...any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"skills": skills})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mcpSkill(dir string, files map[string]string, extra ...map[string]any) map[string]any {
	var res []any
	for p, data := range files {
		res = append(res, map[string]any{"uri": "skill://" + dir + "/" + p, "digest": Sum([]byte(data)), "size": len(data)})
	}
	res = append(res, anys(extra)...)
	return map[string]any{"uri": "skill://" + dir + "/SKILL.md", "frontmatter": map[string]any{"name": dir[strings.LastIndexByte(dir, '/')+1:], "description": "d"}, "resources": res}
}

func anys(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

func TestParseMCP(t *testing.T) {
	good := map[string]string{"SKILL.md": md, "ref/a b.md": "A"}
	good2 := mcpSkill("team/hello", good)
	good2["resources"] = append(good2["resources"].([]any)[:1], map[string]any{"uri": "skill://team/hello/ref/a%20b.md", "digest": Sum([]byte("A")), "size": 1})
	good2["resources"] = append(good2["resources"].([]any), map[string]any{"uri": "skill://team/hello/SKILL.md", "digest": Sum([]byte(md)), "size": len(md)})
	good2["resources"] = good2["resources"].([]any)[1:]
	escape := mcpSkill("esc", map[string]string{"SKILL.md": md}, map[string]any{"uri": "skill://esc/../other/x", "digest": d1, "size": 3})
	outside := mcpSkill("out", map[string]string{"SKILL.md": md}, map[string]any{"uri": "skill://other/x", "digest": d1, "size": 3})
	encoded := mcpSkill("enc", map[string]string{"SKILL.md": md}, map[string]any{"uri": "skill://enc/%2e%2e/x", "digest": d1, "size": 3})
	dynamic := map[string]any{"uri": "skill://dyn/SKILL.md", "frontmatter": map[string]any{"name": "dyn"}, "resources": "dynamic"}
	huge := mcpSkill("huge", map[string]string{"SKILL.md": md}, map[string]any{"uri": "skill://huge/big.bin", "digest": d1, "size": 1 << 40})
	skills, refused, err := ParseMCP(mcpList(t, good2, escape, outside, encoded, dynamic, huge))
	if err != nil {
		t.Fatal(err)
	}
	if len(skills) != 1 || skills[0].Name != "hello" || len(skills[0].Files) != 2 {
		t.Fatalf("skills = %+v", skills)
	}
	if f := skills[0].Files; f[0].Path != "ref/a b.md" || f[0].URL != "skill://team/hello/ref/a%20b.md" {
		t.Errorf("files = %+v", f)
	}
	got := map[string]string{}
	for _, r := range refused {
		got[r.Name] = string(r.Code) + "/" + r.Reason
	}
	for name, code := range map[string]string{
		"esc": "PathRejected/dot-dot", "out": "PathRejected/outside-skill", "enc": "PathRejected/dot-dot",
		"dyn": "Integrity/dynamic-resources", "huge": "TooLarge/file-too-large",
	} {
		if got[name] != code {
			t.Errorf("%s refused as %q, want %q (all: %v)", name, got[name], code, got)
		}
	}
}

func TestAssemble(t *testing.T) {
	files := []FileRef{{Path: "SKILL.md", Digest: Sum([]byte(md))}, {Path: "ref.md", Digest: Sum([]byte("truth"))}}
	blob := []byte(md + "truth")
	zb, err := Assemble(KindMCP, "hello", files, []int64{int64(len(md)), 5}, blob)
	if err != nil {
		t.Fatal(err)
	}
	if arc, err := zipguard.Read(zb, zipguard.Limits{}); err != nil || len(arc.Skills[0].Files) != 2 {
		t.Fatalf("archive: %+v, %v", arc, err)
	}
	_, err = Assemble(KindMCP, "hello", files, []int64{int64(len(md)), 5}, []byte(md+"lies!"))
	if e := skillerrtest.Want(t, "lying file", err, skillerr.Integrity, ReasonDigestMismatch); e != nil && e.Subject != "ref.md" {
		t.Errorf("subject %q", e.Subject)
	}
	_, err = Assemble(KindMCP, "hello", files, []int64{int64(len(md)), 4}, blob)
	skillerrtest.Want(t, "lengths", err, skillerr.InvalidArgument, "")
	// Listed as "other", its SKILL.md names "hello": it would install as a skill the listing never showed.
	if _, err = Assemble(KindMCP, "other", files, []int64{int64(len(md)), 5}, blob); skillerrtest.Want(t, "another name", err, skillerr.InvalidIndex, ReasonNameMismatch) != nil &&
		!strings.Contains(err.Error(), "the MCP server lists this skill as 'other', but its SKILL.md names it 'hello'") {
		t.Errorf("another name: %v", err)
	}
	bad := append(files[:1:1], FileRef{Path: "../x", Digest: Sum([]byte("truth"))})
	_, err = Assemble(KindMCP, "hello", bad, []int64{int64(len(md)), 5}, blob)
	skillerrtest.Want(t, "escaping path", err, skillerr.PathRejected, "dot-dot")
}

func TestCheck(t *testing.T) {
	idx, err := ParseIndex(indexURL, indexOf(t, SchemaV2, entry("a", TypeArchive, "a.zip", d1), entry("b", TypeArchive, "b.zip", Sum([]byte("new")))))
	if err != nil {
		t.Fatal(err)
	}
	in := func(id, entry, digest string) Installed {
		return Installed{ID: id, Origin: Origin{Kind: KindIndex, Index: indexURL, Entry: entry, Digest: digest, Verified: true}}
	}
	ups := CheckIndex([]Installed{in("a", "a", d1), in("b", "b", d1), in("c", "c", d1),
		{ID: "other", Origin: Origin{Kind: KindURL, URL: "https://x.test/a.zip"}}}, idx)
	got := fmt.Sprintln(ups[0].Status, ups[1].Status, ups[1].Latest == Sum([]byte("new")), ups[2].Status, len(ups))
	if got != "current changed true gone 3\n" {
		t.Errorf("updates = %s: %+v", got, ups)
	}
	// An entry still listed, in a form this version cannot install: an
	// error, which its update is refused with too (Unusable), not gone.
	idx, err = ParseIndex(indexURL, indexOf(t, SchemaV2, entry("a", "bundle", "a.zip", d1), entry("b", TypeArchive, "b.zip", "sha256:short")))
	if err != nil {
		t.Fatal(err)
	}
	ups = CheckIndex([]Installed{in("a", "a", d1), in("b2", "b", d1), in("c", "c", d1)}, idx)
	unusable := idx.Unusable([]string{"a", "c", "b"})
	const bundle = `the index lists its entry 'a', but not so that it can be installed (the entry's type "bundle" is not one this version of skillfs installs (skill-md, archive); it was skipped): it stays installed as it is`
	if len(ups) != 3 || ups[0].Status != StatusError || ups[0].Code != skillerr.InvalidIndex || ups[0].Reason != ReasonUnknownType || ups[0].Message != bundle ||
		ups[1].Status != StatusError || ups[1].Code != idx.Skipped[1].Code || ups[1].Reason != idx.Skipped[1].Reason ||
		!strings.HasPrefix(ups[1].Message, "the index lists its entry 'b', but not so that it can be installed (") || ups[2].Status != StatusGone {
		t.Errorf("updates of entries skipped = %+v", ups)
	}
	if len(unusable) != 2 || unusable[0] != (Refusal{Name: "a", Code: ups[0].Code, Reason: ups[0].Reason, Message: ups[0].Message}) ||
		unusable[1].Name != "b" || unusable[1].Message != ups[1].Message {
		t.Errorf("Unusable = %+v", unusable)
	}
	if u := CheckDigest([]Installed{{ID: "u", Origin: Origin{Kind: KindURL, Digest: d1}}, {ID: "v", Origin: Origin{Kind: KindURL, Digest: Sum([]byte("two"))}}},
		Sum([]byte("one"))); len(u) != 2 || u[0].Status != StatusCurrent || u[1].Status != StatusChanged || u[1].Latest != d1 {
		t.Errorf("CheckDigest = %+v", u)
	}
}

func TestReviewMCP(t *testing.T) {
	const server = "https://mcp.test/mcp"
	skill := func(name, digest string) MCPSkill {
		return MCPSkill{Name: name, URI: "skill://" + name + "/SKILL.md", Digest: digest}
	}
	from := func(id, name, digest string) Installed {
		return Installed{ID: id, Origin: Origin{Kind: KindMCP, Server: server, URI: "skill://" + name + "/SKILL.md", Digest: digest}}
	}
	d2 := Sum([]byte("two"))
	installed := []Installed{
		from("same", "same", d1),
		from("newer-2", "newer", d1), // installed renamed: still the one it updates, changed here since
		{ID: "Taken"},                // from bytes, no origin
		{ID: "elsewhere", Origin: Origin{Kind: KindMCP, Server: "https://other.test/mcp", URI: "skill://elsewhere/SKILL.md", Digest: d1}},
	}
	installed[1].Origin.FilesDigest, installed[1].Digest = d1, d2
	offers := ReviewMCP(installed, strings.ToLower, server, []MCPSkill{skill("same", d1), skill("newer", d2), skill("taken", d1), skill("elsewhere", d1), skill("fresh", d1)})
	var got []string
	for _, o := range offers {
		got = append(got, fmt.Sprintf("%s:%s:%s:%v", o.Name, o.Status, o.Installed, o.Edited))
	}
	want := "same:installed:same:false newer:update:newer-2:true taken:conflict:Taken:false elsewhere:conflict:elsewhere:false fresh:new::false"
	if strings.Join(got, " ") != want {
		t.Errorf("offers = %s", strings.Join(got, " "))
	}
}

// TestReviewIndex: the skill installed from an entry of the same index is
// the one the entry is, whatever its id — installed when verified against
// the digest published now, else an update (in place: its Target, unless
// the entry's archive installed several skills) — not a conflict with a
// skill of its name from elsewhere.
func TestReviewIndex(t *testing.T) {
	idx := &Index{URL: "https://a.test/.well-known/agent-skills/index.json", Version: V2}
	other := "https://b.test/.well-known/agent-skills/index.json"
	d2 := Sum([]byte("two"))
	entry := func(name, digest string) Entry {
		return Entry{Name: name, Type: TypeArchive, URL: "https://a.test/" + name + ".zip", Digest: digest}
	}
	from := func(id, index, entry, digest string) Installed {
		return Installed{ID: id, Origin: Origin{Kind: KindIndex, Index: index, Entry: entry, Digest: digest}}
	}
	installed := []Installed{
		{ID: "same"}, // from bytes, of the name of the one below
		from("same-v2", idx.URL, "same", d1),
		from("newer-v2", idx.URL, "newer", d1),
		from("pack-a", idx.URL, "pack", d1),
		from("pack-b", idx.URL, "pack", d1),
		from("elsewhere", other, "elsewhere", d1),
		from("legacy", idx.URL, "legacy", d1),
	}
	// Changed here since: newer-v2, and one skill of the pack's two; a
	// skill that recorded no FilesDigest is not known to be edited.
	edit := func(id, files, now string) {
		for i := range installed {
			if installed[i].ID == id {
				installed[i].Origin.FilesDigest, installed[i].Digest = files, now
			}
		}
	}
	edit("same-v2", d1, d1)
	edit("newer-v2", d1, d2)
	edit("pack-a", d1, d1)
	edit("pack-b", d1, d2)
	edit("legacy", "", d2)
	offers := ReviewIndex(installed, strings.ToLower, idx,
		[]Entry{entry("same", d1), entry("newer", d2), entry("pack", d2), entry("elsewhere", d1), entry("legacy", ""), entry("fresh", d1)})
	var got []string
	for _, o := range offers {
		got = append(got, fmt.Sprintf("%s:%s:%s:%s:%v", o.Name, o.Status, o.Installed, o.Target, o.Edited))
		if o.Origin != ForEntry(idx, o.Entry) {
			t.Errorf("%s: origin %+v", o.Name, o.Origin)
		}
		// Only an entry installed is left as it is, with the warning that says so.
		if want := AlreadyInstalled(o.Name, o.Installed, o.Edited); (o.Left != nil) != (o.Status == OfferInstalled) || o.Left != nil && *o.Left != want {
			t.Errorf("%s: left %+v", o.Name, o.Left)
		}
		// Only an entry without a digest warns that it cannot be verified.
		if want := (Refusal{Name: o.Name, Code: skillerr.Integrity, Reason: ReasonUnverified,
			Message: "the index (v0.1.0) publishes no digests: what was received could not be verified"}); (o.Unverified != nil) != (o.Digest == "") || o.Unverified != nil && *o.Unverified != want {
			t.Errorf("%s: unverified %+v", o.Name, o.Unverified)
		}
	}
	want := "same:installed:same-v2::false newer:update:newer-v2:newer-v2:true pack:update:pack-a::true elsewhere:conflict:elsewhere::false legacy:update:legacy:legacy:false fresh:new:::false"
	if strings.Join(got, " ") != want {
		t.Errorf("offers = %s", strings.Join(got, " "))
	}
}

func TestChooseMCP(t *testing.T) {
	const server = "https://mcp.test/mcp"
	type policy string
	skill := func(name, digest string) MCPSkill {
		return MCPSkill{Name: name, URI: "skill://" + name + "/SKILL.md", Digest: digest}
	}
	from := func(id, name string) Installed {
		return Installed{ID: id, Origin: Origin{Kind: KindMCP, Server: server, URI: "skill://" + name + "/SKILL.md", Digest: d1}}
	}
	skills := []MCPSkill{skill("same", d1), skill("newer", Sum([]byte("two"))), skill("taken", d1), skill("fresh", d1)}
	installed := []Installed{from("same", "same"), from("newer-2", "newer"), {ID: "taken"}}
	offers := ReviewMCP(installed, func(id string) string { return id }, server, skills)
	for _, c := range []struct {
		what   string
		want   []string
		choose map[string]policy
		// name:policy:target each installed; then | the names left; then | refused, name:code:reason.
		out string
	}{
		{"nothing chosen: the unchanged left, the changed updated in place, the others under the caller's policy", nil, nil,
			"newer:rename:newer-2 taken:rename: fresh:rename:|same|"},
		{"a choice per skill, which also selects", nil, map[string]policy{"same": "rename", "newer": "replace", "taken": "replace"},
			"same:rename: newer:replace:newer-2 taken:replace:||"},
		{"keep both of a changed one: installed beside, not over it", nil, map[string]policy{"newer": "rename"},
			"newer:rename:||"},
		{"replace an unchanged one: in place", nil, map[string]policy{"same": "replace"},
			"same:replace:same||"},
		{"an empty choice installs nothing", nil, map[string]policy{}, "||"},
		{"a choice of a skill not listed is refused alone", nil, map[string]policy{"gone": "rename", "fresh": "replace"},
			"fresh:replace:||gone:SkillNotFound:not-listed"},
		{"selected by URI, chosen by name", []string{"skill://taken/SKILL.md", "gone"}, map[string]policy{"taken": "replace", "gone": "rename"},
			"taken:replace:||gone:SkillNotFound:not-listed"},
		{"a skill named twice, by its name and by its URI, and a name not listed twice: each once", []string{"fresh", "skill://fresh/SKILL.md", "gone", "fresh", "gone"}, nil,
			"fresh:rename:||gone:SkillNotFound:not-listed"},
	} {
		out, left, refused, err := ChooseMCP(server, skills, offers, c.want, c.choose, "rename", "replace")
		if err != nil {
			t.Errorf("%s: %v", c.what, err)
			continue
		}
		var parts [3][]string
		for _, in := range out {
			if in.Origin.URI != in.URI || in.Origin.Digest != in.Digest {
				t.Errorf("%s: %s has origin %+v", c.what, in.Name, in.Origin)
			}
			parts[0] = append(parts[0], fmt.Sprintf("%s:%s:%s", in.Name, in.OnConflict, in.Target))
		}
		for _, r := range left {
			if r.Code != skillerr.Conflict || r.Reason != ReasonAlreadyInstalled {
				t.Errorf("%s: left %+v", c.what, r)
			}
			parts[1] = append(parts[1], r.Name)
		}
		for _, r := range refused {
			parts[2] = append(parts[2], fmt.Sprintf("%s:%s:%s", r.Name, r.Code, r.Reason))
		}
		if got := strings.Join(parts[0], " ") + "|" + strings.Join(parts[1], " ") + "|" + strings.Join(parts[2], " "); got != c.out {
			t.Errorf("%s:\n got %s\nwant %s", c.what, got, c.out)
		}
	}
	// The skill left as it is is said to be the server's byte for byte,
	// unless it was changed here since: then it is said so.
	for _, edited := range []bool{false, true} {
		in := slices.Clone(installed)
		if edited {
			in[0].Origin.FilesDigest, in[0].Digest = d1, Sum([]byte("mine"))
		}
		_, left, _, _ := ChooseMCP(server, skills, ReviewMCP(in, func(id string) string { return id }, server, skills), nil, nil, "rename", "replace")
		want := "installed from this source already, byte for byte, as same: left as it is"
		if edited {
			want = "installed from this source already, as same, and changed here since: left as it is, with those changes"
		}
		if len(left) != 1 || left[0].Name != "same" || left[0].Message != want {
			t.Errorf("edited %v: left %+v", edited, left)
		}
	}
	// A choice the selection leaves out is refused whole, before anything is installed.
	_, _, _, err := ChooseMCP(server, skills, offers, []string{"fresh"}, map[string]policy{"taken": "rename"}, "rename", "replace")
	if skillerr.CodeOf(err) != skillerr.InvalidArgument || skillerr.ReasonOf(err) != ReasonNotSelected {
		t.Errorf("a choice not selected: %v", err)
	}
}

func TestListingDigest(t *testing.T) {
	small := []byte(`{"skills": []}`)
	if d, err := ListingDigest(small, "", ListingIndex, indexURL); err != nil || d != Sum(small) {
		t.Errorf("ListingDigest = %q, %v", d, err)
	}
	if d, err := ListingDigest(small, Sum(small), ListingIndex, indexURL); err != nil || d != Sum(small) {
		t.Errorf("ListingDigest of the bytes previewed = %q, %v", d, err)
	}
	_, err := ListingDigest(small, d1, ListingIndex, indexURL)
	if e := skillerrtest.Want(t, "other bytes than those previewed", err, skillerr.Conflict, ReasonChangedSincePreview); e != nil && e.Subject != indexURL {
		t.Errorf("subject %q", e.Subject)
	}
	// Over the limit, refused as such before anything is hashed: whatever
	// digest was previewed, even none or a malformed one.
	big := make([]byte, MaxIndexSize+1)
	for _, previewed := range []string{"", d1, "sha256:nope"} {
		_, err := ListingDigest(big, previewed, ListingMCP, "https://mcp.test/mcp")
		if e := skillerrtest.Want(t, "previewed "+previewed, err, skillerr.TooLarge, "index-too-large"); e != nil && e.Subject != "https://mcp.test/mcp" {
			t.Errorf("subject %q", e.Subject)
		}
	}
}

// TestCheckMCPMoved: a skill whose URI the server no longer lists is
// compared with the one skill of its name listed under a URI no skill was
// installed from, and its update names that URI; without one, it is gone.
func TestCheckMCPMoved(t *testing.T) {
	const server = "https://mcp.test/mcp"
	in := func(id, uri, digest string) Installed {
		return Installed{ID: id, Origin: Origin{Kind: KindMCP, Server: server, URI: uri, Digest: digest, Verified: true}}
	}
	listed := []MCPSkill{{Name: "mover", URI: "skill://skills/mover/SKILL.md", Digest: d1}, {Name: "taken", URI: "skill://b/taken/SKILL.md", Digest: d1}}
	ups := CheckMCP([]Installed{in("mover", "skill://team/mover/SKILL.md", d1), in("taken", "skill://a/taken/SKILL.md", d1),
		in("other", "skill://b/taken/SKILL.md", d1)}, server, listed)
	var got []string
	for _, u := range ups {
		got = append(got, u.ID+" "+u.Status+" "+u.Origin.URI)
	}
	want := []string{"mover current skill://skills/mover/SKILL.md", "taken gone skill://a/taken/SKILL.md", "other current skill://b/taken/SKILL.md"}
	if !slices.Equal(got, want) {
		t.Errorf("CheckMCP = %q, want %q", got, want)
	}
}

// TestReviewKeysOnce: each installed id's key is computed once per
// review, not once for each skill offered (an index of 1,000 entries
// against 5,100 installed skills took 5 s natively so), and a skill not
// installed from the source still conflicts with the first installed
// skill of its key; its loops give the host turns (pace). Counted, not
// timed.
func TestReviewKeysOnce(t *testing.T) {
	const n, m = 1000, 100
	installed := make([]Installed, n)
	for i := range installed {
		installed[i].ID = fmt.Sprintf("skill-%04d", i)
	}
	installed = append(installed, Installed{ID: "SKILL-0020"}) // a second of one key: not the one named
	calls := 0
	key := func(id string) string { calls++; return strings.ToLower(id) }
	entries, skills := make([]Entry, m), make([]MCPSkill, m)
	for i := range entries {
		name := fmt.Sprintf("Skill-%04d", i*10) // the even ones are installed, of another case
		if i%2 == 1 {
			name = fmt.Sprintf("fresh-%04d", i)
		}
		entries[i], skills[i] = Entry{Name: name}, MCPSkill{Name: name, URI: "skill://" + name}
	}
	idx := &Index{URL: "https://a.test/.well-known/agent-skills/index.json", Version: V2}
	for _, c := range []struct {
		what string
		got  func() []string
	}{
		{"ReviewIndex", func() []string {
			var out []string
			for _, o := range ReviewIndex(installed, key, idx, entries) {
				out = append(out, o.Status+":"+o.Installed)
			}
			return out
		}},
		{"ReviewMCP", func() []string {
			var out []string
			for _, o := range ReviewMCP(installed, key, "https://mcp.test/mcp", skills) {
				out = append(out, o.Status+":"+o.Installed)
			}
			return out
		}},
	} {
		calls, steps := 0, 0
		stop := pacetest.Observe(func() { steps++ })
		got := c.got()
		stop()
		if want := (len(installed) + m) / 16; steps < want {
			t.Errorf("%s: %d steps for %d installed skills and %d offered, want %d or more", c.what, steps, len(installed), m, want)
		}
		if calls > len(installed)+m {
			t.Errorf("%s: %d keys computed for %d installed skills and %d offered, want %d at most", c.what, calls, len(installed), m, len(installed)+m)
		}
		for i, g := range got {
			want := OfferNew + ":"
			if i%2 == 0 {
				want = fmt.Sprintf("%s:skill-%04d", OfferConflict, i*10)
			}
			if g != want {
				t.Errorf("%s: %s is %s, want %s", c.what, entries[i].Name, g, want)
			}
		}
	}
}

// TestSelectMCPNotListed: a skill asked for that the server does not list
// says where to look, once however often it is asked for.
func TestSelectMCPNotListed(t *testing.T) {
	skills := []MCPSkill{{Name: "a", URI: "skill://a/SKILL.md"}}
	sel, refused := SelectMCP(skills, []string{"a", "gone", "gone"})
	if len(sel) != 1 || len(refused) != 1 || refused[0].Name != "gone" || refused[0].Code != skillerr.SkillNotFound || refused[0].Reason != ReasonNotListed ||
		refused[0].Message != "the server lists no skill of this name or URI that can be installed: check it against the skills the server lists" {
		t.Errorf("SelectMCP = %+v, %+v", sel, refused)
	}
}

// TestForURL: an address given with a digest is pinned to it; without
// one, the install warns, by the address given, that what is received
// cannot be verified. What is downloaded and its folder are Locate's. An
// address that is not an absolute http or https URL is refused, naming it.
func TestForURL(t *testing.T) {
	page := "https://github.com/o/r/tree/main/skills/pdf"
	pinned, err := ForURL(page, d1)
	if want := (Origin{Kind: KindURL, URL: "https://github.com/o/r/archive/main.zip", Dir: "skills/pdf", Digest: d1, Verified: true}); err != nil || pinned.URL != want.URL || pinned.Origin != want || len(pinned.Warnings) != 0 {
		t.Errorf("pinned = %+v, %v", pinned, err)
	}
	loose, err := ForURL(page, "")
	if err != nil || loose.Origin.Verified || loose.Origin.Digest != "" || len(loose.Warnings) != 1 || loose.Warnings[0] != (Refusal{Name: page, Code: skillerr.Integrity, Reason: ReasonUnverified,
		Message: "no digest was given: what was received could not be verified"}) {
		t.Errorf("without a digest = %+v, %v", loose, err)
	}
	in, err := ForURL("https://a.test/s.zip", d1)
	if j, jerr := json.Marshal(in); err != nil || jerr != nil || !strings.Contains(string(j), `"warnings":[]`) {
		t.Errorf("no warnings: %s %v %v", j, err, jerr)
	}
	for _, bad := range []string{"data:application/zip;base64,UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==", "skill.zip", "/skills/s.zip", "//a.test/s.zip",
		"javascript:alert(1)", "file:///etc/passwd", "chrome-extension://abc/s.zip", "blob:https://a.test/0d6f", "ftp://a.test/s.zip", "https:///s.zip"} {
		_, err := ForURL(bad, "")
		if skillerr.CodeOf(err) != skillerr.InvalidArgument || skillerr.ReasonOf(err) != ReasonBadURL || !strings.HasPrefix(err.Error(), bad+": ") {
			t.Errorf("ForURL(%q) = %v, want InvalidArgument/bad-url naming it", bad, err)
		}
	}
	// A lone % is said in words, with what to write instead, not in Go's.
	const lone = "https://a.test/skills/100%.zip"
	if _, err := ForURL(lone, ""); skillerr.ReasonOf(err) != ReasonBadURL ||
		err.Error() != lone+`: the address holds "%.z", a % not followed by two hexadecimal digits: write the % as %25` {
		t.Errorf("ForURL(%q) = %v", lone, err)
	}
}

// TestLeftAsTheyAre: each skill of a download left as it is says so, in
// AlreadyInstalled's words; none is a list, not null.
func TestLeftAsTheyAre(t *testing.T) {
	got := LeftAsTheyAre([]string{"a", "b"})
	if len(got) != 2 || got[0] != AlreadyInstalled("a", "a", false) || got[1] != AlreadyInstalled("b", "b", false) {
		t.Errorf("left = %+v", got)
	}
	if j, _ := json.Marshal(LeftAsTheyAre(nil)); string(j) != "[]" {
		t.Errorf("none = %s", j)
	}
}
