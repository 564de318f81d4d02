package resolver

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// statsLock serialises updates of the usage statistics across tabs.
const statsLock = "skillfs-stats"

// Catalog renders level 1 (see the package function Catalog) over the
// session's visible skills. Skills that changed underneath the session
// are left out until Refresh: they cannot be read, so they are not
// offered. Without a Budget, DefaultCatalogBudget applies.
//
// Under the budget, the skills most likely needed now keep their
// descriptions longest: the activated ones (pinned ones included), those
// that succeeded before (by successes), then the router's candidates for
// opts.Query, the user's message, when the host gives it.
func (s *Session) Catalog(ctx context.Context, opts CatalogOptions) (string, error) {
	skills, err := s.shown()
	if err != nil {
		return "", err
	}
	if opts.Budget == 0 {
		opts.Budget = DefaultCatalogBudget
	}
	if opts.Mode != ModeOff {
		if opts.Relevant, err = s.relevant(ctx, opts); err != nil {
			return "", err
		}
	}
	return Catalog(skills, opts)
}

// catalogCandidates is how many of the router's candidates for a query
// Catalog puts among the relevant skills.
const catalogCandidates = 5

// relevant returns the IDs of the skills most likely needed now, most
// likely first (see Catalog), for the message opts.Query.
func (s *Session) relevant(ctx context.Context, opts CatalogOptions) ([]string, error) {
	sn, err := s.current()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	ids := slices.Clone(s.activated)
	s.mu.Unlock()
	stats, err := s.r.readStats(ctx, sn)
	if err != nil {
		return nil, err
	}
	var used []string
	for id, st := range stats {
		if st.Success > st.Failure {
			used = append(used, id)
		}
	}
	slices.SortFunc(used, func(a, b string) int {
		return cmp.Or(stats[b].Success-stats[a].Success, strings.Compare(a, b))
	})
	ids = append(ids, used...)
	if strings.TrimSpace(opts.Query) != "" {
		res, err := s.Route(ctx, opts.Query, RouteOptions{TopK: catalogCandidates, QueryVector: opts.QueryVector, Model: opts.Model})
		if err != nil {
			return nil, err
		}
		for _, c := range res.Candidates[:min(len(res.Candidates), catalogCandidates)] {
			ids = append(ids, c.ID)
		}
	}
	return ids, nil
}

// DefaultCatalogBudget is the budget of a session's catalog when the caller
// gives none: 8,000 characters, about 2,000 tokens a turn, less than the
// 2–3k that users of a peer coding agent report for 40 skills. Forty
// typical skills then keep their names and first sentences.
const DefaultCatalogBudget = 8000

// shown returns the visible skills that did not change underneath the
// session.
func (s *Session) shown() ([]Skill, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errSessionClosed(s.id)
	}
	if len(s.changed) == 0 {
		return s.snap.skills, nil
	}
	return slices.DeleteFunc(slices.Clone(s.snap.skills), func(sk Skill) bool { return s.changed[sk.ID] }), nil
}

// Route finds the skills query needs (see Index.Route) among the visible
// ones, with the success rates of vfs.StoreStats. opts.Stats, opts.Ready
// and opts.Exclude are the session's: only visible, enabled skills are
// routed to (those that changed underneath the session are excluded), and
// a skill's readiness is the share of its tool and MCP dependencies and
// prerequisites that the host has (see hostHas).
func (s *Session) Route(ctx context.Context, query string, opts RouteOptions) (Result, error) {
	sn, err := s.current()
	if err != nil {
		return Result{}, err
	}
	stats, err := s.r.readStats(ctx, sn)
	if err != nil {
		return Result{}, err
	}
	opts.Stats = stats
	tools, mcp := s.hostHas()
	opts.Readiness = func(id string) float64 {
		m := sn.metas[id]
		if m == nil {
			return 0
		}
		return readiness(m, tools, mcp)
	}
	opts.Exclude = s.isChanged
	if len(opts.QueryVector) > 0 && opts.Vectors == nil {
		if err := checkModel(opts.Model); err != nil {
			return Result{}, err
		}
		if opts.Vectors, err = s.r.readVectors(ctx, sn, opts.Model); err != nil {
			return Result{}, err
		}
	}
	return sn.routing().Route(query, opts)
}

// hostHas returns the tools and MCP servers the host has: those it gave
// the session, or else those it registered with the registry; nil when it
// said neither, which counts against no skill.
func (s *Session) hostHas() (tools, mcp []string) {
	regTools, regMCP := s.r.reg.Registered()
	return cmpNil(s.available, regTools), cmpNil(s.mcp, regMCP)
}

