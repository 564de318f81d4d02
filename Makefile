# skillfs build and test entry points. `make test` and `make demo` install
# what they need (Debian chromium, wasmbrowsertest, npm packages) when it is
# missing, so they work on a machine that has only Go, node and apt.

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
.DEFAULT_GOAL := help

GO        ?= go
BIN       := $(CURDIR)/.bin
# wasmbrowsertest is pinned in go.mod as a tool; the -exec path must be absolute.
WASMEXEC  := $(BIN)/wasmbrowsertest
CHROMIUM  ?= /usr/bin/chromium
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Packages whose tests also run as GOOS=js GOARCH=wasm in headless Chromium.
WASM_PKGS := ./pkg/...
# wasmbrowsertest prints this for every run; it means nothing to us.
NOISE     := could not unmarshal event: unknown IPAddressSpace value
FUZZTIME  ?= 20s
# Per fuzz target in `make test`; CI runs every target, so keep it short.
# A count, not a duration: Go 1.26's fuzz coordinator can report "context
# deadline exceeded" when a -fuzztime duration ends while a starved worker
# is mid-call (Go issue 75804, fixed in 1.27), a failure with no
# crasher. 20,000 calls take 1-6 s a target on a quiet machine here.
FUZZTIME_CI ?= 20000x

# Every module that ships, or that the browser tests load, is linked and
# then shrunk by internal/wasmdata (findfunctab segments the runtime never
# reads, file and line tables only a traceback reads: 1 MB raw, 0.27 MB
# gzipped); a module it cannot shrink (another Go's layout) is left as
# linked, with a line saying so, and TestShrinkRuns fails in `make test`.
WASMDATA  := $(GO) run ./internal/wasmdata/cmd/wasmdata
WASMDATA_SRC := $(shell find internal/wasmdata -name '*.go' ! -name '*_test.go')
# Then binaryen's wasm-opt (npm binaryen, pinned in package.json) runs the
# function passes that undo what Go's code generator leaves (locals it
# never reuses, blocks and branches to nothing, identical tails and
# functions): 551 KB raw, 25 KB gzipped, 3 KB brotli, and V8 decodes the
# module 12% faster. Not -O1..-Oz: they take 36-74 s a build for no more
# gzip, and their memory-packing splits the segments internal/wasmdata
# joined (+32 KB gzipped). The features are those Go's linker emits.
WASMOPT   := node_modules/.bin/wasm-opt
WASMOPT_FLAGS := --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int --enable-mutable-globals \
  --strip-debug --strip-producers --optimize-level=2 --shrink-level=1 \
  --duplicate-function-elimination --simplify-locals --coalesce-locals --reorder-locals --vacuum --merge-blocks \
  --remove-unused-brs --remove-unused-names --dce --precompute --optimize-instructions --code-folding \
  --remove-unused-module-elements --generate-stack-ir --optimize-stack-ir
# shrink,IN,OUT: the linked module IN, shrunk by both in place, then moved
# to OUT, so that OUT is never a half-written module.
shrink = $(WASMDATA) $(1) && $(WASMOPT) $(WASMOPT_FLAGS) $(1) -o $(1) && mv $(1) $(2)

.PHONY: help test test-native test-fuzz test-wasm check-outside test-demo lint demo demo-build build cli fuzz screenshots bench bench-size deps clean

include web/node.mk
include web/test/test.mk
include web/extension/extension.mk
include web/package/package.mk

help:
	@echo "make demo   run skillfs (see README.md)"
	@echo "make test   run every test, natively and in headless Chromium"
	@echo "make build  write dist/: skillfs.wasm, wasm_exec.js, bridge.js, bridge.d.ts"
	@echo "make fuzz   run the fuzz targets for FUZZTIME each ($(FUZZTIME))"
	@echo "make bench  print the benchmark table"

test: lint typecheck test-native test-fuzz test-wasm test-browser test-demo test-extension test-package

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./...

test-native:
	$(GO) test -count=1 ./...

test-wasm: $(WASMEXEC) $(CHROMIUM) check-outside
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec=$(WASMEXEC) $(WASM_PKGS) 2>&1 | grep -v "$(NOISE)"

$(WASMEXEC): go.mod go.sum
	GOOS= GOARCH= $(GO) build -o $@ github.com/agnivade/wasmbrowsertest

