// Installing and updating skills from where they are published, in real
// Chromium through js/bridge.ts: a site serving Agent Skills discovery
// indexes over real HTTP on 127.0.0.1 and a real MCP server (the official
// SDK) with the skills extension. What should install installs; the rest
// is refused with its code and leaves nothing behind. An update of a
// changed artifact is found by its digest and applied in one commit; an
// unchanged one is not downloaded again.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { SCHEMA_V2, serveMcp, serveSite, sha256, tarGz } from '../harness/publish.mjs';
import { ALPHA, TEST_MS, assertOk, assertRejected, b64, closePage, ev, freshDB, skillMD, startBrowser, zip } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startBrowser>>} */
let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

const MAX = 100_000; // maxBytes of every install below

/** n pseudo-random bytes (xorshift32), which no compression shrinks. */
function noise(n) {
  let x = 2463534242;
  return Uint8Array.from({ length: n }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x & 0xff;
  });
}

const MD = skillMD('md-skill', 'A lone SKILL.md.');
const zipFiles = (body) => ({ 'SKILL.md': skillMD('zip-skill', 'A zipped skill.', body), 'references/r.md': 'R\n' });

/** The site: a v0.2.0 index with every kind of entry, a v0.1.0 index, and
 * an index of an unknown schema. */
async function publisher() {
  const files = new Map();
  const site = await serveSite(files);
  const zipSkill = zip(zipFiles('# Zip\n'));
  const tgzSkill = tarGz({ 'SKILL.md': skillMD('tgz-skill', 'A tar.gz skill.'), 'scripts/run.sh': 'echo run\n' });
  const tgzEscape = tarGz({ 'SKILL.md': skillMD('tgz-escape', 'Escapes.'), '../outside.md': 'x\n' });
  const huge = zip({ 'SKILL.md': skillMD('huge', 'Too large.'), 'big.bin': noise(MAX + 1000) });
  const put = (path, body, type) => files.set(path, { body, type });
  put('/skills/md-skill/SKILL.md', MD, 'text/markdown');
  put('/.well-known/agent-skills/zip-skill.zip', zipSkill, 'application/zip');
  put('/.well-known/agent-skills/tgz-skill.tar.gz', tgzSkill, 'application/gzip');
  put('/.well-known/agent-skills/tgz-escape.tar.gz', tgzEscape, 'application/gzip');
  put('/.well-known/agent-skills/bad.zip', zip({ 'SKILL.md': skillMD('bad-digest', 'Lies.') }), 'application/zip');
  put('/.well-known/agent-skills/huge.zip', huge, 'application/zip');
  files.set('/.well-known/agent-skills/huge-chunked.zip', { body: huge, chunked: true });
  const index = {
    $schema: SCHEMA_V2,
    skills: [
      { name: 'md-skill', type: 'skill-md', description: 'A lone SKILL.md.', url: '../../skills/md-skill/SKILL.md', digest: sha256(MD) },
      { name: 'zip-skill', type: 'archive', description: 'A zipped skill.', url: 'zip-skill.zip', digest: sha256(zipSkill) },
      { name: 'tgz-skill', type: 'archive', description: 'A tar.gz skill.', url: `${site.url}/.well-known/agent-skills/tgz-skill.tar.gz`, digest: sha256(tgzSkill) },
      { name: 'tgz-escape', type: 'archive', description: 'Escapes.', url: 'tgz-escape.tar.gz', digest: sha256(tgzEscape) },
      { name: 'bad-digest', type: 'archive', description: 'Lies.', url: 'bad.zip', digest: sha256('something else') },
      { name: 'huge', type: 'archive', description: 'Too large.', url: `${site.url}/.well-known/agent-skills/huge.zip`, digest: sha256(huge) },
      { name: 'huge-chunked', type: 'archive', description: 'Too large, no length.', url: 'huge-chunked.zip', digest: sha256(huge) },
      { name: 'future', type: 'mcp-bundle', description: 'A type from the future.', url: 'f', digest: sha256('f') },
    ],
  };
  put('/.well-known/agent-skills/index.json', JSON.stringify(index), 'application/json');
  put('/.well-known/skills/index.json', JSON.stringify({ skills: [{ name: 'legacy', description: 'v0.1.0.', files: ['SKILL.md', 'notes/n.md'] }] }), 'application/json');
  put('/.well-known/skills/legacy/SKILL.md', skillMD('legacy', 'v0.1.0.'), 'text/markdown');
  put('/.well-known/skills/legacy/notes/n.md', 'N\n', 'text/markdown');
  put('/other/index.json', JSON.stringify({ $schema: 'https://schemas.agentskills.io/discovery/9.0.0/schema.json', skills: [] }), 'application/json');
  return { ...site, index, v2: `${site.url}/.well-known/agent-skills/index.json`, v1: `${site.url}/.well-known/skills/index.json` };
}

/** The MCP server: a good skill with a text and a binary file, one whose
 * digest lies, one with a resource that escapes its directory. */
async function mcp() {
  const skills = new Map([
    ['mcp-good', { frontmatter: { name: 'mcp-good', description: 'Served over MCP.' },
      files: { 'SKILL.md': skillMD('mcp-good', 'Served over MCP.'), 'references/a b.md': 'A\n', 'assets/x.bin': noise(300) } }],
    ['mcp-liar', { frontmatter: { name: 'mcp-liar', description: 'Lies.' },
      files: { 'SKILL.md': skillMD('mcp-liar', 'Lies.'), 'ref.md': 'the truth\n' }, lies: { 'ref.md': sha256('a lie\n') } }],
    ['mcp-escape', { frontmatter: { name: 'mcp-escape', description: 'Escapes.' },
      files: { 'SKILL.md': skillMD('mcp-escape', 'Escapes.') },
      extra: [{ uri: 'skill://mcp-escape/../mcp-good/SKILL.md', digest: sha256('x'), size: 1 }] }],
  ]);
  return serveMcp(skills);
}

async function fresh(t) {
  const page = await b.openPage();
  t.after(() => closePage(page));
  await ev(page, async (db) => {
    window.sk = await T.load(db);
  }, freshDB('install'));
  return page;
}

const reg = (page, method, ...args) => ev(page, ([m, a]) => T.outcome(sk.registry[m](...a)), [method, args]);
const ids = async (page) => assertOk(await reg(page, 'list')).map((s) => s.id);
const codes = (refusals) => Object.fromEntries(refusals.map((r) => [r.name, `${r.code}/${r.reason}`]));

test('a discovery index: what verifies installs, the rest is refused or skipped and leaves nothing', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const report = assertOk(await reg(page, 'installFromIndex', site.v2, { maxBytes: MAX }), 'installFromIndex');
  assert.deepEqual(report.installed.map((s) => s.id).sort(), ['md-skill', 'tgz-skill', 'zip-skill']);
  assert.deepEqual(codes(report.refused), {
    'tgz-escape': 'PathRejected/dot-dot',
    'bad-digest': 'Integrity/digest-mismatch',
    huge: 'TooLarge/download-too-large',
    'huge-chunked': 'TooLarge/download-too-large',
  });
  assert.deepEqual(codes(report.warnings), { future: 'InvalidIndex/unknown-type' });
  assert.match(report.refused.find((r) => r.name === 'bad-digest').message, / the index publishes for them: the site may be publishing a new version \(try again later\)/);
  assert.deepEqual(await ids(page), ['md-skill', 'tgz-skill', 'zip-skill']);
  assert.equal(assertOk(await ev(page, () => T.outcome(sk.registry.readText('tgz-skill', 'scripts/run.sh')))), 'echo run\n');
  // The lone SKILL.md was resolved per RFC 3986 against the index's URL.
  const md = report.installed.find((s) => s.id === 'md-skill');
  assert.deepEqual(md.origin, { kind: 'index', index: site.v2, entry: 'md-skill', url: `${site.url}/skills/md-skill/SKILL.md`,
    type: 'skill-md', digest: sha256(MD), verified: true, filesDigest: md.digest });
  assert.equal(assertOk(await ev(page, () => T.outcome(sk.registry.readText('md-skill', 'SKILL.md')))), MD);
  // The oversized artifacts were cut off, never stored; the wrong digest was
  // downloaded once and refused.
  assert.equal(site.log.filter((l) => l === 'GET /.well-known/agent-skills/bad.zip').length, 1);

  // Only the names asked for.
  const page2 = await fresh(t);
  const some = assertOk(await reg(page2, 'installFromIndex', site.v2, { names: ['zip-skill', 'nope'] }));
  assert.deepEqual(some.installed.map((s) => s.id), ['zip-skill']);
  assert.deepEqual(codes(some.refused), { nope: 'SkillNotFound/not-listed' });
  const preview = assertOk(await reg(page2, 'previewIndex', site.v2));
  assert.deepEqual(preview.entries.map((e) => e.name), ['md-skill', 'zip-skill', 'tgz-skill', 'tgz-escape', 'bad-digest', 'huge', 'huge-chunked']);
});

test('a v0.1.0 index installs with a warning; an unknown schema is refused', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const report = assertOk(await reg(page, 'installFromIndex', site.v1));
  assert.deepEqual(report.installed.map((s) => [s.id, s.fileCount, s.origin.verified, s.origin.type]), [['legacy', 2, false, 'files']]);
  assert.deepEqual(codes(report.warnings), { legacy: 'Integrity/unverified' });
  const other = await reg(page, 'installFromIndex', `${site.url}/other/index.json`);
  assert.equal(other.ok, false);
  assert.deepEqual([other.error.code, other.error.reason], ['InvalidIndex', 'unknown-schema']);
  const missing = await reg(page, 'installFromIndex', `${site.url}/nothing/index.json`);
  assert.deepEqual([missing.error.code, missing.error.reason], ['FetchFailed', 'http-status']);
  assert.match(missing.error.message, /index\.json answered HTTP 404: nothing is published at this address \(any more\)$/);
  // A web page where the index should be (a site's own 200 "not found" page) says so.
  site.files.set('/page/index.json', { type: 'text/html', body: '<!doctype html><title>Not found</title><p>Sorry.' });
  assertRejected(await reg(page, 'previewIndex', `${site.url}/page/index.json`), { code: 'InvalidIndex', reason: 'web-page', subject: `${site.url}/page/index.json` });
  assert.deepEqual(await ids(page), ['legacy']);
});

test('an index previewed: the install reads the index reviewed, not the one served by then, and verifies each artifact against the digest shown', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const p = assertOk(await ev(page, (u) => T.outcome(sk.registry.previewIndex(u).then((p) => {
    window.p = p; // kept in the page, bytes and all, for the installs below
    return { ...p, bytes: p.bytes.length };
  })), site.v2), 'previewIndex');
  const indexBody = site.files.get('/.well-known/agent-skills/index.json').body;
  assert.deepEqual([p.digest, p.bytes], [sha256(indexBody), indexBody.length]);

  // After the review the site publishes something else: md-skill gone,
  // zip-skill pointing to another archive, tgz-skill's archive swapped
  // at the URL reviewed, and a skill that was not there.
  const other = zip({ 'SKILL.md': skillMD('zip-skill', 'Swapped after the review.') });
  site.files.set('/.well-known/agent-skills/other.zip', { body: other, type: 'application/zip' });
  site.files.set('/.well-known/agent-skills/tgz-skill.tar.gz', { body: tarGz({ 'SKILL.md': skillMD('tgz-skill', 'Swapped.') }) });
  site.files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify({ $schema: SCHEMA_V2, skills: [
    { name: 'zip-skill', type: 'archive', description: 'Swapped.', url: 'other.zip', digest: sha256(other) },
    { name: 'newcomer', type: 'archive', description: 'Not reviewed.', url: 'other.zip', digest: sha256(other) },
  ] }), type: 'application/json' });
  site.log.length = 0;

  // Index bytes that are not the ones reviewed are refused; nothing is installed.
  const tampered = await ev(page, () => T.outcome(sk.registry.installFromIndex({ ...p, bytes: p.bytes.map((x, i) => (i === 0 ? x ^ 1 : x)) })));
  assertRejected(tampered, { code: 'Conflict', reason: 'changed-since-preview', subject: site.v2 });
  assert.equal(assertOk(await reg(page, 'revision')), 0);

  const r = assertOk(await ev(page, () => T.outcome(sk.registry.installFromIndex(p, { names: ['md-skill', 'zip-skill', 'tgz-skill', 'newcomer'] }))), 'installFromIndex');
  assert.deepEqual(r.installed.map((m) => m.id), ['md-skill', 'zip-skill']);
  assert.deepEqual(codes(r.refused), { 'tgz-skill': 'Integrity/digest-mismatch', newcomer: 'SkillNotFound/not-listed' });
  assert.equal(site.log.includes('GET /.well-known/agent-skills/index.json'), false, 'the index was not read again');
  assert.equal(site.log.includes('GET /.well-known/agent-skills/other.zip'), false);
  assert.equal(assertOk(await reg(page, 'get', 'zip-skill')).description, 'A zipped skill.');
  assert.equal(assertOk(await reg(page, 'get', 'zip-skill')).origin.digest, p.entries.find((e) => e.name === 'zip-skill').digest);
  assert.deepEqual(await ids(page), ['md-skill', 'zip-skill']);
});

