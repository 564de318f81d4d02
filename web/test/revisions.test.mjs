// A repository's download installed from its URL, then revised on its
// server as repositories are — a skill moved to another folder, one moved
// and changed, one removed — and then answered by a web page instead (a
// sign-in page, an error page sent with 200): what "check for updates"
// and update say and do, in real Chromium through js/bridge.ts against a
// real HTTP server on 127.0.0.1. The generated download always runs; the
// real ones when they are here (web/harness/realrepos.mjs).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { serveSite } from '../harness/publish.mjs';
import { realRepos } from '../harness/realrepos.mjs';
import { REPO, assertOk, assertRejected, closePage, ev, freshDB, skillMD, startBrowser, zip } from './helpers.mjs';

const IMPORT_MS = 120_000;
const GENERATED = join(REPO, 'internal/realrepos/testdata/generated+skills.zip');
const { repos, skipReason } = realRepos();

/** @type {Awaited<ReturnType<typeof startBrowser>>} */
let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

/** A page with the module loaded on a database of its own, closed after t. */
async function fresh(t, name) {
  const page = await b.openPage();
  t.after(() => closePage(page));
  await ev(page, async (db) => {
    window.sk = await T.load(db);
  }, freshDB(name));
  return page;
}

const reg = (page, method, ...args) => ev(page, ([m, a]) => T.outcome(sk.registry[m](...a)), [method, args], IMPORT_MS);

/** The download's files (below its top folder, top) with each folder of moves (below the download's
 * top folder) at its new place, and each SKILL.md of edits with a line
 * added, and the folders of removes gone. */
function revise(files, top, { moves = {}, edits = [], removes = [] }) {
  const out = {};
  for (const [p, bytes] of Object.entries(files)) {
    if (p.endsWith('/')) continue;
    let rel = p.slice(top.length);
    if (removes.some((d) => rel.startsWith(`${d}/`))) continue;
    let body = bytes;
    if (edits.some((d) => rel === `${d}/SKILL.md`)) body = strToU8(`${strFromU8(bytes)}\nRevised by its publisher.\n`);
    for (const [from, to] of Object.entries(moves)) if (rel.startsWith(`${from}/`)) rel = to + rel.slice(from.length);
    out[top + rel] = body;
  }
  return zipSync(out);
}

async function revised(t, data) {
  const page = await fresh(t, 'revisions');
  const site = await serveSite(new Map([['/repo.zip', { body: data, type: 'application/zip' }]]));
  t.after(site.close);
  const url = `${site.url}/repo.zip`;
  const installed = assertOk(await reg(page, 'installFromUrl', url, { maxBytes: 30 << 20 })).installed;
  const files = unzipSync(data);
  const top = `${Object.keys(files)[0].split('/')[0]}/`;
  // Three skills of folders of their own: one moved, one moved and
  // changed, one removed.
  const [moved, changed, removed] = installed.filter((m) => m.origin.dir).slice(1, 4);
  const to = (m) => `moved/${m.origin.dir}`;
  site.files.set('/repo.zip', { type: 'application/zip', body: revise(files, top, {
    moves: { [moved.origin.dir]: to(moved), [changed.origin.dir]: to(changed) }, edits: [changed.origin.dir], removes: [removed.origin.dir],
  }) });

  // The download is fetched once for all; the moved skills are where they
  // moved to, not gone.
  site.log.length = 0;
  const ups = assertOk(await reg(page, 'checkUpdates'));
  assert.deepEqual(site.log, ['GET /repo.zip']);
  const status = Object.fromEntries(ups.map((u) => [u.id, `${u.status} ${u.origin.dir ?? ''}`]));
  for (const m of installed) {
    const want = m === moved ? `current ${to(m)}` : m === changed ? `changed ${to(m)}` : m === removed ? `gone ${m.origin.dir}` : `current ${m.origin.dir ?? ''}`;
    assert.equal(status[m.id], want, m.id);
  }
  // Previewed again from its address, the moved and changed one is the
  // update of the skill installed from the folder it left, not another of
  // its name.
  const again = assertOk(await reg(page, 'previewFromUrl', url)).skills.find((s) => s.folder === to(changed));
  assert.deepEqual([again.status, again.installed, again.update], ['conflict', changed.id, true]);
  // The changed one updates from the folder it moved to, in place.
  const up = assertOk(await reg(page, 'update', changed.id));
  assert.deepEqual([up.status, up.skill.id, up.skill.instance, up.skill.origin.dir], ['updated', changed.id, changed.instance, to(changed)]);
  assert.match(assertOk(await reg(page, 'readText', changed.id, 'SKILL.md')), /Revised by its publisher\./);
  assert.equal(assertOk(await reg(page, 'get', moved.id)).origin.dir, to(moved), 'the moved one records its new folder');
  assert.deepEqual(assertOk(await reg(page, 'checkUpdates', { ids: [moved.id, changed.id] })).map((u) => u.status), ['current', 'current']);

  // The server answers a web page now: every skill of the download is an
  // error that says so, with its code, and none is offered an update; an
  // update is refused the same way, and nothing stored changes.
  const before = assertOk(await reg(page, 'list'));
  site.files.set('/repo.zip', { type: 'text/html', body: '\n<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Sign in to continue</body></html>\n' });
  const page2 = assertOk(await reg(page, 'checkUpdates'));
  assert.equal(page2.length, installed.length);
  for (const u of page2) {
    assert.deepEqual([u.status, u.code], ['error', 'InvalidArchive'], u.id);
    assert.match(u.message, /answered with a web page, not an archive or a SKILL\.md/);
  }
  assertRejected(await reg(page, 'update', moved.id), { code: 'InvalidArchive', reason: 'web-page', subject: url });
  assertRejected(await reg(page, 'previewFromUrl', url), { code: 'InvalidArchive', reason: 'web-page', subject: url });
  assert.deepEqual(assertOk(await reg(page, 'list')), before);
}

