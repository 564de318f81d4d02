package source

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// The schemas and well-known paths of the discovery index.
const (
	SchemaV2 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
	SchemaV1 = "https://schemas.agentskills.io/discovery/0.1.0/schema.json"
	// PathV2 is where a site publishes its v0.2.0 index; PathV1 the legacy one.
	PathV2 = "/.well-known/agent-skills/index.json"
	PathV1 = "/.well-known/skills/index.json"
)

// The versions Index.Version reports.
const (
	V2 = "0.2.0"
	V1 = "0.1.0"
)

// The artifact types of an index entry, and "files" for a skill fetched
// file by file (a v0.1.0 entry, an MCP skill).
const (
	TypeSkillMD = "skill-md"
	TypeArchive = "archive"
	TypeFiles   = "files"
)

// Limits of what ParseIndex and ParseMCP accept: a listing is read whole
// into memory before anything else happens.
const (
	MaxIndexSize = 4 << 20
	MaxEntries   = 1000
)

// Reasons of InvalidIndex errors and of Refusals.
const (
	ReasonMalformed     = "malformed"
	ReasonUnknownSchema = "unknown-schema"
	ReasonUnknownType   = "unknown-type"
	ReasonBadEntry      = "bad-entry"
	ReasonBadURL        = "bad-url"
	ReasonNotListed     = "not-listed"
	ReasonDynamic       = "dynamic-resources"
	ReasonUnverified    = "unverified" // a warning: the source publishes no digest
)

// Entry is one skill an index publishes, with its URL resolved against
// the index's.
type Entry struct {
	Name        string `json:"name"`
	Type        string `json:"type"` // TypeSkillMD, TypeArchive, or TypeFiles for v0.1.0
	Description string `json:"description"`
	URL         string `json:"url"`    // absolute; for TypeFiles the skill's directory, ending in "/"
	Digest      string `json:"digest"` // "" in a v0.1.0 index
	// Files are a v0.1.0 entry's files, each with its absolute URL.
	Files []FileRef `json:"files"`
}

// FileRef is one file of a skill fetched file by file.
type FileRef struct {
	Path   string `json:"path"`   // clean, relative to the skill
	URL    string `json:"url"`    // where it is fetched: an http(s) URL or a skill:// resource URI
	Digest string `json:"digest"` // "" when the source publishes none
	Size   int64  `json:"size"`   // as published, -1 when unknown
}

// Refusal is an entry or skill left out, and why: a warning when nothing
// else could be done (an unknown type), an error when it was refused.
type Refusal struct {
	Name    string        `json:"name"`
	Code    skillerr.Code `json:"code"`
	Reason  string        `json:"reason"`
	Message string        `json:"message"`
}

func refusal(name string, err error) Refusal {
	r := Refusal{Name: name, Code: skillerr.CodeOf(err), Reason: skillerr.ReasonOf(err), Message: err.Error()}
	if e := (*skillerr.Error)(nil); errors.As(err, &e) {
		r.Message = e.Msg
	}
	return r
}

// Index is a parsed discovery index.
type Index struct {
	URL     string    `json:"url"`
	Version string    `json:"version"` // V2 or V1
	Entries []Entry   `json:"entries"`
	Skipped []Refusal `json:"skipped"` // entries left out, with a warning each
}

// rawIndex is the index as published; fields are checked one by one.
type rawIndex struct {
	Schema *string           `json:"$schema"`
	Skills []json.RawMessage `json:"skills"`
}

type rawEntry struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	URL         string          `json:"url"`
	Digest      string          `json:"digest"`
	Files       json.RawMessage `json:"files"`
}

