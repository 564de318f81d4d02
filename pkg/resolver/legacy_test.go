package resolver

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/skillfs/skillfs/pkg/vfs"
)

// A skill installed before skillpath's rules of 2026-11-23 (a trailing
// dot or space, < > " | ? *, invisible characters such as the emoji
// variation selector U+FE0F) may hold a file whose name skillpath now
// refuses, stored as schema 2 wrote it (a record of its own). It
// activates, and its files list: names are kept as stored
// (docs/architecture.md, Storage); refusing them on reading made such a
// skill unusable, with no way to mend it.
func TestLegacyNameActivates(t *testing.T) {
	eachBackend(t, func(t *testing.T, bc backendCase) {
		e := newEnv(t, bc)
		e.installSkills(t, "pdf")
		m := e.meta(t, "pdf")
		ctx := context.Background()
		for _, name := range []string{"notes?.md", "todo.md.", "\u26a0\ufe0f.md"} {
			data := []byte("legacy")
			// A schema 2 file record: mode, time, size, generation.
			rec := binary.AppendUvarint(nil, 0o644)
			rec = binary.AppendVarint(rec, 0)
			rec = binary.AppendUvarint(rec, uint64(len(data)))
			rec = append(rec, m.Digest...)
			if err := e.db.Commit(ctx, vfs.Put(vfs.StoreFiles, "pdf//"+name, rec), vfs.Put(vfs.StoreBlobs, "pdf//"+name, data)); err != nil {
				t.Fatal(err)
			}
			s := e.open(t, SessionOptions{ContextID: "legacy"})
			if _, err := s.Activate(ctx, "pdf"); err != nil {
				t.Errorf("activating a skill stored with a file named %q: %v", name, err)
			}
			// The side panel's list of the skill's files.
			if _, err := e.reg.Tree(ctx, "pdf"); err != nil {
				t.Errorf("the files of a skill stored with a file named %q: %v", name, err)
			}
			if err := e.db.Commit(ctx, vfs.Delete(vfs.StoreFiles, "pdf//"+name), vfs.Delete(vfs.StoreBlobs, "pdf//"+name)); err != nil {
				t.Fatal(err)
			}
		}
	})
}
