package source

import (
	"fmt"
	"maps"
	"slices"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

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
	// FileCount is how many files the server lists for it.
	FileCount int `json:"fileCount"`
	// Edited: the skill installed from it was changed here since
	// (Installed.Edited), as EntryOffer's.
	Edited bool `json:"edited"`
}

// ReviewMCP says of each of the skills server lists what it is against
// installed (every installed skill, with the zero Origin when it has
// none); idKey is what the registry compares ids by (two ids of one key
// are one id): an installed id of a name's key is the one it would take.
// A skill installed from elsewhere
// is a conflict even when its files are the same: only the server's
// digests are known before anything is downloaded.
func ReviewMCP(installed []Installed, idKey func(string) string, server string, skills []MCPSkill) []Offer {
	r := reviewer{installed: installed, idKey: idKey}
	out := make([]Offer, len(skills))
	for i, s := range skills {
		pace.StepAt(i)
		o := Offer{Name: s.Name, Description: s.Description, URI: s.URI, Digest: s.Digest, FileCount: len(s.Files)}
		o.Status, o.Installed, _, o.Edited = r.review(func(in Origin) bool {
			return in.Kind == KindMCP && in.Server == server && in.URI == s.URI
		}, s.Name, s.Digest)
		out[i] = o
	}
	return out
}

// reviewer says what the skills a source offers are against installed.
// Each installed id's key is computed once, when a skill not installed
// from the source is first looked for by its name: compared pairwise, a
// skeleton (confusable) of every installed id for each skill offered,
// an index of 1,000 entries against 5,100 installed skills took 5 s
// natively, in one task of the host's thread. The loops over both step
// (pace.StepAt): thousands of each are still millions of comparisons.
type reviewer struct {
	installed []Installed
	idKey     func(string) string
	byKey     map[string]string // the first installed id of each key
}

// review says what a skill a source offers as name, with digest ("" when
// the source publishes none), is against the installed skills: from
// tells the origins of the skills installed from that very source. A
// skill installed from it is installed when it was verified against
// digest, else update (without a digest, only a download would tell). It
// returns the id of the installed skill the status speaks of, and how
// many were installed from the source (a download of several skills
// installs each with the same origin but its folder), and whether any of
// those was changed here since (Installed.Edited).
func (r *reviewer) review(from func(Origin) bool, name, digest string) (status, id string, fromSource int, edited bool) {
	status = OfferNew
	for _, in := range r.installed {
		if !from(in.Origin) {
			continue
		}
		edited = edited || in.Edited()
		if fromSource++; fromSource == 1 {
			status, id = OfferUpdate, in.ID
			if digest != "" && in.Origin.Digest == digest {
				status = OfferInstalled
			}
		}
	}
	if fromSource == 0 {
		if r.byKey == nil {
			r.byKey = make(map[string]string, len(r.installed))
			for j, in := range r.installed {
				pace.StepAt(j)
				if k := r.idKey(in.ID); r.byKey[k] == "" {
					r.byKey[k] = in.ID
				}
			}
		}
		if same := r.byKey[r.idKey(name)]; same != "" {
			status, id = OfferConflict, same
		}
	}
	return status, id, fromSource, edited
}

// EntryOffer is an entry of an index against the installed skills
// (ReviewIndex), with the origin a skill installed from it records.
type EntryOffer struct {
	Entry
	Origin Origin `json:"origin"`
	// Status and Installed are as an MCP server's Offer's: new, installed
	// (from this entry, verified against the digest it publishes now),
	// update (installed from this entry, another version now or no digest
	// to tell) or conflict (a skill of its name from elsewhere).
	Status    string `json:"status"`
	Installed string `json:"installed"`
	// Target, of an update, is the skill installed from the entry that an
	// install of it updates in place (registry ImportOptions.Target),
	// whatever id it was installed as, rather than keep a copy beside it;
	// "" when the entry's archive installed several skills, which one
	// update cannot replace: the install then updates each in place by
	// its folder of the archive (registry.ImportOptions.Copy).
	Target string `json:"target"`
	// Edited: a skill installed from the entry was changed here since
	// (Installed.Edited), so installing the entry again replaces those
	// changes; a person is asked before that, not told after.
	Edited bool `json:"edited"`
	// Left, of an entry installed, is the warning installing it again
	// gives: it is left as it is (AlreadyInstalled).
	Left *Refusal `json:"left,omitempty"`
	// Unverified, of an entry without a digest (a v0.1.0 index's), is the
	// warning installing it gives (Unverified).
	Unverified *Refusal `json:"unverified,omitempty"`
}

// ReviewIndex says of each of entries, of idx, what it is against
// installed (every installed skill, with the zero Origin when it has
// none), as ReviewMCP says of a server's skills: the skill installed from
// the same entry of the same index is the one it is, whatever its id, so
// that installing the entry again neither copies it nor leaves it behind.
func ReviewIndex(installed []Installed, idKey func(string) string, idx *Index, entries []Entry) []EntryOffer {
	r := reviewer{installed: installed, idKey: idKey}
	out := make([]EntryOffer, len(entries))
	for i, e := range entries {
		pace.StepAt(i)
		o := EntryOffer{Entry: e, Origin: ForEntry(idx, e)}
		var n int
		o.Status, o.Installed, n, o.Edited = r.review(func(in Origin) bool {
			return in.Kind == KindIndex && in.Index == idx.URL && in.Entry == e.Name
		}, e.Name, e.Digest)
		if o.Status == OfferUpdate && n == 1 {
			o.Target = o.Installed
		}
		if o.Status == OfferInstalled {
			left := AlreadyInstalled(e.Name, o.Installed, o.Edited)
			o.Left = &left
		}
		o.Unverified = Unverified(e.Name, o.Origin)
		out[i] = o
	}
	return out
}