test('an index or a listing reviewed and given back over the size limit is refused as too large, before its bytes are compared with the review', { timeout: TEST_MS }, async (t) => {
  const server = await mcp();
  t.after(server.close);
  const page = await fresh(t);
  const revision = assertOk(await reg(page, 'revision'));
  // Other bytes than any reviewed: were they hashed first, the refusal would be changed-since-preview.
  const out = await ev(page, async (server) => {
    const big = new Uint8Array((4 << 20) + 1).fill(32);
    const digest = `sha256:${'0'.repeat(64)}`;
    const url = 'http://127.0.0.1:9/.well-known/agent-skills/index.json';
    return {
      index: await T.outcome(sk.registry.installFromIndex({ url, version: '0.2.0', entries: [], skipped: [], bytes: big, digest })),
      mcp: await T.outcome(sk.registry.installFromMcp({ server, skills: [], skipped: [], listing: big, digest })),
    };
  }, server.url);
  assertRejected(out.index, { code: 'TooLarge', reason: 'index-too-large', subject: 'http://127.0.0.1:9/.well-known/agent-skills/index.json' }, 'index');
  assertRejected(out.mcp, { code: 'TooLarge', reason: 'index-too-large', subject: server.url }, 'listing');
  assert.equal(assertOk(await reg(page, 'revision')), revision);
});

test('a plain URL: a SKILL.md, a zip, a .tar.gz, a pinned digest', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const zipURL = `${site.url}/.well-known/agent-skills/zip-skill.zip`;
  const wrong = await reg(page, 'installFromUrl', zipURL, { digest: sha256('no') });
  assert.deepEqual([wrong.error.code, wrong.error.reason], ['Integrity', 'digest-mismatch']);
  // The digest is the caller's, not the site's: said so, with what to do.
  const body = site.files.get('/.well-known/agent-skills/zip-skill.zip').body;
  assert.equal(wrong.error.message, `Integrity (digest-mismatch): ${zipURL}: nothing of the ${body.length} bytes received was used: their digest is ${sha256(body)}, ` +
    `not the ${sha256('no')} given to check them by: the address serves other bytes than the digest names (check the digest, or install without one)`);
  const big = await reg(page, 'installFromUrl', `${site.url}/.well-known/agent-skills/huge.zip`, { maxBytes: MAX });
  assert.deepEqual([big.error.code, big.error.reason], ['TooLarge', 'download-too-large']);
  // Sizes a person reads (MAX is 100,000 bytes), not counts of bytes.
  assert.match(big.error.message, /huge\.zip is \d+\.\d KiB or more, larger than the 97\.7 KiB a download may be: it was not read further, and nothing of it was installed$/);
  assert.deepEqual(await ids(page), []);
  const z = assertOk(await reg(page, 'installFromUrl', zipURL, { digest: sha256(site.files.get('/.well-known/agent-skills/zip-skill.zip').body) }));
  assert.deepEqual([z.installed[0].id, z.installed[0].origin.verified, z.warnings.length], ['zip-skill', true, 0]);
  const m = assertOk(await reg(page, 'installFromUrl', `${site.url}/skills/md-skill/SKILL.md`));
  assert.deepEqual([m.installed[0].id, m.installed[0].origin.verified], ['md-skill', false]);
  assert.deepEqual(codes(m.warnings), { [`${site.url}/skills/md-skill/SKILL.md`]: 'Integrity/unverified' });
  const tgz = `${site.url}/.well-known/agent-skills/tgz-skill.tar.gz`;
  const g = assertOk(await reg(page, 'installFromUrl', tgz, { digest: sha256(site.files.get('/.well-known/agent-skills/tgz-skill.tar.gz').body) }));
  assert.deepEqual([g.installed[0].id, g.installed[0].fileCount, g.installed[0].origin.type], ['tgz-skill', 2, 'archive']);
  const esc = await reg(page, 'installFromUrl', `${site.url}/.well-known/agent-skills/tgz-escape.tar.gz`);
  assert.deepEqual([esc.error.code, esc.error.reason], ['PathRejected', 'dot-dot']);
  assert.deepEqual(await ids(page), ['md-skill', 'tgz-skill', 'zip-skill']);
});

test('a plain URL of a download with a broken skill installs the others in one commit and refuses that one, with its code', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  site.files.set('/packs/mixed.zip', {
    body: zip({ 'repo-main/skills/alpha/SKILL.md': skillMD('alpha', 'Alpha.'), 'repo-main/skills/broken/SKILL.md': '---\nname: [unclosed\n---\n' }),
    type: 'application/zip',
  });
  const r = assertOk(await reg(page, 'installFromUrl', `${site.url}/packs/mixed.zip`));
  assert.deepEqual(r.installed.map((m) => m.id), ['alpha']);
  assert.deepEqual(codes(r.refused), { broken: 'InvalidManifest/yaml-invalid' }, 'called by its folder, as the importer calls it');
  assert.match(r.refused[0].message, /^the skill in repo-main\/skills\/broken\/ is invalid: /);
  assert.deepEqual(await ids(page), ['alpha']);
  assert.equal(assertOk(await reg(page, 'revision')), 1, 'one commit');
});

/** A repository's download with a new skill, a changed version of one
 * installed, one installed byte for byte, and a broken one; and the two
 * skills installed before it is previewed, imported from bytes. */
const REVIEW = {
  'repo-main/skills/fresh/SKILL.md': skillMD('fresh', 'New here.'),
  'repo-main/skills/changed/SKILL.md': skillMD('changed', 'Version 2.'),
  'repo-main/skills/same/SKILL.md': skillMD('same', 'Unchanged.'),
  'repo-main/skills/broken/SKILL.md': '---\nname: [unclosed\n---\n',
};
const INSTALLED = zip({ 'changed/SKILL.md': skillMD('changed', 'Version 1.'), 'same/SKILL.md': skillMD('same', 'Unchanged.') });

test('a plain URL previewed: what it holds against what is installed, nothing stored; then installed with the choice made, from the bytes previewed', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const url = `${site.url}/packs/review.zip`;
  const body = zip(REVIEW);
  site.files.set('/packs/review.zip', { body, type: 'application/zip' });
  assertOk(await ev(page, (z) => T.outcome(sk.registry.importZip(T.fromB64(z), { source: 'local.zip' })), b64(INSTALLED)));

  site.log.length = 0;
  const p = assertOk(await ev(page, (u) => T.outcome(sk.registry.previewFromUrl(u).then((p) => {
    window.p = p; // kept in the page, bytes and all, for the install below
    return { ...p, bytes: p.bytes.length };
  })), url), 'previewFromUrl');
  assert.deepEqual(p.skills.map((s) => [s.dir, s.name, s.status, s.installed, s.error ? `${s.error.code}/${s.error.reason}` : '']).sort(), [
    ['repo-main/skills/broken', '', 'invalid', '', 'InvalidManifest/yaml-invalid'],
    ['repo-main/skills/changed', 'changed', 'conflict', 'changed', ''],
    ['repo-main/skills/fresh', 'fresh', 'new', '', ''],
    ['repo-main/skills/same', 'same', 'installed', 'same', ''],
  ]);
  assert.deepEqual(p.origin, { kind: 'url', url, type: 'archive', digest: sha256(body), verified: false, etag: `"${sha256(body).slice(7, 39)}"` });
  // What previewNotes reads of the installed skills the download's name (here, the two it would update).
  assert.deepEqual(p.installedSkills, { changed: { enabled: true, noted: false }, same: { enabled: true, noted: false } });
  assert.equal(p.bytes, body.length);
  assert.deepEqual(codes(p.warnings), { [url]: 'Integrity/unverified' });
  assert.deepEqual(await ids(page), ['changed', 'same'], 'a preview stores nothing');
  assert.equal(assertOk(await reg(page, 'revision')), 1);

  // The bytes given to the install must be those previewed.
  const tampered = await ev(page, () => T.outcome(sk.registry.installFromPreview({ ...p, bytes: p.bytes.map((x, i) => (i === 0 ? x ^ 1 : x)) })));
  assertRejected(tampered, { code: 'Conflict', reason: 'changed-since-preview', subject: url });
  assert.equal(assertOk(await reg(page, 'revision')), 1);

  // The server answers something else now: the install downloads nothing and installs what was previewed.
  site.files.set('/packs/review.zip', { body: zip({ 'repo-main/skills/fresh/SKILL.md': skillMD('fresh', 'Swapped after the preview.') }) });
  const r = assertOk(await ev(page, () => T.outcome(sk.registry.installFromPreview(p, { choose: { fresh: 'rename', changed: 'replace' } }))), 'installFromPreview');
  assert.deepEqual(site.log, ['GET /packs/review.zip'], 'downloaded once, by the preview');
  assert.deepEqual(r.installed.map((m) => m.id).sort(), ['changed', 'fresh']);
  assert.deepEqual(codes(r.refused), { broken: 'InvalidManifest/yaml-invalid' });
  assert.deepEqual(codes(r.warnings), { [url]: 'Integrity/unverified' });
  assert.deepEqual(await ids(page), ['changed', 'fresh', 'same'], 'same was skipped, as chosen');
  assert.equal(assertOk(await ev(page, () => T.outcome(sk.registry.readText('fresh', 'SKILL.md')))), REVIEW['repo-main/skills/fresh/SKILL.md']);
  assert.equal(assertOk(await reg(page, 'get', 'changed')).description, 'Version 2.');
  // Each with its folder in the download, which its update takes.
  for (const id of ['fresh', 'changed']) {
    const m = assertOk(await reg(page, 'get', id));
    assert.deepEqual(m.origin, { ...p.origin, dir: `skills/${id}`, filesDigest: m.digest }, `${id}'s origin`);
  }
  assert.equal(assertOk(await reg(page, 'get', 'same')).origin, null, 'left as it was');
  // The origin recorded is what update checks follow: the server's new
  // answer changes fresh, and no longer holds changed's folder.
  const ups = Object.fromEntries(assertOk(await reg(page, 'checkUpdates')).map((u) => [u.id, u.status]));
  assert.deepEqual(ups, { fresh: 'changed', changed: 'gone' });
  // Its update says where it went missing, that it stays, and what can
  // be done; updateMany alike, with the reason.
  const stays = 'the download at its address no longer holds it (in skills/changed/ or elsewhere): it stays installed as it is, and can be deleted if it is no longer wanted';
  assert.equal(assertRejected(await reg(page, 'update', 'changed'), { code: 'SkillNotFound', reason: 'gone', subject: 'changed' }).message, `SkillNotFound (gone): ${stays}`);
  assert.deepEqual(assertOk(await reg(page, 'updateMany', ['changed'])), [{ id: 'changed', status: 'error', code: 'SkillNotFound', reason: 'gone', message: stays }]);
});

test('a plain URL previewed within the install\'s bounds: a digest checked, the size capped, the download aborted, each with its code', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const zipURL = `${site.url}/.well-known/agent-skills/zip-skill.zip`;
  const zipBody = site.files.get('/.well-known/agent-skills/zip-skill.zip').body;
  assertRejected(await reg(page, 'previewFromUrl', zipURL, { digest: sha256('no') }), { code: 'Integrity', reason: 'digest-mismatch', subject: zipURL });
  const pinned = assertOk(await reg(page, 'previewFromUrl', zipURL, { digest: sha256(zipBody) }));
  assert.deepEqual([pinned.origin.verified, pinned.origin.digest, pinned.warnings, pinned.skills.map((s) => s.status)], [true, sha256(zipBody), [], ['new']]);
  for (const name of ['huge.zip', 'huge-chunked.zip']) {
    const big = `${site.url}/.well-known/agent-skills/${name}`;
    assertRejected(await reg(page, 'previewFromUrl', big, { maxBytes: MAX }), { code: 'TooLarge', reason: 'download-too-large', subject: big }, name);
  }

  // Aborted while the body arrives: half of it has been sent, the rest never comes.
  const slow = `${site.url}/packs/slow.zip`;
  const stalled = new Promise((resolve) => site.files.set('/packs/slow.zip', { body: zip(REVIEW), stalled: resolve }));
  await ev(page, (u) => {
    window.ctl = new AbortController();
    window.pending = T.outcome(sk.registry.previewFromUrl(u, { signal: ctl.signal }));
  }, slow);
  await stalled;
  assertRejected(await ev(page, () => {
    ctl.abort();
    return pending;
  }), { code: 'FetchFailed', reason: 'aborted', subject: slow });
  assert.deepEqual(await ids(page), []);
  assert.equal(assertOk(await reg(page, 'revision')), 0);
});

