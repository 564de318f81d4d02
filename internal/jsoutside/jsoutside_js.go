//go:build js && wasm

package jsoutside

import (
	_ "embed"
	"encoding/base64"
	"os"
	"sync"
	"syscall/js"
	"testing"

	"github.com/skillfs/skillfs/pkg/external"
)

//go:embed outside.js
var source string

var once sync.Once

// Install loads the bundle, once, and gives it to pkg/external.
func Install() {
	once.Do(func() {
		url := "data:text/javascript;base64," + base64.StdEncoding.EncodeToString([]byte(source))
		mod, ok := external.Await(js.Global().Call("eval", "(u) => import(u)").Invoke(url))
		if !ok {
			panic("jsoutside: the bundle does not load: " + mod.Call("toString").String())
		}
		if err := external.SetHost(mod); err != nil {
			panic("jsoutside: " + err.Error())
		}
	})
}

// Main is a browser test package's TestMain: it runs the tests with the
// JavaScript half installed, as the module runs.
func Main(m *testing.M) {
	Install()
	os.Exit(m.Run())
}
