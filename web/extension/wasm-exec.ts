// Loads Go's wasm_exec.js into the classic service worker. It is the first
// import of background.ts, so it runs first, while the worker's script is
// still being evaluated: the only time a service worker may importScripts
// a script that was not cached at install.
(self as unknown as { importScripts(...urls: string[]): void }).importScripts('wasm_exec.js');
