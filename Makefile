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

.PHONY: help test test-native test-wasm lint demo build cli fuzz bench deps clean

include web/node.mk

help:
	@echo "make demo   run skillfs (see README.md)"
	@echo "make test   run every test, natively and in headless Chromium"
	@echo "make fuzz   run the fuzz targets for FUZZTIME each ($(FUZZTIME))"
	@echo "make bench  print the benchmark table"

test: lint typecheck test-native test-wasm

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./...

test-native:
	$(GO) test -count=1 ./...

test-wasm: $(WASMEXEC) $(CHROMIUM)
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec=$(WASMEXEC) $(WASM_PKGS) 2>&1 | grep -v "$(NOISE)"

$(WASMEXEC): go.mod go.sum
	GOOS= GOARCH= $(GO) build -o $@ github.com/agnivade/wasmbrowsertest

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium

deps: $(WASMEXEC) $(CHROMIUM) $(NODE_DEPS)

cli:
	$(GO) build -o $(BIN)/skills ./cmd/skills

SAMPLE    := web/sample-pack

demo: cli
	$(BIN)/skills validate $(SAMPLE)
	$(BIN)/skills to-prompt $(SAMPLE)
	$(BIN)/skills pack $(SAMPLE) -o $(BIN)/sample-pack.zip
	$(BIN)/skills validate $(BIN)/sample-pack.zip

fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=$(FUZZTIME) ./pkg/skill
	$(GO) test -run='^$$' -fuzz=FuzzRead -fuzztime=$(FUZZTIME) ./pkg/zipguard
	$(GO) test -run='^$$' -fuzz=FuzzClean -fuzztime=$(FUZZTIME) ./pkg/skillpath

clean:
	rm -rf $(BIN) dist node_modules
