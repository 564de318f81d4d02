// Shared code of the browser tests of js/bridge.ts (web/test/*.test.mjs).
//
// node --test runs every .mjs file under a directory named "test", so this
// file is "run" too: it only exports, and reports as a file with no tests.
// For the same reason the pages and worker scripts the browser loads are
// written here as strings and served from a temporary directory: a .js
// file in web/test/ would be executed by node --test as a test.
//
// What the tests load is the test build that web/test/test.mk makes in
// .bin/test-dist (or $SKILLFS_TEST_DIST): skillfs.wasm built with
// -tags skillfs_testhooks, Go's wasm_exec.js, and js/bridge.ts bundled by
// esbuild as bridge.js.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { launch, serve, withTimeout } from '../harness/index.mjs';

export { withTimeout };

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(HERE, '../..');
export const TEST_DIST = resolve(process.env.SKILLFS_TEST_DIST ?? join(REPO, '.bin/test-dist'));

/** Every wait of a test is bounded by this, at most. */
export const STEP_MS = 20_000;
/** node:test's limit per test: a backstop behind the per-step limits. */
export const TEST_MS = 45_000;

// ---- The site the browser loads. ----

// The one page: loads the bundled bridge and exposes it, with helpers, as
// window.T. Errors do not cross page.evaluate intact (only a message
// does), so T.outcome settles a promise in the page and describes how.
const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>skillfs bridge tests</title>
<link rel="icon" href="data:,">
<script type="module">
import * as bridge from '/dist/bridge.js';

const describe = (e) => ({
  isSkillfsError: e instanceof bridge.SkillfsError,
  isError: e instanceof Error,
  name: e?.name,
  code: e?.code,
  reason: e?.reason,
  subject: e?.subject,
  diagnostics: e?.diagnostics,
  invalid: e?.invalid,
  message: String(e?.message ?? e),
  detail: e?.detail,
  msg: e?.msg,
});

window.T = {
  bridge,
  describe,
  load: (dbName, extra = {}) =>
    bridge.loadSkillfs({ wasmURL: '/dist/skillfs.wasm', wasmExecURL: '/dist/wasm_exec.js', dbName, ...extra }),
  fromB64: (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0)),
  toB64: (u8) => {
    let s = '';
    for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode(...u8.subarray(i, i + 0x8000));
    return btoa(s);
  },
  async outcome(p) {
    try {
      return { ok: true, value: await p };
    } catch (e) {
      return { ok: false, error: describe(e) };
    }
  },
  // What the listener given to subscribe hears, in list; atLeast(n)
  // resolves with list once it holds n. No deadline of its own: the
  // step's (ev) bounds it.
  collect(subscribe) {
    const list = [];
    const waiting = [];
    subscribe((v) => {
      list.push(v);
      waiting.splice(0).forEach((wake) => wake());
    });
    return {
      list,
      async atLeast(n) {
        while (list.length < n) await new Promise((wake) => waiting.push(wake));
        return list;
      },
    };
  },
  // Polls fn until it is true, for a state that changes with no event to
  // wait for; bounded by the step's deadline, not its own.
  async until(fn) {
    while (!(await fn())) await new Promise((r) => setTimeout(r, 10));
  },
};
window.ready = true;
</script>
</head>
<body><p>skillfs bridge tests; driven by web/test/*.test.mjs</p></body>
</html>
`;

// Workers (web/test/worker.test.mjs). Each answers one message {db, zip?}
// with {ok, ...} after loading skillfs itself, off the main thread.
const WORKER_BODY = `
async function run(loadSkillfs, data) {
  const sk = await loadSkillfs(data.opts);
  const out = { hasDocument: typeof document !== 'undefined', isWorker: typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope };
  if (data.zip) {
    const bytes = Uint8Array.from(atob(data.zip), (c) => c.charCodeAt(0));
    const progress = [];
    const res = await sk.registry.importZip(bytes, { source: 'worker.zip', onProgress: (p) => progress.push(p) });
    out.imported = res.skills.map((s) => s.id);
    out.revision = res.revision;
    out.progress = progress;
  }
  out.list = (await sk.registry.list()).map((s) => ({ id: s.id, digest: s.digest }));
  return out;
}
function fail(e) {
  return { ok: false, error: { name: e?.name, code: e?.code, reason: e?.reason, message: String(e?.message ?? e) } };
}
`;

const WORKERS = {
  // A module worker that imports the bundled bridge and lets loadSkillfs
  // load wasm_exec.js from wasmExecURL.
  'worker-module.js': `import { loadSkillfs } from '/dist/bridge.js';
${WORKER_BODY}
self.onmessage = async (e) => {
  try { self.postMessage({ ok: true, ...(await run(loadSkillfs, e.data)) }); } catch (err) { self.postMessage(fail(err)); }
};
self.postMessage({ started: true });
`,
  // A module worker that imports wasm_exec.js itself before loadSkillfs.
  'worker-module-preload.js': `import '/dist/wasm_exec.js';
import { loadSkillfs } from '/dist/bridge.js';
${WORKER_BODY}
self.onmessage = async (e) => {
  try { self.postMessage({ ok: true, ...(await run(loadSkillfs, e.data)) }); } catch (err) { self.postMessage(fail(err)); }
};
self.postMessage({ started: true });
`,
  // A classic worker: importScripts(wasm_exec.js), then the ES module
  // bridge through a dynamic import().
  'worker-classic.js': `importScripts('/dist/wasm_exec.js');
${WORKER_BODY}
self.onmessage = async (e) => {
  try {
    const { loadSkillfs } = await import('/dist/bridge.js');
    self.postMessage({ ok: true, ...(await run(loadSkillfs, e.data)) });
  } catch (err) { self.postMessage(fail(err)); }
};
self.postMessage({ started: true });
`,
};

/**
 * Serves the test site (pages from a temporary directory, /dist/ from
 * TEST_DIST) and launches Chromium with a fresh profile. close() ends
 * both and removes the directory; it never throws and is bounded in time.
 */