test('a plain URL that is not an absolute http or https address is refused before anything is fetched: not read from the page\'s own origin, not recorded as an origin to ask again', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t);
  // A data: URL installed as it stood, its whole archive kept as the
  // skill's origin; a relative one fetched the page's own files (an
  // extension's, in its side panel); javascript: was blamed on CORS.
  const addresses = [`data:application/zip;base64,${b64(zip(ALPHA))}`, 'dist/bridge.js', '/dist/bridge.js', 'javascript:alert(1)', 'file:///etc/passwd'];
  for (const url of addresses) {
    for (const method of ['installFromUrl', 'previewFromUrl']) {
      // The subject is clipped as every quoted value is (skillerr.Clip).
      const subject = url.length <= 160 ? url : `${url.slice(0, 160)}…`;
      const e = assertRejected(await reg(page, method, url), { code: 'InvalidArgument', reason: 'bad-url', subject }, `${method} ${url}`);
      assert.match(e.detail, /is not an absolute http or https URL/, `${method} ${url}`);
    }
  }
  assert.deepEqual(await ids(page), []);
  assert.equal(assertOk(await reg(page, 'revision')), 0);
});

test('an install aborted as its commit begins rejects with the signal\'s reason and stores nothing', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const out = await ev(page, async (url) => {
    const ctl = new AbortController();
    const phases = [];
    const onProgress = (p) => {
      phases.push(p.phase);
      if (p.phase === 'commit') ctl.abort();
    };
    const aborted = await T.outcome(sk.registry.installFromUrl(url, { signal: ctl.signal, onProgress }));
    return { aborted, phases };
  }, `${site.url}/.well-known/agent-skills/zip-skill.zip`);
  assert.equal(out.aborted.ok, false, JSON.stringify(out.aborted));
  assert.equal(out.aborted.error.name, 'AbortError');
  assert.ok(out.phases.includes('commit') && !out.phases.includes('done'), out.phases.join());
  assert.deepEqual(await ids(page), [], 'nothing was stored');
});

test('an MCP server (SEP-2640): verified files install; a lying digest and an escaping path are refused', { timeout: TEST_MS }, async (t) => {
  const server = await mcp();
  t.after(server.close);
  const page = await fresh(t);
  const report = assertOk(await reg(page, 'installFromMcp', server.url), 'installFromMcp');
  assert.deepEqual(report.installed.map((s) => [s.id, s.fileCount]), [['mcp-good', 3]]);
  assert.deepEqual(codes(report.refused), { 'mcp-liar': 'Integrity/digest-mismatch', 'mcp-escape': 'PathRejected/dot-dot' });
  assert.match(report.refused.find((r) => r.name === 'mcp-liar').message, / the server listed for them: the server may have changed the skill since it listed it \(install it again\)/);
  assert.deepEqual(await ids(page), ['mcp-good']);
  // The escaping resource was never read; the liar's was, and refused.
  assert.equal(server.log.some((l) => l.includes('mcp-escape')), false);
  assert.equal(server.log.includes('resources/read skill://mcp-liar/ref.md'), true);
  const bin = assertOk(await ev(page, () => T.outcome(sk.registry.readFile('mcp-good', 'assets/x.bin').then((u) => [...u]))));
  assert.deepEqual(bin, [...noise(300)]);
  assert.deepEqual(report.installed[0].origin.kind, 'mcp');

  const notMcp = await reg(page, 'installFromMcp', 'http://127.0.0.1:9/mcp', { timeoutMs: 5000 });
  assert.equal(notMcp.error.code, 'FetchFailed');
});

test('an MCP server previewed: each skill against the installed ones, nothing fetched or stored; then the skills reviewed install, with their digests, as chosen', { timeout: TEST_MS }, async (t) => {
  const server = await mcp();
  t.after(server.close);
  const page = await fresh(t);
  const serve = (name, description, extra = {}) => server.skills.set(name, { frontmatter: { name, description }, files: { 'SKILL.md': skillMD(name, description), ...extra } });
  serve('mcp-next', 'Version 1.');
  assertOk(await reg(page, 'installFromMcp', server.url, { skills: ['mcp-good', 'mcp-next'] }));
  assertOk(await ev(page, (z) => T.outcome(sk.registry.importZip(T.fromB64(z))), b64(zip({ 'SKILL.md': skillMD('mcp-taken', 'Installed from bytes.') }))));
  // One imported from bytes has no source to update from: said so, with what to do.
  assert.equal(assertRejected(await reg(page, 'update', 'mcp-taken'), { code: 'InvalidArgument', reason: 'no-origin', subject: 'mcp-taken' }).message,
    'InvalidArgument (no-origin): the skill was imported from an archive, not installed from where it is published, so nothing says where to update it from: import its new version instead');
  serve('mcp-next', 'Version 2.');
  serve('mcp-taken', 'Served over MCP.');
  serve('mcp-fresh', 'New here.');
  const revision = assertOk(await reg(page, 'revision'));
  server.log.length = 0;

  const p = assertOk(await ev(page, (u) => T.outcome(sk.registry.previewMcp(u).then((p) => {
    window.p = p; // kept in the page, listing and all, for the installs below
    return { ...p, listing: p.listing.length };
  })), server.url), 'previewMcp');
  assert.deepEqual(p.skills.map((s) => [s.name, s.status, s.installed]), [
    ['mcp-good', 'installed', 'mcp-good'],
    ['mcp-liar', 'new', ''],
    ['mcp-next', 'update', 'mcp-next'],
    ['mcp-taken', 'conflict', 'mcp-taken'],
    ['mcp-fresh', 'new', ''],
  ]);
  assert.deepEqual(p.skills.map((s) => [s.description, s.uri]).at(-1), ['New here.', 'skill://mcp-fresh/SKILL.md']);
  assert.match(p.skills[0].digest, /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(codes(p.skipped), { 'mcp-escape': 'PathRejected/dot-dot' });
  assert.deepEqual(server.log, ['skills/list'], 'only the listing is asked for');
  assert.equal(assertOk(await reg(page, 'revision')), revision, 'a preview stores nothing');

  // A listing that is not the one reviewed is refused whole.
  const tampered = await ev(page, () => T.outcome(sk.registry.installFromMcp({ ...p, listing: p.listing.map((x, i) => (i === 0 ? x ^ 1 : x)) })));
  assertRejected(tampered, { code: 'Conflict', reason: 'changed-since-preview', subject: server.url });
  assert.equal(assertOk(await reg(page, 'revision')), revision);

  // The server serves other files for mcp-fresh and a skill not reviewed:
  // the files read are verified against the digests reviewed.
  serve('mcp-fresh', 'Swapped after the review.');
  serve('mcp-late', 'Not reviewed.');
  server.log.length = 0;
  const r = assertOk(await ev(page, () => T.outcome(sk.registry.installFromMcp(p, { skills: ['mcp-next', 'mcp-taken', 'mcp-fresh', 'mcp-late'], choose: { 'mcp-taken': 'rename' } }))), 'installFromMcp');
  assert.deepEqual(r.installed.map((m) => m.id), ['mcp-next', 'mcp-taken-v2']);
  assert.deepEqual(codes(r.refused), { 'mcp-fresh': 'Integrity/digest-mismatch', 'mcp-late': 'SkillNotFound/not-listed' });
  assert.equal(server.log.includes('skills/list'), false, 'the listing is not asked for again');
  assert.equal(assertOk(await reg(page, 'get', 'mcp-next')).description, 'Version 2.', 'the update replaced the skill installed from the server');
  assert.equal(assertOk(await reg(page, 'get', 'mcp-next')).origin.digest, p.skills[2].digest);
  assert.equal(assertOk(await reg(page, 'get', 'mcp-taken')).description, 'Installed from bytes.');
  assert.deepEqual(await ids(page), ['mcp-good', 'mcp-next', 'mcp-taken', 'mcp-taken-v2']);

  // A skill reviewed as installed, byte for byte, is left as it is unless chosen.
  const again = assertOk(await ev(page, () => T.outcome(sk.registry.installFromMcp(p, { skills: ['mcp-good'] }))));
  assert.deepEqual([again.installed, again.refused, codes(again.warnings)], [[], [], { 'mcp-good': 'Conflict/already-installed' }]);
  assert.deepEqual(await ids(page), ['mcp-good', 'mcp-next', 'mcp-taken', 'mcp-taken-v2']);
});

test('an MCP install as chosen per skill: the choice selects, Update updates the skill installed from the server whatever its id, a choice out of bounds installs nothing', { timeout: TEST_MS }, async (t) => {
  const server = await mcp();
  t.after(server.close);
  const page = await fresh(t);
  const serve = (name, description) => server.skills.set(name, { frontmatter: { name, description }, files: { 'SKILL.md': skillMD(name, description) } });
  // mcp-next from bytes, then from the server beside it, as mcp-next-v2 (disabled since).
  assertOk(await ev(page, (z) => T.outcome(sk.registry.importZip(T.fromB64(z))), b64(zip({ 'SKILL.md': skillMD('mcp-next', 'Installed from bytes.') }))));
  serve('mcp-next', 'Version 1.');
  const first = assertOk(await reg(page, 'installFromMcp', server.url, { skills: ['mcp-next'] }));
  assert.deepEqual(first.installed.map((m) => m.id), ['mcp-next-v2']);
  assertOk(await reg(page, 'setEnabled', 'mcp-next-v2', false));
  serve('mcp-next', 'Version 2.');
  serve('mcp-fresh', 'New here.');
  const p = assertOk(await ev(page, (u) => T.outcome(sk.registry.previewMcp(u).then((p) => {
    window.p = p;
    return { rows: p.skills.map((s) => [s.name, s.status, s.installed, s.fileCount]), digest: p.skills[2].digest };
  })), server.url), 'previewMcp');
  assert.deepEqual(p.rows, [['mcp-good', 'new', '', 3], ['mcp-liar', 'new', '', 2], ['mcp-next', 'update', 'mcp-next-v2', 1], ['mcp-fresh', 'new', '', 1]]);
  const revision = assertOk(await reg(page, 'revision'));

  // A policy that is neither, or a choice of a skill the install does not select: refused whole.
  const bad = await ev(page, () => T.outcome(sk.registry.installFromMcp(p, { choose: { 'mcp-fresh': 'rename', 'mcp-next': 'merge' } })));
  assertRejected(bad, { code: 'InvalidArgument', reason: 'on-conflict', subject: 'mcp-next' });
  const unselected = await ev(page, () => T.outcome(sk.registry.installFromMcp(p, { skills: ['mcp-fresh'], choose: { 'mcp-next': 'replace' } })));
  assertRejected(unselected, { code: 'InvalidArgument', reason: 'not-selected', subject: 'mcp-next' });
  assert.equal(assertOk(await reg(page, 'revision')), revision, 'nothing was stored');

  // Update mcp-next: the one installed from the server is replaced in place, not the one of its name.
  server.log.length = 0;
  const r = assertOk(await ev(page, () => T.outcome(sk.registry.installFromMcp(p, { choose: { 'mcp-next': 'replace' } }))), 'installFromMcp');
  assert.deepEqual([r.installed.map((m) => m.id), r.refused, r.warnings], [['mcp-next-v2'], [], []]);
  assert.deepEqual(server.log, ['resources/read skill://mcp-next/SKILL.md'], 'only the skill chosen is read');
  const v2 = assertOk(await reg(page, 'get', 'mcp-next-v2'));
  assert.deepEqual([v2.description, v2.enabled, v2.origin.digest], ['Version 2.', false, p.digest]);
  assert.equal(assertOk(await reg(page, 'get', 'mcp-next')).description, 'Installed from bytes.');
  assert.deepEqual(await ids(page), ['mcp-next', 'mcp-next-v2']);
});

test('a skill whose SKILL.md names another skill than its index entry or MCP listing is refused, and leaves the installed skill of that name as it was', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t);
  assertOk(await ev(page, (z) => T.outcome(sk.registry.importZip(T.fromB64(z))), b64(zip(ALPHA))));
  const before = assertOk(await reg(page, 'list'));
  // Both are reviewed as new skills of their listed names; each replaced
  // 'alpha', which the review never showed.
  const { site, md, publish } = await indexSite(t);
  md('harmless', skillMD('alpha', 'Not its entry name.'));
  const index = publish();
  assert.deepEqual(assertOk(await reg(page, 'previewIndex', index)).entries.map((e) => [e.name, e.status]), [['harmless', 'new']]);
  const r = assertOk(await reg(page, 'installFromIndex', index, { onConflict: 'replace' }));
  assert.deepEqual([r.installed, codes(r.refused)], [[], { harmless: 'InvalidIndex/name-mismatch' }]);
  assert.match(r.refused[0].message, /the index lists this skill as 'harmless', but its SKILL\.md names it 'alpha'/);
  assert.ok(site.log.includes('GET /md/harmless/SKILL.md'));
  const server = await serveMcp(new Map([['mgood', { frontmatter: { name: 'mgood', description: 'Harmless.' }, files: { 'SKILL.md': skillMD('alpha', 'Not mgood.') } }]]));
  t.after(server.close);
  const m = await ev(page, (u) => T.outcome(sk.registry.previewMcp(u).then((p) => sk.registry.installFromMcp(p, { choose: { mgood: 'replace' } }))), server.url);
  assert.deepEqual(codes(assertOk(m).refused), { mgood: 'InvalidIndex/name-mismatch' });
  assert.match(m.value.refused[0].message, /the MCP server lists this skill as 'mgood', but its SKILL\.md names it 'alpha'/);
  assert.deepEqual(assertOk(await reg(page, 'list')), before);
});

