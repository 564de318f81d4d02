// Real repository downloads install through the bridge in Chromium: every
// skill of each of the six GitHub "Download ZIP"s (found through
// web/harness/realrepos.mjs; skipped, saying so, where they are absent),
// and always the committed generated download that reproduces their
// structures (links outside skills, hidden folders, CRLF, nested zips).
// A link inside a skill fails the import, named, and writes nothing.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { realRepos } from '../harness/realrepos.mjs';
import { REPO, assertOk, assertRejected, b64, closePage, ev, freshDB, startBrowser } from './helpers.mjs';

// An import of a 5 MB download with 134 skills takes seconds; on a shared
// machine, give it minutes.
const IMPORT_MS = 180_000;
const GENERATED = join(REPO, 'internal/realrepos/testdata');
// Keep in step with internal/realrepos: GeneratedSkills and LinkInSkill.
const GENERATED_SKILLS = 7;
const LINK_IN_SKILL = 'skills-main/skills/pdf/forms/current.md';

/** @type {Awaited<ReturnType<typeof startBrowser>>} */
let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

/** Imports bytes into a fresh database; returns T.outcome of importZip and the list after it. */
async function importFresh(t, what, bytes) {
  const page = await b.openPage();
  t.after(() => closePage(page));
  return ev(page, async ([db, z]) => {
    const sk = await T.load(db);
    const out = await T.outcome(sk.registry.importZip(T.fromB64(z), { source: 'download.zip' }));
    const listed = (await sk.registry.list()).length;
    return { out, listed };
  }, [freshDB(what), b64(bytes)], IMPORT_MS);
}

test('the generated download installs every skill; its links outside skills are dropped and listed', { timeout: IMPORT_MS }, async (t) => {
  const { out, listed } = await importFresh(t, 'generated', readFileSync(join(GENERATED, 'generated+skills.zip')));
  const res = assertOk(out, 'import of the generated download');
  assert.equal(res.skills.length, GENERATED_SKILLS);
  assert.equal(listed, GENERATED_SKILLS);
  for (const link of ['skills-main/AGENTS.md', 'skills-main/plugins/modern-python/hooks/shims/pip3', 'skills-main/plugins/modern-python/hooks/shims/python3']) {
    assert.ok(res.dropped.includes(link), `${link} not in dropped: ${res.dropped}`);
  }
  const crlf = res.skills.find((s) => s.id === 'crlf-notes');
  assert.equal(crlf?.description, 'Notes written on Windows, with CRLF line breaks.');
});

test('a link inside a skill fails the import, named, and nothing is written', { timeout: IMPORT_MS }, async (t) => {
  const { out, listed } = await importFresh(t, 'link', readFileSync(join(GENERATED, 'generated+skills-link-in-skill.zip')));
  assertRejected(out, { code: 'InvalidArchive', reason: 'symlink', subject: LINK_IN_SKILL }, 'import with a link in a skill');
  assert.equal(listed, 0);
});

const { repos, skipReason } = realRepos();
test('every skill of the real repository downloads installs', { skip: skipReason, timeout: repos.length * IMPORT_MS }, async (t) => {
  let total = 0;
  for (const r of repos) {
    await t.test(r.name, { timeout: IMPORT_MS }, async (t) => {
      const { out, listed } = await importFresh(t, r.name, readFileSync(r.path));
      const res = assertOk(out, `import of ${r.name}`);
      if (r.skills) assert.equal(res.skills.length, r.skills, r.name);
      assert.equal(listed, res.skills.length);
      total += res.skills.length;
    });
  }
  t.diagnostic(`${total} skills installed from ${repos.length} downloads`);
});

/** What the database db holds, read by IndexedDB itself: the skills with a
 * record, and those whose tree (directory, file records, contents) has
 * none or whose record has no tree. */
function storeOf(page, db) {
  return ev(page, async (db) => {
    const idb = await new Promise((resolve, reject) => {
      const r = indexedDB.open(db);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const keys = (s) => new Promise((resolve, reject) => {
      const r = idb.transaction(s).objectStore(s).getAllKeys();
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const [meta, files, blobs] = [await keys('meta'), await keys('files'), await keys('blobs')];
    idb.close();
    const ids = new Set(meta);
    // Keys (pkg/vfs tree.go): "//id" a skill's directory, "id/..." below it.
    const dirs = files.filter((k) => k.startsWith('//')).map((k) => k.slice(2));
    const owners = (ks) => [...new Set(ks.filter((k) => !k.startsWith('//') && !k.startsWith('retained:')).map((k) => k.split('/')[0]))];
    return {
      records: meta.length,
      orphans: [...new Set([...dirs, ...owners(files), ...owners(blobs)])].filter((id) => !ids.has(id)),
      treeless: meta.filter((id) => !dirs.includes(id)),
    };
  }, db, IMPORT_MS);
}

/** Imports bytes into a fresh database in one tab, closes the tab as its
 * import of renamed copies begins its commit, and checks the store in
 * another: whole whichever way the commit went, and open to the next
 * import. */
async function closeMidCommit(t, what, bytes, skills) {
  const db = freshDB(what);
  const a = await b.openPage();
  t.after(() => closePage(a));
  await ev(a, async ([db, z]) => {
    window.sk = await T.load(db);
    await sk.registry.importZip(T.fromB64(z));
    // Copies have new ids: no old tree is deleted, and none may be left.
    window.committing = false;
    void sk.registry.importZip(T.fromB64(z), { copy: true, onProgress: (p) => (window.committing ||= p.phase === 'commit') }).catch(() => {});
  }, [db, b64(bytes)], IMPORT_MS);
  await a.waitForFunction('window.committing', undefined, { timeout: IMPORT_MS, polling: 1 });
  await closePage(a);
  const c = await b.openPage();
  t.after(() => closePage(c));
  const stored = await storeOf(c, db);
  assert.deepEqual([stored.orphans, stored.treeless], [[], []], 'every tree beside its record, every record beside its tree');
  assert.ok(stored.records === skills || stored.records === 2 * skills, `${stored.records} records`);
  const out = await ev(c, async ([db, z]) => {
    const sk = await T.load(db);
    const listed = (await sk.registry.list()).length;
    const again = await T.outcome(sk.registry.importZip(T.fromB64(z), { copy: true }));
    return { listed, again, after: (await sk.registry.list()).length };
  }, [db, b64(bytes)], IMPORT_MS);
  assert.equal(out.listed, stored.records);
  assert.equal(assertOk(out.again, 'the next import').skills.length, skills);
  assert.equal(out.after, stored.records + skills);
  assert.deepEqual((await storeOf(c, db)).orphans, []);
}

test('a tab closed as its import of the generated download commits leaves the store whole', { timeout: 2 * IMPORT_MS }, async (t) => {
  await closeMidCommit(t, 'closed-generated', readFileSync(join(GENERATED, 'generated+skills.zip')), GENERATED_SKILLS);
});

const largest = repos.find((r) => r.name === 'K-Dense-AI+claude-scientific-skills');
test('a tab closed as its import of the largest real download commits leaves the store whole', {
  skip: skipReason || (!largest && 'SKIPPED: no K-Dense-AI+claude-scientific-skills.zip among the real downloads'),
  timeout: 2 * IMPORT_MS,
}, async (t) => {
  await closeMidCommit(t, 'closed-real', readFileSync(largest.path), largest.skills);
});