// ParseIndex parses the index data fetched from indexURL.
//
// An index with $schema SchemaV2 is v0.2.0: every entry needs a name, a
// known type, a URL (resolved against indexURL as RFC 3986 says) and a
// well-formed digest. One without $schema (or with SchemaV1) is v0.1.0:
// entries list files under <index dir>/<name>/, with no digests, and
// installing them comes with a warning. Any other $schema is refused:
// guessing at a format is how unverified content gets in. An entry of an
// unknown type, or one that is malformed, is left out with a warning in
// Skipped; the others remain usable.
func ParseIndex(indexURL string, data []byte) (*Index, error) {
	base, err := httpURL(indexURL)
	if err != nil {
		return nil, err
	}
	if err := checkListingSize(data, ListingIndex, indexURL); err != nil {
		return nil, err
	}
	if isMarkup(data) {
		return nil, &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonWebPage, Subject: indexURL,
			Msg: "the address answered with a web page, not a discovery index: give the address of the index.json itself"}
	}
	var raw rawIndex
	if err := json.Unmarshal(data, &raw); err != nil || raw.Skills == nil {
		return nil, &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonMalformed, Subject: indexURL,
			Msg: "this is not a discovery index: " + notJSON(err, `a JSON object with a "skills" list`) +
				": give the address of the site's index, such as https://example.com/.well-known/agent-skills/index.json"}
	}
	idx := &Index{URL: base.String(), Version: V1, Entries: []Entry{}, Skipped: []Refusal{}}
	switch {
	case raw.Schema == nil || *raw.Schema == SchemaV1:
	case *raw.Schema == SchemaV2:
		idx.Version = V2
	default:
		return nil, &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonUnknownSchema, Subject: indexURL,
			Msg: fmt.Sprintf("the index declares the schema %q, which this version of skillfs does not know; it was not read", skillerr.Clip(*raw.Schema))}
	}
	if len(raw.Skills) > MaxEntries {
		return nil, &skillerr.Error{Code: skillerr.TooLarge, Reason: "too-many-entries", Subject: indexURL,
			Msg: fmt.Sprintf("the index lists %d skills; the limit is %d", len(raw.Skills), MaxEntries)}
	}
	seen := map[string]bool{}
	for i, msg := range raw.Skills {
		var re rawEntry
		if err := json.Unmarshal(msg, &re); err != nil {
			idx.Skipped = append(idx.Skipped, Refusal{Name: fmt.Sprintf("#%d", i+1), Code: skillerr.InvalidIndex,
				Reason: ReasonBadEntry, Message: "the entry is not an object with string fields"})
			continue
		}
		e, err := parseEntry(base, idx.Version, re)
		if err == nil && seen[e.Name] {
			err = &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonBadEntry, Subject: e.Name,
				Msg: "the index lists this name twice; only the first is used"}
		}
		if err != nil {
			name := re.Name
			if name == "" {
				name = fmt.Sprintf("#%d", i+1)
			}
			idx.Skipped = append(idx.Skipped, refusal(skillerr.Clip(name), err))
			continue
		}
		seen[e.Name] = true
		idx.Entries = append(idx.Entries, e)
	}
	return idx, nil
}

func parseEntry(base *url.URL, version string, re rawEntry) (Entry, error) {
	if err := checkName(re.Name); err != nil {
		return Entry{}, err
	}
	e := Entry{Name: re.Name, Description: re.Description, Files: []FileRef{}}
	if version == V1 {
		var files []string
		if err := json.Unmarshal(re.Files, &files); err != nil || len(files) == 0 {
			return Entry{}, &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonBadEntry, Subject: re.Name,
				Msg: "a v0.1.0 entry needs a list of its files"}
		}
		dir, err := resolve(base, re.Name+"/")
		if err != nil {
			return Entry{}, err
		}
		e.Type, e.URL = TypeFiles, dir.String()
		for _, p := range files {
			f, err := fileUnder(dir, p, "", -1)
			if err != nil {
				return Entry{}, err
			}
			e.Files = append(e.Files, f)
		}
		return e, checkFileSet(re.Name, e.Files)
	}
	switch re.Type {
	case TypeSkillMD, TypeArchive:
	default:
		return Entry{}, &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonUnknownType, Subject: re.Name,
			Msg: fmt.Sprintf("the entry's type %q is not one this version of skillfs installs (skill-md, archive); it was skipped", skillerr.Clip(re.Type))}
	}
	if err := checkDigest(re.Digest, re.Name); err != nil {
		return Entry{}, err
	}
	u, err := resolve(base, re.URL)
	if err != nil {
		return Entry{}, err
	}
	e.Type, e.URL, e.Digest = re.Type, u.String(), re.Digest
	return e, nil
}

