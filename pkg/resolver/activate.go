package resolver

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// SkillBlock is an activated skill's instructions, ready for the prompt:
// level 2 of progressive disclosure.
type SkillBlock struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Content is the <skill_content> block (see Block): the body, with
	// the invocation's arguments and ${SKILL_DIR} substituted, the base
	// directory and the resource list.
	Content string `json:"content"`
	BaseDir string `json:"baseDir"` // "/skills/<id>/"
	// Resources are the skill's files but SKILL.md, relative to BaseDir,
	// sorted.
	Resources []string `json:"resources"`
	// AlreadyActive is true when the skill was active in the session
	// before this call: a host that keeps earlier blocks in the prompt
	// need not add this one again.
	AlreadyActive bool `json:"alreadyActive"`
	// Arguments are the raw arguments of an explicit invocation.
	Arguments string `json:"arguments,omitempty"`
	// ArgumentHint and the host fields (model, context: fork, agent,
	// hooks, license, compatibility, author) are the frontmatter's, for a
	// host that forks a sub-agent, picks the model or runs hooks.
	ArgumentHint string `json:"argumentHint,omitempty"`
	registry.HostFields
}

// parsedSkill is what a version of a skill gives every activation: its
// body and its resource list. It is cached by version.
type parsedSkill struct {
	body      string
	resources []string
}

// Activate activates a visible skill by name, id or location
// ("/skills/<id>/SKILL.md" or "/skills/<id>/") and returns its block: the
// automatic path, when the model picks a skill. A skill with
// disable-model-invocation is refused (PermissionDenied, Reason
// "model-invocation-disabled"), even one the user invoked already: the
// model cannot load it, the user can through Invoke (seed 003). A name is resolved as Index.Resolve resolves it: a name
// that matches several visible skills only in another case fails with
// Conflict, Reason "ambiguous-name".
func (s *Session) Activate(ctx context.Context, nameOrLocation string) (SkillBlock, error) {
	return s.ActivateWith(ctx, nameOrLocation, "")
}

// ActivateWith is Activate with arguments, read and substituted as Invoke
// reads and substitutes them (without the blanks around them): the model
// loading a skill with arguments. It is still the model's path, so a
// disable-model-invocation skill is refused and a user-invocable: false
// one is not: only Invoke, the user's own path, reverses both.
func (s *Session) ActivateWith(ctx context.Context, nameOrLocation, args string) (SkillBlock, error) {
	args = strings.TrimSpace(args) // as ParseInvocation leaves the user's
	start := time.Now()
	ent := AuditEntry{Kind: AuditActivate, Skill: nameOrLocation, Path: skillMD}
	b, err := s.activateName(ctx, nameOrLocation, args, &ent)
	s.r.audit.record(s, ent, start, err)
	return b, err
}

func (s *Session) activateName(ctx context.Context, nameOrLocation, args string, ent *AuditEntry) (SkillBlock, error) {
	sn, err := s.current()
	if err != nil {
		return SkillBlock{}, err
	}
	id, err := s.resolveName(ctx, sn, nameOrLocation)
	if err != nil {
		return SkillBlock{}, err
	}
	ent.Skill, ent.Digest = id, sn.metas[id].Digest
	if err := modelMayLoad(sn, id); err != nil {
		return SkillBlock{}, err
	}
	b, err := s.load(ctx, sn, id, args)
	b.Arguments = args
	return b, err
}

// modelMayLoad refuses the visible skill id to the model when it has
// disable-model-invocation: the model loads a skill by Activate or by
// reading its SKILL.md, and may do neither with one only the user may run.
func modelMayLoad(sn *snapshot, id string) error {
	if m := sn.metas[id]; m.DisableModelInvocation {
		return &skillerr.Error{Code: skillerr.PermissionDenied, Reason: ReasonModelInvocationDisabled, Subject: id,
			Msg: "this skill can only be invoked by the user (/skill:" + m.Name + "), not loaded by the model"}
	}
	return nil
}

// Invoke runs an explicit invocation as the user typed it — "/skill:name
// args", "/name args" or "$name args" — and returns the skill's block with
// args substituted: the explicit path. It refuses skills with
// user-invocable: false (PermissionDenied, Reason "not-user-invocable"),
// text that is not an invocation (InvalidArgument), and a name that
// matches several visible skills only in another case (Conflict, Reason
// "ambiguous-name").
func (s *Session) Invoke(ctx context.Context, text string) (SkillBlock, error) {
	start := time.Now()
	ent := AuditEntry{Kind: AuditInvoke, Path: skillMD}
	b, err := s.invoke(ctx, text, &ent)
	s.r.audit.record(s, ent, start, err)
	return b, err
}

func (s *Session) invoke(ctx context.Context, text string, ent *AuditEntry) (SkillBlock, error) {
	sn, err := s.current()
	if err != nil {
		return SkillBlock{}, err
	}
	name, args, ok := ParseInvocation(text)
	if !ok {
		return SkillBlock{}, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonNotInvocation, Subject: firstLine(text),
			Msg: "this is not an invocation: write /skill:name, /name or $name, then any arguments"}
	}
	ent.Skill = name
	id, err := sn.find(name)
	switch {
	case err != nil:
		return SkillBlock{}, err
	case id == "":
		return SkillBlock{}, s.r.whyNot(ctx, name)
	}
	ent.Skill, ent.Digest = id, sn.metas[id].Digest
	if !sn.metas[id].UserInvocable {
		return SkillBlock{}, &skillerr.Error{Code: skillerr.PermissionDenied, Reason: ReasonNotUserInvocable, Subject: id,
			Msg: "this skill can only be used by the model, not invoked by name"}
	}
	b, err := s.load(ctx, sn, id, args)
	b.Arguments = args
	return b, err
}

