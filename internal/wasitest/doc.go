// Package wasitest holds the WASI (preview 1) programs the tests of skill
// execution build with GOOS=wasip1 GOARCH=wasm and run as skills' modules:
// each does one thing a module may or may not do. See Build.
package wasitest