test('an index entry whose URL is longer than an address may be is skipped, not recorded by each skill of its archive', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t);
  const { site, archive, publish } = await indexSite(t);
  archive('pack', { 'pack/a/SKILL.md': skillMD('a', 'A.'), 'pack/b/SKILL.md': skillMD('b', 'B.') });
  // The site serves it whatever its query: each skill recorded the 9 KB
  // address twice (origin, source); a 1 MB one made 20 skills 40 MB.
  const index = publish();
  const body = JSON.parse(site.files.get('/.well-known/agent-skills/index.json').body);
  body.skills[0].url += `?${'q'.repeat(9000)}`;
  site.files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify(body), type: 'application/json' });
  const r = assertOk(await reg(page, 'installFromIndex', index));
  assert.deepEqual([r.installed, codes(r.warnings)], [[], { pack: 'InvalidIndex/bad-url' }]);
  assert.match(r.warnings[0].message, /longer than the 8192 an address to download may be/);
  assert.deepEqual(await ids(page), []);
});

test('an MCP server whose skills/list comes in pages: every page followed, or refused whole past the page limit', { timeout: TEST_MS * 2 }, async (t) => {
  // 55 skills: 11 pages of 5, or 55 pages of 1, more than js/mcp.ts's MAX_PAGES (50).
  const skills = new Map(Array.from({ length: 55 }, (_, i) => {
    const name = `paged-${String(i).padStart(2, '0')}`;
    return [name, { frontmatter: { name, description: `Page skill ${i}.` }, files: { 'SKILL.md': skillMD(name, `Page skill ${i}.`) } }];
  }));
  for (const [pageSize, want] of [[5, 55], [1, 0]]) {
    const server = await serveMcp(skills, { pageSize });
    t.after(server.close);
    const page = await fresh(t);
    const out = await ev(page, (url) => T.outcome(sk.registry.installFromMcp(url)), server.url, TEST_MS);
    if (want) assert.equal(assertOk(out, `pages of ${pageSize}`).installed.length, want);
    else assertRejected(out, { code: 'TooLarge', reason: 'index-too-large', subject: server.url }, `pages of ${pageSize}`);
    assert.equal((await ids(page)).length, want, `pages of ${pageSize}: installed`);
  }
});

test('updates: found by digest without downloading what is unchanged, applied in one commit a session notices', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const server = await mcp();
  t.after(server.close);
  const page = await fresh(t);
  assertOk(await reg(page, 'installFromIndex', site.v2, { names: ['md-skill', 'zip-skill'] }));
  assertOk(await reg(page, 'installFromMcp', server.url, { skills: ['mcp-good'] }));
  const zipURL = `${site.url}/.well-known/agent-skills/zip-skill.zip`;
  assertOk(await reg(page, 'installFromUrl', zipURL, { onConflict: 'rename' }));

  site.log.length = 0;
  server.log.length = 0;
  const same = assertOk(await reg(page, 'checkUpdates'));
  assert.deepEqual(same.map((u) => [u.id, u.status]).sort(), [['mcp-good', 'current'], ['md-skill', 'current'], ['zip-skill', 'current'], ['zip-skill-v2', 'current']]);
  // Index and MCP sources were compared by digest: nothing but the index
  // and the listing was fetched. The plain URL publishes no digest; it was
  // asked with the ETag it sent, and answered 304 without the artifact.
  assert.deepEqual(site.log.sort(), ['GET /.well-known/agent-skills/index.json', 'GET /.well-known/agent-skills/zip-skill.zip 304']);
  assert.deepEqual(server.log, ['skills/list']);
  // Only the sources of the skills named are asked (the example extension
  // checks only the sites it may reach).
  site.log.length = 0;
  server.log.length = 0;
  const one = assertOk(await reg(page, 'checkUpdates', { ids: ['mcp-good'] }));
  assert.deepEqual(one.map((u) => [u.id, u.status]), [['mcp-good', 'current']]);
  assert.deepEqual([site.log, server.log], [[], ['skills/list']]);
  // A source that publishes several of the skills answers for them all;
  // only the one named is reported.
  const md = assertOk(await reg(page, 'checkUpdates', { ids: ['md-skill'] }));
  assert.deepEqual(md.map((u) => [u.id, u.status]), [['md-skill', 'current']]);
  // A name that is no installed skill is refused, not passed over.
  const nope = await reg(page, 'checkUpdates', { ids: ['md-skill', 'no-such-skill'] });
  assert.deepEqual([nope.error?.code, nope.error?.reason, nope.error?.subject], ['SkillNotFound', 'not-installed', 'no-such-skill'], JSON.stringify(nope));

  // The publisher changes zip-skill and an MCP file.
  const changed = zip(zipFiles('# Zip, version 2\n'));
  site.files.set('/.well-known/agent-skills/zip-skill.zip', { body: changed });
  site.index.skills[1].digest = sha256(changed);
  site.files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify(site.index) });
  server.skills.get('mcp-good').files['references/a b.md'] = 'A, version 2\n';

  const ups = assertOk(await reg(page, 'checkUpdates'));
  const status = Object.fromEntries(ups.map((u) => [u.id, u.status]));
  assert.deepEqual(status, { 'md-skill': 'current', 'zip-skill': 'changed', 'mcp-good': 'changed', 'zip-skill-v2': 'changed' });
  assert.equal(ups.find((u) => u.id === 'zip-skill').latest, sha256(changed));

  // A session that sees zip-skill is told when the update lands.
  const before = assertOk(await reg(page, 'get', 'zip-skill'));
  await ev(page, async () => {
    window.s = await sk.openSession({ contextId: 'c' });
    await s.activate('zip-skill');
  });
  site.log.length = 0;
  const up = assertOk(await reg(page, 'update', 'zip-skill'));
  assert.equal(up.status, 'updated');
  assert.equal(up.skill.instance, before.instance);
  assert.equal(up.skill.origin.digest, sha256(changed));
  assert.match(assertOk(await ev(page, () => T.outcome(sk.registry.readText('zip-skill', 'SKILL.md')))), /version 2/);
  assert.equal((await ev(page, () => s.status())).stale, true);
  assert.deepEqual(site.log.sort(), ['GET /.well-known/agent-skills/index.json', 'GET /.well-known/agent-skills/zip-skill.zip']);

  // An unchanged one is not downloaded again.
  site.log.length = 0;
  assert.equal(assertOk(await reg(page, 'update', 'md-skill')).status, 'current');
  assert.deepEqual(site.log, ['GET /.well-known/agent-skills/index.json']);

  server.log.length = 0;
  const mu = assertOk(await reg(page, 'update', 'mcp-good'));
  assert.equal(mu.status, 'updated');
  assert.equal(assertOk(await ev(page, () => T.outcome(sk.registry.readText('mcp-good', 'references/a b.md')))), 'A, version 2\n');
  // The one skill's manifest by skills/get, then its three files.
  assert.deepEqual(server.log.slice(0, 1), ['skills/get skill://mcp-good/SKILL.md']);
  assert.equal(server.log.filter((l) => l.startsWith('resources/read skill://mcp-good/')).length, 3);

  // A skill its source no longer publishes is reported gone, and stays.
  server.skills.delete('mcp-good');
  const gone = await reg(page, 'update', 'mcp-good');
  assert.deepEqual([gone.error.code, gone.error.reason, gone.error.message],
    ['SkillNotFound', 'gone', 'SkillNotFound (gone): the MCP server no longer lists it: it stays installed as it is, and can be deleted if it is no longer wanted']);
  assert.equal((await reg(page, 'checkUpdates')).value.find((u) => u.id === 'mcp-good').status, 'gone');
  assert.equal(assertOk(await reg(page, 'get', 'mcp-good')).digest, mu.skill.digest);

  // The plain URL: updated once, then unchanged by its ETag, not downloaded.
  site.log.length = 0;
  const uu = assertOk(await reg(page, 'update', 'zip-skill-v2'));
  assert.deepEqual([uu.status, uu.skill.id, uu.skill.origin.digest], ['updated', 'zip-skill-v2', sha256(changed)]);
  assert.equal(assertOk(await reg(page, 'update', 'zip-skill-v2')).status, 'current');
  assert.deepEqual(site.log, ['GET /.well-known/agent-skills/zip-skill.zip', 'GET /.well-known/agent-skills/zip-skill.zip 304']);

  // A changed artifact whose digest lies is refused and changes nothing.
  site.index.skills[1].digest = sha256('not it');
  site.files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify(site.index) });
  const lie = await reg(page, 'update', 'zip-skill');
  assert.deepEqual([lie.error.code, lie.error.reason], ['Integrity', 'digest-mismatch']);
  assert.equal(assertOk(await reg(page, 'get', 'zip-skill')).digest, up.skill.digest);
  assert.deepEqual((await reg(page, 'checkUpdates')).value.map((u) => [u.id, u.status]).sort(),
    [['mcp-good', 'gone'], ['md-skill', 'current'], ['zip-skill', 'changed'], ['zip-skill-v2', 'current']]);
});