export async function startBrowser() {
  for (const f of ['skillfs.wasm', 'wasm_exec.js', 'bridge.js']) {
    if (!existsSync(join(TEST_DIST, f))) {
      throw new Error(`${join(TEST_DIST, f)} is missing: run \`make test-browser\`, which builds the test module first`);
    }
  }
  const site = mkdtempSync(join(tmpdir(), 'skillfs-test-site-'));
  writeFileSync(join(site, 'index.html'), INDEX_HTML);
  for (const [name, src] of Object.entries(WORKERS)) writeFileSync(join(site, name), src);
  let server;
  let browser;
  const pageErrors = [];
  const close = async () => {
    await browser?.close();
    await server?.close();
    rmSync(site, { recursive: true, force: true });
  };
  try {
    server = await serve({ root: site, routes: { '/dist/': TEST_DIST } });
    // Console output is collected, not printed: the panic test makes the
    // module log a stack on purpose. Uncaught page errors fail the tests.
    browser = await launch({ timeoutMs: STEP_MS, forwardConsole: false });
    const consoleLines = [];
    const watch = (page) => {
      page.on('pageerror', (err) => pageErrors.push(err));
      page.on('console', (msg) => consoleLines.push(`[${msg.type()}] ${msg.text()}`));
    };
    browser.context.on('page', watch);
    watch(browser.page);
    return {
      url: server.url,
      context: browser.context,
      firstPage: browser.page,
      pageErrors,
      consoleLines,
      /** Opens the test page in page (a new tab when omitted) and waits for the bridge. */
      async openPage(page) {
        page ??= await withTimeout(browser.context.newPage(), STEP_MS, 'new page');
        await gotoReady(page, new URL('index.html', server.url).href);
        return page;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Loads url in page and waits until the test page says it is ready. */
export async function gotoReady(page, url) {
  const resp = await page.goto(url, { waitUntil: 'load', timeout: STEP_MS });
  if (!resp?.ok()) throw new Error(`GET ${url}: HTTP ${resp?.status()}`);
  await page.waitForFunction('window.ready === true', undefined, { timeout: STEP_MS, polling: 20 });
}

/** page.evaluate with a time limit (playwright's evaluate has none). */
export function ev(page, fn, arg, ms = STEP_MS) {
  return withTimeout(page.evaluate(fn, arg), ms, `page.evaluate(${fn.name || 'fn'})`);
}

/** Closes a tab, within STEP_MS; never throws. */
export function closePage(page) {
  return withTimeout(page.close(), STEP_MS, 'page.close').catch(() => {});
}

let dbCounter = 0;
/** A database name no other test uses. */
export function freshDB(what) {
  return `skillfs-test-${what}-${process.pid}-${++dbCounter}-${Date.now()}`;
}

// ---- Archives and expected values, computed in Node. ----

const enc = new TextEncoder();
const bytesOf = (v) => (typeof v === 'string' ? enc.encode(v) : v);

/** A zip of files {entry name: string | Uint8Array}, in that order. */
export function zip(files) {
  const input = {};
  for (const [name, data] of Object.entries(files)) input[name] = [bytesOf(data), { mtime: new Date('2025-01-02T03:04:05Z') }];
  return zipSync(input, { level: 6 });
}

export const b64 = (u8) => Buffer.from(u8).toString('base64');
export const fromB64 = (s) => new Uint8Array(Buffer.from(s, 'base64'));

/**
 * The digest pkg/registry documents (Meta.Digest): "sha256:" and the hex
 * SHA-256 of, for each regular file in byte order of path, the path, a NUL,
 * the length as 8 big-endian bytes, and the contents.
 */
export function digestOf(files) {
  const h = createHash('sha256');
  const paths = Object.keys(files).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const p of paths) {
    const data = bytesOf(files[p]);
    const len = Buffer.alloc(8);
    len.writeBigUInt64BE(BigInt(data.length));
    h.update(Buffer.from(p));
    h.update(Buffer.from([0]));
    h.update(len);
    h.update(data);
  }
  return `sha256:${h.digest('hex')}`;
}

export const sizeOf = (files) => Object.values(files).reduce((n, v) => n + bytesOf(v).length, 0);

/** A SKILL.md with name and description. */
export const skillMD = (name, description, body = `# ${name}\n`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

/** Every byte value once: a file that is not text. */
export const BINARY = Uint8Array.from({ length: 256 }, (_, i) => i);

/** The files of skill "alpha" and "beta", relative to their folders. */
export const ALPHA = {
  'SKILL.md': skillMD('alpha', 'Alpha does the first thing.', '# Alpha\n\nRun scripts/run.py.\n'),
  'scripts/run.py': "print('alpha')\n",
};
export const BETA = {
  'SKILL.md': skillMD('beta', 'Beta does the second thing.'),
  'assets/logo.png': BINARY,
  'references/notes.md': 'Notes.\n',
};

/** The files under dir on disk, {relative path: bytes}, in name order. */
export function filesOf(dir, base = dir, out = {}) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) filesOf(p, base, out);
    else out[relative(base, p)] = new Uint8Array(readFileSync(p));
  }
  return out;
}

/** files under prefix: {"pack/alpha/" + path: data}. */
export const under = (prefix, files) =>
  Object.fromEntries(Object.entries(files).map(([p, d]) => [prefix + p, d]));

/** A pack of alpha and beta in one wrapper folder, with macOS clutter. */
export function packZip() {
  return zip({ ...under('pack/alpha/', ALPHA), ...under('pack/beta/', BETA), 'pack/.DS_Store': 'junk' });
}

/**
 * Asserts that outcome (from T.outcome in the page) is a rejection with a
 * SkillfsError of exactly code, reason and subject; returns the error.
 */
export function assertRejected(outcome, { code, reason, subject }, what = '') {
  assert.equal(outcome.ok, false, `${what}: expected a rejection with ${code}, got ${JSON.stringify(outcome.value)?.slice(0, 300)}`);
  const e = outcome.error;
  assert.equal(e.isSkillfsError, true, `${what}: not a SkillfsError instance: ${JSON.stringify(e)}`);
  assert.equal(e.isError, true, `${what}: not an Error`);
  assert.equal(e.name, 'SkillfsError', what);
  assert.deepEqual({ code: e.code, reason: e.reason, subject: e.subject }, { code, reason, subject }, `${what}: ${e.message}`);
  return e;
}

/** Asserts that outcome is a success and returns its value. */
export function assertOk(outcome, what = '') {
  assert.equal(outcome.ok, true, `${what}: rejected: ${JSON.stringify(outcome.error)}`);
  return outcome.value;
}
