# The published package, included from the Makefile (run make from the
# repository root).
#
#   make test-package   npm pack, install the tarball in a fresh project,
#                       type-check it strictly, bundle it, run it in Chromium
#   make api-docs       the API reference from the declarations, in $(BIN)/api

NODE      ?= node
BIN       ?= $(CURDIR)/.bin
CHROMIUM  ?= /usr/bin/chromium
NODE_DEPS ?= node_modules/.installed

.PHONY: test-package api-docs

test-package: build $(NODE_DEPS) $(CHROMIUM)
	CHROMIUM=$(CHROMIUM) $(NODE) --test --test-reporter=spec web/package/consumer.test.mjs

# TypeDoc does not read TypeScript 7 yet, so it runs with the 6.0 compiler
# of its own, fetched by npm exec; the output is not committed.
TYPEDOC_VERSION ?= 0.28.20
api-docs: build
	npm exec --yes --package=typedoc@$(TYPEDOC_VERSION) --package=typescript@6.0 -- \
	  typedoc --tsconfig web/package/typedoc.json --excludeInternal --out $(BIN)/api \
	  dist/bridge.d.ts dist/agent.d.ts dist/ai-sdk.d.ts dist/openai-agents.d.ts
	@echo "API reference: $(BIN)/api/index.html"
