// Every registry call of js/bridge.ts through the direct transport
// (loadSkillfs in a page of real Chromium), its error codes, and a panic
// in the module. Each test opens its own tab and its own database.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { unzipSync } from 'fflate';
import {
  ALPHA, BETA, BINARY, STEP_MS, TEST_MS, assertOk, assertRejected, b64, closePage, digestOf, ev, freshDB, fromB64,
  gotoReady, packZip, sizeOf, skillMD, startBrowser, under, withTimeout, zip,
} from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startBrowser>>} */
let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

/**
 * Opens a tab with skillfs loaded on a fresh database (window.dbName) as
 * window.sk, its changes collected in window.changes; with pack, alpha and
 * beta imported.
 */
async function fresh(t, what, { pack = true } = {}) {
  const page = await b.openPage();
  t.after(() => closePage(page));
  await ev(page, async (db) => {
    window.dbName = db;
    window.sk = await T.load(db);
    window.changes = [];
    window.sk.onChange((c) => window.changes.push(c));
  }, freshDB(what));
  if (pack) {
    const res = await importZip(page, packZip(), { source: 'pack.zip' });
    assertOk(res, 'import of the pack');
  }
  return page;
}

/** sk.registry.importZip(bytes, opts) in page, progress events collected. */
function importZip(page, bytes, opts = {}) {
  return ev(page, async ([z, opts]) => {
    const progress = [];
    const out = await T.outcome(sk.registry.importZip(T.fromB64(z), { ...opts, onProgress: (p) => progress.push(p) }));
    return { ...out, progress };
  }, [b64(bytes), opts]);
}

/** Runs sk.registry[method](...args) in page and returns T.outcome of it. */
function reg(page, method, ...args) {
  return ev(page, ([m, a]) => T.outcome(sk.registry[m](...a)), [method, args]);
}

/** The value of a registry call that must succeed. */
async function ok(page, method, ...args) {
  return assertOk(await reg(page, method, ...args), `${method}(${JSON.stringify(args).slice(1, -1)})`);
}

const revision = (page) => ok(page, 'revision');
const changes = (page) => ev(page, () => window.changes);
const readB64 = (page, id, path) => ev(page, async ([id, path]) => T.toB64(await sk.registry.readFile(id, path)), [id, path]);

/** The record pkg/registry keeps for a skill of files, times left out. */
function expectedMeta(id, files, description, source) {
  const count = Object.keys(files).length;
  return {
    id, name: id, description, location: `/skills/${id}/SKILL.md`, baseDir: `/skills/${id}/`, source, origin: null,
    enabled: true, version: '', digest: digestOf(files), size: sizeOf(files), fileCount: count,
    allowedTools: [], userInvocable: true, disableModelInvocation: false,
    dependencies: { tools: [], mcp: [], skills: [] }, triggers: [], antiTriggers: [], whenToUse: '',
    argumentHint: '', arguments: [], costHint: 'medium', parallelSafe: false, always: false, diagnostics: [],
    ...headingsOf(files['SKILL.md']),
  };
}

/** The headings key of a record: its SKILL.md's section titles, absent when none. */
function headingsOf(md) {
  const headings = [...md.split('\n---\n').slice(1).join('\n---\n').matchAll(/^#{1,6} +(.+)$/gm)].map((m) => m[1].trim());
  return headings.length ? { headings } : {};
}

/** A record without what differs from one install to the next. */
const withoutTimes = ({ createdAt, updatedAt, instance, ...rest }) => rest;

// ---- 1. Every registry call. ----

test('previewZip says what each skill of an archive is, stores nothing; importZip installs what was chosen', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'preview');
  const rev = await revision(page);
  const gamma = { 'SKILL.md': skillMD('gamma', 'Gamma does a third thing.') };
  const beta2 = { ...BETA, 'references/notes.md': 'Other notes.\n' };
  const bytes = zip({ ...under('pack/alpha/', ALPHA), ...under('pack/beta/', beta2), ...under('pack/gamma/', gamma), 'pack/.DS_Store': 'junk' });
  const preview = (z) => ev(page, (z) => T.outcome(sk.registry.previewZip(T.fromB64(z))), b64(z));
  const p = assertOk(await preview(bytes), 'previewZip');
  assert.deepEqual(p.skills.map((s) => [s.name, s.status, s.installed, s.dir, s.fileCount]), [
    ['alpha', 'installed', 'alpha', 'pack/alpha', 2],
    ['beta', 'conflict', 'beta', 'pack/beta', 3],
    ['gamma', 'new', '', 'pack/gamma', 1],
  ]);
  assert.equal(p.skills[2].description, 'Gamma does a third thing.');
  assert.equal(p.skills[0].digest, digestOf(ALPHA));
  assert.deepEqual(p.dropped, ['pack/.DS_Store']);
  assert.equal(await revision(page), rev, 'a preview commits nothing');
  // The notes of a choice (none here: nothing depends on a disabled
  // skill) are asked of the preview alone; a choice other than rename and
  // replace is refused.
  const notes = (choose) => ev(page, ({ p, choose }) => T.outcome(sk.registry.previewNotes(p, choose)), { p, choose });
  assert.deepEqual(assertOk(await notes({ beta: 'replace', gamma: 'rename' }), 'previewNotes'), {});
  assertRejected(await notes({ beta: 'fail' }), { code: 'InvalidArgument', reason: 'on-conflict', subject: 'beta' });

  // alpha unticked; beta kept beside the installed one; gamma installed.
  // alpha, installed byte for byte, is said to be so, not skipped.
  const r = assertOk(await importZip(page, bytes, { choose: { beta: 'rename', gamma: 'rename' } }), 'importZip with choose');
  assert.deepEqual(r.skills.map((s) => s.id), ['beta-v2', 'gamma']);
  assert.deepEqual([r.alreadyInstalled, r.skipped], [['alpha'], undefined]);
  // Left out, beta (another version) is skipped.
  const left = assertOk(await importZip(page, bytes, { choose: { alpha: 'rename' } }), 'importZip with choose');
  assert.deepEqual([left.skills, left.alreadyInstalled, left.skipped], [[], ['alpha', 'gamma'], ['beta']]);
  assertRejected(await importZip(page, bytes, { choose: { delta: 'rename' } }), { code: 'InvalidArgument', reason: 'not-in-archive', subject: 'delta' });
  // Given the preview the choice was made from, a choice that no longer
  // holds (beta, to update, was changed since) installs nothing.
  assertOk(await importZip(page, zip(under('beta/', { 'SKILL.md': skillMD('beta', 'Changed since.') })), { onConflict: 'replace' }));
  const rev2 = await revision(page);
  assertRejected(await importZip(page, bytes, { choose: { beta: 'replace' }, preview: p }), { code: 'Conflict', reason: 'changed-since-preview', subject: 'beta' });
  assert.equal(await revision(page), rev2);
  const bad = await preview(new TextEncoder().encode('not a zip'));
  assert.equal(bad.error?.code, 'InvalidArchive', JSON.stringify(bad));
});

