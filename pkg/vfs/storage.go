package vfs

// StorageEstimate is the browser's account of this origin's storage
// (navigator.storage.estimate()).
type StorageEstimate struct {
	// Known is false where there is no such account (outside a browser).
	Known bool
	// Usage and Quota are in bytes.
	Usage, Quota int64
}
