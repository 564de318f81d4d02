// skillfs as a new user gets it: `npm pack` of this repository, the
// tarball installed into a fresh project in a temporary directory (with
// the frameworks the adapters' types name, from npm's cache when it has
// them), type-checked with strict, moduleResolution bundler,
// exactOptionalPropertyTypes and noUncheckedIndexedAccess, bundled by
// esbuild, and run in Chromium. `make test-package` builds dist/ first.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { zipSync } from 'fflate';
import { launch, serve, withTimeout } from '../harness/index.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const BIN = join(REPO, 'node_modules/.bin');
const STEP_MS = 60_000;
const dev = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).devDependencies;

const dir = mkdtempSync(join(tmpdir(), 'skillfs-consumer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(cmd, args, cwd) {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 5 * 60_000 });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')}: ${String(e.stdout ?? '').slice(0, 3000)}${String(e.stderr ?? '').slice(0, 3000)}`);
  }
}

// dist/ is built, not committed: npm pack before make build (or after a
// source changed) must not make a package without it, or with an old one.
test('npm pack refuses a missing or stale dist/, saying to run make build', { timeout: 5 * 60_000 }, () => {
  const empty = mkdtempSync(join(tmpdir(), 'skillfs-nodist-'));
  try {
    // The Makefile's DIST, pointed at an empty folder (MAKEFLAGS passes it to the prepack's make).
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'],
      { cwd: REPO, encoding: 'utf8', env: { ...process.env, MAKEFLAGS: `DIST=${empty}` }, timeout: 5 * 60_000 });
    assert.notEqual(r.status, 0, `npm pack packed without dist/: ${r.stdout.slice(0, 2000)}`);
    assert.match(r.stderr, /npm pack: dist\/ is missing or older than its sources \(it is built, not committed\): run make build first/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('npm pack, install the tarball in a fresh project, type-check, bundle and run it', { timeout: 10 * 60_000 }, async () => {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dir, '--loglevel=error'], REPO))[0];
  const files = packed.files.map((f) => f.path).sort();
  for (const f of ['LICENSE', 'package.json', 'dist/bridge.js', 'dist/bridge.d.ts', 'dist/skillfs.wasm', 'dist/wasm_exec.js',
    'dist/agent.js', 'dist/ai-sdk.js', 'dist/openai-agents.js', 'dist/mcp.js']) {
    assert.ok(files.includes(f), `the tarball has ${f}: ${files.join(', ')}`);
  }
  assert.ok(!files.some((f) => f.startsWith('dist/demo/') || f.startsWith('js/') || f.startsWith('web/')), 'nothing but dist ships');
  // dist/wasi-worker.js bundles the WASI shim, so nothing installs it.
  const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(manifest.dependencies ?? {}), [], 'no run-time dependencies');
  for (const f of files.filter((f) => /\.(js|d\.ts)$/.test(f))) {
    assert.doesNotMatch(readFileSync(join(REPO, f), 'utf8'), /(from|import\()\s*["']@bjorn3\//, `${f} imports the shim it bundles`);
  }

  const app = join(dir, 'app');
  run('mkdir', ['-p', app]);
  for (const f of ['main.ts', 'frameworks.ts', 'tsconfig.json', 'tsconfig.frameworks.json', 'index.html']) copyFileSync(join(HERE, 'consumer', f), join(app, f));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error',
    join(dir, packed.filename), `ai@${dev.ai}`, `@openai/agents-core@${dev['@openai/agents-core']}`], app);

  run(join(BIN, 'tsc'), ['-p', 'tsconfig.json'], app);
  run(join(BIN, 'tsc'), ['-p', 'tsconfig.frameworks.json'], app);
  run(join(BIN, 'esbuild'), ['main.ts', '--bundle', '--format=esm', '--target=es2022', '--log-level=warning', '--outfile=out.js'], app);
  // esbuild leaves new URL("./skillfs.wasm", import.meta.url) as it is:
  // the wasm goes beside the bundle (Vite and webpack copy it themselves).
  copyFileSync(join(app, 'node_modules/skillfs/dist/skillfs.wasm'), join(app, 'skillfs.wasm'));

  const pack = zipSync({ 'pack/hello/SKILL.md': new TextEncoder().encode('---\nname: hello\ndescription: Say hello. Use when greeted.\n---\n# Hello\n') });
  const server = await serve({ root: app });
  const browser = await launch({ timeoutMs: STEP_MS });
  try {
    const page = browser.page;
    await page.goto(new URL('index.html', server.url).href, { timeout: STEP_MS });
    await page.waitForFunction('typeof globalThis.run === "function"', undefined, { timeout: STEP_MS });
    const r = await withTimeout(page.evaluate((b) => globalThis.run(Uint8Array.from(b)), [...pack]), STEP_MS, 'consumer run');
    assert.deepEqual(r.imported, ['hello']);
    assert.match(r.turn.instructions, /<available_skills>[\s\S]*hello[\s\S]*load_skill/);
    assert.deepEqual(r.turn.activeTools.sort(), ['Bash', 'load_skill', 'read_skill_file']);
    assert.match(r.reference, /^---\nname: hello/);
    assert.equal(r.mediaType, 'text/markdown; charset=utf-8');
    assert.equal(r.code, 'PathRejected');
    assert.match(r.escape, /^Error: PathRejected/);
    assert.deepEqual(browser.pageErrors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});
