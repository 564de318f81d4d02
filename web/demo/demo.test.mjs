// The demo page, driven by clicks in headless Chromium: first-run install of
// the sample pack, the catalog, /skill:name invocation, routing, disabling,
// a rejected upload, persistence across a reload, and the screenshot the
// README shows (docs/demo.png).
//
//   node --test web/demo/demo.test.mjs     (after make demo-build)

import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { open } from '../harness/index.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEMO = join(REPO, 'dist/demo');
const READY = "document.body.dataset.ready === 'true'";

/** @type {import('../harness/browser.mjs').Opened} */
let h;

before(async () => {
  assert.ok(existsSync(join(DEMO, 'skillfs.wasm')), 'run make demo-build first');
  h = await open({ root: DEMO, readyExpression: READY, isolate: false, timeoutMs: 30_000 });
  h.page.setDefaultTimeout(15_000);
});

after(async () => {
  await h?.close();
});

const rows = () => h.page.locator('#skills tbody tr');

test('the first visit installs the sample pack and shows the catalog', async () => {
  assert.equal(await rows().count(), 5);
  const ids = await rows().evaluateAll((trs) => trs.map((tr) => tr.dataset.id));
  assert.deepEqual(ids, ['citation-style', 'commit-message', 'pdf-tools', 'release-notes', 'web-research']);
  const catalog = await h.page.locator('#catalog').textContent();
  assert.match(catalog, /^<available_skills>/);
  assert.match(catalog, /<location>\n\/skills\/pdf-tools\/SKILL\.md\n<\/location>/);
  // disable-model-invocation keeps release-notes out of the model's catalog.
  assert.doesNotMatch(catalog, /release-notes/);
  assert.match(await h.page.locator('#status').textContent(), /5 skill\(s\) installed, 5 enabled/);
});

