// Package routing finds the skills a message needs: the routing
// layer. It recalls candidates (a skill the caller resolved as forced,
// skills whose triggers occur in the message, the skills most relevant to
// it lexically and, when the host gives embeddings, semantically), scores
// them with weighted components (docs/architecture.md, Routing) and turns the scores into an
// activation plan.
//
// It knows skills only as Skill values and reads no storage: the resolver
// builds an Index per snapshot of the visible skills and parses the
// invocation syntax that forces a skill.
package routing
