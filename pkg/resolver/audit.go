package resolver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
	"github.com/skillfs/skillfs/pkg/wasmrun"
)

// The kinds of AuditEntry.
const (
	AuditActivate = "activate" // Activate
	AuditInvoke   = "invoke"   // Invoke
	AuditRead     = "read"     // ReadFile
	AuditTurn     = "turn"     // a pinned skill's block for Turn
	AuditPlan     = "plan"     // a transition of a plan run (StartPlan, Advance)
	AuditExecute  = "execute"  // a run of a skill's module (FinishExecution)
)

// AuditOK is the Outcome of a call that succeeded; failures carry their
// error code.
const AuditOK = "ok"

// auditLock serialises audit flushes of every context of the origin, which
// share the ring of keys and its sequence.
const auditLock = "skillfs-audit"

// auditSeqKey is the key of the audit sequence in vfs.StoreState.
const auditSeqKey = "audit-seq"

// flushTimeout bounds a flush that runs in the background.
const flushTimeout = 10 * time.Second

// AuditEntry records one activation, invocation or file read.
type AuditEntry struct {
	// Seq numbers entries across every context of the database.
	Seq       int64     `json:"seq"`
	Time      time.Time `json:"time"`
	ContextID string    `json:"contextId"`
	Session   string    `json:"session"`
	Kind      string    `json:"kind"`
	// Skill is the skill's id, or what the caller named when no skill
	// was found; Digest the version the session holds, "" then.
	Skill  string `json:"skill"`
	Digest string `json:"digest"`
	// Path is the file read, relative to the skill ("SKILL.md" for an
	// activation), or the path as given when it was rejected.
	Path       string  `json:"path"`
	DurationMs float64 `json:"durationMs"`
	// Outcome is AuditOK or the error's code, and Reason its reason.
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	// Run, From and To are a plan run's id and the states of one of its
	// transitions (AuditPlan only); Skill is the path it was on.
	Run  string `json:"run,omitempty"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Exec is seed 003's record of a module's run (AuditExecute only).
	Exec *wasmrun.Record `json:"exec,omitempty"`
}

// auditLog buffers audit entries in memory and writes them in batches:
// one commit per flush, never one per read, since a transaction costs
// milliseconds in IndexedDB and reads must cost microseconds. Stored
// entries live in a ring of AuditLimit keys of vfs.StoreAudit; the
// sequence that picks the next key is kept in vfs.StoreState and advanced
// under a lock, so contexts sharing the database do not overwrite each
// other's entries.
type auditLog struct {
	db    vfs.Backend
	now   func() time.Time
	limit int
	batch int
	delay time.Duration

	mu      sync.Mutex
	pending []AuditEntry
	timer   *time.Timer
	running bool // a background flush is under way
	closed  bool
	dropped int64 // entries trimmed from the buffer before they were stored

	flushMu sync.Mutex // one flush at a time
}

func newAuditLog(db vfs.Backend, opts Options) *auditLog {
	return &auditLog{db: db, now: opts.Now, limit: opts.AuditLimit, batch: opts.AuditBatch, delay: opts.AuditDelay}
}

// record buffers the entry of a call of s that started at start and ended
// with err, and schedules a flush.
func (a *auditLog) record(s *Session, e AuditEntry, start time.Time, err error) {
	e.Time = a.now().UTC()
	// What the caller named is kept only in part: the log is bounded in
	// bytes, not only in entries.
	e.ContextID, e.Session = clip(s.contextID, auditField), s.id
	e.Skill, e.Path = clip(e.Skill, auditField), clip(e.Path, auditField)
	e.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	e.Outcome = AuditOK
	if err != nil {
		e.Outcome, e.Reason = string(skillerr.CodeOf(err)), skillerr.ReasonOf(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	a.pending = append(a.pending, e)
	a.trim()
	if len(a.pending) >= a.batch && !a.running {
		a.running = true
		go a.background()
		return
	}
	a.schedule()
}

// schedule starts the timer of the next flush unless one is pending or
// running; a.mu is held.
func (a *auditLog) schedule() {
	if a.timer == nil && !a.running && !a.closed {
		a.timer = time.AfterFunc(a.delay, a.fire)
	}
}

// fire is the timer's flush.
func (a *auditLog) fire() {
	a.mu.Lock()
	a.timer = nil
	if a.running {
		a.mu.Unlock()
		return
	}
	a.running = true
	a.mu.Unlock()
	a.background()
}

// background flushes while a batch or more of entries wait, then leaves
// the rest to the timer. After a failure it waits for the next entry to
// try again, rather than retrying on its own forever.
func (a *auditLog) background() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		err := a.flush(ctx)
		cancel()
		a.mu.Lock()
		if err != nil || len(a.pending) < a.batch {
			a.running = false
			if err == nil && len(a.pending) > 0 {
				a.schedule()
			}
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
	}
}

// flush writes every buffered entry in one commit. On failure the entries
// go back to the buffer, for the next flush.
func (a *auditLog) flush(ctx context.Context) error {
	a.flushMu.Lock()
	defer a.flushMu.Unlock()
	a.mu.Lock()
	batch, dropped := a.pending, a.dropped
	a.pending, a.dropped = nil, 0
	a.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := a.db.Lock(ctx, auditLock, func(ctx context.Context) error {
		res, err := a.db.Read(ctx, vfs.Get(vfs.StoreState, auditSeqKey))
		if err != nil {
			return err
		}
		seq, err := decodeSeq(res[0])
		if err != nil {
			return err
		}
		seq += dropped
		ops := make([]vfs.Op, 0, len(batch)+1)
		for i := range batch {
			seq++
			batch[i].Seq = seq
			b, err := json.Marshal(batch[i])
			if err != nil {
				return skillerr.Wrap(skillerr.Internal, "audit", err, "cannot encode an audit entry")
			}
			ops = append(ops, vfs.Put(vfs.StoreAudit, a.slot(seq), b))
		}
		ops = append(ops, vfs.Put(vfs.StoreState, auditSeqKey, []byte(strconv.FormatInt(seq, 10))))
		return a.db.Commit(ctx, ops...)
	})
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		a.pending = append(batch, a.pending...)
		a.dropped += dropped
		a.trim()
	}
	return err
}

// trim keeps the newest limit entries of the buffer, which are all the
// ring would keep anyway, and counts the others so that sequence numbers
// still count every audited call; a.mu is held.
func (a *auditLog) trim() {
	if over := len(a.pending) - a.limit; over > 0 {
		a.pending = slices.Delete(a.pending, 0, over)
		a.dropped += int64(over)
	}
}

// slot returns the ring key of entry seq: the ring has limit keys, so the
// store never holds more entries than that.
func (a *auditLog) slot(seq int64) string {
	return fmt.Sprintf("%010d", (seq-1)%int64(a.limit))
}

// close stops the timer and writes what is buffered; later entries are
// not kept.
func (a *auditLog) close(ctx context.Context) error {
	a.mu.Lock()
	a.closed = true
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
	a.mu.Unlock()
	return a.flush(ctx)
}

func decodeSeq(found []vfs.Record) (int64, error) {
	if len(found) == 0 {
		return 0, nil
	}
	seq, err := strconv.ParseInt(string(found[0].Value), 10, 64)
	if err != nil || seq < 0 {
		return 0, skillerr.Wrap(skillerr.Internal, auditSeqKey, err, "the stored audit sequence is corrupt")
	}
	return seq, nil
}

// Audit returns the newest audit entries, newest first: at most limit of
// them (every stored one when limit is zero or negative). It writes the
// buffered entries first, so a caller sees its own calls.
func (r *Resolver) Audit(ctx context.Context, limit int) ([]AuditEntry, error) {
	if err := r.audit.flush(ctx); err != nil {
		return nil, err
	}
	res, err := r.db.Read(ctx, vfs.GetPrefix(vfs.StoreAudit, ""))
	if err != nil {
		return nil, err
	}
	out := make([]AuditEntry, 0, len(res[0]))
	for _, rec := range res[0] {
		var e AuditEntry
		if err := json.Unmarshal(rec.Value, &e); err != nil {
			return nil, skillerr.Wrap(skillerr.Internal, rec.Key, err, "a stored audit entry is corrupt")
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq > out[j].Seq })
	if limit <= 0 || limit > r.opts.AuditLimit {
		limit = r.opts.AuditLimit
	}
	return out[:min(limit, len(out))], nil
}

// Flush writes the buffered audit entries now.
func (r *Resolver) Flush(ctx context.Context) error { return r.audit.flush(ctx) }

// ClearAudit deletes the audit log, the entries still buffered included.
// Sequence numbers go on from where they were.
func (r *Resolver) ClearAudit(ctx context.Context) error {
	a := r.audit
	a.flushMu.Lock()
	defer a.flushMu.Unlock()
	a.mu.Lock()
	a.dropped += int64(len(a.pending))
	a.pending = nil
	a.mu.Unlock()
	return r.db.Lock(ctx, auditLock, func(ctx context.Context) error {
		return r.db.Commit(ctx, vfs.DeletePrefix(vfs.StoreAudit, ""))
	})
}
