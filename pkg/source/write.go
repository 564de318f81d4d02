package source

import (
	"encoding/json"
	"slices"
	"sort"
)

// Published is one artifact an author publishes next to an index.
type Published struct {
	Name        string
	Description string
	Type        string // TypeSkillMD or TypeArchive
	// URL is where it is served, relative to the index (or absolute).
	URL  string
	Data []byte
}

// WriteIndex returns a v0.2.0 discovery index listing items, sorted by
// name, each with the digest of its bytes: what ParseIndex reads back.
func WriteIndex(items []Published) ([]byte, error) {
	type entry struct {
		Name        string `json:"name"`
		Type        string `json:"type"`
		Description string `json:"description"`
		URL         string `json:"url"`
		Digest      string `json:"digest"`
	}
	sorted := slices.Clone(items)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	idx := struct {
		Schema string  `json:"$schema"`
		Skills []entry `json:"skills"`
	}{Schema: SchemaV2, Skills: []entry{}}
	for _, p := range sorted {
		if err := checkName(p.Name); err != nil {
			return nil, err
		}
		idx.Skills = append(idx.Skills, entry{p.Name, p.Type, p.Description, p.URL, Sum(p.Data)})
	}
	b, err := json.MarshalIndent(idx, "", "  ")
	return append(b, '\n'), err
}
