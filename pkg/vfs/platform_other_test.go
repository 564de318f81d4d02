//go:build !(js && wasm)

package vfs

import (
	"context"
	"testing"
)

var testBackends = []backendCase{{"memory", openMemory}}

func openMemory(testing.TB) Backend { return NewMemory() }

func TestStorageUnknownNatively(t *testing.T) {
	est, err := Estimate(context.Background())
	if err != nil || est.Known {
		t.Errorf("Estimate = %+v, %v; want unknown", est, err)
	}
	if ok, err := Persist(context.Background()); ok || err != nil {
		t.Errorf("Persist = %v, %v; want false", ok, err)
	}
}
