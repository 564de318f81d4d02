// The demo page (the web/ui app running the module in the page), driven
// in headless Chromium by roles and names, as a screen reader user finds
// the controls: first-run install of the sample pack, the catalog and what
// the budget did to it, /skill: invocation, routing in words, disabling,
// a refused upload, imports, export, delete with confirmation, the empty
// state that offers the pack again, the layout with long real-world
// descriptions at 1280 and 400 px, and axe-core. It takes demo.png
// and demo-400.png (in .bin/screenshots; `make screenshots` copies them to
// docs/, which the README shows).
//
//   node --test web/demo/demo.test.mjs     (after make demo-build)

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { axeViolations } from '../harness/axe.mjs';
import { screenshotPath } from '../harness/screenshots.mjs';
import { open } from '../harness/index.mjs';
import { longName, longPack } from '../ui/fixtures.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEMO = join(REPO, 'dist/demo');
// A function, not a string: the page's CSP forbids eval, which a string predicate needs.
const READY = () => document.body.dataset.ready === 'true';
const SAMPLE_IDS = ['citation-style', 'commit-message', 'pdf-tools', 'release-notes', 'web-research', 'word-count'];

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

const list = () => h.page.getByRole('list', { name: 'Installed skills' });
const ids = () => list().locator(':scope > li').evaluateAll((lis) => lis.map((li) => li.dataset.id));
const waitCount = (n) => h.page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), n);
const catalog = () => h.page.locator('#catalog').textContent();

/** Picks a file through the "Import…" button's file chooser, as a person does. */
async function importFile(file) {
  const [chooser] = await Promise.all([h.page.waitForEvent('filechooser'), h.page.getByRole('button', { name: 'Import…' }).click()]);
  await chooser.setFiles(file);
}
/** The preview of the chosen archive, as a person reviews it. */
async function preview(timeout = 15_000) {
  const group = h.page.getByRole('group', { name: /holds [\d,]+ skills?$/ });
  await group.waitFor({ timeout });
  return group;
}
/** The import's result, once there is one. */
async function importResult() {
  const box = h.page.locator('.import-result > div');
  await box.waitFor();
  return { ok: (await box.getAttribute('class')) === 'ok', code: await box.getAttribute('data-code'), text: await box.textContent() };
}

/** Deletes a skill through its Delete button and the confirmation naming it. */
async function deleteSkill(id) {
  await list().getByRole('button', { name: `Delete ${id}`, exact: true }).click();
  const dialog = h.page.getByRole('dialog', { name: `Delete ${id}?` });
  await dialog.getByRole('button', { name: `Delete ${id}`, exact: true }).click();
  await h.page.locator(`#skills > li[data-id="${id}"]`).waitFor({ state: 'detached' });
}

test('the first visit installs the sample pack and shows the catalog as the agent gets it', async () => {
  await waitCount(6);
  assert.deepEqual(await ids(), SAMPLE_IDS);
  await h.page.waitForFunction(() => document.querySelector('#catalog')?.textContent.startsWith('<available_skills'));
  const text = await catalog();
  assert.match(text, /<location>\n\/skills\/pdf-tools\/SKILL\.md\n<\/location>/);
  // disable-model-invocation keeps release-notes out of the model's catalog.
  assert.doesNotMatch(text, /release-notes/);
  assert.match(await h.page.locator('#catalog-label').textContent(), /^Every visible skill with its full description \(\d[\d,]* of 8,000 characters\); 1 more only you can invoke\.$/);
  assert.equal(await h.page.getByRole('status').filter({ hasText: 'skills installed' }).textContent(), '6 skills installed, 6 enabled.');
});

test('a small budget degrades the catalog, and the label says how', async () => {
  await h.page.getByRole('combobox', { name: 'Budget' }).selectOption('2000');
  await h.page.getByRole('combobox', { name: 'Catalog' }).selectOption('names');
  await h.page.waitForFunction(() => /shown="5" described="0" total="5"/.test(document.querySelector('#catalog')?.textContent ?? ''));
  assert.match(await h.page.locator('#catalog-label').textContent(), /^The agent sees all 5 skills, 0 with a description: names only, as asked \(\d[\d,]* of 2,000 characters\); 1 more only you can invoke\.$/);
  await h.page.getByRole('combobox', { name: 'Catalog' }).selectOption('full');
  await h.page.getByRole('combobox', { name: 'Budget' }).selectOption('8000');
  await h.page.waitForFunction(() => document.querySelector('#catalog')?.textContent.startsWith('<available_skills>'));
});

