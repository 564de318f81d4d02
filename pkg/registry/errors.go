package registry

import (
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