# Installed when missing; sudo -n, so that with no tty (CI, a pipe) and
# no password-less sudo this says what to install instead of failing
# with "a terminal is required".
NO_CHROMIUM = { echo "$(CHROMIUM) is missing and apt-get could not install it here$(if $(SUDO), (sudo -n: sudo may not run without a password)): install Debian's chromium (sudo apt-get install chromium), or set CHROMIUM=/path/to/chromium"; exit 1; }
$(CHROMIUM):
	$(SUDO) $(if $(SUDO),-n) apt-get update -qq || $(NO_CHROMIUM)
	$(SUDO) $(if $(SUDO),-n) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium || $(NO_CHROMIUM)

deps: $(WASMEXEC) $(CHROMIUM) $(NODE_DEPS)

cli:
	$(GO) build -o $(BIN)/skills ./cmd/skills

# The module and its bridge: what an extension ships.
DIST      := dist
GO_SRC    := go.mod go.sum $(shell find pkg wasm -name '*.go' ! -name '*_test.go')
# The adapters (agent.js, ai-sdk.js, openai-agents.js) import bridge.js and
# agent.js beside them, and the frameworks from the user's node_modules.
ADAPTERS  := agent ai-sdk openai-agents
build: $(DIST)/skillfs.wasm $(DIST)/wasm_exec.js $(DIST)/bridge.js $(DIST)/mcp.js $(DIST)/wasi-worker.js $(DIST)/bridge.d.ts $(ADAPTERS:%=$(DIST)/%.js)

# Inlining only where the import, the start and the list spend their time:
# the runtime, the standard library's byte, hash, archive and crypto code
# and skillfs's storage path. Elsewhere (the parsers, fmt, json, the
# resolver and routing) a call stays a call: 195 KB raw, 110 KB gzipped and
# 80 KB brotli less, and the 10 MB and 9,000-file imports, cold start and
# list were measured unchanged (docs/architecture.md#the-modules-size).
SKILLFS_PKG := github.com/skillfs/skillfs/pkg
WASM_GCFLAGS := -gcflags=all=-l $(foreach p,runtime internal/... sync/... syscall/js bytes strings unicode/... \
  compress/... hash/... archive/... crypto/... io math/bits \
  $(SKILLFS_PKG)/zipguard $(SKILLFS_PKG)/registry $(SKILLFS_PKG)/vfs $(SKILLFS_PKG)/digest $(SKILLFS_PKG)/pace $(SKILLFS_PKG)/external,-gcflags=$(p)=)
WASM_BUILD := GOOS=js GOARCH=wasm $(GO) build -trimpath $(WASM_GCFLAGS)

$(DIST)/skillfs.wasm: $(GO_SRC) $(GO_STAMP) $(WASMDATA_SRC) $(NODE_DEPS)
	$(WASM_BUILD) -ldflags='-s -w' -o $@.tmp ./wasm
	$(call shrink,$@.tmp,$@)

# The Go that builds the module (TEST_GOROOT and GO_STAMP, from
# web/test/test.mk): a new Go rebuilds the module and copies its
# wasm_exec.js, which must match.
$(DIST)/wasm_exec.js: $(TEST_GOROOT)/lib/wasm/wasm_exec.js $(GO_STAMP)
	@mkdir -p $(DIST)
	cp $< $@

