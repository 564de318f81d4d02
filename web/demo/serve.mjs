#!/usr/bin/env node
// Serves the built demo (make demo) on http://127.0.0.1:8080 until stopped.
//   node web/demo/serve.mjs DIR [--port N]

import { parseArgs } from 'node:util';
import { serve } from '../harness/index.mjs';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { port: { type: 'string', default: process.env.PORT ?? '8080' } } });
if (positionals.length !== 1) {
  process.stderr.write('usage: node web/demo/serve.mjs DIR [--port N]\n');
  process.exit(2);
}
const port = Number(values.port);
let server;
try {
  server = await serve({ root: positionals[0], port, isolate: false });
} catch (e) {
  if (e?.code !== 'EADDRINUSE') throw e;
  // The Makefile passes PORT (8080 by default) as --port.
  process.stderr.write(`port ${port} is in use: run PORT=${port + 1} make demo (or another free port)\n`);
  process.exit(1);
}
process.stdout.write(`skillfs demo: ${server.url}  (Ctrl-C to stop)\n`);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close().then(() => process.exit(0)));
