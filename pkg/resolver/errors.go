package resolver

import (
	"fmt"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// Reasons carried by the errors of sessions. Codes say what kind of
// failure it is; these say which one, for callers that must tell them
// apart.
const (
	// ReasonStale (Conflict): the skill changed underneath the session
	// since its snapshot was taken; Refresh moves the session on.
	ReasonStale = "stale"
	// ReasonNotInSession (NotVisible): the skill is installed and
	// enabled but outside this session's snapshot.
	ReasonNotInSession = "not-in-session"
	// ReasonNotInstalled (SkillNotFound): no enabled skill has this id
	// or name. A disabled skill gets the same answer as a missing one:
	// sessions serve agents, which must not learn it is there.
	ReasonNotInstalled = "not-installed"
	// ReasonOutsideRoot (PathRejected): an absolute path outside /skills.
	ReasonOutsideRoot = "outside-root"
	// ReasonRelative (PathRejected): a path relative to a loaded skill's
	// directory, read as if its first segment were a skill; the message
	// gives the paths to read instead.
	ReasonRelative = "relative"
	// ReasonNoSkill (InvalidArgument): a path that names no skill, such
	// as "/skills" itself.
	ReasonNoSkill = "no-skill"
	// ReasonNotLocation (InvalidArgument): a path given to Activate that
	// is not a skill's directory or its SKILL.md.
	ReasonNotLocation = "not-a-skill-location"
	// ReasonNotInvocation (InvalidArgument): Invoke's text does not start
	// with /skill:name, /name or $name.
	ReasonNotInvocation = "not-an-invocation"
	// ReasonNoSession (InvalidArgument): no open session has the id.
	ReasonNoSession = "no-session"
	// ReasonSessionClosed (InvalidArgument): the session was closed, by
	// Close or to make room for newer sessions.
	ReasonSessionClosed = "session-closed"
	// ReasonContextID (InvalidArgument): a session needs a context id.
	ReasonContextID = "context-id"
	// ReasonAmbiguousName (Conflict): no skill has exactly the name or id
	// asked for, and several have it but for case or Unicode width; the
	// message names them.
	ReasonAmbiguousName = "ambiguous-name"
)

// errStale is the error of a read that would mix two versions of skill
// id.
func errStale(id string) error {
	return &skillerr.Error{Code: skillerr.Conflict, Reason: ReasonStale, Subject: id,
		Msg: fmt.Sprintf("skill %s changed since this session started; refresh the session", id)}
}

func errNotInstalled(name string) error {
	return &skillerr.Error{Code: skillerr.SkillNotFound, Reason: ReasonNotInstalled, Subject: name,
		Msg: "no enabled skill with this name or id is installed"}
}

func errNotInSession(id string) error {
	return &skillerr.Error{Code: skillerr.NotVisible, Reason: ReasonNotInSession, Subject: id,
		Msg: "this skill is not visible in this session: it was not selected, or was installed or enabled " +
			"after the session started (select it, or refresh the session)"}
}

func errSessionClosed(id string) error {
	return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonSessionClosed, Subject: id,
		Msg: "the session is closed; open a new one"}
}