test('previewPart: the notes previewNotes gives a part of a preview, under any choice, are those of the whole preview for its skills; a skill that can change no note has no part', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'preview-part', { pack: false });
  const got = await ev(page, async () => {
    const row = (name, dependencies, status = 'new', installed = '') => ({ dir: name, folder: '', name, description: name, size: 1, fileCount: 1, digest: '', status, installed, diagnostics: [], dependencies });
    const preview = {
      dropped: [],
      installedSkills: { off: { enabled: false, noted: false }, on: { enabled: true, noted: false }, x: { enabled: false, noted: true }, y: { enabled: true, noted: false } },
      skills: [
        row('a', ['off']), row('b', ['a']), // a chain on a disabled skill
        row('c', [], 'conflict', 'x'), row('d', ['x']), // d depends on what c may update
        row('e', ['on']), row('f', []), // alone; and in no part at all
        row('g', ['off'], 'installed', 'y'), row('h', ['y']), // h depends on what g is (copied or not)
        row('i', ['j']), row('j', ['off']), row('k', ['off']), // two on off, not joined by it
      ],
    };
    const { previewPart } = T.bridge;
    const parts = Object.fromEntries(preview.skills.map((s) => [s.name, previewPart(preview, s.name)?.skills.map((r) => r.name) ?? null]));
    // Every choice of a seeded sequence: each skill skipped, kept or updating.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const differ = [];
    const noted = new Set();
    for (let round = 0; round < 60; round++) {
      const choose = {};
      for (const s of preview.skills) {
        const r = next();
        if (r < 0.4) choose[s.name] = 'rename';
        else if (r < 0.8) choose[s.name] = 'replace';
      }
      const copy = next() < 0.5;
      const whole = await sk.registry.previewNotes(preview, choose, copy);
      Object.keys(whole).forEach((n) => noted.add(n));
      for (const s of preview.skills) {
        const part = previewPart(preview, s.name);
        if (!part) {
          if (whole[s.name]) differ.push(`${s.name}: a note, and no part`);
          continue;
        }
        const of = Object.fromEntries(part.skills.filter((r) => r.name in choose).map((r) => [r.name, choose[r.name]]));
        const notes = await sk.registry.previewNotes(part, of, copy);
        for (const r of part.skills) if (JSON.stringify(notes[r.name]) !== JSON.stringify(whole[r.name])) differ.push(`${r.name} in ${s.name}'s part, round ${round}`);
      }
    }
    return { parts, differ, noted: [...noted].sort() };
  });
  // Every skill that depends on one is noted under some choice: the parts were asked about notes, not nothing.
  assert.deepEqual(got.noted, ['a', 'b', 'd', 'g', 'h', 'i', 'j', 'k']);
  assert.deepEqual(got.parts, {
    a: ['a', 'b'], b: ['a', 'b'], c: ['c', 'd'], d: ['c', 'd'], e: ['e'], f: null, g: ['g', 'h'], h: ['g', 'h'],
    i: ['i', 'j'], j: ['i', 'j'], k: ['k'],
  });
  assert.deepEqual(got.differ, []);
});

test('an archive with broken skills: previewZip lists each with its error, importZip names them all and installs the others when chosen', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'broken', { pack: false });
  const bytes = zip({
    ...under('repo-main/skills/alpha/', ALPHA),
    'repo-main/skills/bad-yaml/SKILL.md': '---\nname: [unclosed\ndescription: Broken.\n---\n# Broken\n',
    'repo-main/skills/beta/SKILL.md': BETA['SKILL.md'],
    'repo-main/skills/no-description/SKILL.md': '---\nname: no-description\n---\n# No description\n',
  });
  const p = assertOk(await ev(page, (z) => T.outcome(sk.registry.previewZip(T.fromB64(z))), b64(bytes)), 'previewZip');
  assert.deepEqual(p.skills.map((s) => [s.dir, s.name, s.status, s.error?.code, s.error?.reason, s.error?.subject]), [
    ['repo-main/skills/alpha', 'alpha', 'new', undefined, undefined, undefined],
    ['repo-main/skills/bad-yaml', '', 'invalid', 'InvalidManifest', 'yaml-invalid', 'repo-main/skills/bad-yaml'],
    ['repo-main/skills/beta', 'beta', 'new', undefined, undefined, undefined],
    ['repo-main/skills/no-description', 'no-description', 'invalid', 'InvalidManifest', 'description-missing', 'repo-main/skills/no-description'],
  ]);
  for (const s of p.skills.filter((s) => s.error)) {
    assert.match(s.error.message, new RegExp(`${s.dir}/`), 'the message names the folder');
    assert.ok(s.error.diagnostics.length > 0 && s.error.diagnostics.every((d) => typeof d.message === 'string'), JSON.stringify(s.error));
  }

  // Refused whole, naming both, saying what to do; nothing stored.
  const refused = await importZip(page, bytes);
  assertRejected(refused, { code: 'InvalidManifest', reason: 'invalid-skills', subject: '' });
  assert.match(refused.error.message, /bad-yaml\/.*no-description\/.*2 other skills can be imported by choosing them/s);
  assert.deepEqual(refused.error.invalid.map((s) => [s.subject, s.reason]), [
    ['repo-main/skills/bad-yaml', 'yaml-invalid'], ['repo-main/skills/no-description', 'description-missing'],
  ]);
  assert.equal(await revision(page), 0, 'a refused import commits nothing');

  // The valid ones chosen: one commit, the broken ones reported as left out.
  const r = assertOk(await importZip(page, bytes, { choose: { alpha: 'rename', beta: 'rename' } }), 'importZip of the valid skills');
  assert.deepEqual(r.skills.map((s) => s.id), ['alpha', 'beta']);
  assert.deepEqual(r.invalid.map((s) => [s.subject, s.name, s.code, s.reason]), [
    ['repo-main/skills/bad-yaml', '', 'InvalidManifest', 'yaml-invalid'],
    ['repo-main/skills/no-description', 'no-description', 'InvalidManifest', 'description-missing'],
  ]);
  assert.equal(r.revision, 1);
  assert.equal(await revision(page), 1, 'one commit');
});

test('importZip installs a pack in one commit, reports progress, and list/get/revision agree', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'import', { pack: false });
  assert.equal(await revision(page), 0, 'an empty database is at revision 0');
  assert.deepEqual(await ok(page, 'list'), []);

  const started = Date.now();
  const res = await importZip(page, packZip(), { source: 'pack.zip' });
  const r = assertOk(res, 'importZip');
  const a = sizeOf(ALPHA);
  const total = a + sizeOf(BETA);
  assert.deepEqual(res.progress, [
    { phase: 'prepare', filesDone: 2, filesTotal: 5, bytesDone: a, bytesTotal: total },
    { phase: 'prepare', filesDone: 5, filesTotal: 5, bytesDone: total, bytesTotal: total },
    { phase: 'commit', filesDone: 5, filesTotal: 5, bytesDone: total, bytesTotal: total },
    { phase: 'done', filesDone: 5, filesTotal: 5, bytesDone: total, bytesTotal: total },
  ]);
  assert.deepEqual(r.skills.map(withoutTimes), [
    expectedMeta('alpha', ALPHA, 'Alpha does the first thing.', 'pack.zip'),
    expectedMeta('beta', BETA, 'Beta does the second thing.', 'pack.zip'),
  ]);
  assert.notEqual(r.skills[0].instance, r.skills[1].instance);
  for (const s of r.skills) {
    assert.match(s.instance, /^[0-9a-f]{16}$/);
    assert.equal(s.createdAt, s.updatedAt);
    const at = Date.parse(s.createdAt);
    assert.ok(at >= started - 2000 && at <= Date.now() + 2000, `createdAt ${s.createdAt} is not now`);
  }
  assert.deepEqual(r.replaced, []);
  assert.deepEqual(r.dropped, ['pack/.DS_Store']);
  assert.equal(r.revision, 1);
  assert.deepEqual(r.diagnostics, { alpha: [], beta: [] });

  assert.deepEqual(await ok(page, 'list'), r.skills, 'list() returns the imported records');
  assert.deepEqual(await ok(page, 'get', 'beta'), r.skills[1]);
  assert.equal(await revision(page), 1);
  assert.deepEqual(await changes(page), [{ revision: 1, kind: 'import', ids: ['alpha', 'beta'] }]);
});

test('setEnabled turns a skill off and on; a no-op changes nothing', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'enable');
  const off = await ok(page, 'setEnabled', 'alpha', false);
  assert.equal(off.enabled, false);
  assert.equal((await ok(page, 'get', 'alpha')).enabled, false);
  assert.deepEqual((await ok(page, 'list')).map((s) => [s.id, s.enabled]), [['alpha', false], ['beta', true]]);
  assert.equal(await revision(page), 2);

  const again = await ok(page, 'setEnabled', 'alpha', false);
  assert.equal(again.enabled, false);
  assert.equal(await revision(page), 2, 'disabling a disabled skill commits nothing');

  const on = await ok(page, 'setEnabled', 'alpha', true);
  assert.equal(on.enabled, true);
  assert.equal((await ok(page, 'get', 'alpha')).enabled, true);
  assert.equal(await revision(page), 3);
  assert.deepEqual((await changes(page)).slice(1), [
    { revision: 2, kind: 'disable', ids: ['alpha'] },
    { revision: 3, kind: 'enable', ids: ['alpha'] },
  ]);
});

