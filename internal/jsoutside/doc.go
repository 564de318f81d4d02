// Package jsoutside gives Go's browser tests the import's JavaScript half,
// js/outside.ts, as the bridge gives it to the module: outside.js is its
// bundle, made by `make internal/jsoutside/outside.js` and checked by
// `make test-wasm` (check-outside) to match the source.
package jsoutside
