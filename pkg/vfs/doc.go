// Package vfs stores skills: a hackpadfs file system mounted at /skills,
// and the keyed records of the registry and resolver beside it, in one
// IndexedDB database in the browser (IndexedDB) or in memory natively
// (Memory).
//
// A Backend reads in read transactions (Read) and writes in blind, atomic
// batches (Commit): one IndexedDB transaction holds a whole import —
// DeleteSkill's and PutSkill's ops plus the registry's own records — and
// either all of it lands or none. Lock serialises read-modify-write
// sequences across every tab and worker of the origin.
//
// FS exposes the tree with hackpadfs semantics, confined by
// skillpath.Clean; ReadOnly and Sub give the views agents get. Every file
// carries the generation stamp of the write that produced it, returned by
// ReadFileGen and Generation.
package vfs
