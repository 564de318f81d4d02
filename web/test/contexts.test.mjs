// skillfs across browser contexts of one origin: the same database after a
// reload, a second tab told of the first one's changes through onChange,
// and the module running in a dedicated Worker, off the main thread.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  ALPHA, BETA, STEP_MS, TEST_MS, assertOk, assertRejected, b64, closePage, digestOf, ev, freshDB, packZip, skillMD, startBrowser, zip,
} from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startBrowser>>} */
let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

async function tab(t) {
  const page = await b.openPage();
  t.after(() => closePage(page));
  return page;
}

/** Loads skillfs on db as window.sk in page; window.changes collects sk.onChange. */
function load(page, db) {
  return ev(page, async (db) => {
    window.sk = await T.load(db);
    window.heard = T.collect((c) => sk.onChange(c));
    window.changes = heard.list;
  }, db);
}

/** page's window.changes once it has n entries. */
function changesAfter(page, n) {
  return ev(page, (n) => heard.atLeast(n), n);
}

const list = (page) => ev(page, () => sk.registry.list());

// ---- 5. Persistence. ----

test('a reload keeps the skills: same database, same records and digests', { timeout: TEST_MS }, async (t) => {
  const page = await tab(t);
  const db = freshDB('reload');
  await load(page, db);
  const r = assertOk(await ev(page, (z) => T.outcome(sk.registry.importZip(T.fromB64(z), { source: 'pack.zip' })), b64(packZip())));
  assert.deepEqual(r.skills.map((s) => [s.id, s.digest]), [['alpha', digestOf(ALPHA)], ['beta', digestOf(BETA)]]);
  await ev(page, () => sk.registry.setEnabled('beta', false));
  const before = await list(page);

  await page.reload({ waitUntil: 'load', timeout: STEP_MS });
  await page.waitForFunction('window.ready === true && window.sk === undefined', undefined, { timeout: STEP_MS, polling: 20 });
  await load(page, db);
  const afterReload = await list(page);
  assert.deepEqual(afterReload, before, 'list() after the reload is what it was, records and all');
  assert.deepEqual(afterReload.map((s) => [s.id, s.digest, s.enabled]), [
    ['alpha', digestOf(ALPHA), true], ['beta', digestOf(BETA), false],
  ]);
  assert.equal(await ev(page, () => sk.registry.revision()), 2);
  assert.equal(await ev(page, () => sk.registry.readText('alpha', 'scripts/run.py')), ALPHA['scripts/run.py']);

  // Another database of the same origin is another registry.
  await load(page, freshDB('reload-other'));
  assert.deepEqual(await list(page), []);
});

// ---- 6. A second tab. ----

test('a second tab hears the first one\'s import through onChange, and lists it', { timeout: TEST_MS }, async (t) => {
  const db = freshDB('tabs');
  const a = await tab(t);
  const bb = await tab(t);
  await load(a, db);
  await load(bb, db);
  // B lists first, so it has a cached (empty) list the change must drop.
  assert.deepEqual(await list(bb), []);
  assert.deepEqual(await list(a), []);

  const r = assertOk(await ev(a, (z) => T.outcome(sk.registry.importZip(T.fromB64(z))), b64(packZip())));
  assert.equal(r.revision, 1);
  const heard = await changesAfter(bb, 1);
  assert.deepEqual(heard, [{ kind: 'import', ids: ['alpha', 'beta'], revision: 1 }]);
  assert.deepEqual((await list(bb)).map((s) => [s.id, s.digest]), [['alpha', digestOf(ALPHA)], ['beta', digestOf(BETA)]]);
  assert.deepEqual(await list(bb), await list(a), 'both tabs list the same records');

  // And back: B's change reaches A, whose cached list it drops.
  assert.equal((await ev(bb, () => sk.registry.setEnabled('alpha', false))).enabled, false);
  assert.deepEqual(await changesAfter(a, 2), [
    { kind: 'import', ids: ['alpha', 'beta'], revision: 1 },
    { kind: 'disable', ids: ['alpha'], revision: 2 },
  ], 'A heard its own import, then B\'s change');
  assert.equal((await ev(a, () => sk.registry.get('alpha'))).enabled, false);
  assert.deepEqual((await list(a)).map((s) => s.enabled), [false, true]);
  // Revisions stay one sequence across the tabs.
  assert.equal(await ev(a, () => sk.registry.revision()), 2);
  assert.deepEqual(await changesAfter(bb, 2), [
    { kind: 'import', ids: ['alpha', 'beta'], revision: 1 },
    { kind: 'disable', ids: ['alpha'], revision: 2 },
  ]);
  assert.deepEqual(b.pageErrors, []);
});