test('tree, readFile and readText return what the archive held', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'read');
  const tree = await ok(page, 'tree', 'beta');
  assert.deepEqual(tree.map(({ modTime, ...e }) => e), [
    { path: 'SKILL.md', isDir: false, size: BETA['SKILL.md'].length },
    { path: 'assets', isDir: true, size: 0 },
    { path: 'assets/logo.png', isDir: false, size: 256 },
    { path: 'references', isDir: true, size: 0 },
    { path: 'references/notes.md', isDir: false, size: 7 },
  ]);
  for (const e of tree) assert.ok(!Number.isNaN(Date.parse(e.modTime)), `modTime ${e.modTime}`);

  assert.deepEqual(fromB64(await readB64(page, 'beta', 'assets/logo.png')), BINARY, 'binary bytes come back exactly');
  assert.equal(await ok(page, 'readText', 'alpha', 'scripts/run.py'), ALPHA['scripts/run.py']);
  assert.equal(await ok(page, 'readText', 'alpha', 'SKILL.md'), ALPHA['SKILL.md']);
  // A path is cleaned, not resolved: "./scripts//run.py" is scripts/run.py.
  assert.equal(await ok(page, 'readText', 'alpha', './scripts//run.py'), ALPHA['scripts/run.py']);

  // The subject of a missing file is its path in the file system.
  assertRejected(await reg(page, 'readFile', 'alpha', 'missing.md'),
    { code: 'SkillNotFound', reason: 'not-exist', subject: '/skills/alpha/missing.md' }, 'a missing file');
  assertRejected(await reg(page, 'readFile', 'nope', 'SKILL.md'),
    { code: 'SkillNotFound', reason: 'not-installed', subject: 'nope' }, 'a missing skill');
  assertRejected(await reg(page, 'tree', 'nope'),
    { code: 'SkillNotFound', reason: 'not-installed', subject: 'nope' }, 'tree of a missing skill');
});

test('writeFile, mkdir, rename and removePath edit a skill; an invalid SKILL.md changes nothing', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'edit');
  let rev = 1;

  // A valid SKILL.md edit re-reads the record.
  const md = skillMD('alpha', 'Alpha, edited.', '# Alpha\n\nEdited.\n');
  const edited = await ok(page, 'writeFile', 'alpha', 'SKILL.md', md);
  let files = { ...ALPHA, 'SKILL.md': md };
  assert.equal(edited.description, 'Alpha, edited.');
  assert.equal(edited.digest, digestOf(files));
  assert.equal(edited.size, sizeOf(files));
  const got = await ok(page, 'get', 'alpha');
  assert.equal(got.description, 'Alpha, edited.');
  assert.deepEqual(got, edited);
  assert.equal(await ok(page, 'readText', 'alpha', 'SKILL.md'), md);
  assert.equal(await revision(page), ++rev);

  // An invalid one is refused with its diagnostics and changes nothing.
  const before = await ok(page, 'get', 'alpha');
  const bad = assertRejected(await reg(page, 'writeFile', 'alpha', 'SKILL.md', '---\nname: alpha\n---\nNo description.\n'),
    { code: 'InvalidManifest', reason: 'description-missing', subject: 'alpha' }, 'a SKILL.md without description');
  assert.ok(bad.diagnostics.length > 0, 'the error carries diagnostics');
  assert.deepEqual(bad.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.field, d.line]),
    [['description-missing', 'description', 1]], 'a missing field is at the opening delimiter');
  const badYAML = assertRejected(await reg(page, 'writeFile', 'alpha', 'SKILL.md', '---\nname: alpha\ndescription: "unclosed\n---\n'),
    { code: 'InvalidManifest', reason: 'yaml-invalid', subject: 'alpha' }, 'a SKILL.md with broken YAML');
  assert.deepEqual(badYAML.diagnostics.map((d) => d.line), [3], 'broken YAML is at its line');
  assert.deepEqual(await ok(page, 'get', 'alpha'), before, 'the record is unchanged');
  assert.equal(await ok(page, 'readText', 'alpha', 'SKILL.md'), md, 'the file is unchanged');
  assert.equal(await revision(page), rev, 'nothing was committed');

  // Renaming the skill by editing is refused too.
  const renamed = assertRejected(await reg(page, 'writeFile', 'alpha', 'SKILL.md', skillMD('gamma', 'Renamed.')),
    { code: 'InvalidManifest', reason: 'rename-refused', subject: 'alpha' }, 'a rename by edit');
  // Its message without the subject comes beside it, for a sentence that names the skill itself.
  const own = 'SKILL.md now names the skill "gamma", but a skill cannot be renamed by editing it; keep the name "alpha", or export the skill and import it under the new name';
  assert.deepEqual({ detail: renamed.detail, msg: renamed.msg }, { detail: `alpha: ${own}`, msg: own });

  // A new file.
  const withNotes = await ok(page, 'writeFile', 'alpha', 'references/usage.md', '# Usage\n');
  files = { ...files, 'references/usage.md': '# Usage\n' };
  assert.equal(withNotes.fileCount, 3);
  assert.equal(withNotes.digest, digestOf(files));
  assert.equal(await revision(page), ++rev);

  // mkdir adds directories, which do not count in the digest.
  const withDir = await ok(page, 'mkdir', 'alpha', 'assets/img');
  assert.equal(withDir.digest, digestOf(files));
  assert.equal(withDir.fileCount, 3);
  const dirs = (await ok(page, 'tree', 'alpha')).filter((e) => e.isDir).map((e) => e.path);
  assert.deepEqual(dirs, ['assets', 'assets/img', 'references', 'scripts']);
  assert.equal(await revision(page), ++rev);
  assertRejected(await reg(page, 'mkdir', 'alpha', 'assets/img'),
    { code: 'Conflict', reason: 'exists', subject: 'assets/img' }, 'mkdir of an existing directory');

  // rename moves a folder with everything in it, in one commit.
  const moved = await ok(page, 'rename', 'alpha', 'references', 'docs/refs');
  files = { ...files, 'docs/refs/usage.md': files['references/usage.md'] };
  delete files['references/usage.md'];
  assert.equal(moved.digest, digestOf(files));
  assert.equal(await ok(page, 'readText', 'alpha', 'docs/refs/usage.md'), '# Usage\n');
  assert.equal(await revision(page), ++rev);
  await ok(page, 'rename', 'alpha', 'docs/refs', 'references');
  files = { ...files, 'references/usage.md': files['docs/refs/usage.md'] };
  delete files['docs/refs/usage.md'];
  assert.equal(await revision(page), ++rev);
  await ok(page, 'removePath', 'alpha', 'docs');
  assert.equal(await revision(page), ++rev);
  assertRejected(await reg(page, 'rename', 'alpha', 'SKILL.md', 'README.md'),
    { code: 'PermissionDenied', reason: 'skill-md', subject: 'SKILL.md' }, 'rename of SKILL.md');
  assertRejected(await reg(page, 'rename', 'alpha', 'assets', 'references'),
    { code: 'Conflict', reason: 'exists', subject: 'references' }, 'rename onto an existing folder');

  // removePath removes a directory with everything in it.
  const without = await ok(page, 'removePath', 'alpha', 'scripts');
  delete files['scripts/run.py'];
  assert.equal(without.fileCount, 2);
  assert.equal(without.digest, digestOf(files));
  assert.deepEqual((await ok(page, 'tree', 'alpha')).map((e) => e.path),
    ['SKILL.md', 'assets', 'assets/img', 'references', 'references/usage.md']);
  assert.equal(await revision(page), ++rev);
  assertRejected(await reg(page, 'removePath', 'alpha', 'scripts'),
    { code: 'SkillNotFound', reason: 'not-exist', subject: 'scripts' }, 'removePath of a removed path');
  assertRejected(await reg(page, 'removePath', 'alpha', 'SKILL.md'),
    { code: 'PermissionDenied', reason: 'skill-md', subject: 'SKILL.md' }, 'removePath of SKILL.md');
  assert.equal(await revision(page), rev, 'refused edits commit nothing');

  assert.deepEqual((await changes(page)).slice(1), [2, 3, 4, 5, 6, 7, 8].map((revision) => ({ revision, kind: 'edit', ids: ['alpha'] })));
});

