// Package wasmrun decides how a skill's WebAssembly module may run: which
// modules are accepted (WASI preview 1 imports only, a memory within the
// cap, which it enforces by writing the cap into the module as its memory
// maximum), what the skill's allowed-tools grant it (seed 003's capability
// table), the environment it gets, and how a run's raw outcome becomes a
// result and an audit record. It runs nothing: the host's Worker does (see
// docs/architecture.md, "Skills that run").
package wasmrun