test('typing /skill:name args gives the skill with its arguments', async () => {
  await h.page.fill('#invoke', '/skill:commit-message api "Add retry to the upload client"');
  await h.page.click('#invoke-form button');
  await h.page.waitForFunction(() => document.querySelector('#invoke-result').textContent.includes('skill_content'));
  const block = await h.page.locator('#invoke-result').textContent();
  assert.match(block, /<skill_content name="commit-message">/);
  assert.match(block, /Scope: api\. What the user said the change does: Add retry to the upload client/);
  assert.match(block, /\/skills\/commit-message\//);
});

test('a skill the user may not invoke is refused with its code', async () => {
  await h.page.fill('#invoke', '/skill:citation-style');
  await h.page.click('#invoke-form button');
  await h.page.locator('#invoke-result .error').waitFor();
  assert.match(await h.page.locator('#invoke-result .error').textContent(), /^PermissionDenied \(not-user-invocable\)/);
});

test('a routing query picks a skill with a score breakdown', async () => {
  await h.page.fill('#route', 'fill in this PDF form');
  await h.page.click('#route-form button');
  await h.page.locator('#route-result table').waitFor();
  const text = await h.page.locator('#route-result').textContent();
  assert.match(text, /^Plan: pdf-tools, then/);
  assert.match(text, /generic-tools/);
});

test('disabling a skill hides it from the catalog and survives a reload', async () => {
  await h.page.locator('tr[data-id="pdf-tools"] input[type=checkbox]').uncheck();
  await h.page.waitForFunction(() => !document.querySelector('#catalog').textContent.includes('pdf-tools'));
  await h.page.reload();
  await h.page.waitForFunction(READY);
  assert.equal(await rows().count(), 5, 'the pack is not installed twice');
  assert.equal(await h.page.locator('tr[data-id="pdf-tools"] input[type=checkbox]').isChecked(), false);
  assert.doesNotMatch(await h.page.locator('#catalog').textContent(), /pdf-tools/);
  await h.page.locator('tr[data-id="pdf-tools"] input[type=checkbox]').check();
  await h.page.waitForFunction(() => document.querySelector('#catalog').textContent.includes('pdf-tools'));
});

test('a hostile upload is refused with a readable error and changes nothing', async () => {
  await h.page.setInputFiles('#file', { name: 'not-a-zip.skill', mimeType: 'application/zip', buffer: Buffer.from('this is not a zip archive') });
  await h.page.locator('#import-result .error').waitFor();
  assert.match(await h.page.locator('#import-result .error').textContent(), /^InvalidArchive \(not-a-zip\)/);
  assert.equal(await rows().count(), 5);
});

test('dropping a valid pack installs it with a progress bar; export and delete work', async () => {
  // Watch the progress bar while the import runs.
  await h.page.evaluate(() => {
    const bar = document.querySelector('#progress');
    window.progressSeen = { shown: false, max: 0 };
    new MutationObserver(() => {
      if (!bar.hidden) window.progressSeen.shown = true;
      window.progressSeen.max = Math.max(window.progressSeen.max, bar.value);
    }).observe(bar, { attributes: true, attributeFilter: ['hidden', 'value'] });
    const set = Object.getOwnPropertyDescriptor(HTMLProgressElement.prototype, 'value').set;
    Object.defineProperty(bar, 'value', {
      get: () => bar.getAttribute('value') === null ? 0 : Number(bar.getAttribute('value')),
      set(v) { set.call(bar, v); bar.setAttribute('value', String(v)); },
    });
  });
  // The pack installed already: the same skills are not added again.
  await h.page.selectOption('#conflict', 'rename');
  await h.page.setInputFiles('#file', join(DEMO, 'sample-pack.zip'));
  await h.page.locator('#import-result .ok').waitFor();
  assert.equal(await h.page.locator('#import-result .ok').textContent(),
    'Nothing new in sample-pack.zip. Already installed, unchanged: citation-style, commit-message, pdf-tools, release-notes, web-research.');
  assert.equal(await rows().count(), 5);
  // Copies asked for.
  await h.page.selectOption('#conflict', 'copy');
  await h.page.setInputFiles('#file', join(DEMO, 'sample-pack.zip'));
  await h.page.waitForFunction(() => document.querySelector('#import-result .ok')?.textContent.startsWith('Installed'));
  assert.match(await h.page.locator('#import-result .ok').textContent(), /^Installed citation-style-v2, commit-message-v2, pdf-tools-v2, release-notes-v2, web-research-v2 from sample-pack\.zip\.$/);
  await h.page.waitForFunction(() => document.querySelectorAll('#skills tbody tr').length === 10);
  assert.deepEqual(await h.page.evaluate(() => window.progressSeen), { shown: true, max: 1 });

  const [download] = await Promise.all([
    h.page.waitForEvent('download'),
    h.page.locator('tr[data-id="pdf-tools-v2"] button', { hasText: 'Export' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'pdf-tools-v2.zip');
  const saved = join(await mkdtemp(join(tmpdir(), 'skillfs-demo-')), 'export.zip');
  await download.saveAs(saved);
  const zip = await readFile(saved);
  assert.equal(zip.subarray(0, 4).toString('latin1'), 'PK\x03\x04');
  assert.ok(zip.includes('pdf-tools-v2/SKILL.md'), 'the export holds the skill under its id');

  for (const id of ['citation-style-v2', 'commit-message-v2', 'pdf-tools-v2', 'release-notes-v2', 'web-research-v2']) {
    await h.page.locator(`tr[data-id="${id}"] button`, { hasText: 'Delete' }).click();
    await h.page.locator(`tr[data-id="${id}"]`).waitFor({ state: 'detached' });
  }
  assert.equal(await rows().count(), 5);
});

test('the page as a person sees it', async () => {
  await h.page.fill('#invoke', '/skill:commit-message api "Add retry to the upload client"');
  await h.page.click('#invoke-form button');
  await h.page.waitForFunction(() => document.querySelector('#invoke-result').textContent.includes('skill_content'));
  await h.page.setViewportSize({ width: 1280, height: 900 });
  mkdirSync(join(REPO, 'docs'), { recursive: true });
  await h.page.screenshot({ path: join(REPO, 'docs/demo.png'), fullPage: false });
  assert.deepEqual(h.pageErrors, []);
});
