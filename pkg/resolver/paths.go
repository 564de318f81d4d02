package resolver

import (
	"context"
	"errors"
	"strings"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
)

// skillMD is the file whose reading activates a skill (stage 2 in docs/architecture.md, Sessions).
const skillMD = "SKILL.md"

// splitPath returns the skill id and the clean path inside it that p
// names: "/skills/<id>/<path>", or "<id>/<path>" relative to /skills. The
// path is "." for the skill's own directory.
//
// Confinement is skillpath's rule, the one every layer applies: "..",
// backslashes, drive letters, percent escapes and the rest are rejected,
// never resolved. An absolute path must be under /skills: the skills
// live nowhere else.
func splitPath(p string) (id, rel string, err error) {
	rest, abs := strings.CutPrefix(p, Root)
	switch {
	case abs && (rest == "" || rest[0] == '/'):
		rest = strings.TrimLeft(rest, "/")
	case strings.HasPrefix(p, "/"):
		return "", "", &skillerr.Error{Code: skillerr.PathRejected, Reason: ReasonOutsideRoot, Subject: p,
			Msg: "skills can only be read under " + Root}
	default:
		rest = p
	}
	clean, err := skillpath.Clean(rest)
	if err != nil {
		var e *skillerr.Error
		if errors.As(err, &e) {
			e.Subject = p
		}
		return "", "", err
	}
	if clean == skillpath.Root {
		return "", "", &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonNoSkill, Subject: p,
			Msg: "the path names no skill; write " + Root + "/<skill>/<file>"}
	}
	id, rel, _ = strings.Cut(clean, "/")
	if rel == "" {
		rel = skillpath.Root
	}
	return id, rel, nil
}

// whyNot returns the error for a skill the session cannot see:
// NotVisible when it is enabled but outside the snapshot, SkillNotFound
// otherwise, disabled or missing alike (an agent must not tell them
// apart). It asks the registry, since the snapshot knows only what it
// shows.
func (r *Resolver) whyNot(ctx context.Context, name string) error {
	m, err := r.reg.Get(ctx, name)
	switch {
	case skillerr.CodeOf(err) == skillerr.SkillNotFound || skillerr.CodeOf(err) == skillerr.InvalidArgument:
		return errNotInstalled(name)
	case err != nil:
		return err
	case !m.Enabled:
		return errNotInstalled(name)
	}
	return errNotInSession(m.ID)
}

// resolveName returns the visible skill that nameOrLocation names: a
// name or id (as Index.Resolve resolves it: exactly, or else in another
// case when that is unambiguous), or a location such as
// "/skills/<id>/SKILL.md" or "/skills/<id>/".
func (s *Session) resolveName(ctx context.Context, sn *snapshot, nameOrLocation string) (string, error) {
	// A name as the slash menu writes it: a model copies "/skill:pdf" from
	// the user's message or from a refusal. Still the model's path: what
	// it may not load stays refused.
	if name, ok := strings.CutPrefix(nameOrLocation, invocationPrefix); ok && name != "" && !strings.ContainsAny(name, `/\`) {
		nameOrLocation = name
	}
	if strings.ContainsAny(nameOrLocation, `/\`) {
		id, rel, err := splitPath(nameOrLocation)
		if err != nil {
			return "", err
		}
		if rel != skillMD && rel != skillpath.Root {
			return "", &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonNotLocation, Subject: nameOrLocation,
				Msg: "a skill is activated by its name, its directory or its SKILL.md; read other files with ReadFile"}
		}
		if sn.metas[id] == nil {
			return "", s.r.whyNot(ctx, id)
		}
		return id, nil
	}
	id, err := sn.find(nameOrLocation)
	switch {
	case err != nil:
		return "", err
	case id != "":
		return id, nil
	}
	return "", s.r.whyNot(ctx, strings.TrimSpace(nameOrLocation))
}