test('a tab\'s change never broadcast (the tab closed between its commit and its post) is in the other tab\'s next list', { timeout: TEST_MS }, async (t) => {
  const db = freshDB('unheard');
  const a = await tab(t);
  const bb = await tab(t);
  // A's posts never leave, as if A closed right after each commit.
  await ev(a, () => { BroadcastChannel.prototype.postMessage = () => {}; });
  await load(a, db);
  await load(bb, db);
  assert.deepEqual(await list(bb), [], 'B lists first: its list is cached');

  assertOk(await ev(a, (z) => T.outcome(sk.registry.importZip(T.fromB64(z))), b64(packZip())));
  assert.deepEqual((await list(bb)).map((s) => s.id), ['alpha', 'beta']);
  assert.equal((await ev(a, () => sk.registry.setEnabled('alpha', false))).enabled, false);
  assert.deepEqual((await list(bb)).map((s) => [s.id, s.enabled]), [['alpha', false], ['beta', true]]);
  await ev(a, () => sk.registry.remove('beta'));
  assert.deepEqual(await list(bb), await list(a), 'both tabs list the same records');
  assert.deepEqual(await ev(bb, () => changes), [], 'B heard nothing');
  assert.deepEqual(b.pageErrors, []);
});

test('two tabs\' bulk changes at once: each batch commits whole or not at all, and both tabs see the one outcome', { timeout: TEST_MS }, async (t) => {
  const db = freshDB('bulk-tabs');
  const a = await tab(t);
  const bb = await tab(t);
  await load(a, db);
  await load(bb, db);
  const ids = Array.from({ length: 30 }, (_, i) => `s${String(i).padStart(2, '0')}`);
  const files = Object.fromEntries(ids.map((id) => [`${id}/SKILL.md`, skillMD(id, `Does ${id}.`)]));
  assertOk(await ev(a, (z) => T.outcome(sk.registry.importZip(T.fromB64(z))), b64(zip(files))));
  await changesAfter(bb, 1);
  await list(a);
  await list(bb);
  // A removes s00..s14 while B disables s10..s29: the registry's lock
  // orders them. B first: both commit. A first: B's batch names removed
  // skills and changes nothing.
  const [removed, disabled] = await Promise.all([
    ev(a, (gone) => T.outcome(sk.registry.removeMany(gone)), ids.slice(0, 15)),
    ev(bb, (off) => T.outcome(sk.registry.setEnabledMany(off, false)), ids.slice(10)),
  ]);
  assertOk(removed, 'removeMany');
  t.diagnostic(disabled.ok ? 'the disable committed first' : 'the remove committed first');
  const left = ids.slice(15);
  const want = disabled.ok
    ? [{ kind: 'import', ids, revision: 1 }, { kind: 'disable', ids: ids.slice(10), revision: 2 }, { kind: 'remove', ids: ids.slice(0, 15), revision: 3 }]
    : [{ kind: 'import', ids, revision: 1 }, { kind: 'remove', ids: ids.slice(0, 15), revision: 2 }];
  if (!disabled.ok) assertRejected(disabled, { code: 'SkillNotFound', reason: 'not-installed', subject: 's10' }, 'the later batch');
  assert.deepEqual(await changesAfter(a, want.length), want);
  assert.deepEqual(await changesAfter(bb, want.length), want);
  for (const page of [a, bb]) {
    assert.deepEqual((await list(page)).map((m) => [m.id, m.enabled]), left.map((id) => [id, !disabled.ok]));
    assert.equal(await ev(page, () => sk.registry.revision()), want.length);
  }
  assert.deepEqual(b.pageErrors, []);
});

// ---- 7. A dedicated Worker. ----

/**
 * Starts worker script (see helpers.mjs) in page, has it load skillfs on db
 * with opts and import the pack, and returns its answer; meanwhile the page
 * itself has skillfs loaded on the same db and collects its changes.
 */
async function inWorker(page, script, type, db, extraOpts = {}) {
  await load(page, db);
  return ev(page, async ([script, type, db, z, extraOpts]) => {
    const w = new Worker(script, { type });
    try {
      return await new Promise((resolve, reject) => {
        w.onerror = (e) => reject(new Error(`${script}: ${e.message}`));
        w.onmessage = (e) => {
          if (e.data.started) {
            w.postMessage({ opts: { wasmURL: '/dist/skillfs.wasm', dbName: db, ...extraOpts }, zip: z });
            return;
          }
          resolve(e.data);
        };
      });
    } finally {
      w.terminate();
    }
  }, [script, type, db, b64(packZip()), extraOpts], 20000);
}

