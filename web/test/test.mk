# Browser tests of js/bridge.ts, included from the Makefile (run make from
# the repository root): real Chromium (Debian's, never downloaded) driven by
# playwright-core, run by node's built-in test runner.
#
#   make test-browser
#
# The tests load a test build of the module from $(TEST_DIST): skillfs.wasm
# built with -tags skillfs_testhooks (adds the "test.panic" method) and
# shrunk as the shipped one is (internal/wasmdata, then wasm-opt), the
# wasm_exec.js of the same Go, and js/bridge.ts bundled by esbuild. To run
# one file by hand after a build:
#   node --test web/test/port.test.mjs

# Defaults for when this file is read before the Makefile or web/node.mk
# define them; theirs win.
GO        ?= go
NODE      ?= node
BIN       ?= $(CURDIR)/.bin
CHROMIUM  ?= /usr/bin/chromium
NODE_DEPS ?= node_modules/.installed

TEST_DIST   := $(BIN)/test-dist
TEST_GOROOT := $(shell $(GO) env GOROOT)
# The Go that builds the modules, by version, in a file written again only
# when it changes: an upgraded Go's files keep its release's dates, which
# may be older than a module built before the upgrade, so their times
# cannot tell that the module and its wasm_exec.js must be made again.
GO_VERSION ?= $(shell $(GO) env GOVERSION)
GO_STAMP   := $(BIN)/go-version
$(shell mkdir -p $(BIN) && { [ "$$(cat $(GO_STAMP) 2>/dev/null)" = "$(GO_VERSION)" ] || echo "$(GO_VERSION)" > $(GO_STAMP); })
TEST_GO_SRC := go.mod go.sum $(shell find pkg wasm -name '*.go' ! -name '*_test.go')

# The WASI programs web/test/execute.test.mjs runs as skills' modules,
# built from internal/wasitest for wasip1 (defined before the rule that
# lists them: prerequisites are expanded when make reads the rule).
WASI_TESTS := echo loop alloc escape write flood fill fds

.PHONY: test-browser

test-browser: $(NODE_DEPS) $(CHROMIUM) $(TEST_DIST)/skillfs.wasm $(TEST_DIST)/wasm_exec.js $(TEST_DIST)/bridge.js $(TEST_DIST)/mcp.js $(TEST_DIST)/frameworks.js \
  $(TEST_DIST)/wasi-worker.js $(WASI_TESTS:%=$(TEST_DIST)/wasi/%.wasm) $(TEST_DIST)/hello.wasm
	SKILLFS_TEST_DIST=$(TEST_DIST) CHROMIUM=$(CHROMIUM) \
	  $(NODE) --test --test-concurrency=1 --test-reporter=spec web/test/

# Rebuilt when a Go source or the Go toolchain changes.
$(TEST_DIST)/skillfs.wasm: $(TEST_GO_SRC) $(GO_STAMP) $(WASMDATA_SRC) $(NODE_DEPS)
	@mkdir -p $(@D)
	$(WASM_BUILD) -tags skillfs_testhooks -ldflags='-s -w' -o $@.tmp ./wasm
	$(call shrink,$@.tmp,$@)

$(TEST_DIST)/wasm_exec.js: $(TEST_GOROOT)/lib/wasm/wasm_exec.js $(GO_STAMP)
	@mkdir -p $(@D)
	cp $< $@

$(TEST_DIST)/bridge.js: $(wildcard js/*.ts) $(NODE_DEPS)
	node_modules/.bin/esbuild js/bridge.ts --bundle --format=esm --target=es2022 --log-level=warning --external:./mcp.js --outfile=$@

$(TEST_DIST)/wasi-worker.js: $(wildcard js/*.ts) $(NODE_DEPS)
	node_modules/.bin/esbuild js/wasi-worker.ts --bundle --format=esm --target=es2022 --log-level=warning --outfile=$@

# A Go module that is not skillfs: it ends without answering the bridge.
$(TEST_DIST)/hello.wasm: internal/benchpack/hello/main.go $(GO_STAMP)
	@mkdir -p $(@D)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $@ ./internal/benchpack/hello

$(TEST_DIST)/wasi/%.wasm: internal/wasitest/%/main.go $(GO_STAMP)
	@mkdir -p $(@D)
	GOOS=wasip1 GOARCH=wasm $(GO) build -trimpath -o $@ ./internal/wasitest/$*

$(TEST_DIST)/mcp.js: $(wildcard js/*.ts) $(NODE_DEPS)
	node_modules/.bin/esbuild js/mcp.ts --bundle --format=esm --target=es2022 --log-level=warning --external:./bridge.js --outfile=$@

# The framework runs (web/test/frameworks.test.mjs): the adapters, the AI
# SDK and the Agents SDK with their scripted models, in one bundle.
$(TEST_DIST)/frameworks.js: web/test/frameworks.ts $(wildcard js/*.ts) $(NODE_DEPS)
	node_modules/.bin/esbuild $< --bundle --format=esm --target=es2022 --log-level=warning --external:./mcp.js --outfile=$@
