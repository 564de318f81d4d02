package resolver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/vfs"
)

// TestSameAnswerDisabledOrMissing: an agent cannot tell a disabled skill
// from one that was never installed, by error or by status.
func TestSameAnswerDisabledOrMissing(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.install(t, slices.Concat(skillFiles("off", "# off", "skill_dependencies: [ghost2]"), skillFiles("on", "# on",
			"skill_dependencies: [off, ghost]"), skillFiles("ghost", "# ghost"), skillFiles("ghost2", "# ghost2"))...)
		ctx := context.Background()
		// Dependencies must exist when they are declared, and the registry
		// neither removes nor disables one that another (enabled) names;
		// these changed behind its back, as an older version let them.
		e = e.dropBehindRegistry(t, "ghost", "ghost2").disableBehindRegistry(t, "off")
		s := e.open(t, SessionOptions{Skills: []string{"off", "ghost3"}})
		deps := e.open(t, SessionOptions{Skills: []string{"on"}})
		answer := func(err error) string {
			var se *skillerr.Error
			if !errorsAs(err, &se) {
				return fmt.Sprint(err)
			}
			return fmt.Sprintf("%s/%s %s", se.Code, se.Reason, se.Msg)
		}
		for _, call := range []func(name string) error{
			func(n string) error { _, err := s.Activate(ctx, n); return err },
			func(n string) error { _, err := s.ReadFile(ctx, "/skills/"+n+"/SKILL.md"); return err },
			func(n string) error { _, err := s.Invoke(ctx, "/skill:"+n+" x"); return err },
			func(n string) error { _, err := s.Pin(ctx, n); return err },
			func(n string) error { return s.RecordOutcome(ctx, n, true) },
		} {
			if off, ghost := answer(call("off")), answer(call("ghost")); off != ghost {
				t.Errorf("disabled: %s; missing: %s", off, ghost)
			}
		}
		byField := map[string]string{}
		for _, d := range append(s.Status().Diagnostics, deps.Status().Diagnostics...) {
			msg := strings.NewReplacer("'off'", "'X'", "'ghost3'", "'X'", "'ghost'", "'X'").Replace(d.Message)
			key := d.Code + " " + msg
			byField[d.Field] += key + "\n"
		}
		for field, got := range byField {
			lines := strings.Split(strings.TrimSpace(got), "\n")
			if len(lines) != 2 || lines[0] != lines[1] {
				t.Errorf("status diagnostics of %s tell the two apart:\n%s", field, got)
			}
		}
	})
}

func errorsAs(err error, target **skillerr.Error) bool {
	e, ok := err.(*skillerr.Error)
	if ok {
		*target = e
	}
	return ok
}

// TestSessionLimits: what an agent sends is deduplicated and bounded with
// TooLarge, never walked quadratically.
func TestSessionLimits(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.installSkills(t, "pdf")
		ctx := context.Background()
		many := func(n int) []string {
			out := make([]string, n)
			for i := range out {
				out[i] = fmt.Sprintf("id-%d", i)
			}
			return out
		}
		_, err := e.res.OpenSession(ctx, SessionOptions{ContextID: "c", Skills: many(MaxSelection + 1)})
		wantErr(t, "a selection over the limit", err, skillerr.TooLarge, ReasonLimit)
		// Duplicates count once.
		dup := append(many(MaxSelection-1), many(MaxSelection-1)...)
		s, err := e.res.OpenSession(ctx, SessionOptions{ContextID: "c", Skills: append(dup, "pdf"), AvailableTools: dup})
		if err != nil {
			t.Fatalf("a selection of %d distinct ids: %v", MaxSelection, err)
		}
		if st := s.Status(); len(st.Visible) != 1 {
			t.Errorf("visible %v", st.Visible)
		}
		_, err = s.Select(ctx, many(MaxSelection+1))
		wantErr(t, "Select over the limit", err, skillerr.TooLarge, ReasonLimit)
		_, err = e.res.OpenSession(ctx, SessionOptions{ContextID: "c", BaseTools: many(MaxToolNames + 1)})
		wantErr(t, "base tools over the limit", err, skillerr.TooLarge, ReasonLimit)
		_, err = e.res.OpenSession(ctx, SessionOptions{ContextID: strings.Repeat("c", MaxContextID+1)})
		wantErr(t, "a context id over the limit", err, skillerr.TooLarge, ReasonLimit)
	})
}

