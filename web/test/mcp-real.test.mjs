// The real skills published over MCP (SEP-2640) and installed through
// js/mcp.ts, the official SDK's client, on 127.0.0.1: every skill of the
// real downloads but anthropics' (whose names openai's and K-Dense's
// repeat: one server has one skill per name), served by
// web/harness/publish.mjs in skills/list pages of 10, each file read
// with resources/read and verified by its digest. Skipped, saying so,
// without the downloads; install.test.mjs pages a generated listing
// always.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { unzipSync } from 'fflate';
import { realRepos } from '../harness/realrepos.mjs';
import { serveMcp } from '../harness/publish.mjs';
import { assertOk, closePage, ev, freshDB, startBrowser } from './helpers.mjs';

const REAL_MS = 600_000;
const PAGE_SIZE = 10;

/** The skills of a download: folder → {frontmatter, files}, a SKILL.md
 * inside another skill's folder belonging to that skill, as on import. */
function skillsOf(path) {
  const entries = unzipSync(readFileSync(path));
  const dirs = Object.keys(entries).filter((n) => n.endsWith('/SKILL.md')).map((n) => n.slice(0, -'/SKILL.md'.length)).sort();
  const outer = dirs.filter((d) => !dirs.some((o) => o !== d && d.startsWith(`${o}/`)));
  const out = new Map();
  for (const dir of outer) {
    const md = new TextDecoder().decode(entries[`${dir}/SKILL.md`]);
    const name = /^name:\s*["']?([^"'\r\n]+)/m.exec(md)[1].trim();
    const files = {};
    for (const [n, data] of Object.entries(entries)) {
      if (n.startsWith(`${dir}/`) && !n.endsWith('/')) files[n.slice(dir.length + 1)] = data;
    }
    out.set(name, { frontmatter: { name, description: /^description:\s*(.+)$/m.exec(md)?.[1] ?? '' }, files });
  }
  return out;
}

/** @type {Awaited<ReturnType<typeof startBrowser>>} */
let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

const { repos, skipReason } = realRepos();
test('the real skills install from an MCP server, in pages', { skip: skipReason, timeout: REAL_MS }, async (t) => {
  const skills = new Map();
  for (const r of repos.filter((r) => r.name !== 'anthropics+skills')) {
    for (const [name, s] of skillsOf(r.path)) {
      assert.ok(!skills.has(name), `${name} twice`);
      skills.set(name, s);
    }
  }
  const files = [...skills.values()].reduce((n, s) => n + Object.keys(s.files).length, 0);
  const server = await serveMcp(skills, { pageSize: PAGE_SIZE });
  t.after(server.close);
  const page = await b.openPage();
  t.after(() => closePage(page));
  const out = await ev(page, async ([db, url]) => {
    window.sk = await T.load(db);
    const report = await T.outcome(sk.registry.installFromMcp(url, { timeoutMs: 60_000 }));
    const list = await sk.registry.list();
    return { report, list: list.map((m) => [m.id, m.fileCount]) };
  }, [freshDB('mcp-real'), server.url], REAL_MS);
  const report = assertOk(out.report, 'installFromMcp');
  const pages = server.log.filter((l) => l === 'skills/list').length;
  t.diagnostic(`${skills.size} skills, ${files} files: ${pages} pages of skills/list, ${server.log.length - pages} other requests; ${report.installed.length} installed, ${report.refused.length} refused`);
  assert.deepEqual(report.refused, []);
  assert.equal(pages, Math.ceil(skills.size / PAGE_SIZE));
  assert.deepEqual(out.list.map(([id]) => id).sort(), [...skills.keys()].sort());
  for (const [id, count] of out.list) assert.equal(count, Object.keys(skills.get(id).files).length, `${id}: files`);

  // Reviewed again, every skill is the one installed from the server, byte for byte; no file is read.
  server.log.length = 0;
  const review = await ev(page, (url) => {
    const start = performance.now();
    return T.outcome(sk.registry.previewMcp(url, { timeoutMs: 60_000 }).then((p) => ({
      statuses: [...new Set(p.skills.map((s) => s.status))], count: p.skills.length, skipped: p.skipped, ms: Math.round(performance.now() - start),
    })));
  }, server.url, REAL_MS);
  const { ms, ...reviewed } = assertOk(review, 'previewMcp');
  t.diagnostic(`previewMcp of the ${skills.size} installed skills: ${ms} ms`);
  assert.deepEqual(reviewed, { statuses: ['installed'], count: skills.size, skipped: [] });
  assert.deepEqual(new Set(server.log), new Set(['skills/list']));
});