test('an MCP server that moves a skill to another URI: the check finds it there, not gone, and the update takes it from there', { timeout: TEST_MS }, async (t) => {
  const skill = (dir, body) => [dir, { frontmatter: { name: 'mover', description: 'Moves.' }, files: { 'SKILL.md': skillMD('mover', 'Moves.', body) } }];
  const server = await serveMcp(new Map([skill('team/mover', '# One\n'), ['stays', { frontmatter: { name: 'stays', description: 'Stays.' }, files: { 'SKILL.md': skillMD('stays', 'Stays.') } }]]));
  t.after(server.close);
  const page = await fresh(t);
  assertOk(await reg(page, 'installFromMcp', server.url));
  // The server moves mover to another folder, and changes it; stays goes.
  server.skills.clear();
  server.skills.set(...skill('skills/mover', '# Two\n'));
  const ups = Object.fromEntries(assertOk(await reg(page, 'checkUpdates')).map((u) => [u.id, [u.status, u.origin.uri]]));
  assert.deepEqual(ups, { mover: ['changed', 'skill://skills/mover/SKILL.md'], stays: ['gone', 'skill://stays/SKILL.md'] });
  const up = assertOk(await reg(page, 'update', 'mover'));
  assert.deepEqual([up.status, up.skill.origin.uri], ['updated', 'skill://skills/mover/SKILL.md']);
  assert.match(assertOk(await ev(page, () => T.outcome(sk.registry.readText('mover', 'SKILL.md')))), /# Two/);
  assertRejected(await reg(page, 'update', 'stays'), { code: 'SkillNotFound', reason: 'gone', subject: 'stays' });
});

test('a repository on GitHub: its page, a folder or a file installs from the archive GitHub serves; each skill updates from its own folder, the download fetched once for all', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  // GitHub is not reachable here: its addresses are answered by the local
  // site, over real HTTP, with what GitHub serves there (an archive whose
  // top-level folder is named for the ref).
  await page.route('https://github.com/**', async (route) => {
    const u = new URL(route.request().url());
    await route.fulfill({ response: await route.fetch({ url: site.url + u.pathname }) });
  });
  const repo = (top, alpha) => zip({
    [`${top}/skills/alpha/SKILL.md`]: skillMD('alpha', alpha),
    [`${top}/skills/beta/SKILL.md`]: skillMD('beta', 'Beta.'),
    [`${top}/tools/gamma/SKILL.md`]: skillMD('gamma', 'Gamma.'),
    [`${top}/tools/gamma/scripts/g.sh`]: 'echo g\n',
    [`${top}/README.md`]: '# skills\n',
  });
  site.files.set('/o/skills/archive/main.zip', { body: repo('skills-main', 'Alpha 1.'), type: 'application/zip' });
  site.files.set('/o/skills/archive/HEAD.zip', { body: repo('skills-0123abc', 'Alpha 1.'), type: 'application/zip' });
  const main = 'https://github.com/o/skills/archive/main.zip';

  // The repository's page: its default branch, everything in it.
  const all = assertOk(await reg(page, 'previewFromUrl', 'https://github.com/o/skills'));
  assert.deepEqual(all.skills.map((s) => s.dir), ['skills-0123abc/skills/alpha', 'skills-0123abc/skills/beta', 'skills-0123abc/tools/gamma']);
  assert.equal(all.origin.url, 'https://github.com/o/skills/archive/HEAD.zip');
  // A folder: its skills only.
  const folder = assertOk(await reg(page, 'installFromUrl', 'https://github.com/o/skills/tree/main/skills'));
  assert.deepEqual(folder.installed.map((m) => [m.id, m.origin.url, m.origin.dir]), [['alpha', main, 'skills/alpha'], ['beta', main, 'skills/beta']]);
  // A file's page: its folder.
  const file = assertOk(await reg(page, 'installFromUrl', 'https://github.com/o/skills/blob/main/tools/gamma/SKILL.md'));
  assert.deepEqual(file.installed.map((m) => [m.id, m.origin.dir, m.fileCount]), [['gamma', 'tools/gamma', 2]]);
  // A folder that holds no skill: nothing stored.
  const none = await reg(page, 'installFromUrl', 'https://github.com/o/skills/tree/main/docs');
  assert.deepEqual([none.error.code, none.error.reason], ['SkillNotFound', 'not-in-folder']);
  assert.equal(none.error.message, 'SkillNotFound (not-in-folder): docs: the download holds no skill in docs/ (it holds 3 skills elsewhere): ' +
    'install from the address of the whole download, or of a folder of it that holds a skill');
  // A SKILL.md's raw address: its skill's folder of the archive, scripts
  // and all, verified and recorded as the file's page is; the raw file
  // itself is never fetched (as a lone SKILL.md, it lost the scripts).
  await page.route('https://raw.githubusercontent.com/**', (route) => route.fulfill({ body: skillMD('gamma', 'Only the SKILL.md.'), contentType: 'text/plain' }));
  const raw = assertOk(await reg(page, 'previewFromUrl', 'https://raw.githubusercontent.com/o/skills/main/tools/gamma/SKILL.md'));
  assert.deepEqual(raw.skills.map((s) => [s.name, s.dir, s.fileCount, s.status]), [['gamma', 'skills-main/tools/gamma', 2, 'installed']]);
  assert.deepEqual([raw.origin.url, raw.origin.dir], [main, 'tools/gamma']);
  const rawNone = await reg(page, 'installFromUrl', 'https://raw.githubusercontent.com/o/skills/main/docs/SKILL.md');
  assert.deepEqual([rawNone.error.code, rawNone.error.reason], ['SkillNotFound', 'not-in-folder']);
  assert.deepEqual(await ids(page), ['alpha', 'beta', 'gamma']);

  // The publisher changes alpha: the download is fetched once for the
  // three skills that came from it, and only alpha, whose folder changed,
  // has an update.
  site.files.set('/o/skills/archive/main.zip', { body: repo('skills-main', 'Alpha 2.'), type: 'application/zip' });
  site.log.length = 0;
  const ups = assertOk(await reg(page, 'checkUpdates'));
  assert.deepEqual(ups.map((u) => [u.id, u.status]).sort(), [['alpha', 'changed'], ['beta', 'current'], ['gamma', 'current']]);
  assert.deepEqual(site.log, ['GET /o/skills/archive/main.zip']);
  // An update takes the skill's own folder of the new download.
  const up = assertOk(await reg(page, 'update', 'alpha'));
  assert.deepEqual([up.status, up.skill.description, up.skill.origin.dir], ['updated', 'Alpha 2.', 'skills/alpha']);
  assert.equal(assertOk(await reg(page, 'get', 'beta')).description, 'Beta.');
  assert.equal(assertOk(await reg(page, 'update', 'beta')).status, 'current', 'its folder is unchanged');
  assert.deepEqual(await ids(page), ['alpha', 'beta', 'gamma']);
});

test('a download of several skills: once one is updated, those its new download finds current follow it, and the next check downloads nothing; a session that shows them stays fresh', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const repo = (alpha) => zip({
    'skills-main/skills/alpha/SKILL.md': skillMD('alpha', alpha),
    'skills-main/skills/beta/SKILL.md': skillMD('beta', 'Beta.'),
    'skills-main/tools/gamma/SKILL.md': skillMD('gamma', 'Gamma.'),
  });
  const url = `${site.url}/o/skills.zip`;
  site.files.set('/o/skills.zip', { body: repo('Alpha 1.'), type: 'application/zip' });
  assertOk(await reg(page, 'installFromUrl', url));

  // The publisher changes alpha, which is updated: it records the new
  // download's ETag; beta and gamma, not compared, keep the old one.
  site.files.set('/o/skills.zip', { body: repo('Alpha 2.'), type: 'application/zip' });
  assert.equal(assertOk(await reg(page, 'update', 'alpha')).status, 'updated');
  await ev(page, async () => {
    window.s = await sk.openSession({ contextId: 'c' });
    await s.activate('beta');
  });
  // The first check downloads it once for the three, which record two
  // ETags: beta and gamma, found current by their folders, then record it.
  site.log.length = 0;
  const first = assertOk(await reg(page, 'checkUpdates'));
  assert.deepEqual(first.map((u) => [u.id, u.status]).sort(), [['alpha', 'current'], ['beta', 'current'], ['gamma', 'current']]);
  assert.deepEqual(site.log, ['GET /o/skills.zip']);
  const etags = new Set(assertOk(await reg(page, 'list')).map((m) => m.origin.etag));
  assert.equal(etags.size, 1, 'one ETag for the three skills of the download');
  // The next check is one request, answered 304: nothing downloaded.
  site.log.length = 0;
  assert.deepEqual(assertOk(await reg(page, 'checkUpdates')).map((u) => u.status), ['current', 'current', 'current']);
  assert.deepEqual(site.log, ['GET /o/skills.zip 304']);
  // Where beta came from changed, not beta: the session is not stale.
  assert.equal((await ev(page, () => s.status())).stale, false);
});

test('an update check asks distinct sources at once: a slow one holds up only its own skills, the answers keep the sources\' order, and an abort ends every request', { timeout: TEST_MS }, async (t) => {
  const slow = await serveSite();
  const fast = await serveSite();
  t.after(slow.close);
  t.after(fast.close);
  const page = await fresh(t);
  slow.files.set('/a.zip', { body: zip({ 'SKILL.md': skillMD('alpha-slow', 'Slow.') }), type: 'application/zip' });
  fast.files.set('/b.zip', { body: zip({ 'SKILL.md': skillMD('beta-fast', 'Fast.') }), type: 'application/zip' });
  assertOk(await reg(page, 'installFromUrl', `${slow.url}/a.zip`));
  assertOk(await reg(page, 'installFromUrl', `${fast.url}/b.zip`));

  // The slow server holds the check's request until the fast one has
  // answered. Asked one after the other (alpha-slow's source first), the
  // fast one would be asked only once the slow one's request had ended,
  // at the check's timeout.
  const events = [];
  let fastAnswered;
  const answered = new Promise((resolve) => { fastAnswered = resolve; });
  slow.files.get('/a.zip').held = async (req, res) => {
    events.push('slow asked');
    res.on('close', () => events.push('slow closed'));
    await answered;
    events.push('slow answers');
  };
  fast.files.get('/b.zip').held = async (req, res) => {
    events.push('fast asked');
    res.on('finish', () => {
      events.push('fast answered');
      fastAnswered();
    });
  };
  const ups = assertOk(await reg(page, 'checkUpdates', { timeoutMs: 10_000 }));
  // The two requests reach their servers in either order (two
  // connections); what the check's order decides is that the slow one is
  // still open when the fast one answers, not closed at its timeout first.
  assert.deepEqual(events.filter((e) => !e.endsWith(' asked')).slice(0, 2), ['fast answered', 'slow answers'], events.join(', '));
  assert.deepEqual(events.filter((e) => e.endsWith(' asked')).sort(), ['fast asked', 'slow asked']);
  assert.deepEqual(ups.map((u) => [u.id, u.status]), [['alpha-slow', 'current'], ['beta-fast', 'current']]);

  // Both held for good: an abort of the check ends both requests.
  const asked = [];
  const closed = [];
  let bothAsked;
  let bothClosed;
  const both = new Promise((resolve) => { bothAsked = resolve; });
  const bothEnded = new Promise((resolve) => { bothClosed = resolve; });
  for (const [site, path] of [[slow, '/a.zip'], [fast, '/b.zip']]) {
    site.files.get(path).held = (req, res) => new Promise(() => {
      asked.push(path);
      res.on('close', () => {
        closed.push(path);
        if (closed.length === 2) bothClosed();
      });
      if (asked.length === 2) bothAsked();
    });
  }
  await ev(page, () => {
    window.checkAbort = new AbortController();
    window.checking = T.outcome(sk.registry.checkUpdates({ signal: checkAbort.signal }));
  });
  await both;
  const aborted = await ev(page, () => {
    checkAbort.abort();
    return checking;
  });
  // Either download's abort: both were under way.
  assert.deepEqual([aborted.ok, aborted.error?.code, aborted.error?.reason], [false, 'FetchFailed', 'aborted']);
  await bothEnded;
  assert.deepEqual(closed.sort(), ['/a.zip', '/b.zip']);
});

test('a download whose skills record several ETags (one updated, another changed and not) is downloaded once a check, not once per ETag', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const repo = (a, b) => ({ type: 'application/zip', body: zip({
    'skills-main/skills/alpha/SKILL.md': skillMD('alpha', a),
    'skills-main/skills/beta/SKILL.md': skillMD('beta', b),
    'skills-main/tools/gamma/SKILL.md': skillMD('gamma', 'Gamma.'),
  }) });
  site.files.set('/o/skills.zip', repo('Alpha 1.', 'Beta 1.'));
  assertOk(await reg(page, 'installFromUrl', `${site.url}/o/skills.zip`));
  // alpha and beta change; alpha is updated, beta is not; then alpha changes again.
  site.files.set('/o/skills.zip', repo('Alpha 2.', 'Beta 2.'));
  assert.equal(assertOk(await reg(page, 'update', 'alpha')).status, 'updated');
  site.files.set('/o/skills.zip', repo('Alpha 3.', 'Beta 2.'));
  for (let i = 0; i < 2; i++) {
    site.log.length = 0;
    const ups = assertOk(await reg(page, 'checkUpdates'));
    assert.deepEqual(ups.map((u) => [u.id, u.status]).sort(), [['alpha', 'changed'], ['beta', 'changed'], ['gamma', 'current']]);
    assert.deepEqual(site.log, ['GET /o/skills.zip'], `check ${i + 1}`);
  }
  assert.equal(new Set(assertOk(await reg(page, 'list')).map((m) => m.origin.etag)).size, 3, 'each changed skill keeps the ETag of what it has, gamma follows the server');
});

