package resolver

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillpath"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// ReadFile returns the contents of a file of a visible skill: level 3 of
// progressive disclosure. path is "/skills/<id>/<path>" or "<id>/<path>".
// Reading a skill's SKILL.md activates it (stage 2 in docs/architecture.md, Sessions),
// and is refused as Activate refuses it for a skill with
// disable-model-invocation (PermissionDenied, Reason
// "model-invocation-disabled"); its other files stay readable.
//
// Errors: PathRejected for a path that leaves /skills or its skill;
// NotVisible, Disabled or SkillNotFound for a skill the session cannot
// see; Conflict with Reason "stale" when the skill changed since the
// snapshot; SkillNotFound (Reason "not-exist") for a missing file.
func (s *Session) ReadFile(ctx context.Context, path string) ([]byte, error) {
	start := time.Now()
	ent := AuditEntry{Kind: AuditRead, Path: path}
	data, err := s.readFile(ctx, path, &ent)
	s.r.audit.record(s, ent, start, err)
	if err != nil {
		return nil, err
	}
	// The cache's copy must stay as stored.
	return append(make([]byte, 0, len(data)), data...), nil
}

func (s *Session) readFile(ctx context.Context, path string, ent *AuditEntry) ([]byte, error) {
	sn, err := s.current()
	if err != nil {
		return nil, err
	}
	id, rel, err := splitPath(path)
	if err != nil {
		return nil, err
	}
	ent.Skill, ent.Path = id, rel
	if sn.metas[id] == nil {
		if err := s.relativeToLoaded(ctx, sn, path, id, rel); err != nil {
			return nil, err
		}
		return nil, s.r.whyNot(ctx, id)
	}
	ent.Digest = sn.metas[id].Digest
	if rel == skillpath.Root {
		return nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: vfs.ReasonIsDir, Subject: path,
			Msg: "is a directory; read a file of the skill"}
	}
	if rel == skillMD {
		if err := modelMayLoad(sn, id); err != nil {
			return nil, err
		}
	}
	data, _, err := s.read(ctx, sn, id, rel)
	if err != nil {
		return nil, err
	}
	if rel == skillMD {
		s.activate(id)
	}
	return data, nil
}

// maxRelativeHints bounds the paths a ReasonRelative error lists.
const maxRelativeHints = 4

// relativeToLoaded returns a PathRejected error (ReasonRelative) when
// id/rel, whose id is no visible skill, is a file of skills loaded in
// this session: a model that follows a loaded skill's block ("relative
// paths in this skill are relative to the skill directory") reads
// "references/forms.md", and must learn the path to read, not that no
// skill "references" is installed. nil when no loaded skill has it.
func (s *Session) relativeToLoaded(ctx context.Context, sn *snapshot, path, id, rel string) error {
	file := id
	if rel != skillpath.Root {
		file += "/" + rel
	}
	var hints []string
	for _, a := range s.Activated() {
		if sn.metas[a] == nil {
			continue
		}
		p, err := s.parsed(ctx, sn, a)
		if err != nil {
			continue // this skill's own error is for a read of it
		}
		if _, found := slices.BinarySearch(p.resources, file); found {
			hints = append(hints, Root+"/"+a+"/"+file)
			if len(hints) == maxRelativeHints {
				break
			}
		}
	}
	if len(hints) == 0 {
		return nil
	}
	return &skillerr.Error{Code: skillerr.PathRejected, Reason: ReasonRelative, Subject: path,
		Msg: "the path is relative to a loaded skill's directory; read " + strings.Join(hints, " or ")}
}

// read returns the file rel of the visible skill id as the snapshot's
// version of it, from the cache or from storage; fresh says it came from
// storage just now. Every read from storage checks the file's generation
// against the snapshot's digest: a file of another version is never
// returned; the snapshot's version is read from the versions the registry
// keeps instead (retain.go), and the session turns stale.
func (s *Session) read(ctx context.Context, sn *snapshot, id, rel string) (data []byte, fresh bool, err error) {
	if err := s.unreadable(id); err != nil {
		return nil, false, err
	}
	digest := sn.metas[id].Digest
	key := cacheKey{kind: cacheFile, id: id, digest: digest, path: rel}
	if v, ok := s.r.cache.get(key); ok {
		return v.([]byte), false, nil
	}
	data, gen, err := s.r.fsys.ReadFileGen(id + "/" + rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A file missing from the snapshot's version is an ordinary
		// error; one missing because the skill was removed is
		// staleness, and one of a skill replaced since is read from the
		// kept version: the skill's directory tells which.
		info, serr := s.r.fsys.Stat(id)
		switch {
		case serr != nil:
			return nil, false, s.lost(sn, id, true)
		case vfs.Generation(info) == digest:
			return nil, false, err
		}
		if data, err = s.retainedFile(ctx, sn, id, rel); err != nil {
			return nil, false, err
		}
	case err != nil:
		return nil, false, err
	case gen != digest:
		if data, err = s.retainedFile(ctx, sn, id, rel); err != nil {
			return nil, false, err
		}
	}
	if data == nil {
		data = []byte{}
	}
	s.r.cache.put(key, data, int64(len(data)))
	return data, true, nil
}
