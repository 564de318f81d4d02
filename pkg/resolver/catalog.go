package resolver

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// CatalogFormat selects how Catalog renders.
type CatalogFormat string

// The formats.
const (
	// FormatXML is skills-ref's <available_skills> block.
	FormatXML CatalogFormat = "xml"
	// FormatJSON is an array of objects, one per line.
	FormatJSON CatalogFormat = "json"
)

// CatalogMode selects how much Catalog says about each skill.
type CatalogMode string

// The modes.
const (
	// ModeFull gives each skill's name, description and location, as far
	// as the budget allows.
	ModeFull CatalogMode = "full"
	// ModeNames gives names only.
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
	// Query is the user's message: Session.Catalog gives the skills the
	// router finds for it their descriptions first. QueryVector and Model
	// are its embedding, as RouteOptions has them.
	Query       string    `json:"query,omitempty"`
	QueryVector []float32 `json:"queryVector,omitempty"`
	Model       string    `json:"model,omitempty"`
	// Relevant are the IDs of the skills most likely needed now, most
	// likely first: they keep their descriptions longest. Session.Catalog
	// fills it from the session.
	Relevant []string `json:"-"`
}

// MaxCatalogQuery caps CatalogOptions.Query, as routing caps a request.
const MaxCatalogQuery = 8 << 10

// Catalog renders level 1 of progressive disclosure: the skills the model
// may choose from. It returns "" when the mode is off or no skill is
// visible, so that the model sees no catalog rather than an empty one.
// Skills with DisableModelInvocation are left out.
//
// In full mode, a catalog that fits its budget (or has none) is byte for
// byte skill.ToPrompt in XML, and in JSON an array of {"name",
// "description", "location"} objects, sorted by name, then ID.
//
// Otherwise it degrades in tiers that keep every skill discoverable,
// never by cutting the alphabet:
//  1. full descriptions for the Relevant skills, most relevant first, as
//     far as they fit;
//  2. the first sentence of every other skill's description, if all of
//     them fit;
//  3. else each other skill's name alone, one element per skill, if all
//     of them fit;
//  4. else the other names in one comma-separated list;
//  5. when not even that list of all names fits: as many names as fit,
//     the relevant ones first, and a note saying how many more there are.
//
// A degraded catalog says what it did, in XML as the attributes of its
// root, <available_skills shown="…" described="…" total="…"
// locations="/skills/{id}/SKILL.md">, and in JSON as its first object,
// {"shown":…,"described":…,"total":…,"locations":…}: shown is how many
// skills it names, described how many have a description, total how many
// are visible. Skills whose ID is not their name carry it ("id"), since
// the location is built from the ID. In names mode the catalog is always
// in this form, at tiers 3 to 5.
//
// Invalid options give an InvalidArgument error.
func Catalog(skills []Skill, opts CatalogOptions) (string, error) {
	f, err := opts.validate()
	if err != nil || opts.Mode == ModeOff {
		return "", err
	}
	entries := visibleEntries(skills, opts.Relevant)
	if len(entries) == 0 {
		return "", nil
	}
	return fit(f, entries, opts.Mode, opts.Budget), nil
}

func (o CatalogOptions) validate() (catalogFormat, error) {
	switch o.Mode {
	case "", ModeFull, ModeNames, ModeOff:
	default:
		return nil, skillerr.New(skillerr.InvalidArgument, string(o.Mode), "unknown catalog mode; use full, names or off")
	}
	switch {
	case o.Budget < 0:
		return nil, skillerr.New(skillerr.InvalidArgument, "budget", "the catalog budget must not be negative")
	case len(o.Query) > MaxCatalogQuery:
		return nil, skillerr.New(skillerr.TooLarge, "query", "the query is %d bytes; the catalog reads at most %d", len(o.Query), MaxCatalogQuery)
	}
	switch o.Format {
	case "", FormatXML:
		return xmlFormat{}, nil
	case FormatJSON:
		return jsonFormat{}, nil
	}
	return nil, skillerr.New(skillerr.InvalidArgument, string(o.Format), "unknown catalog format; use xml or json")
}

// entry is a visible skill as the catalog shows it.
type entry struct {
	skill.Entry
	// id is the skill's ID when it is not its name, so that a compact
	// tier, which leaves the location out, still tells where it is.
	id       string
	relevant bool
}