# The MCP client (the official SDK, ~700 KB unminified) is its own module,
# which bridge.js imports only when installFromMcp or an MCP update needs it.
JS_SRC    := $(wildcard js/*.ts)
# The import's JavaScript half bundled as Go's browser tests load it
# (internal/jsoutside embeds it). It is committed, so that `go test` needs
# no node; test-wasm fails when it does not match js/outside.ts.
OUTSIDE_JS     := internal/jsoutside/outside.js
OUTSIDE_BUNDLE := node_modules/.bin/esbuild js/outside.ts --bundle --format=esm --target=es2022 --minify --legal-comments=none --log-level=warning

$(OUTSIDE_JS): js/outside.ts $(NODE_DEPS)
	$(OUTSIDE_BUNDLE) --outfile=$@

check-outside: $(NODE_DEPS)
	@$(OUTSIDE_BUNDLE) | cmp -s - $(OUTSIDE_JS) || { echo "$(OUTSIDE_JS) does not match js/outside.ts: make $(OUTSIDE_JS)"; exit 1; }

$(DIST)/bridge.js: $(JS_SRC) $(NODE_DEPS)
	node_modules/.bin/esbuild js/bridge.ts --bundle --format=esm --target=es2022 --external:./mcp.js --outfile=$@

$(DIST)/mcp.js: $(JS_SRC) $(NODE_DEPS)
	node_modules/.bin/esbuild js/mcp.ts --bundle --format=esm --target=es2022 --external:./bridge.js --outfile=$@

# The Worker a skill's module runs in (WASI by @bjorn3/browser_wasi_shim),
# which the bridge loads from beside itself; an ES module worker.
$(DIST)/wasi-worker.js: $(JS_SRC) $(NODE_DEPS)
	node_modules/.bin/esbuild js/wasi-worker.ts --bundle --format=esm --target=es2022 --outfile=$@

$(DIST)/bridge.d.ts: $(JS_SRC) $(NODE_DEPS)
	node_modules/.bin/tsc js/bridge.ts $(ADAPTERS:%=js/%.ts) --ignoreConfig --strict --declaration --emitDeclarationOnly \
	  --target es2022 --module esnext --moduleResolution bundler --types '' --skipLibCheck --lib es2022,dom --outDir $(DIST)

$(ADAPTERS:%=$(DIST)/%.js): $(DIST)/%.js: js/%.ts $(JS_SRC) $(NODE_DEPS)
	node_modules/.bin/esbuild $< --bundle --format=esm --target=es2022 --log-level=warning \
	  --external:./bridge.js --external:./agent.js --external:ai --external:@openai/agents-core --outfile=$@

SAMPLE    := web/sample-pack
# The sample pack as it ships: web/sample-pack with word-count's module
# built from its source (a WASI program; nothing built is committed).
SAMPLE_BUILT := $(BIN)/sample-pack
$(SAMPLE_BUILT).stamp: $(shell find $(SAMPLE) -type f)
	rm -rf $(SAMPLE_BUILT) && mkdir -p $(SAMPLE_BUILT) && cp -R $(SAMPLE)/. $(SAMPLE_BUILT)/
	mkdir -p $(SAMPLE_BUILT)/word-count/wasm
	GOOS=wasip1 GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $(SAMPLE_BUILT)/word-count/wasm/skill.wasm ./$(SAMPLE)/word-count/src
	@touch $@
DEMO      := $(DIST)/demo
PORT      ?= 8080

# The demo page (the web/ui app running the module in the page; esbuild
# writes demo.css beside demo.js), built into dist/demo and served on 127.0.0.1:$(PORT).
demo: demo-build
	$(NODE) web/demo/serve.mjs $(DEMO) --port $(PORT)

# The demo page driven by clicks; it also takes its screenshots (see
# screenshots below). Then the
# web/ui app's pure modules in Node (dependents.ts), and serve.mjs on a
# busy port.
test-demo: demo-build $(CHROMIUM)
	$(NODE) --test --test-reporter=spec web/demo/demo.test.mjs web/ui/dependents.test.mjs web/demo/serve.test.mjs

demo-build: build cli $(SAMPLE_BUILT).stamp
	@mkdir -p $(DEMO)
	cp web/demo/index.html $(DIST)/skillfs.wasm $(DIST)/wasm_exec.js $(DIST)/wasi-worker.js $(DEMO)/
	node_modules/.bin/esbuild web/demo/demo.tsx --bundle --format=esm --target=es2022 --minify --outfile=$(DEMO)/demo.js
	$(SKILL_EDITOR_BUNDLE) --outfile=$(DEMO)/skill-editor.js
	$(BIN)/skills pack $(SAMPLE_BUILT) -o $(DEMO)/sample-pack.zip

# Every fuzz target in the repository, found by its declaration
# (`func FuzzX(f *testing.F)` in a *_test.go file), so a new target runs
# without editing this file. `make fuzz` runs each for FUZZTIME; `make test`
# runs each for FUZZTIME_CI. An input that fails is written by Go to
# testdata/fuzz/FuzzX/ beside the test: commit it, and it runs as a seed in
# every `go test` from then on.
FUZZ_FILES = $(shell grep -rlE --include='*_test.go' '^func Fuzz' pkg cmd internal wasm 2>/dev/null)
define run_fuzz
	@set -e; for file in $(FUZZ_FILES); do \
	  for target in $$(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)[(].*/\1/p' $$file); do \
	    echo "fuzz $$target ./$$(dirname $$file) for $(1)"; \
	    $(GO) test -run='^$$' -fuzz="^$$target$$" -fuzztime=$(1) ./$$(dirname $$file); \
	  done; \
	done
endef

fuzz:
	$(call run_fuzz,$(FUZZTIME))

# The UI tests write their screenshots to .bin/screenshots (web/harness/
# screenshots.mjs), so `make test` leaves docs/ as committed; this renews
# the README's pictures from the last run.
screenshots:
	@ls $(BIN)/screenshots/*.png >/dev/null 2>&1 || { echo "no screenshots in $(BIN)/screenshots: run make test-demo test-extension first"; exit 1; }
	cp $(BIN)/screenshots/*.png docs/

test-fuzz:
	$(call run_fuzz,$(FUZZTIME_CI))

# Benchmarks: figures are printed, never asserted. The Go benchmarks run in
# headless Chromium against real IndexedDB; the import comparison runs
# skillfs and the peer stack (ZenFS + fflate) in one browser.
BENCHTIME ?= 5x
bench: build $(WASMEXEC) $(CHROMIUM) $(NODE_DEPS)
	$(GO) run ./internal/benchpack/cmd/benchpack -o $(BIN)/bench
	GOOS=js GOARCH=wasm $(GO) test -run '^$$' -bench . -benchtime=$(BENCHTIME) -exec=$(WASMEXEC) ./pkg/registry ./pkg/resolver ./pkg/routing ./pkg/zipguard ./pkg/skill 2>&1 | grep -v "$(NOISE)"
	@echo "Routing evaluation (real skills from $${SKILLFS_REAL_REPOS:-/work/data}; tuned on testdata/eval.tsv and blind.tsv, measured on the held-out testdata/heldout.tsv and fresh.tsv):"
	$(GO) test -count=1 -run '^(TestEvaluation|TestGeneratedEvaluation)$$' -v ./pkg/routing | grep -E 'router|BM25|skills,|SKIP'
	@echo "Catalog at the default budget with the real skills, for three requests (route and index timings: BenchmarkRoute1000, BenchmarkIndex1000 above):"
	$(GO) test -count=1 -run '^TestCatalogRealSkills$$' -v ./pkg/resolver | grep -E 'characters|SKIP|FAIL'
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $(BIN)/bench/hello.wasm ./internal/benchpack/hello
	$(NODE) web/bench/run.mjs $(BIN)/bench/pack.zip --runs 3 --timeout 600 --coldstart $(BIN)/bench/small1000.zip --hello $(BIN)/bench/hello.wasm \
	  --list $(BIN)/bench/small1000.zip --list $(BIN)/bench/small10000.zip --large $(BIN)/bench/large.zip --files $(BIN)/bench/files9000.zip
	@$(MAKE) --no-print-directory bench-size

# The module's size as shipped, as it was before wasm-opt, and where it
# goes by Go package (from a build that keeps the function names, which
# the shipped one strips).
bench-size: build
	@mkdir -p $(BIN)/bench
	$(NODE) web/bench/size.mjs $(DIST)/skillfs.wasm
	$(WASM_BUILD) -ldflags='-s -w' -o $(BIN)/bench/skillfs-before-wasm-opt.wasm ./wasm
	$(WASMDATA) $(BIN)/bench/skillfs-before-wasm-opt.wasm
	$(NODE) web/bench/size.mjs $(BIN)/bench/skillfs-before-wasm-opt.wasm
	$(WASM_BUILD) -o $(BIN)/bench/skillfs-names.wasm ./wasm
	$(WASMDATA) $(BIN)/bench/skillfs-names.wasm
	GOOS=js GOARCH=wasm $(GO) list -deps ./wasm > $(BIN)/bench/skillfs-packages.txt
	$(GO) run ./internal/wasmsize/cmd/wasmsize $(BIN)/bench/skillfs-names.wasm $(BIN)/bench/skillfs-packages.txt

clean:
	rm -rf $(BIN) dist node_modules
