//go:build js && wasm

package zipguard

import (
	"testing"

	"github.com/skillfs/skillfs/internal/jsoutside"
)

// TestMain installs the import's JavaScript half, as the bridge does.
func TestMain(m *testing.M) { jsoutside.Main(m) }
