package resolver

import (
	"strings"
	"unicode/utf8"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// CatalogFormat selects how Catalog renders.
type CatalogFormat string

// The formats.
const (
	// FormatXML is skills-ref's <available_skills> block.
	FormatXML CatalogFormat = "xml"
	// FormatJSON is an array of {"name", "description", "location"}
	// objects, one per line.
	FormatJSON CatalogFormat = "json"
)

// CatalogMode selects how much Catalog says about each skill.
type CatalogMode string

// The modes.
const (
	// ModeFull gives each skill's name, description and location.
	ModeFull CatalogMode = "full"
	// ModeNames gives each skill's name and location only.
	ModeNames CatalogMode = "names"
	// ModeOff shows no catalog.
	ModeOff CatalogMode = "off"
)

// CatalogOptions configure Catalog. The zero value is a full XML catalog
// of any length.
type CatalogOptions struct {
	Format CatalogFormat `json:"format,omitempty"` // "" means FormatXML
	Mode   CatalogMode   `json:"mode,omitempty"`   // "" means ModeFull
	// Budget caps the catalog's length in characters (runes, not bytes,
	// so that CJK text is not penalised); 0 means no cap. About four
	// characters make a token.
	Budget int `json:"budget,omitempty"`
}

// minDescription is the shortest a shortened description may get before
// the catalog drops descriptions altogether: shorter ones tell the model
// little more than the name.
const minDescription = 20

// Catalog renders level 1 of progressive disclosure: the skills the model
// may choose from. It returns "" when the mode is off or no skill is
// visible, so that the model sees no catalog rather than an empty one.
//
// Skills with DisableModelInvocation are left out. The rest are sorted by
// name, then ID, so that the same skills always give the same text.
//
// XML in full mode is byte for byte skill.ToPrompt. In names mode each
// skill is one line, <skill name="…" location="…"/>, and JSON entries lose
// their "description".
//
// With a Budget the catalog degrades until it fits, never exceeding it:
//  1. full descriptions (full mode only);
//  2. each description's first sentence, then all of them cut to the same
//     length (at least 20 characters) ending in "…" (full mode only);
//  3. names only;
//  4. the first names, then a note saying how many more there are:
//     <more count="N">N more skills are installed. Ask for a skill by name
//     or describe the task to find one.</more> (in JSON, a last object
//     {"more":N,"note":"…"});
//  5. "" when not even the note fits.
//
// Invalid options give an InvalidArgument error.
func Catalog(skills []Skill, opts CatalogOptions) (string, error) {
	f, err := opts.validate()
	if err != nil || opts.Mode == ModeOff {
		return "", err
	}
	c := fitter{f: f, budget: opts.Budget, entries: visibleEntries(skills)}
	if len(c.entries) == 0 {
		return "", nil
	}
	if opts.Mode != ModeNames {
		if c.budget == 0 {
			return f.entries(c.entries), nil
		}
		fixed := c.fixedCost()
		if s, ok := c.full(fixed); ok {
			return s, nil
		}
		if s, ok := c.shortened(fixed); ok {
			return s, nil
		}
	}
	return c.names(), nil
}

func (o CatalogOptions) validate() (catalogFormat, error) {
	switch o.Mode {
	case "", ModeFull, ModeNames, ModeOff:
	default:
		return nil, skillerr.New(skillerr.InvalidArgument, string(o.Mode), "unknown catalog mode; use full, names or off")
	}
	if o.Budget < 0 {
		return nil, skillerr.New(skillerr.InvalidArgument, "", "the catalog budget must not be negative")
	}
	switch o.Format {
	case "", FormatXML:
		return xmlFormat{}, nil
	case FormatJSON:
		return jsonFormat{}, nil
	}
	return nil, skillerr.New(skillerr.InvalidArgument, string(o.Format), "unknown catalog format; use xml or json")
}

// visibleEntries returns the catalog entries of the skills the model may
// see, sorted.
func visibleEntries(skills []Skill) []skill.Entry {
	visible := sortedOrder(skills, func(s Skill) bool { return !s.DisableModelInvocation })
	entries := make([]skill.Entry, len(visible))
	for k, i := range visible {
		s := skills[i]
		// Invalid UTF-8 would make character counts and JSON ambiguous.
		entries[k] = skill.Entry{Name: validUTF8(s.Name), Description: validUTF8(s.Description), Location: validUTF8(s.Location())}
	}
	return entries
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// fitter fits entries into a budget. Below the full level, lengths are
// computed rather than rendered: an element is as long as an empty one
// plus the escaped lengths of its values.
type fitter struct {
	f       catalogFormat
	budget  int
	entries []skill.Entry
}

// width returns the length of s once escaped.
func (c *fitter) width(s string) int {
	w := c.f.widths()
	n := int32(0)
	for _, r := range s {
		n += w.of(r)
	}
	return int(n)
}

// frameCost returns the length of a catalog of n elements without them.
func (c *fitter) frameCost(n int) int {
	open, sep, end := c.f.frame()
	return runeLen(open) + runeLen(end) + max(n-1, 0)*runeLen(sep)
}

// fixedCost returns the length of a catalog at levels 1 and 2 without
// its descriptions.
func (c *fitter) fixedCost() int {
	fixed := c.frameCost(len(c.entries))
	empty := elementLen(c.f.writeEntry, skill.Entry{})
	for _, e := range c.entries {
		fixed += empty + c.width(e.Name) + c.width(e.Location)
	}
	return fixed
}

// full renders level 1 if it fits. Escaping only lengthens text, so
// counting the descriptions' runes first spares rendering a catalog far
// over the budget.
func (c *fitter) full(fixed int) (string, bool) {
	for _, e := range c.entries {
		if fixed += runeLen(e.Description); fixed > c.budget {
			return "", false
		}
	}
	s := c.f.entries(c.entries)
	return s, runeLen(s) <= c.budget
}

// shortened renders level 2: first sentences, cut to the longest common
// length that fits.
func (c *fitter) shortened(fixed int) (string, bool) {
	if fixed > c.budget { // not even with empty descriptions
		return "", false
	}
	n := len(c.entries)
	firsts := make([]string, n)
	size := n
	for i, e := range c.entries {
		firsts[i] = firstSentence(e.Description)
		size += len(firsts[i])
	}
	// The escaped length of the first k runes of firsts[i] is
	// widths[starts[i]+k].
	starts := make([]int, n+1)
	widths := make([]int32, 0, size)
	longest := 0
	table := c.f.widths()
	for i := range c.entries {
		starts[i] = len(widths)
		w := int32(0)
		widths = append(widths, 0)
		for _, r := range firsts[i] {
			w += table.of(r)
			widths = append(widths, w)
		}
		longest = max(longest, len(widths)-starts[i]-1)
	}
	starts[n] = len(widths)
	// cost is an upper bound, since truncate may cut a little more.
	cost := func(limit int) int {
		total := fixed
		for i := range n {
			if runes := starts[i+1] - starts[i] - 1; runes <= limit {
				total += int(widths[starts[i+1]-1])
			} else {
				total += int(widths[starts[i]+limit-1]) + 1 // the kept runes and "…"
			}
		}
		return total
	}
	limit := max(longest, minDescription)
	if cost(limit) > c.budget {
		if cost(minDescription) > c.budget {
			return "", false
		}
		lo, hi := minDescription, limit // cost(lo) fits, cost(hi) does not
		for hi-lo > 1 {
			if mid := (lo + hi) / 2; cost(mid) <= c.budget {
				lo = mid
			} else {
				hi = mid
			}
		}
		limit = lo
	}
	short := make([]skill.Entry, n)
	for i, e := range c.entries {
		short[i] = skill.Entry{Name: e.Name, Description: truncate(firsts[i], limit), Location: e.Location}
	}
	return c.f.entries(short), true
}

// names renders levels 3 to 5: as many names as fit, the rest counted.
func (c *fitter) names() string {
	n := len(c.entries)
	empty := elementLen(c.f.writeName, skill.Entry{})
	_, sep, _ := c.f.frame()
	costs := make([]int, n)
	total := c.frameCost(n)
	for i, e := range c.entries {
		costs[i] = empty + c.width(e.Name) + c.width(e.Location)
		total += costs[i]
	}
	if c.budget == 0 || total <= c.budget {
		return join(c.f, c.entries, c.f.writeName, -1)
	}
	// Keep the longest prefix that fits with the note about the rest.
	used := c.frameCost(1) // the frame; each name adds itself and a separator
	k := -1
	for i := range n {
		if used+runeLen(c.f.more(n-i)) > c.budget {
			break
		}
		k = i
		used += costs[i] + runeLen(sep)
	}
	if k < 0 {
		return ""
	}
	return join(c.f, c.entries[:k], c.f.writeName, n-k)
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }
