package source

import "slices"

// What ReviewMCP says about a skill a server offers, against the installed
// skills.
const (
	// OfferNew: no installed skill has its name or came from it.
	OfferNew = "new"
	// OfferInstalled: the skill installed from it has the same files, byte
	// for byte (the same ManifestDigest).
	OfferInstalled = "installed"
	// OfferUpdate: a skill installed from it has other files: this is a
	// newer version of it.
	OfferUpdate = "update"
	// OfferConflict: a skill of its name from elsewhere is installed.
	OfferConflict = "conflict"
)

// Offer is a skill a server offers, for a person to review before
// anything is fetched or stored.
type Offer struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	URI         string `json:"uri"`
	Digest      string `json:"digest"`
	Status      string `json:"status"`
	// Installed is the id of the installed skill Status speaks of.
	Installed string `json:"installed"`
}

// ReviewMCP says of each of the skills server lists what it is against
// installed (every installed skill, with the zero Origin when it has
// none); sameID says whether an installed id is the one a name would
// take, as the registry compares them. A skill installed from elsewhere
// is a conflict even when its files are the same: only the server's
// digests are known before anything is downloaded.
func ReviewMCP(installed []Installed, sameID func(id, name string) bool, server string, skills []MCPSkill) []Offer {
	out := make([]Offer, len(skills))
	for i, s := range skills {
		o := Offer{Name: s.Name, Description: s.Description, URI: s.URI, Digest: s.Digest, Status: OfferNew}
		if j := slices.IndexFunc(installed, func(in Installed) bool {
			return in.Origin.Kind == KindMCP && in.Origin.Server == server && in.Origin.URI == s.URI
		}); j >= 0 {
			o.Installed, o.Status = installed[j].ID, OfferUpdate
			if installed[j].Origin.Digest == s.Digest {
				o.Status = OfferInstalled
			}
		} else if j := slices.IndexFunc(installed, func(in Installed) bool { return sameID(in.ID, s.Name) }); j >= 0 {
			o.Installed, o.Status = installed[j].ID, OfferConflict
		}
		out[i] = o
	}
	return out
}
