package resolver

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// SessionOptions describe the conversation a session serves.
type SessionOptions struct {
	// ContextID names the conversation (or tab); pins are kept per
	// context. Required.
	ContextID string
	// Skills are the skills the user selected; their skill dependencies
	// become visible with them. Nil means every enabled skill; an empty,
	// non-nil list selects none.
	Skills []string
	// AvailableTools are the tools the host can run: ActiveTools never
	// names another. BaseTools are tools the host keeps whatever skills
	// are active. MCPServers are the MCP servers the host has; nil means
	// the host did not say, and ActiveTools passes on every server the
	// activated skills depend on.
	AvailableTools []string
	BaseTools      []string
	MCPServers     []string
	// WorkingDirectory is the agent's working directory, absolute and
	// clean ("" when unknown): relative path patterns in allowed-tools
	// are relative to it, so that an absolute path below it is judged as
	// the path relative to it (see toolrule.Check).
	WorkingDirectory string
}

// Session is one conversation's view of the skills (the staged
// loading): a snapshot of the visible skills taken when it opens (stage 1),
// the skills activated in it so far (stage 2), and the tools those bring
// (stage 3). It never mixes two versions of a skill: when a visible skill
// changes underneath it, it turns stale and refuses to read that skill
// until Refresh.
//
// A Session is safe for concurrent use. Close it when the conversation
// ends; a Resolver also closes its least recently used sessions when too
// many are open.
type Session struct {
	r         *Resolver
	id        string
	contextID string
	available []string
	base      []string
	mcp       []string
	// workingDir is SessionOptions.WorkingDirectory.
	workingDir string
	lastUse    uint64 // guarded by r.mu

	mu        sync.Mutex
	selection []string // nil: every enabled skill
	snap      *snapshot
	activated []string
	// changed are visible skills that changed underneath the snapshot
	// and cannot be read (removed, disabled, or a version no longer
	// kept); they are neither read nor shown until Refresh. outdated are
	// visible skills replaced or edited since: the session reads the
	// version it started with, which the resolver holds (retain.go).
	changed  map[string]bool
	outdated map[string]bool
	// collected are the changed skills whose version was collected.
	collected map[string]bool
	stale     bool
	closed    bool
	pinDiags  []skill.Diagnostic
	subs      map[int]func(Event)
	nextSub   int
	// runs are the plan runs under way (StartPlan), at most MaxPlanRuns.
	runs map[string]*planRun
}

// Status describes a session.
type Status struct {
	Session   string `json:"session"`
	ContextID string `json:"contextId"`
	// Stale is true when a skill changed underneath the session; the
	// changed ones are listed in Changed. Those replaced or edited are
	// read as the session's version until Refresh; those removed or
	// disabled cannot be read.
	Stale    bool  `json:"stale"`
	Revision int64 `json:"revision"`
	// Visible are the skills of the snapshot, in selection order;
	// Activated those activated so far, in activation order.
	Visible   []string `json:"visible"`
	Activated []string `json:"activated"`
	Changed   []string `json:"changed"`
	// Diagnostics say why selected skills or their dependencies are not
	// visible, and which pins were dropped.
	Diagnostics []skill.Diagnostic `json:"diagnostics"`
}

// OpenSession opens a session: it takes the snapshot of the visible
// skills and activates the context's pins.
func (r *Resolver) OpenSession(ctx context.Context, opts SessionOptions) (*Session, error) {
	if strings.TrimSpace(opts.ContextID) == "" {
		return nil, &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonContextID,
			Msg: "a session needs the id of the context (conversation or tab) it serves"}
	}
	if err := checkSessionOptions(&opts); err != nil {
		return nil, err
	}
	s := &Session{
		r: r, id: newID(), contextID: opts.ContextID,
		available: slices.Clone(opts.AvailableTools), base: slices.Clone(opts.BaseTools), mcp: slices.Clone(opts.MCPServers),
		workingDir: opts.WorkingDirectory,
		selection:  cleanSelection(opts.Skills), changed: map[string]bool{}, outdated: map[string]bool{}, collected: map[string]bool{}, subs: map[int]func(Event){},
		runs: map[string]*planRun{},
	}
	sn, pins, diags, err := s.prepare(ctx, s.selection)
	if err != nil {
		return nil, err
	}
	s.snap, s.pinDiags = sn, diags
	s.activated = visibleOf(sn, pins)
	if err := r.register(s); err != nil {
		return nil, err
	}
	return s, nil
}