test('typing /skill:name args offers completions with hints and gives the skill with its arguments', async () => {
  const input = h.page.getByRole('combobox', { name: /Run a skill as the user would type it/ });
  const options = await h.page.locator('#commands option').evaluateAll((os) => os.map((o) => o.value.trim()));
  assert.ok(options.includes('/skill:commit-message') && !options.includes('/skill:citation-style'), `completions: ${options}`);
  await input.fill('/skill:commit-message api "Add retry to the upload client"');
  assert.match(await h.page.locator('#invoke-hint').textContent(), /^\/skill:commit-message \S/);
  await h.page.getByRole('button', { name: 'Run' }).click();
  await h.page.waitForFunction(() => document.querySelector('#invoke-result')?.textContent.includes('skill_content'));
  const block = await h.page.locator('#invoke-result').textContent();
  assert.match(block, /<skill_content name="commit-message">/);
  assert.match(block, /Scope: api\. What the user said the change does: Add retry to the upload client/);
});

test('a skill with no argument hint still gets what follows its name, as the hint says', async () => {
  await h.page.getByRole('combobox', { name: /Run a skill as the user would type it/ }).fill('/skill:pdf-tools fill in form.pdf');
  assert.equal(await h.page.locator('#invoke-hint').textContent(), '/skill:pdf-tools (no argument hint; what follows the name is passed on as ARGUMENTS)');
  await h.page.getByRole('button', { name: 'Run' }).click();
  await h.page.waitForFunction(() => document.querySelector('#invoke-result')?.textContent.includes('name="pdf-tools"'));
  assert.match(await h.page.locator('#invoke-result').textContent(), /\n\nARGUMENTS: fill in form\.pdf\n/);
});

test('a skill the user may not invoke is refused in one sentence', async () => {
  await h.page.getByRole('combobox', { name: /Run a skill/ }).fill('/skill:citation-style');
  await h.page.getByRole('button', { name: 'Run' }).click();
  const alert = h.page.locator('#invoke-result[role=alert]');
  await alert.waitFor();
  assert.equal(await alert.getAttribute('data-code'), 'PermissionDenied');
  assert.match(await alert.textContent(), /^Could not run \/skill:citation-style: .+\.$/);
});

test('a routing query says in words which skill fits and why', async () => {
  await h.page.getByRole('textbox', { name: /which skill the agent would pick/ }).fill('fill in this PDF form');
  await h.page.getByRole('button', { name: 'Route' }).click();
  await h.page.locator('#route-result .plan').waitFor();
  assert.match(await h.page.locator('#route-result .plan').textContent(), /^pdf-tools fits best, clearly ahead of the others\. If it fails: .*generic-tools/);
  assert.match(await h.page.locator('#route-result li').first().textContent(), /^pdf-tools scores \d+ of 100\. .*(request|words)/);
});

test('search and filters narrow the list, with counts', async () => {
  await h.page.getByRole('searchbox', { name: 'Search skills' }).fill('pdf form');
  await h.page.waitForFunction(() => document.querySelectorAll('#skills > li').length === 1);
  assert.deepEqual(await ids(), ['pdf-tools']);
  assert.equal(await h.page.getByRole('radio', { name: /^All/ }).evaluate((r) => r.parentElement.textContent), 'All 1');
  await h.page.getByRole('searchbox', { name: 'Search skills' }).fill('');
  await h.page.waitForFunction(() => document.querySelectorAll('#skills > li').length === 6);
});

test('disabling a skill hides it from the catalog and survives a reload', async () => {
  await h.page.getByRole('switch', { name: 'Enabled: pdf-tools' }).uncheck();
  await h.page.waitForFunction(() => !document.querySelector('#catalog').textContent.includes('pdf-tools'));
  await h.page.getByRole('radio', { name: /^Disabled/ }).check();
  await h.page.waitForFunction(() => document.querySelectorAll('#skills > li').length === 1);
  assert.deepEqual(await ids(), ['pdf-tools']);
  await h.page.reload();
  await h.page.waitForFunction(READY);
  await waitCount(6);
  assert.equal(await h.page.getByRole('switch', { name: 'Enabled: pdf-tools' }).isChecked(), false);
  await h.page.waitForFunction(() => document.querySelector('#catalog')?.textContent.startsWith('<available_skills'));
  assert.doesNotMatch(await catalog(), /pdf-tools/);
  await h.page.getByRole('switch', { name: 'Enabled: pdf-tools' }).check();
  await h.page.waitForFunction(() => document.querySelector('#catalog').textContent.includes('pdf-tools'));
});

