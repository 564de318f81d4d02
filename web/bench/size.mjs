#!/usr/bin/env node
// Prints a file's size raw, gzipped (level 9) and brotli-compressed
// (quality 11), as a server would ship it:  node web/bench/size.mjs FILE...
import { readFileSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

for (const file of process.argv.slice(2)) {
  const raw = readFileSync(file);
  const gz = gzipSync(raw, { level: 9 }).length;
  const br = brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  }).length;
  const mb = (n) => (n / 1e6).toFixed(2).padStart(6);
  console.log(`${file}: ${mb(raw.length)} MB raw  ${mb(gz)} MB gzip -9  ${mb(br)} MB brotli`);
}
