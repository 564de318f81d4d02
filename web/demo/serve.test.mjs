// `make demo` on a port another program holds says which variable picks
// another, not a stack trace.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SERVE = fileURLToPath(new URL('./serve.mjs', import.meta.url));

test('a busy port is said in a sentence naming PORT, with no stack trace', async (t) => {
  const holder = createServer();
  await new Promise((ok, fail) => holder.once('error', fail).listen(0, '127.0.0.1', ok));
  t.after(() => holder.close());
  const port = holder.address().port;
  const root = mkdtempSync(join(tmpdir(), 'skillfs-serve-'));
  const r = spawnSync(process.execPath, [SERVE, root, '--port', String(port)], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stderr, `port ${port} is in use: run PORT=${port + 1} make demo (or another free port)\n`);
  assert.equal(r.stdout, '');
});