async function assertWorkerImported(page, out) {
  assert.equal(out.ok, true, `the worker failed: ${JSON.stringify(out.error)}`);
  assert.equal(out.hasDocument, false, 'no document: not the main thread');
  assert.equal(out.isWorker, true, 'a WorkerGlobalScope');
  assert.deepEqual(out.imported, ['alpha', 'beta']);
  assert.equal(out.revision, 1);
  assert.deepEqual(out.progress.map((p) => p.phase), ['prepare', 'prepare', 'commit', 'done']);
  assert.deepEqual(out.list, [{ id: 'alpha', digest: digestOf(ALPHA) }, { id: 'beta', digest: digestOf(BETA) }]);
  // The page, on the same database, hears the worker's import and lists it.
  assert.deepEqual(await changesAfter(page, 1), [{ kind: 'import', ids: ['alpha', 'beta'], revision: 1 }]);
  assert.deepEqual((await list(page)).map((s) => [s.id, s.digest]), [['alpha', digestOf(ALPHA)], ['beta', digestOf(BETA)]]);
}

test('a module worker that imports wasm_exec.js itself runs skillfs off the main thread', { timeout: TEST_MS }, async (t) => {
  const page = await tab(t);
  const out = await inWorker(page, '/worker-module-preload.js', 'module', freshDB('worker-preload'));
  await assertWorkerImported(page, out);
});

test('a classic worker (importScripts wasm_exec.js, import() of the bridge) runs skillfs', { timeout: TEST_MS }, async (t) => {
  const page = await tab(t);
  const out = await inWorker(page, '/worker-classic.js', 'classic', freshDB('worker-classic'), { wasmExecURL: '/dist/wasm_exec.js' });
  await assertWorkerImported(page, out);
});

test('a module worker can let loadSkillfs load wasm_exec.js from wasmExecURL', {
  timeout: TEST_MS,
}, async (t) => {
  const page = await tab(t);
  const out = await inWorker(page, '/worker-module.js', 'module', freshDB('worker-module'), { wasmExecURL: '/dist/wasm_exec.js' });
  await assertWorkerImported(page, out);
});

// ---- Listeners that throw. ----

test('a throwing onChange listener fails neither the change that committed nor the other tabs', {
  timeout: TEST_MS,
}, async (t) => {
  const db = freshDB('throw-own');
  const a = await tab(t);
  const other = await tab(t);
  await load(a, db);
  await load(other, db);
  assert.deepEqual(await list(other), [], 'the other tab has a cached, empty list');
  await ev(a, () => { sk.onChange(() => { throw new Error('a listener with a bug'); }); });
  const r = await ev(a, (z) => T.outcome(sk.registry.importZip(T.fromB64(z))), b64(packZip()));
  assert.equal(await ev(a, () => sk.registry.revision()), 1, 'the import committed');
  assertOk(r, 'the import that committed');
  assert.deepEqual(await changesAfter(other, 1), [{ kind: 'import', ids: ['alpha', 'beta'], revision: 1 }]);
  assert.deepEqual((await list(other)).map((s) => s.id), ['alpha', 'beta'], 'the other tab is not left with a stale list');
});

test('a throwing onChange listener in the tab that hears a change does not end its module', {
  timeout: TEST_MS,
}, async (t) => {
  const db = freshDB('throw-heard');
  const a = await tab(t);
  const other = await tab(t);
  await load(a, db);
  await load(other, db);
  // A listener after the throwing one, in the same dispatch: once the
  // throwing one has run, that dispatch is over.
  await ev(other, () => {
    window.threw = T.collect((thrown) => sk.onChange(() => {
      thrown();
      throw new Error('a listener with a bug');
    }));
    window.next = T.collect((c) => sk.onChange(c));
  });
  assertOk(await ev(a, (z) => T.outcome(sk.registry.importZip(T.fromB64(z))), b64(packZip())));
  const heard = await ev(other, async () => {
    await threw.atLeast(1);
    return { changes: next.list, list: await T.outcome(sk.registry.list()) };
  });
  assert.deepEqual(heard.changes, [{ kind: 'import', ids: ['alpha', 'beta'], revision: 1 }], 'the next listener still hears it');
  assert.deepEqual(assertOk(heard.list, 'list() in the tab whose listener threw').map((s) => s.id), ['alpha', 'beta']);
});