test('a server\'s ETag longer than any real one is not recorded by each skill of its download: the check downloads the whole, as from a server without ETags', { timeout: TEST_MS }, async (t) => {
  // 2 KB (a server may send 200 KB): each of a download's skills kept a
  // copy, and every list read them all.
  const etag = `"${'e'.repeat(2048)}"`;
  const body = Buffer.from(zip({ 'r/a/SKILL.md': skillMD('a', 'A.'), 'r/b/SKILL.md': skillMD('b', 'B.'), 'r/c/SKILL.md': skillMD('c', 'C.') }));
  const asked = [];
  const server = createServer((req, res) => {
    asked.push(req.headers['if-none-match'] ?? '');
    res.writeHead(200, { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'etag', 'content-type': 'application/zip', etag }).end(body);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  t.after(() => new Promise((ok) => server.close(ok)));
  const page = await fresh(t);
  const url = `http://127.0.0.1:${server.address().port}/r.zip`;
  assert.deepEqual(assertOk(await reg(page, 'installFromUrl', url)).installed.map((m) => [m.id, m.origin.etag ?? '']), [['a', ''], ['b', ''], ['c', '']]);
  assert.deepEqual(assertOk(await reg(page, 'checkUpdates')).map((u) => [u.id, u.status]), [['a', 'current'], ['b', 'current'], ['c', 'current']]);
  assert.deepEqual(assertOk(await reg(page, 'list')).map((m) => m.origin.etag ?? ''), ['', '', '']);
  assert.deepEqual(asked, ['', ''], 'the check asked without an ETag');
});

test('installed a second time from the same address or index entry, what is installed from there byte for byte is left as it is, said so, not copied', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  site.files.set('/o/skills.zip', { type: 'application/zip', body: zip({
    'skills-main/skills/alpha/SKILL.md': skillMD('alpha', 'Alpha.'),
    'skills-main/skills/beta/SKILL.md': skillMD('beta', 'Beta.'),
  }) });
  const url = `${site.url}/o/skills.zip`;
  assertOk(await reg(page, 'installFromUrl', url));
  assertOk(await reg(page, 'installFromIndex', site.v2, { names: ['zip-skill'] }));
  const again = assertOk(await reg(page, 'installFromUrl', url));
  assert.deepEqual(again.installed, []);
  assert.deepEqual(again.warnings.filter((w) => w.reason === 'already-installed').map((w) => [w.name, w.code, w.message]),
    [['alpha', 'Conflict', 'installed from this source already, byte for byte, as alpha: left as it is'], ['beta', 'Conflict', 'installed from this source already, byte for byte, as beta: left as it is']]);
  const entry = assertOk(await reg(page, 'installFromIndex', site.v2, { names: ['zip-skill'] }));
  assert.deepEqual([entry.installed, entry.warnings.filter((w) => w.reason === 'already-installed').map((w) => w.name)], [[], ['zip-skill']]);
  assert.deepEqual(await ids(page), ['alpha', 'beta', 'zip-skill']);
  // Changed here since, it is no longer the source's byte for byte: the
  // warning says what it is.
  assertOk(await reg(page, 'writeFile', 'zip-skill', 'notes.md', 'mine'));
  const edited = assertOk(await reg(page, 'installFromIndex', site.v2, { names: ['zip-skill'] }));
  assert.deepEqual([edited.installed, edited.warnings.filter((w) => w.reason === 'already-installed').map((w) => w.message)],
    [[], ['installed from this source already, as zip-skill, and changed here since: left as it is, with those changes']]);
  // So too a skill installed from an MCP server, in the same words.
  const server = await mcp();
  t.after(server.close);
  const fromMcp = async () => {
    const r = assertOk(await reg(page, 'installFromMcp', server.url, { skills: ['mcp-good'] }));
    return [r.installed.map((m) => m.id), r.warnings.filter((w) => w.reason === 'already-installed').map((w) => w.message)];
  };
  assert.deepEqual(await fromMcp(), [['mcp-good'], []]);
  assert.deepEqual(await fromMcp(), [[], ['installed from this source already, byte for byte, as mcp-good: left as it is']]);
  assertOk(await reg(page, 'writeFile', 'mcp-good', 'notes.md', 'mine'));
  assert.deepEqual(await fromMcp(), [[], ['installed from this source already, as mcp-good, and changed here since: left as it is, with those changes']]);
  assert.equal(assertOk(await reg(page, 'readText', 'mcp-good', 'notes.md')), 'mine');
  // The same bytes from another source are another install: a copy.
  const other = assertOk(await reg(page, 'installFromUrl', `${site.url}/.well-known/agent-skills/zip-skill.zip`));
  assert.deepEqual(other.installed.map((m) => m.id), ['zip-skill-v2']);
});

test('an index entry installed from there is that skill, whatever its id: reviewed and installed again, it is left as it is or updated in place, never copied', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  // zip-skill from elsewhere first: the entry's is another source, kept beside it as zip-skill-v2.
  assertOk(await reg(page, 'installFromUrl', `${site.url}/.well-known/agent-skills/zip-skill.zip`));
  const first = assertOk(await reg(page, 'installFromIndex', site.v2, { names: ['zip-skill'] }));
  assert.deepEqual(first.installed.map((m) => [m.id, m.origin.entry]), [['zip-skill-v2', 'zip-skill']]);
  const review = async () => assertOk(await ev(page, (u) => T.outcome(sk.registry.previewIndex(u).then((p) => {
    window.p = p; // kept in the page, bytes and all, for the install below
    return p.entries.filter((e) => e.name === 'zip-skill' || e.name === 'md-skill').map((e) => [e.name, e.status, e.installed]);
  })), site.v2), 'previewIndex');
  const fromReview = async () => assertOk(await ev(page, () => T.outcome(sk.registry.installFromIndex(p, { names: ['zip-skill'] }))), 'installFromIndex');
  // Installed again, the entry is the skill installed from it, as
  // zip-skill-v2: left as it is, not copied as zip-skill-v3; so too from
  // a review, which says so.
  const again = assertOk(await reg(page, 'installFromIndex', site.v2, { names: ['zip-skill'] }));
  assert.deepEqual([again.installed, again.warnings.filter((w) => w.reason === 'already-installed').map((w) => [w.name, w.code])], [[], [['zip-skill', 'Conflict']]]);
  assert.deepEqual(await ids(page), ['zip-skill', 'zip-skill-v2']);
  assert.deepEqual(await review(), [['md-skill', 'new', ''], ['zip-skill', 'installed', 'zip-skill-v2']]);
  assert.deepEqual((await fromReview()).installed, []);
  assert.deepEqual(await ids(page), ['zip-skill', 'zip-skill-v2']);
  // The site publishes a new version of the entry: the review says it
  // updates zip-skill-v2, and installing it does, in place.
  const before = assertOk(await reg(page, 'get', 'zip-skill-v2'));
  const v2 = zip(zipFiles('# Zip two\n'));
  site.files.set('/.well-known/agent-skills/zip-two.zip', { body: v2, type: 'application/zip' });
  site.index.skills[1] = { ...site.index.skills[1], url: 'zip-two.zip', digest: sha256(v2) };
  site.files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify(site.index), type: 'application/json' });
  assert.deepEqual(await review(), [['md-skill', 'new', ''], ['zip-skill', 'update', 'zip-skill-v2']]);
  const up = await fromReview();
  assert.deepEqual(up.installed.map((m) => [m.id, m.instance === before.instance, m.origin.digest]), [['zip-skill-v2', true, sha256(v2)]]);
  assert.match(assertOk(await ev(page, () => T.outcome(sk.registry.readText('zip-skill-v2', 'SKILL.md')))), /# Zip two/);
  assert.deepEqual(await ids(page), ['zip-skill', 'zip-skill-v2']);
});

/** Publishes files zipped as the archive of the entry name of the
 * publisher's index, at an address of this version's own (as a site
 * naming its artifacts by digest does). */
function publishEntry(site, name, files) {
  const body = zip(files);
  const url = `${name}-${sha256(body).slice(7, 15)}.zip`;
  site.files.set(`/.well-known/agent-skills/${url}`, { body, type: 'application/zip' });
  const entry = { name, type: 'archive', description: 'Several skills.', url, digest: sha256(body) };
  site.index.skills = [...site.index.skills.filter((e) => e.name !== name), entry];
  site.files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify(site.index), type: 'application/json' });
}

test('an index entry whose archive holds several skills: installed again, each is the one installed from its folder, left as it is or updated in place, and only a new folder is new', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const publish = (files) => publishEntry(site, 'pack', files);
  const v1 = { 'pack/pa/SKILL.md': skillMD('pa', 'A one.'), 'pack/pb/SKILL.md': skillMD('pb', 'B one.') };
  // pb from elsewhere first: the entry's pb is another source, kept beside it as pb-v2.
  site.files.set('/pb.zip', { body: zip({ 'SKILL.md': skillMD('pb', 'B one.') }), type: 'application/zip' });
  assertOk(await reg(page, 'installFromUrl', `${site.url}/pb.zip`));
  publish(v1);
  const first = assertOk(await reg(page, 'installFromIndex', site.v2, { names: ['pack'] }));
  assert.deepEqual(first.installed.map((m) => [m.id, m.origin.entry, m.origin.dir]), [['pa', 'pack', 'pa'], ['pb-v2', 'pack', 'pb']]);
  const was = Object.fromEntries(first.installed.map((m) => [m.id, m.instance]));
  // The site publishes a new archive: pa and pb changed, pc new. The
  // review says the entry updates what was installed from it; installing
  // it updates pa and pb-v2 in place, not copied as pa-v2 and pb-v3.
  publish({ 'pack/pa/SKILL.md': skillMD('pa', 'A two.'), 'pack/pb/SKILL.md': skillMD('pb', 'B two.'), 'pack/pc/SKILL.md': skillMD('pc', 'C one.') });
  const p = assertOk(await reg(page, 'previewIndex', site.v2));
  assert.deepEqual(p.entries.filter((e) => e.name === 'pack').map((e) => [e.status, e.installed]), [['update', 'pa']]);
  const up = assertOk(await reg(page, 'installFromIndex', site.v2, { names: ['pack'] }));
  assert.deepEqual(up.installed.map((m) => [m.id, m.description, m.instance === was[m.id]]),
    [['pa', 'A two.', true], ['pb-v2', 'B two.', true], ['pc', 'C one.', false]]);
  assert.deepEqual([up.refused, up.warnings.filter((w) => w.name !== 'future')], [[], []]); // future: a type skillfs skips
  assert.deepEqual(await ids(page), ['pa', 'pb', 'pb-v2', 'pc']);
  assert.equal(assertOk(await reg(page, 'get', 'pb')).description, 'B one.');
  // Only pc changes next: pa and pb-v2 are left as they are, with a warning each.
  publish({ 'pack/pa/SKILL.md': skillMD('pa', 'A two.'), 'pack/pb/SKILL.md': skillMD('pb', 'B two.'), 'pack/pc/SKILL.md': skillMD('pc', 'C two.') });
  const again = assertOk(await reg(page, 'installFromIndex', site.v2, { names: ['pack'] }));
  assert.deepEqual([again.installed.map((m) => [m.id, m.description]), again.warnings.filter((w) => w.name !== 'future').map((w) => [w.name, w.reason])],
    [[['pc', 'C two.']], [['pa', 'already-installed'], ['pb-v2', 'already-installed']]]);
  assert.deepEqual(await ids(page), ['pa', 'pb', 'pb-v2', 'pc']);
  // The entry listed in a form this version cannot install: its skills'
  // updates say that, not that the index no longer lists it.
  site.index.skills = site.index.skills.map((e) => (e.name === 'pack' ? { ...e, type: 'bundle' } : e));
  site.files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify(site.index), type: 'application/json' });
  const unusable = `the index lists its entry 'pack', but not so that it can be installed (the entry's type "bundle" is not one this version of skillfs installs (skill-md, archive); it was skipped): it stays installed as it is`;
  assert.equal(assertRejected(await reg(page, 'update', 'pa'), { code: 'InvalidIndex', reason: 'unknown-type', subject: 'pa' }).message, `InvalidIndex (unknown-type): ${unusable}`);
  // Its check says the same, not that the index no longer publishes it; so does updateMany.
  const checks = assertOk(await reg(page, 'checkUpdates', { ids: ['pa', 'pb-v2', 'pc'] }));
  assert.deepEqual(checks.map((u) => [u.id, u.status, u.code, u.reason, u.message]),
    ['pa', 'pb-v2', 'pc'].map((id) => [id, 'error', 'InvalidIndex', 'unknown-type', unusable]));
  assert.deepEqual(assertOk(await reg(page, 'updateMany', ['pc'])), [{ id: 'pc', status: 'error', code: 'InvalidIndex', reason: 'unknown-type', message: unusable }]);
  // The entry removed from the index: its skills' updates say so.
  site.index.skills = site.index.skills.filter((e) => e.name !== 'pack');
  site.files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify(site.index), type: 'application/json' });
  const removed = "the index no longer lists its entry 'pack': it stays installed as it is, and can be deleted if it is no longer wanted";
  assert.equal(assertRejected(await reg(page, 'update', 'pa'), { code: 'SkillNotFound', reason: 'gone', subject: 'pa' }).message, `SkillNotFound (gone): ${removed}`);
  assert.deepEqual(assertOk(await reg(page, 'updateMany', ['pc'])), [{ id: 'pc', status: 'error', code: 'SkillNotFound', reason: 'gone', message: removed }]);
});