test('a download revised: a moved skill is current where it moved to, a moved and changed one updates from there, a removed one is gone; a web page in its place is an error, never an update', { timeout: IMPORT_MS }, async (t) => {
  await revised(t, readFileSync(GENERATED));
});

test('the real downloads revised so, each', { skip: skipReason, timeout: repos.length * IMPORT_MS }, async (t) => {
  for (const r of repos) await t.test(r.name, async (t) => revised(t, readFileSync(r.path)));
});

test('a version published that an update could not install (its SKILL.md broken, a new dependency neither installed nor in the download) is an error saying so, not an update; one depending on a skill of the download not installed installs it with it; the same skill in other bytes is current, not updated', { timeout: IMPORT_MS }, async (t) => {
  const page = await fresh(t, 'cannot-install');
  const site = await serveSite(new Map([
    ['/repo.zip', { type: 'application/zip', body: zip({ 'r-main/skills/alpha/SKILL.md': skillMD('alpha', 'A1.'), 'r-main/skills/beta/SKILL.md': skillMD('beta', 'B1.'),
      'r-main/skills/kappa/SKILL.md': skillMD('kappa', 'K1.') }) }],
    ['/solo.zip', { type: 'application/zip', body: zip({ 'SKILL.md': skillMD('solo', 'Solo.') }) }],
  ]));
  t.after(site.close);
  assertOk(await reg(page, 'installFromUrl', `${site.url}/repo.zip`));
  assertOk(await reg(page, 'installFromUrl', `${site.url}/solo.zip`));
  const before = assertOk(await reg(page, 'list'));

  site.files.set('/repo.zip', { type: 'application/zip', body: zip({
    'r-main/skills/alpha/SKILL.md': '---\nname: [alpha\n---\n',
    'r-main/skills/beta/SKILL.md': `---\nname: beta\ndescription: B2.\nskill_dependencies: [gamma]\n---\n# beta\n`,
    'r-main/skills/gamma/SKILL.md': skillMD('gamma', 'G.'),
    'r-main/skills/kappa/SKILL.md': `---\nname: kappa\ndescription: K2.\nskill_dependencies: [omega]\n---\n# kappa\n`,
  }) });
  // The same skill, zipped again inside a folder: other bytes, the same files.
  site.files.set('/solo.zip', { type: 'application/zip', body: zip({ 'solo-main/SKILL.md': skillMD('solo', 'Solo.') }) });
  const ups = Object.fromEntries(assertOk(await reg(page, 'checkUpdates')).map((u) => [u.id, u]));
  assert.deepEqual([ups.alpha.status, ups.alpha.code, ups.alpha.reason], ['error', 'InvalidManifest', 'yaml-invalid']);
  assert.match(ups.alpha.message, /^the version of 'alpha' published now is invalid, so it cannot be installed \(the version installed stays\): The frontmatter is not valid YAML /);
  assert.deepEqual([ups.kappa.status, ups.kappa.code, ups.kappa.reason], ['error', 'InvalidArgument', 'unknown-skill']);
  const omega = "the version of 'kappa' published now depends on 'omega', which is not installed and not in this download: install 'omega' first, then update 'kappa'";
  assert.equal(ups.kappa.message, omega);
  assert.deepEqual([ups.beta.status, ups.beta.needs], ['changed', ['gamma']]);
  assert.equal(ups.solo.status, 'current');
  assert.equal(assertOk(await reg(page, 'update', 'solo')).status, 'current', 'nothing to update');
  assert.match(assertRejected(await reg(page, 'update', 'alpha'), { code: 'InvalidManifest', reason: 'yaml-invalid', subject: 'r-main/skills/alpha' }).message,
    /^InvalidManifest \(yaml-invalid\): r-main\/skills\/alpha: the version of 'alpha' published now is invalid, so it cannot be installed \(the version installed stays\): The frontmatter/);
  // The update says what its check said.
  assert.equal(assertRejected(await reg(page, 'update', 'kappa'), { code: 'InvalidArgument', reason: 'unknown-skill', subject: 'omega' }).message, `InvalidArgument (unknown-skill): omega: ${omega}`);
  const after = assertOk(await reg(page, 'list'));
  assert.deepEqual(after.map((m) => [m.id, m.digest, m.updatedAt]), before.map((m) => [m.id, m.digest, m.updatedAt]));
  // beta's update installs gamma with it, from the same download, in one commit, as an import choosing both would.
  const revision = assertOk(await reg(page, 'revision'));
  const up = assertOk(await reg(page, 'update', 'beta'));
  assert.deepEqual([up.status, up.skill.id, up.skill.description, up.skill.instance, up.installed.map((m) => [m.id, m.origin.dir, m.enabled])],
    ['updated', 'beta', 'B2.', before.find((m) => m.id === 'beta').instance, [['gamma', 'skills/gamma', true]]]);
  assert.equal(assertOk(await reg(page, 'revision')), revision + 1);
  assert.deepEqual(assertOk(await reg(page, 'list')).map((m) => m.id), ['alpha', 'beta', 'gamma', 'kappa', 'solo']);
});