// load is where the explicit and the automatic paths meet: it reads the
// visible skill id's SKILL.md through the session (version-checked,
// cached), substitutes args and ${SKILL_DIR}, renders the block and
// records the activation.
func (s *Session) load(ctx context.Context, sn *snapshot, id, args string) (SkillBlock, error) {
	m := sn.metas[id]
	p, err := s.parsed(ctx, sn, id)
	if err != nil {
		return SkillBlock{}, err
	}
	sk := sn.skill(id)
	body, err := Substitute(p.body, args, m.Arguments, Root+"/"+id)
	if err != nil {
		return SkillBlock{}, err
	}
	return SkillBlock{
		ID: id, Name: m.Name, Content: Block(sk, body, p.resources), BaseDir: sk.Dir(),
		Resources: slices.Clone(p.resources), AlreadyActive: s.activate(id),
		ArgumentHint: m.ArgumentHint, HostFields: m.HostFields.Clone(),
	}, nil
}

// prefetchLimit is the size (all files) up to which a skill's first
// activation reads all its contents, not only SKILL.md: in the same
// transaction they cost little more, and level 3 then finds them cached.
const prefetchLimit = 32 << 10

// parsed returns the body and resources of the snapshot's version of
// skill id, from the cache or from storage.
func (s *Session) parsed(ctx context.Context, sn *snapshot, id string) (*parsedSkill, error) {
	if err := s.unreadable(id); err != nil {
		return nil, err
	}
	if v, ok := s.r.cache.get(cacheKey{kind: cacheParsed, id: id, digest: sn.metas[id].Digest}); ok {
		return v.(*parsedSkill), nil
	}
	return s.readSkill(ctx, sn, id)
}

// readSkill reads skill id in one transaction: its tree, and SKILL.md (every
// file's contents when the skill is small). Every file carries the
// generation of the version that wrote it, so any that differs from the
// snapshot's digest, or a missing SKILL.md, means the skill changed or
// went: the session never parses one version's SKILL.md with another's
// file list, and reads its own version from those the registry keeps.
func (s *Session) readSkill(ctx context.Context, sn *snapshot, id string) (*parsedSkill, error) {
	m := sn.metas[id]
	whole := m.Size <= prefetchLimit
	tree, err := vfs.SkillQueries(id, whole)
	if err != nil {
		return nil, err
	}
	mdPath, mdQueries, err := s.r.fsys.FileQueries(id + "/" + skillMD)
	if err != nil {
		return nil, err
	}
	res, err := s.r.db.Read(ctx, append(tree, mdQueries...)...)
	if err != nil {
		return nil, err
	}
	files, err := vfs.DecodeSkill(id, res[:len(tree)])
	if err != nil {
		return nil, err
	}
	md, gen, err := vfs.DecodeFile(mdPath, res[len(tree):])
	if skillerr.CodeOf(err) == skillerr.SkillNotFound {
		gen = "" // removed since the snapshot
	} else if err != nil {
		return nil, err
	}
	stale := gen != m.Digest
	var paths []string
	for _, f := range files {
		stale = stale || f.Gen != m.Digest
		if !f.Mode.IsDir() {
			paths = append(paths, f.Path)
		}
	}
	if stale {
		if gen == "" && len(files) == 0 {
			return nil, s.lost(sn, id, true) // removed
		}
		return s.retainedSkill(ctx, sn, id, whole)
	}
	if whole {
		for _, f := range files {
			if !f.Mode.IsDir() {
				// A copy of its own: f.Data is a slice of the whole
				// read's buffer, which the cache would keep alive.
				data := bytes.Clone(f.Data)
				if data == nil {
					data = []byte{}
				}
				s.r.cache.put(cacheKey{kind: cacheFile, id: id, digest: m.Digest, path: f.Path}, data, int64(len(data)))
			}
		}
	}
	return s.r.parse(id, m.Digest, md, paths)
}

// parse turns the SKILL.md and file paths of a version of skill id into
// what activations need, and caches it.
func (r *Resolver) parse(id, digest string, md []byte, paths []string) (*parsedSkill, error) {
	parsedMD, diags := skill.Parse(md, skill.Options{Mode: skill.Lenient, DirName: id})
	if parsedMD == nil {
		// The registry stores only skills that parse; this one was
		// written around it.
		return nil, skill.AsError(id, diags)
	}
	p := &parsedSkill{body: parsedMD.Body, resources: []string{}}
	size := int64(len(p.body))
	for _, path := range paths {
		if path != skillMD {
			p.resources = append(p.resources, path)
			size += int64(len(path))
		}
	}
	slices.Sort(p.resources)
	r.cache.put(cacheKey{kind: cacheParsed, id: id, digest: digest}, p, size)
	return p, nil
}

// firstLine returns the first line of text, shortened, for an error's
// subject.
func firstLine(text string) string {
	text, _, _ = strings.Cut(strings.TrimSpace(text), "\n")
	if len(text) > 80 {
		i := 80
		for i > 0 && !utf8.RuneStart(text[i]) {
			i--
		}
		text = text[:i] + "…"
	}
	return text
}