test('exportZip is deterministic, and importing it with "replace" keeps the digest', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'export');
  const before = await ok(page, 'get', 'beta');
  const one = fromB64(await ev(page, async () => T.toB64(await sk.registry.exportZip('beta'))));
  const two = fromB64(await ev(page, async () => T.toB64(await sk.registry.exportZip('beta'))));
  assert.ok(one.length > 0);
  assert.deepEqual(two, one, 'two exports are byte-equal');

  // One folder named after the skill, the files as they were.
  const entries = unzipSync(one);
  assert.deepEqual(Object.keys(entries).sort(), Object.keys(under('beta/', BETA)).sort());
  for (const [p, data] of Object.entries(under('beta/', BETA))) {
    assert.deepEqual(entries[p], typeof data === 'string' ? new TextEncoder().encode(data) : data, p);
  }

  // Replace keeps the digest, the creation time, the instance and the enabled state.
  await ok(page, 'setEnabled', 'beta', false);
  const res = await importZip(page, one, { onConflict: 'replace', source: 'beta.zip' });
  const r = assertOk(res, 'import of the export');
  assert.deepEqual(r.replaced, ['beta']);
  assert.equal(r.skills.length, 1);
  const s = r.skills[0];
  assert.equal(s.id, 'beta');
  assert.equal(s.digest, before.digest);
  assert.equal(s.digest, digestOf(BETA));
  assert.equal(s.createdAt, before.createdAt);
  assert.equal(s.instance, before.instance);
  assert.equal(s.enabled, false);
  assert.equal(s.source, 'beta.zip');
  assert.equal(r.revision, 3);
  assert.deepEqual((await changes(page)).at(-1), { revision: 3, kind: 'replace', ids: ['beta'] });
  assert.deepEqual((await ok(page, 'list')).map((m) => m.id), ['alpha', 'beta']);
  const three = fromB64(await ev(page, async () => T.toB64(await sk.registry.exportZip('beta'))));
  assert.deepEqual(three, one, 'the re-imported skill exports to the same bytes');
});

test('setDependencies checks skills, and tools and MCP servers once registered', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'deps');
  assertRejected(await reg(page, 'setDependencies', 'alpha', { skills: ['nope'] }),
    { code: 'InvalidArgument', reason: 'unknown-skill', subject: 'nope' }, 'an unknown skill');
  assertRejected(await reg(page, 'setDependencies', 'alpha', { skills: ['alpha'] }),
    { code: 'InvalidArgument', reason: 'self-dependency', subject: 'alpha' }, 'itself');
  assertRejected(await reg(page, 'setDependencies', 'alpha', { tools: ['Bash'] }),
    { code: 'InvalidArgument', reason: 'tools-not-registered', subject: 'Bash' }, 'a tool before registerTools');
  assertRejected(await reg(page, 'setDependencies', 'alpha', { mcp: ['github'] }),
    { code: 'InvalidArgument', reason: 'mcp-not-registered', subject: 'github' }, 'an MCP server before registerMcpServers');
  assertRejected(await reg(page, 'setDependencies', 'nope', {}),
    { code: 'SkillNotFound', reason: 'not-installed', subject: 'nope' }, 'a missing skill');
  assert.equal(await revision(page), 1, 'refusals commit nothing');

  assert.deepEqual(await ok(page, 'registered'), { tools: null, mcp: null }, 'nothing registered yet');
  assert.equal(await ok(page, 'registerTools', ['Bash', 'Read']), undefined);
  assert.equal(await ok(page, 'registerMcpServers', ['github']), undefined);
  assert.deepEqual(await ok(page, 'registered'), { tools: ['Bash', 'Read'], mcp: ['github'] }, 'what setDependencies accepts');
  assertRejected(await reg(page, 'setDependencies', 'alpha', { tools: ['Write'] }),
    { code: 'InvalidArgument', reason: 'unknown-tool', subject: 'Write' }, 'an unregistered tool');
  assertRejected(await reg(page, 'setDependencies', 'alpha', { mcp: ['gitlab'] }),
    { code: 'InvalidArgument', reason: 'unknown-mcp-server', subject: 'gitlab' }, 'an unregistered MCP server');

  const m = await ok(page, 'setDependencies', 'alpha', { tools: ['Bash'], mcp: ['github'], skills: ['beta'] });
  const deps = { tools: ['Bash'], mcp: ['github'], skills: ['beta'] };
  assert.deepEqual(m.dependencies, deps);
  assert.deepEqual((await ok(page, 'get', 'alpha')).dependencies, deps);
  assert.equal(await revision(page), 2);
  // The same dependencies again: nothing to commit.
  await ok(page, 'setDependencies', 'alpha', deps);
  assert.equal(await revision(page), 2);
  const cleared = await ok(page, 'setDependencies', 'alpha', {});
  assert.deepEqual(cleared.dependencies, { tools: [], mcp: [], skills: [] });
  assert.equal(await revision(page), 3);
  assert.deepEqual((await changes(page)).slice(1), [
    { revision: 2, kind: 'dependencies', ids: ['alpha'] },
    { revision: 3, kind: 'dependencies', ids: ['alpha'] },
  ]);
});

test('an import or a SKILL.md save that declares dependencies gets setDependencies\' verdict', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'deps-declared');
  /** gamma's SKILL.md with extra frontmatter lines. */
  const gamma = (...lines) => skillMD('gamma', 'Gamma does a third thing.').replace('\n---\n', `\n${lines.join('\n')}\n---\n`);
  const imp = (...lines) => importZip(page, zip({ 'gamma/SKILL.md': gamma(...lines) }));
  assertRejected(await imp('tool_dependencies: [Bash]'),
    { code: 'InvalidArgument', reason: 'tools-not-registered', subject: 'Bash' }, 'a tool before registerTools');
  await ok(page, 'registerTools', ['Bash']);
  await ok(page, 'registerMcpServers', ['github']);
  for (const [line, reason, subject] of [
    ['tool_dependencies: [Bash, Write]', 'unknown-tool', 'Write'],
    ['mcp_dependencies: [gitlab]', 'unknown-mcp-server', 'gitlab'],
    ['skill_dependencies: [nope]', 'unknown-skill', 'nope'],
    ['skill_dependencies: [gamma]', 'self-dependency', 'gamma'],
  ]) {
    assertRejected(await imp(line), { code: 'InvalidArgument', reason, subject }, `an import with ${line}`);
    assertRejected(await reg(page, 'writeFile', 'alpha', 'SKILL.md', gamma(line).replaceAll('gamma', 'alpha')),
      { code: 'InvalidArgument', reason, subject: subject.replace('gamma', 'alpha') }, `a save with ${line}`);
  }
  assert.equal(await revision(page), 1, 'refusals commit nothing');
  const r = assertOk(await imp('tool_dependencies: [Bash]', 'mcp_dependencies: [github]', 'skill_dependencies: [alpha]'));
  assert.deepEqual(r.skills[0].dependencies, { tools: ['Bash'], mcp: ['github'], skills: ['alpha'] });
});

test('remove deletes a skill for good; get then fails with SkillNotFound', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'remove');
  assert.equal(await ok(page, 'remove', 'alpha'), undefined);
  assertRejected(await reg(page, 'get', 'alpha'), { code: 'SkillNotFound', reason: 'not-installed', subject: 'alpha' }, 'get');
  assertRejected(await reg(page, 'readFile', 'alpha', 'SKILL.md'),
    { code: 'SkillNotFound', reason: 'not-installed', subject: 'alpha' }, 'readFile');
  assertRejected(await reg(page, 'remove', 'alpha'), { code: 'SkillNotFound', reason: 'not-installed', subject: 'alpha' }, 'remove again');
  assert.deepEqual((await ok(page, 'list')).map((s) => s.id), ['beta']);
  assert.equal(await revision(page), 2);
  assert.deepEqual(await changes(page), [
    { revision: 1, kind: 'import', ids: ['alpha', 'beta'] },
    { revision: 2, kind: 'remove', ids: ['alpha'] },
  ]);
  // Importing it again gives a new skill, with no trace of the old one.
  const r = assertOk(await importZip(page, zip(under('alpha/', ALPHA))), 're-import');
  assert.deepEqual(r.skills.map((s) => s.id), ['alpha']);
  assert.deepEqual(r.replaced, []);
  assert.equal(r.revision, 3);
});

