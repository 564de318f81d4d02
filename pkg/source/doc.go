// Package source decides what may be installed from where skills are
// published: an Agent Skills discovery index (the well-known index.json,
// v0.2.0 with digests and the legacy v0.1.0), an MCP server with the skills
// extension (SEP-2640), or a plain URL.
//
// It never touches the network: the host fetches (it holds the permissions,
// the timeouts and the size caps) and hands this package the bytes. The
// package parses indexes and listings, resolves URLs, checks that every path
// stays inside its skill, verifies every digest over the exact bytes before
// anything is parsed, turns what was verified into an archive the registry
// imports, records where each skill came from (Origin), and compares that
// record with what the source publishes now (updates).
package source
