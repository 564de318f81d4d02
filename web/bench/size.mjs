#!/usr/bin/env node
// Prints a file's size raw, gzipped (level 9) and brotli-compressed
// (quality 11), as a server would ship it:  node web/bench/size.mjs FILE...
// run.mjs imports sizes() for its summary.
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** The bytes of file raw, gzip -9 and brotli -q 11. */
export function sizes(file) {
  const raw = readFileSync(file);
  const gzip = gzipSync(raw, { level: 9 }).length;
  const brotli = brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  }).length;
  return { raw: raw.length, gzip, brotli };
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const file of process.argv.slice(2)) {
    const s = sizes(file);
    const mb = (n) => (n / 1e6).toFixed(2).padStart(6);
    console.log(`${file}: ${mb(s.raw)} MB raw  ${mb(s.gzip)} MB gzip -9  ${mb(s.brotli)} MB brotli`);
  }
}