// A skill installed under older rules, whose id today's refuse (an
// invisible Hangul filler, refused since 2026-11-23), is removed as the
// side panel removes one: a removal writes no name.
test('remove takes an id older rules allowed', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'legacy-id');
  const legacy = 'alpha\u3164';
  // alpha's records moved to the legacy id, as a version that allowed it
  // stored them, with a new revision.
  await ev(page, async (legacy) => {
    const db = await new Promise((ok, fail) => {
      const r = indexedDB.open(window.dbName);
      r.onsuccess = () => ok(r.result);
      r.onerror = () => fail(r.error);
    });
    const tx = db.transaction(['files', 'blobs', 'meta', 'state'], 'readwrite');
    const all = (st) => new Promise((ok) => {
      const keys = st.getAllKeys();
      const values = st.getAll();
      values.onsuccess = () => ok(keys.result.map((k, i) => [k, values.result[i]]));
    });
    for (const name of ['files', 'blobs']) {
      const st = tx.objectStore(name);
      for (const [k, v] of await all(st)) {
        if (k === '//alpha' || k.startsWith('alpha/')) {
          st.delete(k);
          st.put(v, k === '//alpha' ? `//${legacy}` : legacy + k.slice('alpha'.length));
        }
      }
    }
    const meta = tx.objectStore('meta');
    const m = JSON.parse(new TextDecoder().decode((await all(meta)).find(([k]) => k === 'alpha')[1]));
    Object.assign(m, { id: legacy, location: `/skills/${legacy}/SKILL.md`, baseDir: `/skills/${legacy}/` });
    meta.delete('alpha');
    meta.put(new TextEncoder().encode(JSON.stringify(m)), legacy);
    tx.objectStore('state').put(new TextEncoder().encode('2'), 'revision');
    await new Promise((ok, fail) => { tx.oncomplete = ok; tx.onerror = () => fail(tx.error); });
    db.close();
  }, legacy);
  assert.deepEqual((await ok(page, 'list')).map((s) => s.id), [legacy, 'beta']);
  assert.equal(await ok(page, 'remove', legacy), undefined);
  assert.deepEqual((await ok(page, 'list')).map((s) => s.id), ['beta']);
  const left = await ev(page, async () => {
    const db = await new Promise((ok, fail) => {
      const r = indexedDB.open(window.dbName);
      r.onsuccess = () => ok(r.result);
      r.onerror = () => fail(r.error);
    });
    const keys = await Promise.all(['files', 'blobs', 'meta'].map((name) => new Promise((ok) => {
      db.transaction(name).objectStore(name).getAllKeys().onsuccess = (e) => ok(e.target.result);
    })));
    db.close();
    return keys.flat().filter((k) => !k.includes('beta'));
  });
  assert.deepEqual(left, [], 'records of the removed skill');
});

// ---- 2. Error codes. ----

test('InvalidArchive: not a zip, and a zip without SKILL.md', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'invalid-archive', { pack: false });
  assertRejected(await importZip(page, new TextEncoder().encode('this is not a zip')),
    { code: 'InvalidArchive', reason: 'not-a-zip', subject: '' }, 'not a zip');
  const none = assertRejected(await importZip(page, zip({ 'docs/README.md': '# Docs\n' })),
    { code: 'InvalidArchive', reason: 'no-skill', subject: '' }, 'no SKILL.md');
  assert.match(none.message, /no SKILL\.md found in the archive: a skill is a folder holding a SKILL\.md, and this archive has none$/);
  assertRejected(await importZip(page, zip({ 'x/skill.md': skillMD('x', 'Lower case.') })),
    { code: 'InvalidArchive', reason: 'no-skill', subject: 'x/skill.md' }, 'skill.md in lower case');
  const half = packZip();
  const cut = assertRejected(await importZip(page, half.subarray(0, half.length - 30)),
    { code: 'InvalidArchive', reason: 'truncated', subject: '' }, 'a truncated zip');
  // The person's words, not archive/zip's ("not a valid zip file").
  assert.match(cut.message, /the zip archive is truncated \(cut short\): download or copy it again$/);
  const m = assertRejected(await importZip(page, zip({ 'x/SKILL.md': '---\nname: x\n---\n' })),
    { code: 'InvalidManifest', reason: 'description-missing', subject: 'x' }, 'an invalid SKILL.md');
  assert.ok(m.diagnostics.some((d) => d.code === 'description-missing' && d.severity === 'error'));
  assert.deepEqual(await ok(page, 'list'), []);
  assert.equal(await revision(page), 0, 'nothing was committed');
});

test('PathRejected: a "../" archive entry, and readFile of "../x"', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'path');
  // archive/zip flags such a name (ErrInsecurePath, when GODEBUG asks for
  // it) but still reads the archive; the guard's own rule rejects it.
  assertRejected(await importZip(page, zip({ '../evil/SKILL.md': skillMD('evil', 'Escapes.') })),
    { code: 'PathRejected', reason: 'dot-dot', subject: '../evil/SKILL.md' }, 'entry ../evil/SKILL.md');
  assertRejected(await importZip(page, zip({ 'ok/SKILL.md': skillMD('ok', 'Fine.'), 'ok/../../etc/passwd': 'x' })),
    { code: 'PathRejected', reason: 'dot-dot', subject: 'ok/../../etc/passwd' }, 'entry ok/../../etc/passwd');
  assertRejected(await importZip(page, zip({ '/abs/SKILL.md': skillMD('abs', 'Absolute.') })),
    { code: 'PathRejected', reason: 'absolute', subject: '/abs/SKILL.md' }, 'entry /abs/SKILL.md');
  assertRejected(await reg(page, 'readFile', 'alpha', '../x'), { code: 'PathRejected', reason: 'dot-dot', subject: '../x' }, 'readFile ../x');
  assertRejected(await reg(page, 'writeFile', 'alpha', '../beta/SKILL.md', 'x'),
    { code: 'PathRejected', reason: 'dot-dot', subject: '../beta/SKILL.md' }, 'writeFile ../beta/SKILL.md');
  assertRejected(await reg(page, 'readFile', '..', 'SKILL.md'), { code: 'PathRejected', reason: 'dot-dot', subject: '..' }, 'skill id ..');
  assert.deepEqual((await ok(page, 'list')).map((s) => s.id), ['alpha', 'beta']);
  assert.equal(await revision(page), 1);
});

test('Conflict with onConflict "fail"; "rename" installs name-v2, name-v3 when a copy is asked for, else reports the identical skill installed', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'conflict');
  const single = zip(under('alpha/', ALPHA));
  assertRejected(await importZip(page, single, { onConflict: 'fail' }), { code: 'Conflict', reason: 'exists', subject: 'alpha' }, 'fail');
  assertRejected(await importZip(page, single, { onConflict: 'bogus' }),
    { code: 'InvalidArgument', reason: 'on-conflict', subject: 'bogus' }, 'an unknown policy');
  assert.equal(await revision(page), 1);

  // The same bytes again are the skill already there, not a -v2.
  const same = assertOk(await importZip(page, single), 'an identical skill');
  assert.deepEqual([same.skills, same.alreadyInstalled, same.revision], [[], ['alpha'], 0]);
  assert.equal(await revision(page), 1);

  const r2 = assertOk(await importZip(page, single, { copy: true }), 'rename (the default), a copy asked for');
  assert.deepEqual(r2.skills.map((s) => [s.id, s.name]), [['alpha-v2', 'alpha-v2']]);
  assert.deepEqual(r2.replaced, []);
  assert.deepEqual(r2.skills[0].diagnostics.map((d) => [d.code, d.severity, d.field]), [['renamed', 'warning', 'name']]);
  assert.deepEqual(r2.diagnostics, { 'alpha-v2': r2.skills[0].diagnostics });
  const md = await ok(page, 'readText', 'alpha-v2', 'SKILL.md');
  assert.match(md, /^---\nname: alpha-v2\n/, 'SKILL.md names the renamed skill');
  assert.equal(await ok(page, 'readText', 'alpha', 'SKILL.md'), ALPHA['SKILL.md'], 'the installed one is untouched');

  const r3 = assertOk(await importZip(page, single, { onConflict: 'rename', copy: true }), 'rename again');
  assert.deepEqual(r3.skills.map((s) => s.id), ['alpha-v3']);
  assert.deepEqual((await ok(page, 'list')).map((s) => s.id), ['alpha', 'alpha-v2', 'alpha-v3', 'beta']);
  assert.equal(await revision(page), 3);
});

