//go:build !(js && wasm)

package vfs

import "context"

// Estimate reports an unknown estimate: outside a browser there is no
// origin quota.
func Estimate(context.Context) (StorageEstimate, error) { return StorageEstimate{}, nil }

// Persist reports false: outside a browser there is nothing to ask.
func Persist(context.Context) (bool, error) { return false, nil }
