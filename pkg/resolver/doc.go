// Package resolver is the agent-facing side of skillfs: sessions, the
// catalog, activation, explicit invocation, tool narrowing, pins and routing.
package resolver
