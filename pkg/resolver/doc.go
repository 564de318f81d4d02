// Package resolver is the agent-facing side of skillfs: the catalog the
// model sees, the skill blocks it reads, explicit invocation, tool
// narrowing and routing.
//
// Everything here is a pure function over an in-memory description of the
// installed skills (Skill); nothing reads storage. A session layer maps
// registry metadata onto Skill, builds an Index once per snapshot and
// calls these functions per turn.
//
// Progressive disclosure has three levels: Catalog is level 1 (names and
// descriptions, shown every turn), Block is level 2 (a skill's body, shown
// once it is activated) and the resource files Block lists are level 3
// (read on demand).
package resolver
