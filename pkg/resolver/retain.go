package resolver

import (
	"bytes"
	"context"
	"io/fs"
	"time"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// Sessions keep their snapshot (docs/architecture.md, Snapshots): a skill
// replaced or edited underneath a session is read as the version the
// session started with, which the registry kept in the same commit, until
// the session refreshes or closes. The resolver holds the versions its
// sessions read (registry.Hold) and lets go of them once none does
// (registry.Release); a version past the registry's bounds is collected
// all the same, and reads of it fail with Conflict, ReasonCollected.

// holdTimeout bounds a hold or a release of versions, which run in the
// background or as the resolver closes.
const holdTimeout = 10 * time.Second

// hold holds the retained versions digests for this context's sessions,
// in the background: it runs as a change is heard, and a version nobody
// holds is kept registry.RetainGrace anyway.
func (r *Resolver) hold(digests []string) {
	r.mu.Lock()
	var fresh []string
	for _, d := range digests {
		if !r.held[d] {
			r.held[d] = true
			fresh = append(fresh, d)
		}
	}
	r.mu.Unlock()
	if len(fresh) == 0 {
		return
	}
	r.holding.Add(1)
	go func() {
		defer r.holding.Done()
		ctx, cancel := context.WithTimeout(context.Background(), holdTimeout)
		defer cancel()
		_ = r.reg.Hold(ctx, r.holder, fresh) // on failure the version lives its grace, then reads say it is gone
	}()
}

// release lets go of the versions this context holds that no open session
// reads any more; the registry deletes those nobody else holds.
func (r *Resolver) release(ctx context.Context) {
	r.holding.Wait() // a hold still under way would come after its release
	r.mu.Lock()
	sessions := make([]*Session, 0, len(r.sessions))
	for _, s := range r.sessions {
		sessions = append(sessions, s)
	}
	r.mu.Unlock()
	read := map[string]bool{}
	for _, s := range sessions {
		s.mu.Lock()
		for id := range s.outdated {
			read[s.snap.metas[id].Digest] = true
		}
		s.mu.Unlock()
	}
	r.mu.Lock()
	var done []string
	for d := range r.held {
		if !read[d] {
			delete(r.held, d)
			done = append(done, d)
		}
	}
	r.mu.Unlock()
	if len(done) > 0 {
		_ = r.reg.Release(ctx, r.holder, done) // what is not let go of is collected by age
	}
}

// ReasonCollected (Conflict): the skill was replaced or edited since the
// session started, and the version it started with is no longer kept (it
// was past the registry's bounds or its time); Refresh moves the session
// on.
const ReasonCollected = "version-collected"

func errCollected(id string) error {
	return &skillerr.Error{Code: skillerr.Conflict, Reason: ReasonCollected, Subject: id,
		Msg: "skill " + id + " changed since this session started, and the version the session started with " +
			"is no longer kept; refresh the session"}
}

// lost marks skill id unreadable in the session and returns why: removed
// (or disabled) underneath it, or replaced by a version the session does
// not read and its own version collected.
func (s *Session) lost(sn *snapshot, id string, removed bool) error {
	s.mu.Lock()
	if s.snap == sn && !removed {
		s.collected[id] = true
	}
	s.mu.Unlock()
	s.markChanged(sn, id)
	if removed {
		return errStale(id)
	}
	return errCollected(id)
}

// retainedFile returns file rel of the snapshot's version of skill id,
// which was overwritten since, from the versions the registry keeps.
func (s *Session) retainedFile(ctx context.Context, sn *snapshot, id, rel string) ([]byte, error) {
	_, files, found, err := s.r.reg.ReadRetained(ctx, sn.metas[id].Digest, rel)
	data, ok := files[rel]
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, s.lost(sn, id, false)
	case !ok:
		return nil, &skillerr.Error{Code: skillerr.SkillNotFound, Reason: vfs.ReasonNotExist, Subject: Root + "/" + id + "/" + rel,
			Msg: "no such file or directory", Err: fs.ErrNotExist}
	}
	s.markOutdated(sn, id)
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// retainedSkill is readSkill for the snapshot's version of skill id once
// it was overwritten: its file list and SKILL.md (every file when whole)
// from the versions the registry keeps.
func (s *Session) retainedSkill(ctx context.Context, sn *snapshot, id string, whole bool) (*parsedSkill, error) {
	m := sn.metas[id]
	path := skillMD
	if whole {
		path = ""
	}
	kept, files, found, err := s.r.reg.ReadRetained(ctx, m.Digest, path)
	switch {
	case err != nil:
		return nil, err
	case !found || len(files[skillMD]) == 0:
		return nil, s.lost(sn, id, false)
	}
	s.markOutdated(sn, id)
	if whole {
		for p, data := range files {
			// A copy of its own, as in activate: not the read's buffer.
			s.r.cache.put(cacheKey{kind: cacheFile, id: id, digest: m.Digest, path: p}, bytes.Clone(data), int64(len(data)))
		}
	}
	return s.r.parse(id, m.Digest, files[skillMD], kept.Files)
}

// markOutdated records that a read through snapshot sn found skill id
// overwritten underneath the session and read the session's version of
// it, which this context now holds.
func (s *Session) markOutdated(sn *snapshot, id string) {
	s.mu.Lock()
	if s.closed || s.snap != sn || s.outdated[id] {
		s.mu.Unlock()
		return
	}
	s.announce(true, s.markLocked([]string{id}, true), 0)
	s.r.hold([]string{sn.metas[id].Digest})
}