test('a hostile upload is refused in one sentence and changes nothing', async () => {
  await importFile({ name: 'not-a-zip.skill', mimeType: 'application/zip', buffer: Buffer.from('this is not a zip archive') });
  const r = await importResult();
  assert.equal(r.ok, false);
  assert.equal(r.code, 'InvalidArchive');
  assert.match(r.text, /^Could not import not-a-zip\.skill: .+\.$/);
  assert.deepEqual(await ids(), SAMPLE_IDS);
});

test('importing from the keyboard: the same pack is recognised, copies when asked; export and delete with confirmation', async () => {
  // The drop target opens the file chooser with Enter.
  const drop = h.page.getByRole('button', { name: /^Drop a \.zip, \.skill or \.tar\.gz file here, or press Enter/ });
  const [chooser] = await Promise.all([h.page.waitForEvent('filechooser'), drop.press('Enter')]);
  await chooser.setFiles(join(DEMO, 'sample-pack.zip'));
  // The preview recognises every skill as already installed: nothing to install unless asked.
  let group = await preview();
  assert.equal(await group.getByRole('heading').textContent(), 'sample-pack.zip holds 6 skills');
  assert.equal(await group.getByText('already installed', { exact: true }).count(), 6);
  assert.equal(await group.locator('.preview-counts').textContent(), '6 already installed, unchanged.');
  const forAll = group.getByRole('combobox', { name: 'For the 6 skills already installed' });
  assert.equal(await forAll.evaluate((s) => s.selectedOptions[0]?.textContent ?? '(none)'), 'Skip them all');
  assert.equal(await group.getByRole('button', { name: 'Install 0 skills' }).isDisabled(), true);
  await group.getByRole('button', { name: 'Cancel' }).click();
  await group.waitFor({ state: 'detached' });
  // Copies, asked for per skill.
  await importFile(join(DEMO, 'sample-pack.zip'));
  group = await preview();
  for (const id of SAMPLE_IDS) await group.getByRole('combobox', { name: `What to do with ${id}` }).selectOption({ label: `Keep both (${id}-v2)` });
  await group.getByRole('button', { name: 'Install 6 skills' }).click();
  let r = await importResult();
  assert.ok(r.text.startsWith(`Installed 6 skills from sample-pack.zip: ${SAMPLE_IDS.map((i) => `${i}-v2`).join(', ')}.`), r.text);
  // A copy's name is not its folder's: each has that warning, and the result says so.
  assert.match(r.text, /6 skills have warnings: citation-style-v2 \(1\)/);
  await waitCount(12);

  const [download] = await Promise.all([h.page.waitForEvent('download'), list().getByRole('button', { name: 'Export pdf-tools-v2' }).click()]);
  assert.equal(download.suggestedFilename(), 'pdf-tools-v2.zip');
  const saved = join(await mkdtemp(join(tmpdir(), 'skillfs-demo-')), 'export.zip');
  await download.saveAs(saved);
  const zip = await readFile(saved);
  assert.equal(zip.subarray(0, 4).toString('latin1'), 'PK\x03\x04');
  assert.ok(zip.includes('pdf-tools-v2/SKILL.md'), 'the export holds the skill under its id');

  // Cancel keeps the skill.
  await list().getByRole('button', { name: 'Delete pdf-tools-v2' }).click();
  await h.page.getByRole('dialog', { name: 'Delete pdf-tools-v2?' }).getByRole('button', { name: 'Cancel' }).click();
  await h.page.getByRole('dialog').waitFor({ state: 'detached' });
  assert.ok((await ids()).includes('pdf-tools-v2'));
  for (const id of SAMPLE_IDS) await deleteSkill(`${id}-v2`);
  assert.deepEqual(await ids(), SAMPLE_IDS);
});

