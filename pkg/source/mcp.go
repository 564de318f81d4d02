package source

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// MCPExtension is the extension an MCP server declares when it serves
// skills (SEP-2640).
const MCPExtension = "io.modelcontextprotocol/skills"

// ReasonOutside marks a resource of a skill whose URI is not below the
// skill's own directory.
const ReasonOutside = "outside-skill"

// MCPSkill is a skill an MCP server lists, checked and ready to fetch
// file by file with resources/read.
type MCPSkill struct {
	Name        string `json:"name"` // the frontmatter's name, else the directory's last segment
	Description string `json:"description"`
	URI         string `json:"uri"` // skill://<dir>/SKILL.md
	// Files are its resources, each with the path below the skill's
	// directory, its resource URI (FileRef.URL) and published digest.
	Files []FileRef `json:"files"`
	// Digest is ManifestDigest(Files): what changes when any file does.
	Digest string `json:"digest"`
}

type rawSkill struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
}

type rawResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   *int64 `json:"size"`
}

// ParseMCP parses the skills of a skills/list result (all its pages'
// skills in one list, as JSON: {"skills": [...]}) or of one skills/get
// result ({"skill": {...}}). A skill whose manifest is unusable — a
// resource outside its directory, a missing or malformed digest, a
// "dynamic" manifest that cannot be verified, no SKILL.md — is refused
// whole before any of its files is fetched; the others remain usable.
func ParseMCP(data []byte) ([]MCPSkill, []Refusal, error) {
	if err := checkListingSize(data, ListingMCP, ""); err != nil {
		return nil, nil, err
	}
	var raw struct {
		Skills []json.RawMessage `json:"skills"`
		Skill  json.RawMessage   `json:"skill"`
	}
	if err := json.Unmarshal(data, &raw); err != nil || (raw.Skills == nil && raw.Skill == nil) {
		return nil, nil, &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonMalformed,
			Msg: "the server's answer is not a skills/list or skills/get result: " + notJSON(err, `a JSON object with a "skills" list or a "skill"`) +
				"; the server does not serve skills as the skills extension says (its operator can tell why)"}
	}
	if raw.Skill != nil {
		raw.Skills = append(raw.Skills, raw.Skill)
	}
	if len(raw.Skills) > MaxEntries {
		return nil, nil, &skillerr.Error{Code: skillerr.TooLarge, Reason: "too-many-entries",
			Msg: fmt.Sprintf("the server lists %d skills; the limit is %d", len(raw.Skills), MaxEntries)}
	}
	out := []MCPSkill{}
	refused := []Refusal{}
	seen := map[string]bool{}
	for i, msg := range raw.Skills {
		var rs rawSkill
		if err := json.Unmarshal(msg, &rs); err != nil {
			refused = append(refused, Refusal{Name: fmt.Sprintf("#%d", i+1), Code: skillerr.InvalidIndex,
				Reason: ReasonBadEntry, Message: "the skill is not an object of the expected shape"})
			continue
		}
		s, err := parseMCPSkill(rs)
		if err == nil && seen[s.Name] {
			err = &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonBadEntry, Subject: s.Name,
				Msg: "the server lists two skills of this name; only the first is used"}
		}
		if err != nil {
			name := s.Name
			if name == "" {
				name = skillerr.Clip(rs.URI)
			}
			refused = append(refused, refusal(name, err))
			continue
		}
		seen[s.Name] = true
		out = append(out, s)
	}
	return out, refused, nil
}

func parseMCPSkill(rs rawSkill) (MCPSkill, error) {
	dir, ok := strings.CutSuffix(rs.URI, "/"+skillMD)
	rest, scheme := strings.CutPrefix(dir, "skill://")
	if !ok || !scheme || rest == "" {
		return MCPSkill{}, &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonBadEntry, Subject: skillerr.Clip(rs.URI),
			Msg: "a skill's URI must be skill://<path>/SKILL.md"}
	}
	s := MCPSkill{URI: rs.URI, Files: []FileRef{}}
	s.Name, _ = rs.Frontmatter["name"].(string)
	s.Description, _ = rs.Frontmatter["description"].(string)
	if s.Name == "" {
		s.Name = rest[strings.LastIndexByte(rest, '/')+1:]
	}
	if err := checkName(s.Name); err != nil {
		return s, err
	}
	var dynamic string
	if json.Unmarshal(rs.Resources, &dynamic) == nil {
		return s, &skillerr.Error{Code: skillerr.Integrity, Reason: ReasonDynamic, Subject: s.Name,
			Msg: "the server lists this skill's files as dynamic, with no digests to verify them by; it cannot be installed"}
	}
	var res []rawResource
	if err := json.Unmarshal(rs.Resources, &res); err != nil {
		return s, &skillerr.Error{Code: skillerr.InvalidIndex, Reason: ReasonBadEntry, Subject: s.Name, Err: err,
			Msg: "the skill's resources are not a list of {uri, digest, size}"}
	}
	for _, r := range res {
		rel, ok := strings.CutPrefix(r.URI, dir+"/")
		if !ok {
			return s, &skillerr.Error{Code: skillerr.PathRejected, Reason: ReasonOutside, Subject: skillerr.Clip(r.URI),
				Msg: fmt.Sprintf("the resource is not inside the skill's directory %s/", skillerr.Clip(dir))}
		}
		// Segments may be percent-encoded in a URI; the path they name
		// is what must stay inside the skill.
		p, err := url.PathUnescape(rel)
		if err != nil {
			return s, &skillerr.Error{Code: skillerr.PathRejected, Reason: ReasonOutside, Subject: skillerr.Clip(r.URI), Err: err,
				Msg: "the resource's URI has a broken percent escape"}
		}
		if _, err := cleanRel(p); err != nil {
			return s, err
		}
		if err := checkDigest(r.Digest, p); err != nil {
			return s, err
		}
		size := int64(-1)
		if r.Size != nil {
			size = *r.Size
		}
		s.Files = append(s.Files, FileRef{Path: p, URL: r.URI, Digest: r.Digest, Size: size})
	}
	if err := checkFileSet(s.Name, s.Files); err != nil {
		return s, err
	}
	s.Digest = ManifestDigest(s.Files)
	return s, nil
}

// SelectMCP returns the skills named in want (by name or URI), in its
// order, each once however often and however it is named (an install
// that named a skill twice would install it twice), or all of them when
// want is empty; each name not listed is refused, once.
func SelectMCP(skills []MCPSkill, want []string) ([]MCPSkill, []Refusal) {
	if len(want) == 0 {
		return slices.Clone(skills), nil
	}
	// The first skill of each name or URI, as a search from the start finds it.
	at := make(map[string]int, 2*len(skills))
	for i := len(skills) - 1; i >= 0; i-- {
		at[skills[i].URI], at[skills[i].Name] = i, i
	}
	var out []MCPSkill
	var refused []Refusal
	seen := make(map[int]bool, len(want))
	unlisted := map[string]bool{}
	for _, w := range want {
		i, ok := at[w]
		switch {
		case !ok && !unlisted[w]:
			unlisted[w] = true
			refused = append(refused, Refusal{Name: w, Code: skillerr.SkillNotFound, Reason: ReasonNotListed,
				Message: "the server lists no skill of this name or URI that can be installed: check it against the skills the server lists"})
		case ok && !seen[i]:
			seen[i] = true
			out = append(out, skills[i])
		}
	}
	return out, refused
}
