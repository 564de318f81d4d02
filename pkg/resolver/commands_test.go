package resolver

import (
	"context"
	"testing"
)

// TestAlways: always: true skills are in every turn's blocks, activated,
// whether or not the model picked them; disabled ones are not visible.
func TestAlways(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		var files []file
		files = append(files, skillFiles("style", "Write plainly.", "always: true")...)
		files = append(files, skillFiles("house-rules", "Be kind.", "always: true", "disable-model-invocation: true")...)
		files = append(files, skillFiles("plain", "Nothing special.")...)
		e.install(t, files...)
		ctx := context.Background()
		s := e.open(t, SessionOptions{})
		for turn, wantAlready := range []bool{false, true} {
			blocks, err := s.Always(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, b := range blocks {
				ids = append(ids, b.ID)
				if b.AlreadyActive != wantAlready || !contains(b.Content, "<skill_content name=\""+b.Name+"\">") {
					t.Errorf("turn %d: %s's block = %+v", turn, b.ID, b)
				}
			}
			wantList(t, "always blocks", ids, []string{"house-rules", "style"})
		}
		wantList(t, "activated", s.Activated(), []string{"house-rules", "style"})
		if _, err := e.reg.SetEnabled(ctx, "style", false); err != nil {
			t.Fatal(err)
		}
		blocks, err := e.open(t, SessionOptions{ContextID: "ctx-2"}).Always(ctx)
		if err != nil || len(blocks) != 1 || blocks[0].ID != "house-rules" || blocks[0].AlreadyActive {
			t.Errorf("after style is disabled: %+v, %v", blocks, err)
		}
	})
}

// TestTurnHasAlways: a turn's blocks are the pinned skills', then the
// always: true skills' (seed 004), each once, audited as turn blocks.
func TestTurnHasAlways(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		var files []file
		files = append(files, skillFiles("style", "Write plainly.", "always: true")...)
		files = append(files, skillFiles("house-rules", "Be kind.", "always: true")...)
		files = append(files, skillFiles("plain", "Nothing special.")...)
		e.install(t, files...)
		ctx := context.Background()
		s := e.open(t, SessionOptions{})
		for _, id := range []string{"plain", "style"} {
			if _, err := s.Pin(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		turn, err := s.Turn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, b := range turn.Blocks {
			ids = append(ids, b.ID)
		}
		wantList(t, "turn blocks", ids, []string{"plain", "style", "house-rules"})
		wantList(t, "activated", s.Activated(), []string{"plain", "style", "house-rules"})
		entries, err := e.res.Audit(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 || entries[0].Kind != AuditTurn || entries[0].Skill != "house-rules" {
			t.Errorf("the always block is not audited as a turn block: %+v", entries)
		}
	})
}
