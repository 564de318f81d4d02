import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SCHEMA_V2, serveSite, sha256 } from '../harness/publish.mjs';
import { assertOk, closePage, ev, freshDB, skillMD, startBrowser, zip } from './helpers.mjs';

let b;
before(async () => { b = await startBrowser(); });
after(async () => { await b?.close(); });
async function fresh(t) {
  const page = await b.openPage();
  t.after(() => closePage(page));
  await ev(page, async (db) => { window.sk = await T.load(db); }, freshDB('explore'));
  return page;
}
const reg = (page, method, ...args) => ev(page, ([m, a]) => T.outcome(sk.registry[m](...a)), [method, args]);
const show = (x) => console.log(JSON.stringify(x, (k, v) => (k === 'bytes' || k === 'origin' || k==='diagnostics' ? undefined : v), 1).slice(0, 2500));
const dep = (name, desc, deps) => `---\nname: ${name}\ndescription: ${desc}\nskill_dependencies: [${deps.join(", ")}]\n---\n# ${name}\n`;

test('probe', { timeout: 120000 }, async (t) => {
  const site = await serveSite();
  t.after(site.close);
  const page = await fresh(t);
  const repo = (files) => zip(Object.fromEntries(Object.entries(files).map(([k, v]) => [`r-main/${k}`, v])));
  const url = `${site.url}/r.zip`;
  site.files.set('/r.zip', { body: repo({ 'skills/alpha/SKILL.md': skillMD('alpha', 'A1.'), 'skills/beta/SKILL.md': dep('beta', 'B1.', ['alpha']) }) });
  show(assertOk(await reg(page, 'installFromUrl', url)).installed.map((m) => [m.id, m.origin.dir, m.dependencies]));
  site.files.set('/r.zip', { body: repo({ 'skills/alpha/SKILL.md': skillMD('alpha', 'A1.'), 'skills/beta/SKILL.md': dep('beta', 'B2.', ['alpha', 'gamma']), 'skills/gamma/SKILL.md': skillMD('gamma', 'G.') }) });
  console.log('dep check'); show(await reg(page, 'checkUpdates'));
  console.log('dep update'); show(await reg(page, 'update', 'beta'));
  // preview choose beta only where beta depends on gamma
  const p = assertOk(await reg(page, 'previewFromUrl', url));
  show(p.skills.map((s) => [s.name, s.status, s.installed]));
  console.log('choose beta only'); show(await ev(page, async (u) => { const p = await sk.registry.previewFromUrl(u); return T.outcome(sk.registry.installFromPreview(p, { choose: { beta: 'replace' } })); }, url));
  // index answering html
  site.files.set('/index.json', { body: '<!doctype html><html></html>', type: 'text/html' });
  console.log('index html'); show(await reg(page, 'previewIndex', `${site.url}/index.json`));
  // removal of alpha: beta depends
  site.files.set('/r.zip', { body: repo({ 'skills/beta/SKILL.md': dep('beta', 'B1.', ['alpha']) }) });
  console.log('alpha gone'); show(await reg(page, 'checkUpdates'));
  // a skill-md URL
  site.files.set('/s/SKILL.md', { body: skillMD('lone', 'L1.'), type: 'text/markdown' });
  show(assertOk(await reg(page, 'installFromUrl', `${site.url}/s/SKILL.md`)).installed.map((m) => [m.id, m.origin]));
  site.files.set('/s/SKILL.md', { body: skillMD('lone2', 'L2.'), type: 'text/markdown' });
  console.log('lone renamed check'); show(await reg(page, 'checkUpdates', {ids: ['lone']}));
  console.log('lone renamed update'); show(await reg(page, 'update', 'lone'));
});
