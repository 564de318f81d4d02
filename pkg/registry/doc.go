// Package registry keeps the installed skills: their metadata store and
// their lifecycle (import, list, enable, remove, export, edit,
// dependencies).
//
// Content and index live apart but in one database (docs/architecture.md, Storage):
// each skill's files are a tree under /skills/<id>/ (vfs.PutSkill), and its
// Meta is a JSON record in vfs.StoreMeta. List reads the records only,
// never the tree, and nothing rescans the tree, so a removed skill stays
// removed.
//
// Every change — Import, SetEnabled, Remove, WriteFile, Mkdir, RemovePath, Rename,
// SetDependencies — goes the same way: take the registry lock (shared by
// every context of the origin), read what it needs in one read
// transaction, compute the new state in memory, and write it in one
// commit holding the tree ops, the records and the new revision. A commit
// lands whole or not at all, so a fault at any point (a closed tab, an
// aborted transaction, a full quota, an invalid skill in a pack) leaves
// the previous state as it was. After the commit the registry drops its
// cached list and publishes a Change to its subscribers and, through a
// Bus, to the registries of other contexts, which drop theirs.
//
// A version of a skill is identified by its Digest, which is also the
// generation stamp of each of its files in the tree: an edit rewrites the
// whole tree of the skill, so a reader comparing vfs.FS.ReadFileGen's
// generation with Meta.Digest can tell a file of another version.
//
// The registry is the management side: it sees disabled skills too.
// Agent-facing readers (package resolver) show only Visible skills.
package registry
