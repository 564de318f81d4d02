// Package resolver is the agent-facing side of skillfs: the catalog the
// model sees, the skill blocks it reads, explicit invocation and tool
// narrowing. Routing is pkg/routing's; the resolver parses the invocation
// syntax that forces a skill, feeds routing the session's statistics,
// readiness and the host's embeddings (vectors.go), and gives the router's
// candidates their descriptions in the catalog.
//
// It has two layers. The pure layer — Catalog, Block, ParseInvocation,
// Substitute, ToolPolicy and ActiveTools, Index and Route — works on an
// in-memory description of skills (Skill) and reads nothing. The session
// layer — Resolver and Session — maps the registry's records onto Skill
// and serves one conversation at a time, reading skill content only
// through the registry's read-only vfs.FS and keeping its own records
// (pins, usage statistics, the audit log) in the same database. Neither
// layer executes anything: tools are the host's, routed as the host
// decides; the resolver only says which ones a turn may offer and whether
// a call is allowed.
//
// Progressive disclosure has three levels: Catalog is level 1 (names and
// descriptions, shown every turn), Block is level 2 (a skill's body, shown
// once it is activated) and the resource files Block lists are level 3
// (read on demand).
//
// A Session follows the staged loading of docs/architecture.md. Stage 1: when it opens it
// takes a snapshot of the visible skills — the selection plus the closure
// of their skill dependencies, or every enabled skill — and records the
// version (digest) of each. Stage 2: Activate, Invoke, or reading a
// skill's SKILL.md activates it. Stage 3: only activated skills, and what
// they depend on, bring tools and MCP servers into ActiveTools. A session
// never mixes versions: every read is checked against the snapshot's
// digest. A skill replaced or edited underneath makes the session stale
// but is still read as the session's version, which the registry keeps
// (retain.go), until Refresh; one removed or disabled fails with
// Conflict, Reason "stale".
package resolver
