package registry

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// ManifestError is the error of an import or a save refused because of a
// SKILL.md: it carries every diagnostic found, for the user to fix them
// all at once. Its code (InvalidManifest) and reason are those of Err,
// which errors.As and skillerr.CodeOf reach through Unwrap.
type ManifestError struct {
	Err *skillerr.Error
	// Skill names the skill: its directory in the archive, or its id.
	Skill       string
	Diagnostics []skill.Diagnostic
}

func (e *ManifestError) Error() string { return e.Err.Error() }

func (e *ManifestError) Unwrap() error { return e.Err }

// manifestError returns the ManifestError about skill name whose SKILL.md
// has the diagnostics diags, at least one of them an error. what says
// where the skill is, for the message.
func manifestError(name, what string, diags []skill.Diagnostic) *ManifestError {
	e := skill.AsError(name, diags).(*skillerr.Error)
	e.Msg = what + " is invalid: " + e.Msg
	return &ManifestError{Err: e, Skill: name, Diagnostics: diags}
}

func notInstalled(id string) *skillerr.Error {
	return &skillerr.Error{Code: skillerr.SkillNotFound, Reason: "not-installed", Subject: id,
		Msg: "no skill with this id is installed"}
}

func internal(subject string, err error, msg string) *skillerr.Error {
	return skillerr.Wrap(skillerr.Internal, subject, err, "%s", msg)
}

// updateRefused is the error of an update (opts.Target) refused because
// of bad, the skills of its download that cannot be installed, of valid +
// len(bad) in all (invalidSkills): one skill alone, the version the update
// would install, says so and what to do (cannotUpdate, named holding the
// download's skills by name when it was read whole).
func updateRefused(bad []*candidate, valid int, opts ImportOptions, named map[string]*candidate) *InvalidSkillsError {
	e := invalidSkills(bad, valid, len(bad), true)
	if len(bad) == 1 && valid == 0 {
		e.Err.Msg = cannotUpdate(bad[0], named, opts.Target, opts.Origin, opts.Elsewhere)
	}
	return e
}

// SkillError is why one skill of an archive cannot be installed: the
// code, reason and message of its error, its folder in the archive as
// Subject, and its SKILL.md's diagnostics, as skills-ref reports them.
type SkillError struct {
	Code    skillerr.Code `json:"code"`
	Reason  string        `json:"reason"`
	Subject string        `json:"subject"`
	// Name is the name it would be installed under, as far as its
	// SKILL.md could be read: the name it states, or its folder's when it
	// states none. It is "" when the frontmatter cannot be read (missing,
	// not YAML, not a mapping), when the name is not a string, and for a
	// skill at the archive's root that states none.
	Name        string             `json:"name"`
	Message     string             `json:"message"`
	Diagnostics []skill.Diagnostic `json:"diagnostics"`
	// Needs, of a skill refused because a skill it depends on is neither
	// installed nor part of the import (Reason "unknown-skill"), or is
	// part of it only as a skill that cannot be installed for what it is
	// (a broken SKILL.md), is that skill's id: a batch install from a
	// source retries it once that one is installed from elsewhere
	// (docs/sources.md, "Dependencies within a batch").
	Needs string `json:"needs,omitempty"`
}

// InvalidSkillsError is the error of an import of an archive some of whose
// skills cannot be installed, when the import did not choose the others
// (ImportOptions.Choose). Err's code, reason and subject are the invalid
// skill's error's when there is one (its folder, or for a dependency
// refused what it depends on); with several, the code is InvalidManifest
// when each is, InvalidArchive otherwise, and the reason "invalid-skills".
// Its message names at most maxNamed of them; Skills holds them all, up
// to the archive's limits. errors.As reaches each skill's own error (a
// *ManifestError for a SKILL.md) through Unwrap.
type InvalidSkillsError struct {
	Err    *skillerr.Error
	Skills []SkillError
	causes []error
}

func (e *InvalidSkillsError) Error() string { return e.Err.Error() }

func (e *InvalidSkillsError) Unwrap() []error { return append([]error{e.Err}, e.causes...) }

// maxNamed is how many invalid skills an error's message names: the
// others are counted, so that an archive of 10,000 broken skills makes a
// message of a few lines.
const maxNamed = 5

// invalidSkills returns the error of an import refused because of bad:
// the broken skills of an archive of valid others and broken ones in
// all, or those of them chosen. An update (update) cannot choose, so its
// message does not suggest it.
func invalidSkills(bad []*candidate, valid, broken int, update bool) *InvalidSkillsError {
	e := &InvalidSkillsError{Skills: make([]SkillError, len(bad)), causes: make([]error, len(bad))}
	code, msgs := skillerr.InvalidManifest, make([]string, 0, min(len(bad), maxNamed))
	for i, c := range bad {
		e.Skills[i], e.causes[i] = *c.invalid, c.err
		if c.invalid.Code != skillerr.InvalidManifest {
			code = skillerr.InvalidArchive
		}
		if i < maxNamed {
			// A SKILL.md's message ends a sentence; these are joined.
			msgs = append(msgs, strings.TrimSuffix(c.invalid.Message, "."))
		}
	}
	msg := strings.Join(msgs, "; ")
	if len(bad) > maxNamed {
		msg += fmt.Sprintf("; and %d more", len(bad)-maxNamed)
	}
	others := "other" // every broken skill is named or counted
	if len(bad) < broken {
		others = "valid"
	}
	switch {
	case update && valid+broken > 1:
		msg += fmt.Sprintf(". An update takes an archive of one skill, and this one holds %d", valid+broken)
	case update:
	case valid == 1:
		msg += fmt.Sprintf(". The archive's one %s skill can be imported by choosing it", others)
	case valid > 1:
		msg += fmt.Sprintf(". The archive's %d %s skills can be imported by choosing them", valid, others)
	}
	if len(bad) == 1 {
		// The subject of its own error: the skill's folder, or what
		// it depends on and cannot have (refuseUnmet).
		se := &skillerr.Error{Subject: bad[0].invalid.Subject}
		errors.As(bad[0].err, &se)
		e.Err = &skillerr.Error{Code: bad[0].invalid.Code, Reason: bad[0].invalid.Reason, Subject: se.Subject, Msg: msg}
		return e
	}
	head := fmt.Sprintf("%d of the archive's %d skills cannot be installed", len(bad), valid+broken)
	if len(bad) < broken {
		head = fmt.Sprintf("%d chosen skills cannot be installed (%d of the archive's %d cannot)", len(bad), broken, valid+broken)
	}
	e.Err = &skillerr.Error{Code: code, Reason: "invalid-skills", Msg: head + ": " + msg}
	return e
}