// prepare builds the snapshot of selection and reads the context's pins,
// dropping those of removed or disabled skills.
func (s *Session) prepare(ctx context.Context, selection []string) (*snapshot, []string, []skill.Diagnostic, error) {
	sn, err := s.r.snapshot(ctx, selection)
	if err != nil {
		return nil, nil, nil, err
	}
	pins, err := s.r.pinned(ctx, s.contextID)
	if err != nil {
		return nil, nil, nil, err
	}
	return sn, pins.Pinned, pins.Dropped, nil
}

// visibleOf returns the ids of list visible in sn, in order.
func visibleOf(sn *snapshot, list []string) []string {
	out := []string{}
	for _, id := range list {
		if sn.metas[id] != nil && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// Refresh moves the session to the current state of its selection: a new
// snapshot, not stale, with the activated skills that are still visible
// and the context's pins.
func (s *Session) Refresh(ctx context.Context) (Status, error) {
	s.mu.Lock()
	selection, closed := s.selection, s.closed
	s.mu.Unlock()
	if closed {
		return Status{}, errSessionClosed(s.id)
	}
	return s.rebuild(ctx, selection)
}

// Select changes the selection (nil: every enabled skill) and rebuilds the
// snapshot as Refresh does.
func (s *Session) Select(ctx context.Context, ids []string) (Status, error) {
	if _, err := s.current(); err != nil {
		return Status{}, err
	}
	if err := checkSelection(ids); err != nil {
		return Status{}, err
	}
	return s.rebuild(ctx, cleanSelection(ids))
}

func (s *Session) rebuild(ctx context.Context, selection []string) (Status, error) {
	sn, pins, diags, err := s.prepare(ctx, selection)
	if err != nil {
		return Status{}, err
	}
	var closed bool
	s.r.install(s, func() *snapshot {
		s.mu.Lock()
		defer s.mu.Unlock()
		if closed = s.closed; closed {
			return nil
		}
		s.selection, s.snap, s.pinDiags = selection, sn, diags
		s.activated = visibleOf(sn, slices.Concat(s.activated, pins))
		s.stale = false
		clear(s.changed)
		clear(s.outdated)
		clear(s.collected)
		return sn
	})
	if closed {
		return Status{}, errSessionClosed(s.id)
	}
	s.r.release(ctx)
	return s.Status(), nil
}

// Status describes the session now.
func (s *Session) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{
		Session: s.id, ContextID: s.contextID, Stale: s.stale, Revision: s.snap.revision,
		Visible: slices.Clone(s.snap.ids), Activated: slices.Clone(s.activated), Changed: []string{},
		Diagnostics: append(slices.Clone(s.snap.diags), s.pinDiags...),
	}
	if st.Visible == nil {
		st.Visible = []string{}
	}
	if st.Diagnostics == nil {
		st.Diagnostics = []skill.Diagnostic{}
	}
	for _, id := range s.snap.ids {
		if s.changed[id] || s.outdated[id] {
			st.Changed = append(st.Changed, id)
		}
	}
	return st
}

// Close closes the session and writes its buffered audit entries.
// Closing twice is not an error.
func (s *Session) Close(ctx context.Context) error {
	s.r.forget(s)
	s.shut()
	s.r.release(ctx)
	return s.r.audit.flush(ctx)
}

// shut marks the session closed and tells its subscribers.
func (s *Session) shut() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	clear(s.runs)
	subs := s.subscribers()
	s.mu.Unlock()
	for _, fn := range subs {
		fn(Event{Kind: EventClosed, Session: s.id, Skills: []string{}})
	}
}

// current returns the session's snapshot, or an error once it is closed.
func (s *Session) current() (*snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errSessionClosed(s.id)
	}
	return s.snap, nil
}

// activate records that skill id is activated and reports whether it was
// already.
func (s *Session) activate(id string) (already bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.activated, id) {
		return true
	}
	s.activated = append(s.activated, id)
	return false
}

// Activated returns the ids of the skills activated so far, in order.
func (s *Session) Activated() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.activated)
}