test('an index entry whose archive holds several skills: an update whose new version depends on a skill of that archive not installed installs it with it, in one commit; one depending on another entry, or on another skill of an MCP server, is refused and changes nothing', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const deps = (name, description, on) => `---\nname: ${name}\ndescription: ${description}\nskill_dependencies: [${on}]\n---\n# ${name}\n`;
  publishEntry(site, 'pack', { 'pack/pa/SKILL.md': skillMD('pa', 'A one.'), 'pack/pb/SKILL.md': skillMD('pb', 'B one.'), 'pack/pc/SKILL.md': skillMD('pc', 'C one.') });
  publishEntry(site, 'other', { 'other/od/SKILL.md': skillMD('od', 'Another entry.') });
  assertOk(await reg(page, 'installFromIndex', site.v2, { names: ['pack'] }));
  const was = Object.fromEntries(assertOk(await reg(page, 'list')).map((m) => [m.id, m]));
  // Version 2: pa needs pn and pc needs pm, both new in the archive; pb
  // needs od, which the index publishes as an entry of its own.
  publishEntry(site, 'pack', {
    'pack/pa/SKILL.md': deps('pa', 'A two.', 'pn'), 'pack/pb/SKILL.md': deps('pb', 'B two.', 'od'), 'pack/pc/SKILL.md': deps('pc', 'C two.', 'pm'),
    'pack/pn/SKILL.md': skillMD('pn', 'N one.'), 'pack/pm/SKILL.md': skillMD('pm', 'M one.'),
  });
  assert.deepEqual(assertOk(await reg(page, 'checkUpdates')).map((u) => [u.id, u.status]), [['pa', 'changed'], ['pb', 'changed'], ['pc', 'changed']]);
  const revision = assertOk(await reg(page, 'revision'));
  const up = assertOk(await reg(page, 'update', 'pa'));
  assert.deepEqual([up.status, up.skill.id, up.skill.description, up.skill.instance, up.installed?.map((m) => [m.id, m.origin.entry, m.origin.dir, m.enabled])],
    ['updated', 'pa', 'A two.', was.pa.instance, [['pn', 'pack', 'pn', true]]]);
  assert.equal(assertOk(await reg(page, 'revision')), revision + 1);
  // updateMany alike, each in its own commit: pc with pm; pb's od is no
  // part of the entry's archive, and pb is left as it was.
  const outs = assertOk(await reg(page, 'updateMany', ['pc', 'pb']));
  assert.deepEqual(outs.map((o) => [o.id, o.status, o.code ?? '', o.installed?.map((m) => [m.id, m.origin.dir])]),
    [['pc', 'updated', '', [['pm', 'pm']]], ['pb', 'error', 'InvalidArgument', undefined]]);
  assert.equal(outs[1].reason, 'unknown-skill');
  // Which skill pb needs, that the update takes only the entry's archive,
  // and what to do: not "od: the skill in pack/pb/ cannot be installed:
  // od: 'pb' depends on it, but no skill with this id is installed".
  const od = "od: the version of 'pb' published now depends on 'od', which is not installed and is no part of the index's entry 'pack': " +
    "install 'od' first (from the index, if it publishes it as an entry of its own), then update 'pb'";
  assert.equal(outs[1].message, od);
  assert.equal(assertRejected(await reg(page, 'update', 'pb'), { code: 'InvalidArgument', reason: 'unknown-skill', subject: 'od' }).message, `InvalidArgument (unknown-skill): ${od}`);
  const after = Object.fromEntries(assertOk(await reg(page, 'list')).map((m) => [m.id, m]));
  assert.deepEqual(Object.keys(after), ['pa', 'pb', 'pc', 'pm', 'pn']);
  assert.deepEqual([after.pb.digest, after.pb.updatedAt], [was.pb.digest, was.pb.updatedAt]);
  // The update of pn and pm follows the entry, each by its folder.
  publishEntry(site, 'pack', {
    'pack/pa/SKILL.md': deps('pa', 'A two.', 'pn'), 'pack/pb/SKILL.md': deps('pb', 'B two.', 'od'), 'pack/pc/SKILL.md': deps('pc', 'C two.', 'pm'),
    'pack/pn/SKILL.md': skillMD('pn', 'N two.'), 'pack/pm/SKILL.md': skillMD('pm', 'M one.'),
  });
  assert.equal(assertOk(await reg(page, 'update', 'pn')).skill.description, 'N two.');
  // A skill the index publishes as an entry of its own, of its name: the
  // refusal says so, and installing that entry first lets the update through.
  publishEntry(site, 'oe', { 'oe/SKILL.md': skillMD('oe', 'Its own entry.') });
  publishEntry(site, 'pack', {
    'pack/pa/SKILL.md': deps('pa', 'A two.', 'pn'), 'pack/pb/SKILL.md': deps('pb', 'B three.', 'oe'), 'pack/pc/SKILL.md': deps('pc', 'C two.', 'pm'),
    'pack/pn/SKILL.md': skillMD('pn', 'N two.'), 'pack/pm/SKILL.md': skillMD('pm', 'M one.'),
  });
  assert.equal(assertRejected(await reg(page, 'update', 'pb'), { code: 'InvalidArgument', reason: 'unknown-skill', subject: 'oe' }).message,
    "InvalidArgument (unknown-skill): oe: the version of 'pb' published now depends on 'oe', which is not installed and which the index publishes as an entry of its own, apart from 'pack': " +
    "install 'oe' from the index first, then update 'pb'");
  assertOk(await reg(page, 'installFromIndex', site.v2, { names: ['oe'] }));
  assert.equal(assertOk(await reg(page, 'update', 'pb')).skill.description, 'B three.');

  // An MCP server's skill is downloaded alone: another skill of the
  // server it comes to depend on is not in its download.
  const skills = new Map([['ma', { frontmatter: { name: 'ma', description: 'A.' }, files: { 'SKILL.md': skillMD('ma', 'A.') } }],
    ['mb', { frontmatter: { name: 'mb', description: 'B.' }, files: { 'SKILL.md': skillMD('mb', 'B.') } }]]);
  const server = await serveMcp(skills);
  t.after(server.close);
  assertOk(await reg(page, 'installFromMcp', server.url, { skills: ['ma'] }));
  skills.get('ma').files['SKILL.md'] = deps('ma', 'A two.', 'mb');
  assert.equal(assertRejected(await reg(page, 'update', 'ma'), { code: 'InvalidArgument', reason: 'unknown-skill', subject: 'mb' }).message,
    "InvalidArgument (unknown-skill): mb: the version of 'ma' published now depends on 'mb', which is not installed, and an update reads only this skill's files: install 'mb' first (from the server, if it lists it), then update 'ma'");
  assert.equal(assertOk(await reg(page, 'get', 'ma')).description, 'A.');
});

test('a server that does not let the page read its answer (CORS) is FetchFailed, and the message says it may be that', { timeout: TEST_MS }, async (t) => {
  // A real server on 127.0.0.1 that answers without CORS headers, as
  // GitHub's archive host answers every page.
  const server = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/zip' }).end(Buffer.from(zip(zipFiles('# Z\n')))));
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  t.after(() => new Promise((ok) => server.close(ok)));
  const page = await fresh(t);
  const url = `http://127.0.0.1:${server.address().port}/skill.zip`;
  const r = assertRejected(await reg(page, 'installFromUrl', url), { code: 'FetchFailed', reason: 'network', subject: url });
  assert.match(r.message, /does not let this page read its answer \(CORS\)/);
  assert.deepEqual(await ids(page), []);
});

test('an MCP server\'s address that is not http or https is refused; a server that answers other than MCP is said so in a line, what it says clipped', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t);
  for (const url of ['data:application/json,{}', 'file:///etc/passwd', 'javascript:1', '/mcp']) {
    for (const method of ['previewMcp', 'installFromMcp']) {
      const e = assertRejected(await reg(page, method, url), { code: 'InvalidArgument', reason: 'bad-url', subject: url }, `${method} ${url}`);
      assert.match(e.detail, /is not an absolute http or https URL/);
    }
  }
  // JSON that is not JSON-RPC (an index's address given as a server's)
  // was quoted as the SDK's validation, 4 KB of it; a server's error, as
  // long as the server made it.
  const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': '*' };
  const server = createServer((req, res) => {
    if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
    const body = req.url === '/json' ? '{"skills":[]}' : JSON.stringify({ jsonrpc: '2.0', id: 0, error: { code: -32601, message: `no${'!'.repeat(5000)}` } });
    res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(body);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  t.after(() => new Promise((ok) => server.close(ok)));
  const at = `http://127.0.0.1:${server.address().port}`;
  const json = assertRejected(await reg(page, 'previewMcp', `${at}/json`), { code: 'FetchFailed', reason: 'mcp-connect', subject: `${at}/json` });
  assert.equal(json.detail, `${at}/json did not answer as an MCP server (its answer is not a JSON-RPC message): check that the address is the server's endpoint, often ending in /mcp`);
  const long = assertRejected(await reg(page, 'previewMcp', `${at}/error`), { code: 'FetchFailed', reason: 'mcp-connect', subject: `${at}/error` });
  assert.match(long.detail, /\(MCP error -32601: no!+…\)/);
  assert.ok(long.detail.length < 400, long.detail.length);
  assert.deepEqual(await ids(page), []);
});

test('a download cut off after the server answered is FetchFailed, and the message does not blame CORS', { timeout: TEST_MS }, async (t) => {
  // The answer's headers let the page read it; half its body arrives, then the connection drops.
  const body = Buffer.from(zip({ ...zipFiles('# Z\n'), 'big.bin': noise(64 << 10) }));
  const server = createServer((_, res) => {
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'application/zip', 'content-length': String(body.length) });
    res.write(body.subarray(0, body.length >> 1), () => res.destroy());
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  t.after(() => new Promise((ok) => server.close(ok)));
  const page = await fresh(t);
  const url = `http://127.0.0.1:${server.address().port}/skill.zip`;
  const r = assertRejected(await reg(page, 'installFromUrl', url), { code: 'FetchFailed', reason: 'network', subject: url });
  assert.doesNotMatch(r.message, /CORS|did not answer/);
  assert.match(r.message, /stopped before the whole answer arrived/);
  assert.deepEqual(await ids(page), []);
});

test('a server that never answers is a Timeout at the deadline given, said in seconds, with what to do', { timeout: TEST_MS }, async (t) => {
  // A real server on 127.0.0.1 that takes the request and never answers.
  const held = [];
  const server = createServer((_, res) => held.push(res));
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  t.after(() => new Promise((ok) => { for (const res of held) res.destroy(); server.close(ok); }));
  const page = await fresh(t);
  const url = `http://127.0.0.1:${server.address().port}/skill.zip`;
  const r = assertRejected(await reg(page, 'installFromUrl', url, { timeoutMs: 1500 }), { code: 'Timeout', reason: 'download-timeout', subject: url });
  assert.equal(r.message, `Timeout (download-timeout): ${url} did not answer within 1.5 s: the server may be busy or unreachable; try again later`);
  assert.deepEqual(await ids(page), []);
});

test('an agent over a port cannot install', { timeout: TEST_MS }, async (t) => {
  const site = await publisher();
  t.after(site.close);
  const page = await fresh(t);
  const out = await ev(page, async (url) => {
    const { port1, port2 } = new MessageChannel();
    T.bridge.serveSkillfs(sk, port1, { capability: 'agent' });
    const agent = T.bridge.connectSkillfs(port2);
    return T.outcome(agent.registry.installFromIndex(url));
  }, site.v2);
  assert.equal(out.error.code, 'PermissionDenied');
  assert.deepEqual(await ids(page), []);
});