// visibleEntries returns the catalog entries of the skills the model may
// see, the relevant ones first in their order, then the rest sorted.
func visibleEntries(skills []Skill, relevant []string) []entry {
	visible := sortedOrder(skills, func(s Skill) bool { return !s.DisableModelInvocation })
	rank := make(map[string]int, len(relevant))
	for i, id := range relevant {
		if _, dup := rank[id]; !dup {
			rank[id] = i
		}
	}
	entries := make([]entry, len(visible))
	for k, i := range visible {
		pace.StepAt(k)
		s := skills[i]
		// Invalid UTF-8 would make character counts and JSON ambiguous.
		e := entry{Entry: skill.Entry{Name: plainAngles(validUTF8(s.Name)), Description: plainAngles(validUTF8(s.Description)), Location: validUTF8(s.Location())}}
		if s.ID != s.Name {
			e.id = validUTF8(s.ID)
		}
		_, e.relevant = rank[s.ID]
		entries[k] = e
	}
	// Stable: the rest keep their sorted order.
	sort.SliceStable(entries, func(i, j int) bool {
		ra, oka := rank[idOf(entries[i])]
		rb, okb := rank[idOf(entries[j])]
		return oka && (!okb || ra < rb)
	})
	return entries
}

func idOf(e entry) string {
	if e.id != "" {
		return e.id
	}
	return e.Name
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// tier is how much the catalog says of a skill.
type tier int

const (
	tierList     tier = iota // its name in the list of other skills
	tierName                 // an element with its name
	tierSentence             // its name and the first sentence of its description
	tierFull                 // as skills-ref: name, description, location
)

// maxSentence caps a first sentence: some run to hundreds of characters.
const maxSentence = 160

// maxRelevant caps how many relevant skills get a tier of their own:
// each costs a rendering of the catalog to fit.
const maxRelevant = 32

// fit renders entries within budget characters (0: any length). Each
// choice is checked against the catalog rendered, so that the budget is
// met exactly, never by an estimate.
func fit(f catalogFormat, entries []entry, mode CatalogMode, budget int) string {
	// The full catalog holds every name and description at least as
	// written: when they alone exceed the budget it is not rendered (with
	// thousands of skills, megabytes in one task of the host).
	if mode != ModeNames && (budget == 0 || textLen(entries) <= budget) {
		sorted := slices.Clone(entries)
		sort.SliceStable(sorted, func(i, j int) bool {
			a, b := sorted[i], sorted[j]
			return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(idOf(a), idOf(b))) < 0
		})
		full := make([]skill.Entry, len(sorted))
		for i, e := range sorted {
			full[i] = e.Entry
		}
		if s := f.entries(full); budget == 0 || runeLen(s) <= budget {
			return s
		}
	}
	maxTier := tierFull
	if mode == ModeNames {
		maxTier = tierName
	}
	n := len(entries)
	levels := make([]tier, n)
	if budget == 0 {
		for i := range levels {
			levels[i] = maxTier
		}
		return render(f, entries, levels, n)
	}
	out := render(f, entries, levels, n)
	if runeLen(out) > budget {
		return cut(f, entries, budget)
	}
	try := func() bool {
		if s := render(f, entries, levels, n); runeLen(s) <= budget {
			out = s
			return true
		}
		return false
	}
	var others []int
	relevant := 0
	for i, e := range entries {
		if !e.relevant || relevant == maxRelevant {
			others = append(others, i)
			continue
		}
		relevant++
		for t := maxTier; t > tierList; t-- {
			if levels[i] = t; try() {
				break
			}
			levels[i] = tierList
		}
	}
	for t := min(maxTier, tierSentence); t > tierList; t-- {
		for _, i := range others {
			levels[i] = t
		}
		if try() {
			break
		}
		for _, i := range others {
			levels[i] = tierList
		}
	}
	return out
}

// cut renders as many names as fit in the list, the relevant first, and
// a note on the rest, or "" when not even the note fits.
func cut(f catalogFormat, entries []entry, budget int) string {
	n := len(entries)
	at := func(k int) string { return render(f, entries[:k], make([]tier, k), n) }
	// The catalog grows with the names it keeps: find the most that fit,
	// of at most budget (each name takes a character or more).
	lo, hi := -1, min(n, budget)-1 // at(lo) fits (lo = -1: nothing does), at(hi+1) does not
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if runeLen(at(mid)) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo < 0 {
		return ""
	}
	return at(lo)
}

// firstSentenceOf is a description's first sentence, at most maxSentence
// characters.
func firstSentenceOf(desc string) string { return truncate(firstSentence(desc), maxSentence) }

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// textLen is how many characters the names and descriptions of entries
// hold.
func textLen(entries []entry) int {
	n := 0
	for _, e := range entries {
		n += runeLen(e.Name) + runeLen(e.Description)
	}
	return n
}