test('NotText and TooLarge from writeFile; the 1 MiB limit is inclusive', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'text');
  assertRejected(await reg(page, 'writeFile', 'alpha', 'notes.txt', 'a\0b'), { code: 'NotText', reason: 'nul', subject: 'notes.txt' }, 'NUL');
  assertRejected(await reg(page, 'writeFile', 'alpha', 'logo.png', 'not an image'),
    { code: 'NotText', reason: 'extension', subject: 'logo.png' }, '.png');
  assertRejected(await reg(page, 'writeFile', 'alpha', 'big.txt', 'a'.repeat((1 << 20) + 1)),
    { code: 'TooLarge', reason: '', subject: 'big.txt' }, '1 MiB + 1 byte');
  assert.equal(await revision(page), 1, 'refused writes commit nothing');
  // Multi-byte text counts in UTF-8 bytes: 2^19 + 1 "é" are 2^20 + 2 bytes.
  assertRejected(await reg(page, 'writeFile', 'alpha', 'big.txt', 'é'.repeat((1 << 19) + 1)),
    { code: 'TooLarge', reason: '', subject: 'big.txt' }, '1 MiB + 2 bytes of é');
  const m = await ok(page, 'writeFile', 'alpha', 'big.txt', 'a'.repeat(1 << 20));
  assert.equal(m.size, sizeOf(ALPHA) + (1 << 20));
  assert.equal(await revision(page), 2);
});

test('SkillNotFound from every call that names a skill', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'notfound');
  const nf = { code: 'SkillNotFound', reason: 'not-installed', subject: 'nope' };
  for (const [method, ...args] of [
    ['get', 'nope'], ['setEnabled', 'nope', false], ['tree', 'nope'], ['exportZip', 'nope'],
    ['readFile', 'nope', 'SKILL.md'], ['writeFile', 'nope', 'a.md', 'x'], ['mkdir', 'nope', 'd'],
    ['removePath', 'nope', 'a.md'], ['rename', 'nope', 'a.md', 'b.md'], ['remove', 'nope'],
  ]) {
    assertRejected(await reg(page, method, ...args), nf, method);
  }
  assert.equal(await revision(page), 1);
});

// The Go side of a call copies its bytes argument in the JavaScript
// callback, where a panic would end the Go program for good: anything but
// bytes must be refused there, and the module must keep serving.
test('importZip takes an ArrayBuffer or any view of one; other bytes are InvalidArgument and the module keeps serving', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'bytes-kinds', { pack: false });
  const out = await ev(page, async (z) => {
    const first = await T.outcome(sk.registry.importZip(new ArrayBuffer(16)));
    const after = await T.outcome(sk.registry.list());
    const u8 = T.fromB64(z);
    // What file.arrayBuffer() gives, and a DataView of the middle of a
    // bigger buffer.
    const buffer = await T.outcome(sk.registry.importZip(u8.slice().buffer, { source: 'buffer.zip' }));
    const padded = new Uint8Array(u8.length + 8);
    padded.set(u8, 4);
    const view = await T.outcome(sk.registry.importZip(new DataView(padded.buffer, 4, u8.length), { source: 'view.zip', onConflict: 'replace' }));
    // The bridge's own check, for JavaScript callers without the types.
    const typed = await T.outcome(sk.registry.importZip('PK\x03\x04'));
    // The module's check, below the bridge: what reaches call() unwrapped.
    const raw = {};
    for (const [what, v] of [['string', 'PK\x03\x04'], ['array', [80, 75, 3, 4]], ['number', 7], ['object', { byteLength: 4 }], ['function', () => 0]]) {
      raw[what] = await T.outcome(sk.transport.call('registry.importZip', {}, v));
    }
    raw.arrayBuffer = await T.outcome(sk.transport.call('registry.importZip', { onConflict: 'replace', source: 'raw.zip' }, u8.slice().buffer));
    raw.int16 = await T.outcome(sk.transport.call('registry.importZip', { onConflict: 'replace', source: 'int16.zip' },
      new Int16Array(padded.buffer.slice(4, 4 + (u8.length & ~1)))));
    const last = await T.outcome(sk.registry.list());
    return { first, after, buffer, view, typed, raw, last };
  }, b64(packZip()));
  assert.equal(out.first.ok, false);
  assert.equal(out.after.ok, true, `the module stopped serving after a bad argument: ${JSON.stringify(out.after.error)}`);
  assertRejected(out.first, { code: 'InvalidArchive', reason: 'not-a-zip', subject: '' }, '16 zero bytes as an ArrayBuffer');
  assert.deepEqual(assertOk(out.buffer, 'an ArrayBuffer').skills.map((s) => [s.id, s.source]), [['alpha', 'buffer.zip'], ['beta', 'buffer.zip']]);
  const v = assertOk(out.view, 'a DataView');
  assert.deepEqual(v.replaced, ['alpha', 'beta']);
  assert.deepEqual(v.skills.map((s) => s.digest), [digestOf(ALPHA), digestOf(BETA)], 'the view\'s bytes, not its whole buffer');
  const msg = /a Uint8Array, an ArrayBuffer or another ArrayBuffer view/;
  assert.match(assertRejected(out.typed, { code: 'InvalidArgument', reason: '', subject: 'registry.importZip' }, 'a string').message, msg);
  for (const what of ['string', 'array', 'number', 'object', 'function']) {
    const e = assertRejected(out.raw[what], { code: 'InvalidArgument', reason: '', subject: 'registry.importZip' }, `raw ${what}`);
    assert.match(e.message, msg);
  }
  assert.deepEqual(assertOk(out.raw.arrayBuffer, 'a raw ArrayBuffer')[0].replaced, ['alpha', 'beta']);
  // An Int16Array of a zip cut to an even length: its bytes arrive, as a
  // truncated archive.
  assertRejected(out.raw.int16, { code: 'InvalidArchive', reason: 'truncated', subject: '' }, 'a raw Int16Array');
  assert.deepEqual(assertOk(out.last).map((s) => s.id), ['alpha', 'beta']);
  assert.deepEqual(b.pageErrors, []);
});

/** Where the compressed bytes of the entry name start and end in z, a zip
 * whose local headers state their sizes (fflate's zipSync). */
function dataOf(z, name) {
  const dv = new DataView(z.buffer, z.byteOffset, z.byteLength);
  for (let at = 0; dv.getUint32(at, true) === 0x04034b50;) {
    const start = at + 30 + dv.getUint16(at + 26, true) + dv.getUint16(at + 28, true);
    if (Buffer.from(z.subarray(at + 30, at + 30 + dv.getUint16(at + 26, true))).toString() === name) return [start, start + dv.getUint32(at + 18, true)];
    at = start + dv.getUint32(at + 18, true);
  }
  throw new Error(`${name} is not in the zip`);
}