test('with no skills, the page offers the sample pack again', async () => {
  // web-research depends on citation-style: its dialog says so before the
  // click, lists what goes with it, and offers that or nothing.
  const words = (l) => l.evaluate((e) => e.textContent.replace(/\s+/g, ' ').trim());
  await list().getByRole('button', { name: 'Delete citation-style', exact: true }).click();
  let dialog = h.page.getByRole('dialog', { name: 'Delete citation-style?' });
  await dialog.waitFor();
  assert.equal(await words(dialog.locator('.dependents-note')), 'web-research depends on it, so it cannot be deleted alone.');
  const goes = (d, what, n) => d.getByRole('list', { name: `Deleting ${what} dependents deletes ${n} skills:` }).getByRole('listitem').allTextContents();
  assert.deepEqual(await goes(dialog, 'it with its', 2), ['citation-style', 'web-research']);
  assert.deepEqual(await dialog.getByRole('button').allTextContents(), ['Delete citation-style and 1 dependent', 'Cancel'], 'no delete of it alone');
  assert.deepEqual(await axeViolations(h.page), [], 'axe: a delete with dependents');
  // It deletes more than was asked: the focus starts on Cancel, not on
  // it, and the dialog is described by who depends on it (read on opening).
  assert.equal(await h.page.evaluate(() => document.activeElement?.textContent), 'Cancel');
  const description = (d) => d.evaluate((e) => document.getElementById(e.getAttribute('aria-describedby'))?.textContent.replace(/\s+/g, ' ').trim());
  assert.equal(await description(dialog), 'web-research depends on it, so it cannot be deleted alone.');
  await h.page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  // The selection's delete names the dependents outside it the same way.
  for (const id of ['citation-style', 'pdf-tools']) await list().getByRole('checkbox', { name: `Select ${id}`, exact: true }).check();
  await h.page.getByRole('button', { name: 'Delete selected…' }).click();
  dialog = h.page.getByRole('dialog', { name: 'Delete 2 skills?' });
  assert.equal(await words(dialog.locator('.dependents-note')), 'web-research, outside the selection, depends on them, so they cannot be deleted alone.');
  assert.deepEqual(await goes(dialog, 'them with their', 3), ['citation-style', 'pdf-tools', 'web-research']);
  assert.deepEqual(await dialog.getByRole('button').allTextContents(), ['Delete 2 skills and 1 dependent', 'Cancel']);
  assert.equal(await description(dialog), 'web-research, outside the selection, depends on them, so they cannot be deleted alone.');
  assert.equal(await h.page.evaluate(() => document.activeElement?.textContent), 'Cancel');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await h.page.getByRole('button', { name: 'Clear selection' }).click();
  assert.deepEqual(await ids(), SAMPLE_IDS);
  // Deleted with its dependent, in one click.
  await list().getByRole('button', { name: 'Delete citation-style', exact: true }).click();
  await h.page.getByRole('dialog', { name: 'Delete citation-style?' }).getByRole('button', { name: 'Delete citation-style and 1 dependent' }).click();
  await h.page.locator('#skills > li[data-id="web-research"]').waitFor({ state: 'detached' });
  assert.deepEqual(await ids(), SAMPLE_IDS.filter((id) => id !== 'citation-style' && id !== 'web-research'));
  for (const id of await ids()) await deleteSkill(id);
  await h.page.getByRole('heading', { name: 'No skills installed' }).waitFor();
  // The catalog is asked for again after the last delete: its label follows.
  const label = 'No catalog: no enabled skill is visible to the agent.';
  await h.page.waitForFunction((l) => document.querySelector('#catalog-label')?.textContent === l, label).catch(() => {});
  assert.equal(await h.page.locator('#catalog-label').textContent(), label);
  await h.page.getByRole('button', { name: 'Install the sample pack' }).click();
  await waitCount(6);
  assert.deepEqual(await ids(), SAMPLE_IDS);
});

