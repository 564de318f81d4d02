# Node tooling for skillfs, included from the Makefile (run make from the
# repository root). Targets that need npm packages depend on $(NODE_DEPS).
#
#   make typecheck                      tsc --noEmit over js/**/*.ts and web/**/*.ts
#   make bench-zenfs ZIP=skills.zip     AIPex's stack (ZenFS + IndexedDB + fflate) importing ZIP
#                    [RUNS=3] [BENCH_TIMEOUT=120]

NPM      ?= npm
NODE     ?= node
CHROMIUM ?= /usr/bin/chromium

# Stamp of the last `npm ci`: redone when package.json or package-lock.json
# is newer, or node_modules is gone. npm ci never prompts (works with CI=true
# and no stdin) and installs exactly what package-lock.json pins.
NODE_DEPS := node_modules/.installed

$(NODE_DEPS): package.json package-lock.json
	$(NPM) ci --no-audit --no-fund --loglevel=error </dev/null
	@touch $@

.PHONY: typecheck bench-zenfs

typecheck: $(NODE_DEPS)
	$(NODE) node_modules/typescript/bin/tsc --noEmit -p .

bench-zenfs: $(NODE_DEPS) $(CHROMIUM)
	@if [ -z "$(ZIP)" ]; then echo "usage: make bench-zenfs ZIP=path/to/skills.zip [RUNS=3] [BENCH_TIMEOUT=120]" >&2; exit 2; fi
	$(NODE) web/bench/run.mjs "$(ZIP)" --runs $(or $(RUNS),3) --timeout $(or $(BENCH_TIMEOUT),120)