// Select returns the entries of idx named in names, in the order of
// names, or all of them when names is empty; each name not in the index
// is refused, and one it lists but skipped says why it was.
func (idx *Index) Select(names []string) ([]Entry, []Refusal) {
	if len(names) == 0 {
		return slices.Clone(idx.Entries), nil
	}
	var out []Entry
	var refused []Refusal
	for _, n := range names {
		i := slices.IndexFunc(idx.Entries, func(e Entry) bool { return e.Name == n })
		if i < 0 {
			msg := "the index lists no entry of this name: check it against the entries the index lists"
			if k := slices.IndexFunc(idx.Skipped, func(r Refusal) bool { return r.Name == n }); k >= 0 {
				msg = "the index lists it, but not so that it can be installed: " + idx.Skipped[k].Message
			}
			refused = append(refused, Refusal{Name: n, Code: skillerr.SkillNotFound, Reason: ReasonNotListed, Message: msg})
			continue
		}
		out = append(out, idx.Entries[i])
	}
	return out, refused
}

// Unusable returns, for each of names that idx lists but skipped (an
// entry of a type this version does not install, a malformed digest), the
// refusal of an update of a skill installed from that entry: the skipped
// entry's code and reason, and that the skill stays as it is. An update
// and its check (CheckIndex) both say it so, not that the entry is gone.
func (idx *Index) Unusable(names []string) []Refusal {
	out := []Refusal{}
	for _, n := range names {
		if r, ok := idx.unusable(n); ok {
			out = append(out, r)
		}
	}
	return out
}

func (idx *Index) unusable(name string) (Refusal, bool) {
	k := slices.IndexFunc(idx.Skipped, func(r Refusal) bool { return r.Name == name })
	if k < 0 {
		return Refusal{}, false
	}
	s := idx.Skipped[k]
	return Refusal{Name: name, Code: s.Code, Reason: s.Reason,
		Message: fmt.Sprintf("the index lists its entry '%s', but not so that it can be installed (%s): it stays installed as it is", name, s.Message)}, true
}

// notJSON says why data did not decode as JSON of shape (err, from
// json.Unmarshal; nil when it decoded without what is wanted) in a
// person's words: encoding/json's name Go's types ("cannot unmarshal
// number into Go struct field rawIndex.skills of type []json.RawMessage").
func notJSON(err error, shape string) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("it is not valid JSON (at byte %d)", syn.Offset)
	}
	return "it is not " + shape
}

// MaxURL bounds an address to download, given or an index's. Every skill
// of a download records the address it came from (its origin, its
// source): an entry's 1 MB URL made an archive of 20 skills 40 MB of
// records, read with every list. Servers themselves refuse much less
// (8 KiB is common).
const MaxURL = 8 << 10

// tooLong is the refusal of address s (code code) longer than MaxURL.
func tooLong(code skillerr.Code, s string) error {
	if len(s) <= MaxURL {
		return nil
	}
	return &skillerr.Error{Code: code, Reason: ReasonBadURL, Subject: skillerr.Clip(s),
		Msg: fmt.Sprintf("the URL is %d bytes, longer than the %d an address to download may be", len(s), MaxURL)}
}

// httpURL parses s as an absolute http or https URL of at most MaxURL bytes.
func httpURL(s string) (*url.URL, error) {
	if err := tooLong(skillerr.InvalidArgument, s); err != nil {
		return nil, err
	}
	u, err := url.Parse(s)
	if escape := url.EscapeError(""); errors.As(err, &escape) {
		// The browser would send it as it is; Go's parser, and so every
		// check of the address after it, cannot read it.
		return nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonBadURL, Subject: skillerr.Clip(s),
			Msg: fmt.Sprintf("the address holds %q, a %% not followed by two hexadecimal digits: write the %% as %%25", string(escape))}
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonBadURL, Subject: skillerr.Clip(s), Err: err,
			Msg: "this is not an absolute http or https URL"}
	}
	return u, nil
}

// resolve resolves ref against base (RFC 3986, section 5) and requires an
// http or https result of at most MaxURL bytes: an index must not send
// its client to file: or javascript: URLs.
func resolve(base *url.URL, ref string) (*url.URL, error) {
	if err := tooLong(skillerr.InvalidIndex, ref); err != nil {
		return nil, err
	}
	r, err := url.Parse(ref)
	if err != nil || ref == "" {
		return nil, &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonBadURL, Subject: skillerr.Clip(ref), Err: err,
			Msg: "the entry's URL cannot be parsed"}
	}
	u := base.ResolveReference(r)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonBadURL, Subject: skillerr.Clip(ref),
			Msg: "the entry's URL does not resolve to an http or https URL"}
	}
	u.Fragment = ""
	if err := tooLong(skillerr.InvalidIndex, u.String()); err != nil {
		return nil, err
	}
	return u, nil
}
