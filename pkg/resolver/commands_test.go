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