test('importZip reads the caller\'s bytes where they are: detached or changed while it reads them, they are refused and nothing is stored; a SharedArrayBuffer or a resizable ArrayBuffer is read from a copy', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'caller-bytes', { pack: false });
  // A file large enough for DecompressionStream, which the page hooks: its
  // constructor runs once Go has read and checked every header, while the
  // entries are inflated. The archive is larger than the 64 KiB window Go
  // reads headers through (and keeps: what Go re-reads from it is what it
  // read then), and the bytes changed lie past it.
  let x = 2463534242; // xorshift32
  const text = Uint8Array.from({ length: 300_000 }, () => {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    return 97 + (x >>> 0) % 26;
  });
  const files = { 'SKILL.md': skillMD('big', 'Big.'), 'notes.txt': text };
  const z = zip(under('big/', files));
  const [, end] = dataOf(z, 'big/notes.txt');
  const out = await ev(page, async ([z, end]) => {
    const Real = DecompressionStream;
    let hook;
    globalThis.DecompressionStream = class extends Real {
      constructor(format) {
        super(format);
        const h = hook;
        hook = undefined;
        h?.();
      }
    };
    const run = async (bytes, during) => {
      hook = during;
      const res = await T.outcome(sk.registry.importZip(bytes, { source: 'big.zip', onConflict: 'replace' }));
      return { ...res, hooked: hook === undefined };
    };
    const res = {};
    try {
      let u8 = T.fromB64(z);
      u8.buffer.transfer();
      res.detachedBefore = await T.outcome(sk.registry.importZip(u8));
      u8 = T.fromB64(z);
      const p = T.outcome(sk.registry.importZip(u8));
      u8.buffer.transfer();
      res.detachedAtOnce = await p;
      u8 = T.fromB64(z);
      res.detached = await run(u8, () => u8.buffer.transfer());
      u8 = T.fromB64(z);
      res.changed = await run(u8, () => u8.fill(0, end - 64, end));
      res.list = await T.outcome(sk.registry.list());
      res.revision = await sk.registry.revision();
      u8 = T.fromB64(z);
      const sab = new Uint8Array(new SharedArrayBuffer(u8.length));
      sab.set(u8);
      res.shared = await run(sab, () => sab.fill(0, end - 64, end));
      const rab = new ArrayBuffer(u8.length, { maxByteLength: 2 * u8.length });
      new Uint8Array(rab).set(u8);
      res.resizable = await run(new Uint8Array(rab), () => rab.resize(0));
    } finally {
      globalThis.DecompressionStream = Real;
    }
    return res;
  }, [b64(z), end]);
  const detached = { code: 'InvalidArgument', reason: 'detached', subject: '' };
  assert.match(assertRejected(out.detachedBefore, detached, 'a buffer detached before the call').message, /detached/);
  assert.match(assertRejected(out.detachedAtOnce, detached, 'a buffer detached right after the call').message, /detached/);
  assert.equal(out.detached.hooked, true, 'the entry went through DecompressionStream');
  assertRejected(out.detached, detached, 'a buffer detached while the entries are inflated');
  assert.equal(out.changed.hooked, true);
  const changed = assertRejected(out.changed, { code: 'InvalidArchive', reason: out.changed.error?.reason, subject: 'big/notes.txt' }, 'bytes changed while the entries are inflated');
  assert.ok(['corrupt', 'checksum', 'size-mismatch'].includes(changed.reason), changed.reason);
  assert.deepEqual(assertOk(out.list), [], 'nothing was stored');
  assert.equal(out.revision, 0);
  for (const what of ['shared', 'resizable']) {
    assert.equal(out[what].hooked, true, what);
    assert.deepEqual(assertOk(out[what], what).skills.map((s) => [s.id, s.digest]), [['big', digestOf(files)]], `${what}: the bytes as they were at the call`);
  }
  assert.deepEqual(b.pageErrors, []);
});

/** The callTimeoutMs of the timeout tests: every call that does not wait
 * must finish well within it, also on a loaded machine. */
const LIMIT_MS = 2000;

test('a change waiting for the registry lock longer than callTimeoutMs fails with Timeout; the next call works', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'timeout');
  const out = await ev(page, async (LIMIT_MS) => {
    const quick = await T.load(dbName, { callTimeoutMs: LIMIT_MS });
    // Another tab of the origin holding the registry lock, as long as it likes.
    let release;
    const held = new Promise((r) => { release = r; });
    await new Promise((granted) => navigator.locks.request(`skillfs/${dbName}/skillfs-registry`, () => { granted(); return held; }));
    const t0 = performance.now();
    const blocked = await T.outcome(quick.registry.setEnabled('alpha', false));
    const waited = performance.now() - t0;
    const read = await T.outcome(quick.registry.get('alpha')); // reads take no lock
    release();
    const next = await T.outcome(quick.registry.setEnabled('alpha', false));
    const invalid = await Promise.all([0, -1, NaN, 2 ** 32].map((ms) => T.outcome(T.load(dbName, { callTimeoutMs: ms }))));
    return { blocked, waited, read, next, invalid };
  }, LIMIT_MS);
  const db = await ev(page, () => dbName);
  assertRejected(out.blocked, { code: 'Timeout', reason: '', subject: `lock skillfs/${db}/skillfs-registry` }, 'setEnabled behind the lock');
  assert.ok(out.waited >= LIMIT_MS - 50 && out.waited < 4 * LIMIT_MS, `it waited ${out.waited} ms for a ${LIMIT_MS} ms limit`);
  assert.equal(assertOk(out.read, 'a read while the lock is held').enabled, true, 'nothing changed');
  assert.equal(assertOk(out.next, 'setEnabled after the lock is released').enabled, false);
  for (const o of out.invalid) assertRejected(o, { code: 'InvalidArgument', reason: '', subject: '' }, 'a callTimeoutMs out of range');
  assert.equal(await revision(page), 2);
});

test('loadSkillfs fails with Timeout when the database cannot be opened within callTimeoutMs', { timeout: TEST_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  const db = freshDB('open-timeout');
  const out = await ev(page, async ([db, LIMIT_MS]) => {
    // Another connection upgrading the database until told to stop (10 s
    // at most): every other open waits for it.
    let busy = true;
    const upgrading = new Promise((resolve) => {
      const req = indexedDB.open(db, 1);
      req.onupgradeneeded = () => {
        const st = req.result.createObjectStore('busy');
        const t0 = performance.now();
        (function spin() { if (busy && performance.now() - t0 < 10_000) st.get(0).onsuccess = spin; })();
      };
      req.onsuccess = () => resolve(req.result);
    });
    const t0 = performance.now();
    const load = await T.outcome(T.load(db, { callTimeoutMs: LIMIT_MS }));
    const waited = performance.now() - t0;
    busy = false;
    // The module's own open, still pending, closes what it gets: the
    // database can then be deleted.
    (await upgrading).close();
    await new Promise((resolve) => { indexedDB.deleteDatabase(db).onsuccess = resolve; });
    const again = await T.outcome(T.load(db, { callTimeoutMs: LIMIT_MS }).then((sk) => sk.registry.list()));
    return { load, waited, again };
  }, [db, LIMIT_MS]);
  assertRejected(out.load, { code: 'Timeout', reason: '', subject: `IndexedDB ${db}` }, 'an open that waits');
  assert.ok(out.waited >= LIMIT_MS - 50 && out.waited < 8 * LIMIT_MS, `it waited ${out.waited} ms for a ${LIMIT_MS} ms limit`);
  assert.deepEqual(assertOk(out.again, 'a load once the database is free'), []);
});

// Storage.overrideQuotaForOrigin (DevTools protocol) gives the origin a
// real quota that IndexedDB enforces: the commit itself fails with the
// browser's QuotaExceededError. (navigator.storage.estimate() does not
// report the override, so the registry's estimate check lets it through.)
// Chromium trusts the space it found free for a few seconds after a write,
// so the test runs on an origin nothing has written to yet: the same
// server as http://localhost.
test('QuotaExceeded: an import over the origin\'s storage quota stores nothing; the module keeps serving', { timeout: TEST_MS }, async (t) => {
  const page = await withTimeout(b.context.newPage(), STEP_MS, 'new page');
  t.after(() => closePage(page));
  const url = new URL(b.url);
  url.hostname = 'localhost';
  await gotoReady(page, new URL('index.html', url).href);
  const db = freshDB('quota');
  await ev(page, async (db) => {
    window.sk = await T.load(db);
    window.changes = [];
    sk.onChange((c) => changes.push(c));
  }, db);
  const origin = url.origin;
  const cdp = await page.context().newCDPSession(page);
  const { usage } = await cdp.send('Storage.getUsageAndQuota', { origin });
  // 300 KB that does not compress, over a quota with 20 KB to spare.
  let x = 2463534242; // xorshift32
  const noise = Uint8Array.from({ length: 300_000 }, () => {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    return x & 0xff;
  });
  const big = zip({ 'big/SKILL.md': skillMD('big', 'Big.'), 'big/blob.bin': noise });
  let out;
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: usage + 20_000 });
  try {
    out = await importZip(page, big, { source: 'big.zip' });
  } finally {
    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
    await cdp.detach().catch(() => {});
  }
  assertRejected(out, { code: 'QuotaExceeded', reason: '', subject: `IndexedDB ${db}` }, 'an import over the quota');
  assert.match(out.error.message, /quota/);
  assert.doesNotMatch(out.error.message, /:\s*$/, 'the message ends in words, not in an empty detail');
  assert.deepEqual(await ok(page, 'list'), [], 'nothing was stored');
  assert.equal(await revision(page), 0);
  assert.deepEqual(await changes(page), []);
  assertRejected(await reg(page, 'get', 'big'), { code: 'SkillNotFound', reason: 'not-installed', subject: 'big' });
  // With the quota back, the same archive goes in.
  assert.deepEqual(assertOk(await importZip(page, big, { source: 'big.zip' }), 'the import after').skills.map((s) => s.id), ['big']);
  assert.equal(await revision(page), 1);
});

