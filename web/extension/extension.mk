# The example MV3 extension (web/extension/), included from the Makefile
# (run make from the repository root).
#
#   make extension-build   assemble the unpacked extension in $(BIN)/extension/
#   make test-extension    load it into headless Chromium and drive it
#
# Load $(BIN)/extension/ with chrome://extensions → "Load unpacked" to try it.

# Defaults for when this file is read before the Makefile or web/node.mk
# define them; theirs win.
GO        ?= go
NODE      ?= node
BIN       ?= $(CURDIR)/.bin
DIST      ?= dist
CHROMIUM  ?= /usr/bin/chromium
NODE_DEPS ?= node_modules/.installed

SAMPLE_BUILT ?= $(BIN)/sample-pack

EXT_SRC   := web/extension
EXT_DIR   := $(BIN)/extension
# The scripts pass wasmURL: import.meta (the bridge's default) is empty in an IIFE.
EXT_BUNDLE = node_modules/.bin/esbuild --bundle --format=iife --target=es2022 --log-level=warning --log-override:empty-import-meta=silent

# The skill view's editor (CodeMirror) is a bundle of its own, which the
# view imports on first use, so the side panel paints without it. The
# side panel's CSS (the skill view's) is written beside it by esbuild.
SKILL_EDITOR_BUNDLE = node_modules/.bin/esbuild web/ui/skill/editor.ts --bundle --format=esm --minify --target=es2022 --log-level=warning

.PHONY: extension-build test-extension

# `build` writes $(DIST)/skillfs.wasm, wasm_exec.js and bridge.js; `cli`
# writes $(BIN)/skills. The three scripts are classic scripts (a content
# script cannot be an ES module, and the service worker is classic so it can
# importScripts wasm_exec.js), so each is one IIFE bundle with js/bridge.ts
# (the source of $(DIST)/bridge.js) inside. Only the side panel installs
# from MCP servers, so only its bundle carries the MCP client (js/mcp.ts).
extension-build: build cli $(NODE_DEPS) $(SAMPLE_BUILT).stamp
	@mkdir -p $(EXT_DIR)
	cp $(EXT_SRC)/manifest.json $(EXT_SRC)/sidepanel.html $(EXT_SRC)/offscreen.html $(DIST)/skillfs.wasm $(DIST)/wasm_exec.js $(DIST)/wasi-worker.js $(EXT_DIR)/
	$(EXT_BUNDLE) $(EXT_SRC)/background.ts --external:./mcp.js --outfile=$(EXT_DIR)/background.js
	$(EXT_BUNDLE) $(EXT_SRC)/sidepanel.tsx --outfile=$(EXT_DIR)/sidepanel.js
	$(SKILL_EDITOR_BUNDLE) --outfile=$(EXT_DIR)/skill-editor.js
	$(EXT_BUNDLE) $(EXT_SRC)/content.ts --external:./mcp.js --outfile=$(EXT_DIR)/content.js
	$(EXT_BUNDLE) $(EXT_SRC)/offscreen.ts --outfile=$(EXT_DIR)/offscreen.js
	$(BIN)/skills pack $(SAMPLE_BUILT) -o $(EXT_DIR)/sample-pack.zip

test-extension: extension-build $(CHROMIUM)
	SKILLFS_EXTENSION_DIR=$(EXT_DIR) CHROMIUM=$(CHROMIUM) \
	  $(NODE) --test --test-reporter=spec $(EXT_SRC)/extension.test.mjs $(EXT_SRC)/manager.test.mjs $(EXT_SRC)/crowded.test.mjs web/ui/skill/skillview.test.mjs