func cmpNil(a, b []string) []string {
	if a != nil {
		return a
	}
	return b
}

// readiness is the share of what m needs — its tool and MCP dependencies
// and prerequisites — that the host has (tools and mcp, nil when it did
// not say): 1 when it has all of it, or nothing is needed.
func readiness(m *registry.Meta, tools, mcp []string) float64 {
	needed, met := 0, 0
	count := func(want string, have []string) {
		needed++
		if have == nil || slices.Contains(have, want) {
			met++
		}
	}
	for _, t := range m.Dependencies.Tools {
		count(t, tools)
	}
	for _, t := range m.Dependencies.MCP {
		count(t, mcp)
	}
	for _, p := range m.Prerequisites {
		if p.Kind == skill.PrereqMCP {
			count(p.Name, mcp)
		} else {
			count(p.Name, tools)
		}
	}
	if needed == 0 {
		return 1
	}
	return float64(met) / float64(needed)
}

// RecordOutcome counts a run of the visible skill id as a success or a
// failure, for Route's success rate. The statistics are shared by every
// context of the origin, and belong to the installed instance of the
// skill (see storedStats): a skill installed under the id of a removed
// one starts from none.
func (s *Session) RecordOutcome(ctx context.Context, id string, ok bool) error {
	sn, err := s.current()
	if err != nil {
		return err
	}
	m := sn.metas[id]
	if m == nil {
		return s.r.whyNot(ctx, id)
	}
	return s.r.db.Lock(ctx, statsLock, func(ctx context.Context) error {
		res, err := s.r.db.Read(ctx, vfs.Get(vfs.StoreStats, id))
		if err != nil {
			return err
		}
		st, err := decodeStats(id, res[0])
		if err != nil {
			return err
		}
		if st.Instance != "" && st.Instance != m.Instance {
			// Counted for another instance: either the one this
			// session sees is gone, or the counts are of one that is.
			cur, err := s.r.reg.Get(ctx, id)
			if err != nil && skillerr.CodeOf(err) != skillerr.SkillNotFound {
				return err
			}
			if err != nil || cur.Instance != m.Instance {
				s.markChanged(sn, id)
				return errStale(id)
			}
			st = storedStats{} // a removed instance's: start again
		}
		if ok {
			st.Success++
		} else {
			st.Failure++
		}
		st.Instance = m.Instance
		b, err := json.Marshal(st)
		if err != nil {
			return skillerr.Wrap(skillerr.Internal, id, err, "cannot encode the statistics")
		}
		return s.r.db.Commit(ctx, vfs.Put(vfs.StoreStats, id, b))
	})
}

// storedStats is the record of a skill's statistics in vfs.StoreStats:
// the counts and the installed instance they were counted for, its
// registry.Meta.Instance, as pins record it. Counts of another instance
// are not read, and are overwritten by the next outcome of the installed
// one.
type storedStats struct {
	Stats
	Instance string `json:"instance"`
}

// readStats returns the statistics of the skills of sn, in one read.
func (r *Resolver) readStats(ctx context.Context, sn *snapshot) (map[string]Stats, error) {
	res, err := r.db.Read(ctx, vfs.GetPrefix(vfs.StoreStats, ""))
	if err != nil {
		return nil, err
	}
	out := make(map[string]Stats)
	for _, rec := range res[0] {
		m := sn.metas[rec.Key]
		if m == nil {
			continue
		}
		st, err := decodeStats(rec.Key, []vfs.Record{rec})
		if err != nil {
			return nil, err
		}
		if st.Instance == m.Instance {
			out[rec.Key] = st.Stats
		}
	}
	return out, nil
}

func decodeStats(id string, found []vfs.Record) (storedStats, error) {
	var st storedStats
	if len(found) == 0 {
		return st, nil
	}
	if err := json.Unmarshal(found[0].Value, &st); err != nil {
		return st, skillerr.Wrap(skillerr.Internal, id, err, "the stored statistics are corrupt")
	}
	return st, nil
}

// ClearStats deletes the usage statistics of every skill.
func (r *Resolver) ClearStats(ctx context.Context) error {
	return r.db.Lock(ctx, statsLock, func(ctx context.Context) error {
		return r.db.Commit(ctx, vfs.DeletePrefix(vfs.StoreStats, ""))
	})
}
