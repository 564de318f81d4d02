package resolver

// dropSnapshots forgets the shared snapshots, so that the next session
// builds its own (benchmarks of a cold open).
func (r *Resolver) dropSnapshots() {
	r.mu.Lock()
	clear(r.snaps)
	r.mu.Unlock()
}