/** A SKILL.md of name that depends on the skills on. */
const needing = (name, ...on) => `---\nname: ${name}\ndescription: Needs ${on.join(', ')}.\nskill_dependencies: [${on.join(', ')}]\n---\n# ${name}\n`;
/** The refusal of a skill that depends on missing, in the module's words, naming missing (needs). */
const waitsFor = (name, missing) => ({ name, code: 'InvalidArgument', reason: 'unknown-skill',
  message: `'${name}' cannot be installed: it depends on '${missing}', which is not installed and is not part of this install: install '${missing}' first`, needs: missing });
const byName = (refusals) => [...refusals].sort((a, b) => a.name.localeCompare(b.name));

/** A site serving a v0.2.0 index of the entries a test adds, in order:
 * archives of the files given (archive) and lone SKILL.md files (md);
 * publish() serves the index and returns its URL. */
async function indexSite(t) {
  const files = new Map();
  const site = await serveSite(files);
  t.after(site.close);
  const entries = [];
  const entry = (name, type, path, body, url) => {
    files.set(path, { body, type: type === 'archive' ? 'application/zip' : 'text/markdown' });
    entries.push({ name, type, description: `${name}.`, url, digest: sha256(body) });
  };
  return {
    site,
    archive: (name, content) => entry(name, 'archive', `/.well-known/agent-skills/${name}.zip`, zip(content), `${name}.zip`),
    md: (name, body) => entry(name, 'skill-md', `/md/${name}/SKILL.md`, body, `../../md/${name}/SKILL.md`),
    publish() {
      files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify({ $schema: SCHEMA_V2, skills: entries }), type: 'application/json' });
      return `${site.url}/.well-known/agent-skills/index.json`;
    },
  };
}

test('an MCP server listing a skill before one it depends on: the batch installs both whatever the order; a cycle, a dependency refused or never listed is refused saying which skill to install first', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t);
  const one = (name, md, more = {}) => [name, { frontmatter: { name, description: `${name}.` }, files: { 'SKILL.md': md }, ...more }];
  // ma → mb → mc listed dependents first; mx ⇄ my; mw needs mliar, whose
  // digest lies; mv needs a skill the server does not list.
  const server = await serveMcp(new Map([
    one('ma', needing('ma', 'mb')), one('mx', needing('mx', 'my')), one('mw', needing('mw', 'mliar')), one('mb', needing('mb', 'mc')),
    one('mv', needing('mv', 'absent')), one('my', needing('my', 'mx')), one('mc', skillMD('mc', 'C.')),
    one('mliar', skillMD('mliar', 'Lies.'), { lies: { 'SKILL.md': sha256('a lie') } }),
  ]));
  t.after(server.close);
  const revision = assertOk(await reg(page, 'revision'));
  const r = assertOk(await reg(page, 'installFromMcp', server.url));
  // Each right after what it depends on, in its own commit.
  assert.deepEqual(r.installed.map((m) => [m.id, m.dependencies.skills]), [['mc', []], ['mb', ['mc']], ['ma', ['mb']]]);
  assert.equal(assertOk(await reg(page, 'revision')), revision + 3);
  assert.deepEqual(await ids(page), ['ma', 'mb', 'mc']);
  assert.deepEqual(byName(r.refused).map(({ name, code, reason }) => [name, code, reason]), [
    ['mliar', 'Integrity', 'digest-mismatch'], ['mv', 'InvalidArgument', 'unknown-skill'], ['mw', 'InvalidArgument', 'unknown-skill'],
    ['mx', 'InvalidArgument', 'unknown-skill'], ['my', 'InvalidArgument', 'unknown-skill']]);
  assert.deepEqual(byName(r.refused.filter((x) => x.reason === 'unknown-skill')),
    [waitsFor('mv', 'absent'), waitsFor('mw', 'mliar'), waitsFor('mx', 'my'), waitsFor('my', 'mx')]);
  assert.deepEqual(r.warnings, []);
});

test('a download of several skills waiting in a batch: one depending on a sibling that waits waits with it, not refused and then installed; one waiting on two ids, one never listed, installs the skill the other lets through', { timeout: TEST_MS }, async (t) => {
  const { archive, md, publish } = await indexSite(t);
  const page = await fresh(t);
  // one: p1 needs iy (listed after), p3 needs its sibling p1. two: p4
  // needs ghost (never listed), p5 needs iy.
  archive('one', { 'one/p1/SKILL.md': needing('p1', 'iy'), 'one/p3/SKILL.md': needing('p3', 'p1') });
  archive('two', { 'two/p4/SKILL.md': needing('p4', 'ghost'), 'two/p5/SKILL.md': needing('p5', 'iy') });
  md('iy', skillMD('iy', 'Y.'));
  const r = assertOk(await reg(page, 'installFromIndex', publish()));
  assert.deepEqual(r.installed.map((m) => m.id).sort(), ['iy', 'p1', 'p3', 'p5']);
  assert.deepEqual(byName(r.refused), [waitsFor('p4', 'ghost')]);
  assert.deepEqual(await ids(page), ['iy', 'p1', 'p3', 'p5']);
});

test('skills of a batch waiting for a dependency hold at most twice maxBytes of downloads: past that, one waits without its bytes and is downloaded again when let through', { timeout: TEST_MS }, async (t) => {
  const page = await fresh(t);
  const one = (name, md) => [name, { frontmatter: { name, description: `${name}.` }, files: { 'SKILL.md': md } }];
  // Each waiting SKILL.md is 70 bytes; maxBytes 80 keeps 160: ma and mb
  // wait with their bytes, md without.
  const server = await serveMcp(new Map([one('ma', needing('ma', 'mc')), one('mb', needing('mb', 'mc')), one('md', needing('md', 'mc')), one('mc', skillMD('mc', 'C.'))]));
  t.after(server.close);
  const r = assertOk(await reg(page, 'installFromMcp', server.url, { maxBytes: 80 }));
  assert.deepEqual([r.installed.map((m) => m.id), r.refused], [['mc', 'ma', 'mb', 'md'], []]);
  const reads = (name) => server.log.filter((l) => l === `resources/read skill://${name}/SKILL.md`).length;
  assert.deepEqual(['ma', 'mb', 'md', 'mc'].map(reads), [1, 1, 2, 1]);
});

test('an index listing an entry before the entry it depends on: the batch installs both whatever the order, a download of several skills installing the one that waited without a word on the others; a cycle is refused saying which skill to install first', { timeout: TEST_MS }, async (t) => {
  const files = new Map();
  const site = await serveSite(files);
  t.after(site.close);
  const page = await fresh(t);
  const entries = [];
  const md = (name, body) => {
    files.set(`/md/${name}/SKILL.md`, { body, type: 'text/markdown' });
    entries.push({ name, type: 'skill-md', description: `${name}.`, url: `../../md/${name}/SKILL.md`, digest: sha256(body) });
  };
  // ia → pack's pb → ic, listed dependents first; pack's pa needs
  // nothing and installs at once; ix ⇄ iy.
  md('ia', needing('ia', 'pb'));
  md('ix', needing('ix', 'iy'));
  const pack = zip({ 'pack/pa/SKILL.md': skillMD('pa', 'A.'), 'pack/pb/SKILL.md': needing('pb', 'ic') });
  files.set('/.well-known/agent-skills/pack.zip', { body: pack, type: 'application/zip' });
  entries.push({ name: 'pack', type: 'archive', description: 'Two skills.', url: 'pack.zip', digest: sha256(pack) });
  md('iy', needing('iy', 'ix'));
  md('ic', skillMD('ic', 'C.'));
  files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify({ $schema: SCHEMA_V2, skills: entries }), type: 'application/json' });
  const r = assertOk(await reg(page, 'installFromIndex', `${site.url}/.well-known/agent-skills/index.json`));
  assert.deepEqual(r.installed.map((m) => [m.id, m.origin.entry]), [['pa', 'pack'], ['ic', 'ic'], ['pb', 'pack'], ['ia', 'ia']]);
  assert.deepEqual(await ids(page), ['ia', 'ic', 'pa', 'pb']);
  assert.deepEqual(byName(r.refused), [waitsFor('ix', 'iy'), waitsFor('iy', 'ix')]);
  // pa, found as it is when pack was installed again, is no warning.
  assert.deepEqual(r.warnings, []);

  // A new version of ia needing id, an entry listed after it: installed
  // again, ia waits for id, then is updated in place.
  const ia = entries.findIndex((e) => e.name === 'ia');
  const before = assertOk(await reg(page, 'get', 'ia'));
  md('id', skillMD('id', 'D.'));
  const ia2 = needing('ia', 'pb', 'id');
  files.set('/md/ia/SKILL.md', { body: ia2, type: 'text/markdown' });
  entries[ia] = { ...entries[ia], digest: sha256(ia2) };
  files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify({ $schema: SCHEMA_V2, skills: entries }), type: 'application/json' });
  const again = assertOk(await reg(page, 'installFromIndex', `${site.url}/.well-known/agent-skills/index.json`, { names: ['ia', 'id'] }));
  assert.deepEqual(again.installed.map((m) => [m.id, m.dependencies.skills]), [['id', []], ['ia', ['pb', 'id']]]);
  assert.deepEqual([again.refused, again.warnings], [[], []]);
  assert.equal(assertOk(await reg(page, 'get', 'ia')).instance, before.instance);
});

test('a skill whose dependency its own download holds only broken waits in a batch for another entry that publishes that skill, and installs after it', { timeout: TEST_MS }, async (t) => {
  const { archive, md, publish } = await indexSite(t);
  const page = await fresh(t);
  // pack: x needs y, and a y without a description, which cannot be
  // installed; the entry y, listed after it: a good y.
  archive('pack', { 'pack/x/SKILL.md': needing('x', 'y'), 'pack/y/SKILL.md': '---\nname: y\n---\n# y\n' });
  md('y', skillMD('y', 'Y.'));
  const r = assertOk(await reg(page, 'installFromIndex', publish()));
  assert.deepEqual(r.installed.map((m) => [m.id, m.origin.entry]), [['y', 'y'], ['x', 'pack']]);
  assert.deepEqual(r.refused.map(({ name, reason }) => [name, reason]), [['y', 'description-missing']], 'the broken y alone, once');
  assert.deepEqual(await ids(page), ['x', 'y']);
});

test('a download tried once more at the end of a batch reports the progress of the skills it installs then, not again of those it installed before, and is not downloaded again while its bytes are held', { timeout: TEST_MS }, async (t) => {
  const { site, archive, md, publish } = await indexSite(t);
  const page = await fresh(t);
  // pack: pa (two files) installs at once; pb needs iy, listed after it;
  // pc needs ghost, listed nowhere. Once iy installs, pack waits for ghost
  // alone, and is tried once more at the end: pb installs, pc is refused.
  archive('pack', { 'pack/pa/SKILL.md': skillMD('pa', 'A.'), 'pack/pa/notes.md': 'N\n', 'pack/pb/SKILL.md': needing('pb', 'iy'), 'pack/pc/SKILL.md': needing('pc', 'ghost') });
  md('iy', skillMD('iy', 'Y.'));
  const { r, events } = await ev(page, async (url) => {
    const events = [];
    const r = await T.outcome(sk.registry.installFromIndex(url, { onProgress: (p) => events.push({ ...p }) }));
    return { r, events };
  }, publish());
  assert.deepEqual(assertOk(r).installed.map((m) => m.id), ['pa', 'iy', 'pb']);
  assert.deepEqual(assertOk(r).refused.map((x) => x.name), ['pc']);
  // One run of progress per commit, each ending done, counting the files
  // it writes: pa's two, iy's one, pb's one (not pa's again).
  const runs = [[]];
  for (const p of events) {
    runs.at(-1).push(p);
    if (p.phase === 'done') runs.push([]);
  }
  assert.deepEqual(runs.pop(), []);
  assert.deepEqual(runs.map((run) => run.at(-1)).map((p) => [p.filesDone, p.filesTotal]), [[2, 2], [1, 1], [1, 1]]);
  for (const run of runs) {
    assert.ok(run.every((p, i) => p.filesTotal === run[0].filesTotal && p.filesDone <= p.filesTotal && (i === 0 || p.filesDone >= run[i - 1].filesDone)), JSON.stringify(run));
  }
  // pack's bytes were held while it waited: downloaded once.
  assert.deepEqual(site.log.filter((l) => l.includes('pack.zip')), ['GET /.well-known/agent-skills/pack.zip']);
});