for (const width of [1280, 400]) {
  test(`long real-world descriptions keep every control reachable at ${width} px; axe finds nothing serious`, { timeout: 120_000 }, async () => {
    await h.page.setViewportSize({ width, height: 900 });
    if (!(await ids()).includes('lab-000')) {
      await importFile({ name: 'lab-skills.zip', mimeType: 'application/zip', buffer: Buffer.from(longPack(60)) });
      const group = await preview();
      // The preview holds up with long descriptions too, and passes axe.
      assert.deepEqual(await axeViolations(h.page), [], 'axe: the preview');
      await group.getByRole('button', { name: 'Install 60 skills' }).click();
      await waitCount(66);
    }
    // 66 skills: the first 50 shown, the rest on request.
    assert.equal(await list().locator(':scope > li').count(), 50);
    assert.match(await h.page.locator('.list-count').textContent(), /^66 skills, the first 50 shown$/);
    assert.equal(await h.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'nothing widens the page');
    for (const id of ['lab-000', longName(), 'lab-005']) {
      const row = list().locator(`:scope > li[data-id="${id}"]`);
      await row.scrollIntoViewIfNeeded();
      for (const name of [`Delete ${id}`, `Export ${id}`]) {
        const b = row.getByRole('button', { name, exact: true });
        const box = await b.boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${name} is inside the ${width} px viewport: ${JSON.stringify(box)}`);
        // Nothing sits on top of it.
        assert.equal(await b.evaluate((el) => { const r = el.getBoundingClientRect(); return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)); }), true, `${name} is clickable`);
      }
      const desc = row.locator('.desc');
      // lab-000 and lab-005 have 1,900-character descriptions; lab-001's fits.
      if (id === longName()) {
        assert.equal(await row.getByRole('button', { name: /^more about/ }).count(), 0, 'no "more" for a description that fits');
      } else {
        // Two lines, and "more" shows the rest.
        assert.ok((await desc.evaluate((p) => p.getBoundingClientRect().height)) < 50, `${id}'s description is clamped`);
        await row.getByRole('button', { name: `more about ${id}` }).click();
        assert.ok((await desc.evaluate((p) => p.getBoundingClientRect().height)) > 50, `${id}'s description is expanded`);
        await row.getByRole('button', { name: `less about ${id}` }).click();
      }
    }
    await h.page.evaluate(() => window.scrollTo(0, 0));
    assert.deepEqual(await axeViolations(h.page), [], 'axe: the manager');
    await h.page.screenshot({ path: screenshotPath(width === 1280 ? 'demo.png' : `demo-${width}.png`) });
    assert.deepEqual(h.pageErrors, []);
  });
}

test('25 skills previewed: 20 rows, then the last 5 from the keyboard, and the focus on the preview when the button goes', async () => {
  await importFile({ name: 'page.zip', mimeType: 'application/zip', buffer: Buffer.from(longPack(25, 'page')) });
  const group = await preview();
  assert.equal(await group.locator('.preview-skills > li').count(), 20);
  const more = group.locator('.preview-more');
  assert.equal(await more.textContent(), 'And 5 more skills that can be installed. Show 5 more that can be installed');
  await more.getByRole('button', { name: 'Show 5 more that can be installed' }).focus();
  await h.page.keyboard.press('Enter');
  await h.page.waitForFunction(() => document.querySelectorAll('.preview-skills > li').length === 25);
  assert.equal(await more.count(), 0, 'nothing more to show');
  assert.equal(await h.page.evaluate(() => document.activeElement?.id), 'preview-title', 'the focus is on the preview, not lost with the button');
  assert.deepEqual(await axeViolations(h.page), [], 'axe: a preview drawn whole');
  await group.getByRole('button', { name: 'Cancel' }).click();
  await group.waitFor({ state: 'detached' });
});

test('1,000 skills: the list pages, search and filters go through all of them', { timeout: 240_000 }, async () => {
  await h.page.setViewportSize({ width: 1280, height: 900 });
  const before = Number(await list().getAttribute('data-count'));
  const total = before + 1000;
  await importFile({ name: 'big.zip', mimeType: 'application/zip', buffer: Buffer.from(longPack(1000, 'big')) });
  const group = await preview(120_000);
  // The preview draws the first 20 skills and counts the rest; the
  // install (one commit) installs all 1,000.
  assert.equal(await group.locator('.preview-skills > li').count(), 20);
  assert.equal(await group.locator('.preview-more').textContent(), 'And 980 more skills that can be installed. Show 20 more that can be installed');
  await group.getByRole('button', { name: 'Install 1,000 skills' }).click();
  await h.page.locator('.import-result > .ok').waitFor({ timeout: 200_000 });
  await waitCount(total);
  assert.equal(await list().locator(':scope > li').count(), 50, 'one page is rendered, not 1,065 rows');
  await h.page.getByRole('button', { name: `Show 50 more of ${(total - 50).toLocaleString('en')}` }).click();
  assert.equal(await list().locator(':scope > li').count(), 100);
  await h.page.getByRole('searchbox', { name: 'Search skills' }).fill('big-999');
  await h.page.waitForFunction(() => document.querySelectorAll('#skills > li').length === 1);
  assert.deepEqual(await ids(), ['big-999']);
  await h.page.getByRole('searchbox', { name: 'Search skills' }).fill('big');
  await h.page.waitForFunction((t) => document.querySelector('.list-count')?.textContent === `1,000 of ${t} skills, the first 50 shown`, total.toLocaleString('en'));
  // 200 of them have 1,900-character descriptions, too long for the format: a warning each.
  assert.equal(await h.page.getByRole('radio', { name: /^Has warnings/ }).evaluate((r) => r.parentElement.textContent), 'Has warnings 201');
  assert.deepEqual(h.pageErrors, []);
});