// ---- 3. A panic in the module. ----

test('a panic rejects with Internal/panic and the module keeps serving', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'panic');
  // The bridge has no typed wrapper for the test build's method: call the
  // transport loadSkillfs built.
  const p = await ev(page, () => T.outcome(sk.transport.call('test.panic', {})));
  const e = assertRejected(p, { code: 'Internal', reason: 'panic', subject: '' }, 'test.panic');
  assert.match(e.message, /test\.panic was called/);
  // The page's console reaches the test in order: once a line logged
  // after the call has come, so has the module's log of its panic.
  const marked = page.waitForEvent('console', { predicate: (m) => m.text() === 'after test.panic', timeout: STEP_MS });
  await ev(page, () => console.log('after test.panic'));
  await marked;
  assert.ok(b.consoleLines.some((l) => l.startsWith('[error] skillfs: panic: test.panic was called')), 'the module logged the panic with its stack');

  // Twice, and concurrently with real calls: the module is still there.
  const mixed = await ev(page, () => Promise.all([
    T.outcome(sk.transport.call('test.panic', {})),
    T.outcome(sk.registry.list()),
    T.outcome(sk.transport.call('test.panic', {})),
  ]));
  assertRejected(mixed[0], { code: 'Internal', reason: 'panic', subject: '' });
  assert.deepEqual(assertOk(mixed[1]).map((s) => s.id), ['alpha', 'beta']);
  assertRejected(mixed[2], { code: 'Internal', reason: 'panic', subject: '' });
  assert.deepEqual((await ok(page, 'list')).map((s) => s.id), ['alpha', 'beta']);
  assert.equal((await ok(page, 'setEnabled', 'beta', false)).enabled, false, 'a change still commits');

  assertRejected(await ev(page, () => T.outcome(sk.transport.call('no.such.method', {}))),
    { code: 'InvalidArgument', reason: '', subject: 'no.such.method' }, 'an unknown method');
  assert.deepEqual(b.pageErrors, [], 'no uncaught error in any page');
});

// ---- Loading, listeners. ----

test('loadSkillfs failures are SkillfsErrors', { timeout: TEST_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  // Nothing has loaded wasm_exec.js in this tab yet.
  assertRejected(await ev(page, () => T.outcome(T.bridge.loadSkillfs({ wasmURL: '/dist/skillfs.wasm' }))),
    { code: 'InvalidArgument', reason: '', subject: '' }, 'no wasmExecURL and no globalThis.Go');
  // Refused before anything starts: the module is not fetched and the
  // database not opened. A runtime that fails to load later stops the
  // module's download.
  const started = await ev(page, async () => {
    const seen = [];
    const { fetch } = globalThis;
    const open = indexedDB.open;
    let signal;
    globalThis.fetch = (url, init) => {
      seen.push(`fetch ${url}`);
      signal = init?.signal;
      return fetch(url, init);
    };
    indexedDB.open = function (name, ...rest) {
      seen.push(`open ${name}`);
      return open.call(this, name, ...rest);
    };
    try {
      const none = await T.outcome(T.bridge.loadSkillfs({ wasmURL: '/dist/skillfs.wasm', dbName: 'never' }));
      const before = seen.splice(0);
      const missing = await T.outcome(T.bridge.loadSkillfs({ wasmURL: '/dist/skillfs.wasm', wasmExecURL: '/dist/missing.js', dbName: 'never' }));
      return { none: none.error?.code, before, missing: missing.error?.code, after: seen, aborted: signal?.aborted };
    } finally {
      globalThis.fetch = fetch;
      delete indexedDB.open;
    }
  });
  assert.deepEqual(started, { none: 'InvalidArgument', before: [], missing: 'Internal',
    after: ['open never', 'fetch /dist/skillfs.wasm'], aborted: true });
  const e = assertRejected(await ev(page, () => T.outcome(T.load('x', { wasmURL: '/dist/missing.wasm' }))),
    { code: 'Internal', reason: '', subject: '' }, 'a wasmURL that is not there');
  assert.match(e.message, /HTTP 404/);
  // The bridge opens the database while the module compiles: a start that
  // fails creates no database and leaves none open to block a change of
  // its schema; a database of an older schema is upgraded, not adopted.
  const left = await ev(page, async () => {
    const names = (await indexedDB.databases()).map((d) => d.name).filter((n) => ['skillfs', 'x', 'never'].includes(n));
    const open = (name, version) => new Promise((ok, fail) => {
      const r = indexedDB.open(name, version);
      r.onupgradeneeded = () => { if (version === 1) r.result.createObjectStore('meta'); };
      r.onblocked = () => fail(new Error('blocked'));
      r.onsuccess = () => { r.result.close(); ok(r.result.version); };
      r.onerror = () => fail(r.error);
    });
    await open('old', 1);
    const failed = await T.outcome(T.load('old', { wasmURL: '/dist/missing.wasm' }));
    const upgraded = await open('old', 7);
    await open('older', 1);
    const older = await T.outcome(T.load('older').then((sk) => sk.registry.list()));
    return { names, failed: failed.ok, upgraded, older };
  });
  assert.deepEqual(left, { names: [], failed: false, upgraded: 7, older: { ok: true, value: [] } });
  // Bytes that are not a module: WebAssembly's CompileError, as a SkillfsError.
  assertRejected(await ev(page, (db) => T.outcome(T.load(db, { wasmURL: '/dist/wasm_exec.js' })), freshDB('notwasm')),
    { code: 'Internal', reason: '', subject: '' }, 'a wasmURL that is not a module');
  // A module that ends without answering (here a Go module that is not
  // skillfs) fails the start rather than leaving it waiting.
  assertRejected(await ev(page, (db) => T.outcome(T.load(db, { wasmURL: '/dist/hello.wasm' })), freshDB('ended')),
    { code: 'Internal', reason: '', subject: '' }, 'a module that ends without answering');
  // No failed start leaves its boot object (which holds the early
  // connection) on globalThis.
  assert.deepEqual(await ev(page, () => Object.keys(globalThis).filter((k) => k.startsWith('__skillfs_boot_'))), []);
  // A module that fails after it opened the database closes it: its
  // versionchange handler is Go's, which no longer runs once main returns.
  const closed = await ev(page, async (db) => {
    const { BroadcastChannel } = globalThis;
    delete globalThis.BroadcastChannel;
    let failed;
    try {
      failed = await T.outcome(T.load(db));
    } finally {
      globalThis.BroadcastChannel = BroadcastChannel;
    }
    const upgraded = await new Promise((ok, fail) => {
      const r = indexedDB.open(db, 7);
      r.onblocked = () => fail(new Error('blocked'));
      r.onsuccess = () => { r.result.close(); ok(r.result.version); };
      r.onerror = () => fail(r.error);
    });
    return { failed: failed.error?.reason, upgraded };
  }, freshDB('nochannel'));
  assert.deepEqual(closed, { failed: 'unavailable', upgraded: 7 });
  // The tab can still load skillfs afterwards.
  await ev(page, async (db) => { window.sk = await T.load(db); }, freshDB('load'));
  assert.deepEqual(await ok(page, 'list'), []);
});

test('onChange returns a function that stops the listener', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t, 'unsubscribe');
  const seen = await ev(page, async () => {
    const mine = [];
    const stop = sk.onChange((c) => mine.push(c.kind));
    await sk.registry.setEnabled('alpha', false);
    stop();
    await sk.registry.setEnabled('alpha', true);
    return mine;
  });
  assert.deepEqual(seen, ['disable']);
  assert.deepEqual((await changes(page)).map((c) => c.kind), ['import', 'disable', 'enable'], 'the other listener heard all');
});

test('an onProgress that throws does not turn a committed import into a failure', {
  timeout: TEST_MS,
}, async (t) => {
  const page = await fresh(t, 'progress-throws', { pack: false });
  const out = await ev(page, (z) => T.outcome(sk.registry.importZip(T.fromB64(z), {
    onProgress: (p) => { if (p.phase === 'done') throw new Error('a progress bar with a bug'); },
  })), b64(packZip()));
  assert.equal(await revision(page), 1, 'the import committed');
  assert.deepEqual(assertOk(out, 'the committed import').skills.map((s) => s.id), ['alpha', 'beta']);
});