// TestSubstitutionBounded: $0 repeated over a long argument is refused
// before it builds more than MaxExpansion bytes.
func TestSubstitutionBounded(t *testing.T) {
	arg := strings.Repeat("a", 1024)
	body := strings.Repeat("$0 ", MaxExpansion/1024+16)
	if _, err := Substitute(body, arg, nil, "/skills/x"); skillerr.CodeOf(err) != skillerr.TooLarge {
		t.Errorf("Substitute over the limit: %v", err)
	}
	if out, err := Substitute(strings.Repeat("$0 ", MaxExpansion/1024-2), arg, nil, "/skills/x"); err != nil || len(out) < MaxExpansion/2 {
		t.Errorf("Substitute under the limit: %d bytes, %v", len(out), err)
	}
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.install(t, skillFiles("bomb", body)...)
		s := e.open(t, SessionOptions{})
		_, err := s.Invoke(context.Background(), "/skill:bomb "+arg)
		wantErr(t, "Invoke of a substitution bomb", err, skillerr.TooLarge, ReasonLimit)
	})
}

// TestPinsBounded: a context holds at most MaxPinsPerContext pins, at most
// MaxPinContexts contexts hold pins, and ClearPins empties them all.
func TestPinsBounded(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		var names []string
		for i := range MaxPinsPerContext + 1 {
			names = append(names, fmt.Sprintf("s%d", i))
		}
		e.installSkills(t, names...)
		ctx := context.Background()
		s := e.open(t, SessionOptions{ContextID: "one"})
		for _, n := range names[:MaxPinsPerContext] {
			if _, err := s.Pin(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		_, err := s.Pin(ctx, names[MaxPinsPerContext])
		wantErr(t, "a pin over the limit", err, skillerr.TooLarge, ReasonLimit)
		if _, err := s.Pin(ctx, names[0]); err != nil {
			t.Errorf("pinning a pinned skill again: %v", err)
		}
		// Fill the contexts, as an agent choosing new context ids would.
		var ops []vfs.Op
		for i := range MaxPinContexts - 1 {
			ops = append(ops, vfs.Put(vfs.StorePins, fmt.Sprintf("ctx-%d", i), []byte(`[]`)))
		}
		if err := e.db.Commit(ctx, ops...); err != nil {
			t.Fatal(err)
		}
		other := e.open(t, SessionOptions{ContextID: "new"})
		_, err = other.Pin(ctx, names[0])
		wantErr(t, "a context over the limit", err, skillerr.TooLarge, ReasonLimit)
		if _, err := s.Pin(ctx, names[1]); err != nil {
			t.Errorf("a context with pins can still pin: %v", err)
		}
		if err := e.res.ClearPins(ctx); err != nil {
			t.Fatal(err)
		}
		if res, err := s.Pinned(ctx); err != nil || len(res.Pinned) != 0 {
			t.Errorf("after ClearPins: %v, %v", res.Pinned, err)
		}
		if _, err := other.Pin(ctx, names[0]); err != nil {
			t.Errorf("after ClearPins: %v", err)
		}
	})
}

// TestAuditBoundedInBytes: whatever a caller names, a stored entry stays
// small, two long names stay apart, and ClearAudit and ClearStats empty
// their stores.
func TestAuditBoundedInBytes(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.installSkills(t, "pdf")
		ctx := context.Background()
		long := strings.Repeat("é", MaxContextID/2)
		s := e.open(t, SessionOptions{ContextID: long})
		name := strings.Repeat("n", 1<<20)
		s.Activate(ctx, name+"1")
		s.Activate(ctx, name+"2")
		s.ReadFile(ctx, "/skills/pdf/"+name)
		if err := s.RecordOutcome(ctx, "pdf", true); err != nil {
			t.Fatal(err)
		}
		got, err := e.res.Audit(ctx, 0)
		if err != nil || len(got) != 3 {
			t.Fatalf("audit: %d entries, %v", len(got), err)
		}
		for _, entry := range got {
			b, _ := json.Marshal(entry)
			if len(b) > 4*auditField+300 {
				t.Errorf("an entry of %d bytes: %.200s…", len(b), b)
			}
			if len(entry.ContextID) > auditField || !strings.Contains(entry.ContextID, "sha256:") {
				t.Errorf("context id kept as %q", entry.ContextID)
			}
		}
		if got[1].Skill == got[2].Skill {
			t.Errorf("two long names stored alike: %q", got[1].Skill)
		}
		if err := e.res.ClearAudit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := e.res.ClearStats(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := e.db.Read(ctx, vfs.GetPrefix(vfs.StoreAudit, ""), vfs.GetPrefix(vfs.StoreStats, ""))
		if err != nil || len(res[0]) != 0 || len(res[1]) != 0 {
			t.Errorf("after the clears: %d audit and %d statistics records, %v", len(res[0]), len(res[1]), err)
		}
	})
}