// The reasons ChooseMCP gives.
const (
	// ReasonAlreadyInstalled, a warning: a skill installed from the source
	// already, and not chosen, was left as it is (AlreadyInstalled).
	ReasonAlreadyInstalled = "already-installed"
	// ReasonNotSelected: a choice names a skill the install leaves out.
	ReasonNotSelected = "not-selected"
)

// AlreadyInstalled is the warning of an install that leaves the skill
// offered as name as it is, installed from the same source already as id:
// byte for byte, or changed here since (edited), which the install keeps.
// An index's entries, a server's skills and a download's skills
// (registry ImportResult.AlreadyInstalled) are all told so in these words.
func AlreadyInstalled(name, id string, edited bool) Refusal {
	msg := fmt.Sprintf("installed from this source already, byte for byte, as %s: left as it is", id)
	if edited {
		msg = fmt.Sprintf("installed from this source already, as %s, and changed here since: left as it is, with those changes", id)
	}
	return Refusal{Name: name, Code: skillerr.Conflict, Reason: ReasonAlreadyInstalled, Message: msg}
}

// LeftAsTheyAre is the warning (AlreadyInstalled) of each skill of ids
// that an install of a download left as it is, installed from the same
// source byte for byte (registry ImportResult.AlreadyInstalled, which
// names no other).
func LeftAsTheyAre(ids []string) []Refusal {
	out := make([]Refusal, len(ids))
	for i, id := range ids {
		out[i] = AlreadyInstalled(id, id, false)
	}
	return out
}

// MCPInstall is a skill of a server's listing to install, and how.
type MCPInstall[P ~string] struct {
	MCPSkill
	Origin Origin `json:"origin"`
	// OnConflict is what becomes of a skill of its name installed from
	// elsewhere (registry ImportOptions.OnConflict).
	OnConflict P `json:"onConflict"`
	// Target, when set, is the skill installed from the server that this
	// one updates in place (registry ImportOptions.Target), whatever id it
	// was installed as.
	Target string `json:"target"`
}

// ChooseMCP says how each skill of server's listing skills that want
// names (by name or URI, as SelectMCP; all when want is empty) is
// installed, from offers, ReviewMCP of skills against what is installed
// when the install runs, not when it was reviewed. choose, when not nil,
// is a person's choice per skill name, as a preview's
// (registry ImportOptions.Choose, checked by the caller): without want,
// only the skills it names are installed; each is installed under its
// policy, and a skill not chosen under policy. replace is the policy that
// replaces. So:
//
//   - a skill installed from the server is updated in place (Target) when
//     chosen replace, or not chosen and changed there;
//   - one installed from it, the same as the server's (byte for byte, or
//     changed here since), and not chosen is left as it is, with a
//     warning (AlreadyInstalled);
//   - any other is installed under its policy: kept beside (renamed) or
//     replacing a skill of its name installed from elsewhere.
//
// A choice of a skill that want leaves out fails the whole install with
// InvalidArgument (not-selected); a name not listed is refused alone
// (SkillNotFound, not-listed), as SelectMCP refuses it.
func ChooseMCP[P ~string](server string, skills []MCPSkill, offers []Offer, want []string, choose map[string]P, policy, replace P) (out []MCPInstall[P], left, refused []Refusal, err error) {
	out, left = []MCPInstall[P]{}, []Refusal{}
	listed := func(name string) func(MCPSkill) bool { return func(s MCPSkill) bool { return s.Name == name } }
	names := slices.Sorted(maps.Keys(choose))
	selected := len(want) > 0
	if !selected && choose != nil {
		// The skills chosen, in the listing's order, then those it does not list.
		for _, s := range skills {
			if _, ok := choose[s.Name]; ok {
				want = append(want, s.Name)
			}
		}
		for _, n := range names {
			if !slices.ContainsFunc(skills, listed(n)) {
				want = append(want, n)
			}
		}
		if len(want) == 0 {
			return out, left, []Refusal{}, nil
		}
	}
	sel, refused := SelectMCP(skills, want)
	for _, n := range names {
		if selected && !slices.Contains(want, n) && !slices.ContainsFunc(sel, listed(n)) {
			return nil, nil, nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonNotSelected, Subject: skillerr.Clip(n),
				Msg: "a choice is made for this skill, but the install does not select it"}
		}
	}
	for _, s := range sel {
		o := offers[slices.IndexFunc(skills, listed(s.Name))]
		in := MCPInstall[P]{MCPSkill: s, Origin: ForMCP(server, s), OnConflict: policy}
		p, chosen := choose[s.Name]
		if chosen {
			in.OnConflict = p
		}
		fromServer := o.Status == OfferUpdate || o.Status == OfferInstalled
		switch {
		case fromServer && (chosen && p == replace || !chosen && o.Status == OfferUpdate):
			in.Target = o.Installed
		case o.Status == OfferInstalled && !chosen:
			left = append(left, AlreadyInstalled(s.Name, o.Installed, o.Edited))
			continue
		}
		out = append(out, in)
	}
	if refused == nil {
		refused = []Refusal{}
	}
	return out, left, refused, nil
}