test('updateMany: the changed skills of one download are updated from one download of it, each in its own commit; one that cannot be is said so and left as it was', { timeout: IMPORT_MS }, async (t) => {
  const page = await fresh(t, 'update-many');
  const repo = (v, extra = {}) => ({ type: 'application/zip', body: zip({
    'r-main/skills/alpha/SKILL.md': skillMD('alpha', `Alpha ${v}.`),
    'r-main/skills/beta/SKILL.md': skillMD('beta', `Beta ${v}.`),
    'r-main/skills/gamma/SKILL.md': skillMD('gamma', `Gamma ${v}.`),
    'r-main/skills/delta/SKILL.md': skillMD('delta', 'Delta.'),
    ...extra,
  }) });
  const site = await serveSite(new Map([['/repo.zip', repo(1)]]));
  t.after(site.close);
  const url = `${site.url}/repo.zip`;
  assertOk(await reg(page, 'installFromUrl', url));
  const before = Object.fromEntries(assertOk(await reg(page, 'list')).map((m) => [m.id, m]));
  // alpha, beta and gamma change; gamma's new version needs a skill not
  // installed, beta's one of the download that is not installed (zeta).
  site.files.set('/repo.zip', repo(2, {
    'r-main/skills/gamma/SKILL.md': `---\nname: gamma\ndescription: Gamma 2.\nskill_dependencies: [epsilon]\n---\n# gamma\n`,
    'r-main/skills/beta/SKILL.md': `---\nname: beta\ndescription: Beta 2.\nskill_dependencies: [zeta]\n---\n# beta\n`,
    'r-main/skills/zeta/SKILL.md': skillMD('zeta', 'Zeta.'),
  }));
  assertRejected(await reg(page, 'updateMany', ['alpha', 'nope']), { code: 'SkillNotFound', reason: 'not-installed', subject: 'nope' });
  site.log.length = 0;
  const outs = assertOk(await reg(page, 'updateMany', ['alpha', 'beta', 'gamma', 'delta']));
  assert.deepEqual(site.log, ['GET /repo.zip'], 'one download for the four');
  assert.deepEqual(outs.map((o) => [o.id, o.status, o.code ?? '']), [['alpha', 'updated', ''], ['beta', 'updated', ''], ['gamma', 'error', 'InvalidArgument'], ['delta', 'current', '']]);
  assert.match(outs[2].message, /depends on 'epsilon', which is not installed/);
  assert.deepEqual([outs[0].installed, outs[1].installed?.map((m) => [m.id, m.origin.dir])], [undefined, [['zeta', 'skills/zeta']]]);
  assert.deepEqual(Object.keys(assertOk(await reg(page, 'list')).reduce((o, m) => ({ ...o, [m.id]: 1 }), {})), ['alpha', 'beta', 'delta', 'gamma', 'zeta']);
  const after = Object.fromEntries(assertOk(await reg(page, 'list')).map((m) => [m.id, m]));
  assert.deepEqual([after.alpha.description, after.beta.description, after.alpha.instance], ['Alpha 2.', 'Beta 2.', before.alpha.instance]);
  assert.deepEqual([after.gamma.digest, after.delta.digest], [before.gamma.digest, before.delta.digest]);
});
