// The side panel as a skills manager, in the extension loaded unpacked into
// headless Chromium, driven by roles and names the way a screen reader user
// finds the controls, at 400 px (the side panel) and 1280 px (the panel
// open as a tab): import a repository download (the committed generated
// counterpart always; a real one from SKILLFS_REAL_REPOS when there),
// search, open a skill, disable (asking first when enabled skills depend
// on it), export, delete with confirmation, and
// axe-core on each state. It takes sidepanel-400.png and
// sidepanel-1280.png (in .bin/screenshots; `make screenshots` copies them
// to docs/, which the README shows).
//
//   make test-extension
//   node --test web/extension/manager.test.mjs   (after make extension-build)

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { axeViolations } from '../harness/axe.mjs';
import { screenshotPath } from '../harness/screenshots.mjs';
import { focusOn } from '../harness/focus.mjs';
import { stopWorker } from '../harness/extension.mjs';
import { launch } from '../harness/index.mjs';
import { withHost } from '../harness/extension.mjs';
import { SCHEMA_V2, serveMcp, serveSite, sha256, tarGz } from '../harness/publish.mjs';
import { realRepos } from '../harness/realrepos.mjs';
import { longPack } from '../ui/fixtures.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EXT_DIR = resolve(process.env.SKILLFS_EXTENSION_DIR ?? join(REPO, '.bin/extension'));
const GENERATED = join(REPO, 'internal/realrepos/testdata/generated+skills.zip');
const STEP_MS = 20_000;
/** A real download of 10 MB takes a while on a shared machine. */
const IMPORT_MS = 120_000;
const { repos, skipReason } = realRepos();
const real = repos.find((r) => r.name === 'anthropics+skills') ?? repos[0];

/** The extension in a fresh profile, and its id. */
async function start() {
  for (const f of ['sidepanel.html', 'sidepanel.js', 'sidepanel.css']) {
    if (!existsSync(join(EXT_DIR, f))) throw new Error(`${join(EXT_DIR, f)} is missing: run \`make extension-build\``);
  }
  const b = await launch({ timeoutMs: STEP_MS, args: [`--disable-extensions-except=${EXT_DIR}`, `--load-extension=${EXT_DIR}`] });
  const sw = b.context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://')) ??
    (await b.context.waitForEvent('serviceworker', { timeout: STEP_MS, predicate: (w) => w.url().startsWith('chrome-extension://') }));
  return { browser: b, extId: new URL(sw.url()).host };
}

/** The one the tests share, one after the other. */
let shared;

before(async () => {
  shared = await start();
});

after(async () => {
  await shared?.browser.close();
});

/** The side panel as a tab at width px, ready (in the shared profile unless told). */
async function openPanel(width, { browser, extId } = shared) {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(STEP_MS);
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`chrome-extension://${extId}/sidepanel.html`, { waitUntil: 'load', timeout: STEP_MS });
  await page.waitForFunction(() => document.getElementById('status')?.dataset.state === 'ready', undefined, { timeout: STEP_MS, polling: 50 });
  return page;
}

const list = (page) => page.getByRole('list', { name: 'Installed skills' });
const ids = (page) => list(page).locator(':scope > li').evaluateAll((lis) => lis.map((li) => li.dataset.id));

/** Imports the file at path through "Import…" (or the drop target, from the
 * keyboard), unticking the skills named in skip in the preview; resolves
 * with the preview's rows, the result's text and the progress values seen. */
async function importFile(page, path, { keyboard = false, skip = [] } = {}) {
  // Every value the progress bar takes (Preact sets the reflected value attribute).
  await page.evaluate(() => {
    globalThis.progressSeen = new Set();
    new MutationObserver(() => {
      const p = document.querySelector('.importer progress');
      if (p) globalThis.progressSeen.add(p.value);
    }).observe(document.querySelector('.importer'), { subtree: true, childList: true, attributes: true });
  });
  let chooser;
  if (keyboard) {
    // Enter on the drop target, in the tab in front (keys go to the focused page).
    await page.bringToFront();
    const drop = page.getByRole('button', { name: /^Drop a \.zip, \.skill or \.tar\.gz file here, or press Enter/ });
    [chooser] = await Promise.all([page.waitForEvent('filechooser'), drop.press('Enter')]);
  } else {
    [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
  }
  await chooser.setFiles(path);
  const group = page.getByRole('group', { name: /holds [\d,]+ skills?$/ });
  await group.waitFor({ timeout: IMPORT_MS });
  const rows = await group.locator('.preview-skills > li').evaluateAll((lis) => lis.map((li) => li.dataset.name));
  for (const name of skip) await group.getByRole('checkbox', { name, exact: true }).uncheck();
  await group.getByRole('button', { name: /^Install \d+ skills?$/ }).click();
  const box = page.locator('.import-result > div');
  await box.waitFor({ timeout: IMPORT_MS });
  return { rows, ok: (await box.getAttribute('class')) === 'ok', text: await box.textContent(), progress: await page.evaluate(() => [...globalThis.progressSeen]) };
}

/** Search, open, disable, export, delete with confirmation: one skill, by its controls' names. */
async function manage(page, id, query) {
  const search = page.getByRole('searchbox', { name: 'Search skills' });
  await search.fill(query);
  await page.waitForFunction((id) => [...document.querySelectorAll('#skills > li')].some((li) => li.dataset.id === id), id);

  // Open it: the skill view replaces the list; back returns to it.
  await list(page).getByRole('button', { name: `Open ${id}`, exact: true }).click();
  const view = page.getByRole('region', { name: id });
  await view.getByRole('heading', { level: 2, name: id }).waitFor();
  await view.getByRole('button', { name: 'Back to the list' }).click();
  await list(page).getByRole('button', { name: `Open ${id}`, exact: true }).waitFor();

  // Disable: the switch, then the Disabled filter finds it.
  const sw = page.getByRole('switch', { name: `Enabled: ${id}` });
  await sw.uncheck();
  await page.getByRole('radio', { name: /^Disabled/ }).check();
  await page.waitForFunction((id) => [...document.querySelectorAll('#skills > li')].map((li) => li.dataset.id).join() === id, id);
  await page.getByRole('radio', { name: /^All/ }).check();

  const [download] = await Promise.all([page.waitForEvent('download'), list(page).getByRole('button', { name: `Export ${id}`, exact: true }).click()]);
  assert.equal(download.suggestedFilename(), `${id}.zip`);

  await list(page).getByRole('button', { name: `Delete ${id}`, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: `Delete ${id}?` });
  await dialog.waitFor();
  return {
    dialog,
    confirm: async () => {
      await dialog.getByRole('button', { name: `Delete ${id}`, exact: true }).click();
      await page.locator(`#skills > li[data-id="${id}"]`).waitFor({ state: 'detached' });
      await search.fill('');
    },
  };
}

test('at 400 px: the generated download imported from "Import…", searched, opened, disabled, exported, deleted', { timeout: IMPORT_MS + 60_000 }, async () => {
  const page = await openPanel(400);
  await page.getByRole('button', { name: 'Install the sample pack' }).waitFor();
  // The preview lists the pack's seven skills; template-skill is unticked, as a user who does not want it would.
  const r = await importFile(page, GENERATED, { skip: ['template-skill'] });
  assert.equal(r.rows.length, 7, `preview: ${r.rows}`);
  assert.ok(r.ok, r.text);
  assert.match(r.text, /^Installed 6 skills from generated\+skills\.zip: /);
  assert.match(r.text, /Skipped, as you chose: template-skill\./);
  // Links and files outside every skill folder are left out, and said so.
  assert.match(r.text, /Left out \d+ entries outside every skill folder or operating-system clutter: .*AGENTS\.md/);
  await page.waitForFunction(() => document.getElementById('skills')?.dataset.count === '6');
  const { confirm } = await manage(page, 'crlf-notes', 'windows');
  assert.deepEqual(await axeViolations(page), [], 'axe: the delete confirmation');
  await confirm();
  assert.equal((await ids(page)).length, 5);
  assert.deepEqual(await axeViolations(page), [], 'axe: the manager');
  await page.screenshot({ path: screenshotPath('sidepanel-400.png') });
  await page.close();
});

test('at 1280 px: a real repository download imported from the keyboard, with progress; then managed', { skip: skipReason, timeout: IMPORT_MS + 60_000 }, async () => {
  const page = await openPanel(1280);
  const before = Number(await page.locator('#skills').getAttribute('data-count'));
  const r = await importFile(page, real.path, { keyboard: true });
  assert.ok(r.ok, r.text);
  assert.ok(r.progress.length >= 2, `the progress bar moved: ${r.progress}`);
  const m = /^Installed (\d+) skills from /.exec(r.text);
  assert.ok(m, r.text);
  await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), before + Number(m[1]));
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'nothing widens the page');
  const first = (await ids(page)).find((i) => !['crlf-notes', 'deploy', 'pdf', 'template', 'gh-fix-ci', 'skill-installer', 'modern-python'].includes(i));
  const { confirm } = await manage(page, first, first);
  await confirm();
  assert.deepEqual(await axeViolations(page), [], 'axe: the manager with a real download');
  await page.screenshot({ path: screenshotPath('sidepanel-1280.png') });
  await page.close();
});

const md = (name, desc) => `---\nname: ${name}\ndescription: ${desc}\n---\n# ${name}\n`;
const zipOf = (files) => zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])));

test('a download with two broken skills: the preview shows each with why and cannot tick it; the valid ones install in one click, and the result says what was left out; a broken SKILL.md at the root is called by the name of the archive', { timeout: IMPORT_MS }, async () => {
  const page = await openPanel(400);
  const path = join(mkdtempSync(join(tmpdir(), 'skillfs-broken-')), 'broken-pack.zip');
  writeFileSync(path, zipOf({
    'pack/bad-yaml/SKILL.md': '---\nname: [unclosed\ndescription: Broken.\n---\n# Broken\n',
    'pack/partial-good-a/SKILL.md': md('partial-good-a', 'The first good skill.'),
    'pack/partial-good-b/SKILL.md': md('partial-good-b', 'The second good skill.'),
    'pack/partial-no-description/SKILL.md': '---\nname: partial-no-description\n---\n# Nothing\n',
  }));
  // No list when nothing is installed (run alone, this test starts empty).
  const before = (await page.locator('#skills').count()) ? Number(await page.locator('#skills').getAttribute('data-count')) : 0;
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
  await chooser.setFiles(path);
  const group = page.getByRole('group', { name: 'broken-pack.zip holds 4 skills' });
  await group.waitFor({ timeout: IMPORT_MS });
  assert.match(await group.locator('.preview-counts').textContent(), /2 new, 2 cannot be installed/);
  const invalid = await group.locator('.preview-skills > li.invalid').evaluateAll((lis) => lis.map((li) => [li.dataset.dir, li.dataset.reason]));
  assert.deepEqual(invalid, [['pack/bad-yaml', 'yaml-invalid'], ['pack/partial-no-description', 'description-missing']]);
  for (const name of ['bad-yaml', 'partial-no-description']) {
    const box = group.getByRole('checkbox', { name: `${name} cannot be installed`, exact: true });
    assert.equal(await box.isDisabled(), true, `${name} cannot be ticked`);
    assert.equal(await box.isChecked(), false);
  }
  assert.match(await group.locator('li.invalid').first().textContent(), /The skill in pack\/bad-yaml\/ is invalid: The frontmatter is not valid YAML/);
  assert.deepEqual(await axeViolations(page), [], 'axe: a preview with broken skills');

  await group.getByRole('button', { name: 'Install the 2 valid skills', exact: true }).click();
  const box = page.locator('.import-result > div');
  await box.waitFor({ timeout: IMPORT_MS });
  const text = await box.textContent();
  assert.equal(await box.getAttribute('class'), 'ok', text);
  assert.match(text, /^Installed 2 skills from broken-pack\.zip: partial-good-a, partial-good-b\./);
  assert.match(text, /Left out 2 skills that cannot be installed:The skill in pack\/bad-yaml\/ is invalid: The frontmatter is not valid YAML.*\.The skill in pack\/partial-no-description\/ is invalid: Missing required field in frontmatter: description\.$/);
  await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), before + 2);

  // A broken SKILL.md at the archive's root is called by the archive's name, as an install's report calls it.
  const rootPath = join(dirname(path), 'root-broken.zip');
  writeFileSync(rootPath, zipSync({ 'SKILL.md': strToU8('---\nname: [unclosed\n---\n') }));
  const [again] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
  await again.setFiles(rootPath);
  const root = page.getByRole('group', { name: 'root-broken.zip holds 1 skill' });
  await root.waitFor({ timeout: IMPORT_MS });
  assert.equal(await root.getByRole('checkbox', { name: 'root-broken.zip cannot be installed', exact: true }).isDisabled(), true);
  // Nothing to install: "Install 0 skills", not "Install the 0 valid skills".
  assert.equal(await root.getByRole('button', { name: 'Install 0 skills', exact: true }).isDisabled(), true);
  await root.getByRole('button', { name: 'Cancel', exact: true }).click();
  await page.close();
});

test('an archive of 9,000 broken skills and 2 valid ones: the preview and the result show a few of the broken with why and say how many more, not 9,000 rows', { timeout: 2 * IMPORT_MS }, async () => {
  const page = await openPanel(400);
  const path = join(mkdtempSync(join(tmpdir(), 'skillfs-broken-')), 'many-broken.zip');
  const files = { 'pack/good-a/SKILL.md': md('good-a', 'The first good skill.'), 'pack/good-b/SKILL.md': md('good-b', 'The second good skill.') };
  for (let i = 0; i < 9_000; i++) files[`pack/broken-${String(i).padStart(4, '0')}/SKILL.md`] = `---\nname: broken-${String(i).padStart(4, '0')}\n---\n# Nothing\n`;
  writeFileSync(path, zipOf(files));
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
  await chooser.setFiles(path);
  const group = page.getByRole('group', { name: 'many-broken.zip holds 9,002 skills' });
  await group.waitFor({ timeout: IMPORT_MS });
  assert.match(await group.locator('.preview-counts').textContent(), /2 new, 9,000 cannot be installed/);
  const rows = () => group.locator('.preview-skills > li.invalid').evaluateAll((lis) => lis.map((li) => li.dataset.dir));
  const first = Array.from({ length: 40 }, (_, i) => `pack/broken-${String(i).padStart(4, '0')}`);
  assert.deepEqual(await rows(), first.slice(0, 20), 'the first 20 broken skills, each with why');
  assert.equal(await group.locator('.preview-skills > li').count(), 22);
  const more = group.locator('.preview-more');
  assert.equal(await more.textContent(), 'And 8,980 more skills that cannot be installed. Show 20 more that cannot be installed');
  assert.deepEqual(await axeViolations(page), [], 'axe: a preview of thousands of broken skills');
  // 20 more on request, from the keyboard; the button keeps the focus.
  await more.getByRole('button', { name: 'Show 20 more that cannot be installed' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('.preview-skills > li.invalid').length === 40);
  assert.deepEqual(await rows(), first);
  assert.equal(await more.textContent(), 'And 8,960 more skills that cannot be installed. Show 20 more that cannot be installed');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Show 20 more that cannot be installed');

  await group.getByRole('button', { name: 'Install the 2 valid skills', exact: true }).click();
  const box = page.locator('.import-result > div');
  await box.waitFor({ timeout: IMPORT_MS });
  assert.equal(await box.getAttribute('class'), 'ok', await box.textContent());
  const lines = await box.locator('p').allTextContents();
  assert.equal(lines[0], 'Installed 2 skills from many-broken.zip: good-a, good-b.');
  assert.deepEqual(lines.slice(-10, -9), ['Left out 9,000 skills that cannot be installed:']);
  assert.equal(lines.at(-1), 'and 8,992 more.');
  assert.equal(lines.length, 11);
  assert.deepEqual(await axeViolations(page), [], 'axe: the result of an import that left out 9,000 skills');
  // Every reason, a line each, as a file rather than 9,000 nodes.
  const [saved] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save why the 9,000 skills were left out, as a text file' }).click()]);
  assert.equal(saved.suggestedFilename(), 'many-broken-left-out.txt');
  const reasons = readFileSync(await saved.path(), 'utf8').split('\n').filter(Boolean);
  assert.equal(reasons.length, 9_000);
  assert.equal(reasons[0], lines[2]);
  assert.equal(reasons[8_999], 'The skill in pack/broken-8999/ is invalid: Missing required field in frontmatter: description.');
  for (const id of ['good-a', 'good-b']) {
    await list(page).getByRole('button', { name: `Delete ${id}`, exact: true }).click();
    await page.getByRole('dialog', { name: `Delete ${id}?` }).getByRole('button', { name: `Delete ${id}`, exact: true }).click();
    await page.locator(`#skills > li[data-id="${id}"]`).waitFor({ state: 'detached' });
  }
  await page.close();
});

/** "Install from an address": fills it in, clicks Install, and waits for the preview or the outcome. */
async function fromAddress(page, address, kind) {
  const section = page.locator('#install-from');
  await section.getByRole('textbox', { name: 'Address' }).fill(address);
  await section.getByRole('combobox', { name: 'What the address is' }).selectOption(kind);
  await section.evaluate((s) => (s.dataset.state = 'idle'));
  await section.getByRole('button', { name: 'Install', exact: true }).click();
  await page.waitForFunction(() => ['previewed', 'done', 'error'].includes(document.getElementById('install-from').dataset.state), undefined, { timeout: IMPORT_MS });
  return section;
}

const outcome = async (page) => {
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('install-from').dataset.state), undefined, { timeout: IMPORT_MS });
  return page.locator('#install-from').evaluate((s) => ({ ...s.dataset, report: document.getElementById('source-report').textContent }));
};

test('install from an address: the archive is previewed as a local one is, chosen from, and installed from the bytes previewed, with its origin', { timeout: IMPORT_MS }, async (t) => {
  const page = await openPanel(400);
  t.after(() => page.close());
  const local = join(mkdtempSync(join(tmpdir(), 'skillfs-address-')), 'address-local.zip');
  writeFileSync(local, zipOf({ 'address-changed/SKILL.md': md('address-changed', 'Version 1.'), 'address-same/SKILL.md': md('address-same', 'Unchanged.') }));
  assert.equal((await importFile(page, local)).ok, true);
  const files = new Map([['/address-pack.zip', { type: 'application/zip', body: zipOf({
    'pack/address-fresh/SKILL.md': md('address-fresh', 'New here.'),
    'pack/address-changed/SKILL.md': md('address-changed', 'Version 2.'),
    'pack/address-same/SKILL.md': md('address-same', 'Unchanged.'),
    'pack/address-broken/SKILL.md': '---\nname: [unclosed\n---\n',
  }) }]]);
  const site = await serveSite(files);
  t.after(site.close);
  const before = Number(await page.locator('#skills').getAttribute('data-count'));

  const section = await fromAddress(page, `${site.url}/address-pack.zip`, 'url');
  // The local import's preview, in this section.
  const group = section.getByRole('group', { name: 'address-pack.zip holds 4 skills' });
  await group.waitFor();
  assert.equal(await group.locator('.preview-counts').textContent(), '1 new, 1 differs from the installed skill of its name, 1 already installed, unchanged, 1 cannot be installed (shown with why).');
  assert.deepEqual(await group.locator('li.invalid').evaluateAll((lis) => lis.map((li) => [li.dataset.dir, li.dataset.code, li.dataset.reason])),
    [['pack/address-broken', 'InvalidManifest', 'yaml-invalid']]);
  assert.equal(await group.getByRole('checkbox', { name: 'address-broken cannot be installed', exact: true }).isDisabled(), true);
  assert.match(await page.locator('#source-report').textContent(), /^Warning: no digest was given/);
  assert.deepEqual(site.log, ['GET /address-pack.zip']);
  assert.equal(Number(await page.locator('#skills').getAttribute('data-count')), before, 'the preview installed nothing');
  assert.deepEqual(await axeViolations(page), [], 'axe: an address previewed');

  // The server answers otherwise now; what is installed is what was previewed, as chosen.
  files.set('/address-pack.zip', { type: 'application/zip', body: zipOf({ 'pack/address-fresh/SKILL.md': md('address-fresh', 'Swapped.') }) });
  await group.getByRole('combobox', { name: 'What to do with address-changed' }).selectOption({ label: 'Replace address-changed' });
  await group.getByRole('button', { name: 'Install the 2 valid skills', exact: true }).click();
  const done = await outcome(page);
  assert.equal(done.state, 'done', done.report);
  assert.deepEqual(done.installed.split(' ').sort(), ['address-changed', 'address-fresh']);
  assert.equal(done.refused, 'address-broken:InvalidManifest');
  assert.equal(await group.count(), 0, 'the preview is closed');
  assert.deepEqual(site.log, ['GET /address-pack.zip'], 'downloaded once');
  await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), before + 1);
  assert.match(await list(page).locator('li[data-id="address-fresh"]').textContent(), /New here\./);
  assert.match(await list(page).locator('li[data-id="address-changed"]').textContent(), /Version 2\./);

  // Each installed skill records the address: the update check asks it, and it now answers otherwise.
  await page.getByRole('button', { name: 'Check for updates' }).click();
  await page.waitForFunction(() => document.getElementById('updates-section')?.dataset.state === 'done');
  assert.deepEqual(await page.locator('#updates > li').evaluateAll((lis) => lis.map((li) => [li.dataset.id, li.dataset.status]).sort()),
    [['address-changed', 'gone'], ['address-fresh', 'changed']]);

  // The address previewed again: the skill installed from it is offered
  // as its update, chosen at first.
  const again = await fromAddress(page, `${site.url}/address-pack.zip`, 'url');
  const fresh = again.getByRole('group', { name: 'address-pack.zip holds 1 skill' });
  await fresh.waitFor();
  assert.equal(await fresh.getByRole('combobox', { name: 'What to do with address-fresh' }).inputValue(), 'update');
  assert.match(await fresh.locator('li[data-name="address-fresh"]').textContent(), /an update of address-fresh/);
});

test('install from an address: a skill of the download kept beside another of its name is offered, by its folder, as its update, and Update updates it, not the other', { timeout: IMPORT_MS }, async (t) => {
  const page = await openPanel(400);
  t.after(() => page.close());
  const local = join(mkdtempSync(join(tmpdir(), 'skillfs-beside-')), 'beside-local.zip');
  writeFileSync(local, zipOf({ 'beside-creator/SKILL.md': md('beside-creator', 'Mine, from elsewhere.') }));
  assert.equal((await importFile(page, local)).ok, true);
  const repo = (desc) => ({ type: 'application/zip', body: zipOf({
    'repo-main/skills/beside-creator/SKILL.md': md('beside-creator', desc),
    'repo-main/skills/beside-other/SKILL.md': md('beside-other', 'The other.'),
  }) });
  const files = new Map([['/beside.zip', repo('Version 1.')]]);
  const site = await serveSite(files);
  t.after(site.close);

  // Installed beside the one of its name: as beside-creator-v2.
  const first = (await fromAddress(page, `${site.url}/beside.zip`, 'url')).getByRole('group', { name: 'beside.zip holds 2 skills' });
  await first.waitFor();
  assert.equal(await first.getByRole('combobox', { name: 'What to do with beside-creator' }).inputValue(), 'keep-both');
  await first.getByRole('button', { name: 'Install 2 skills', exact: true }).click();
  const installed = await outcome(page);
  assert.equal(installed.state, 'done', installed.report);
  assert.deepEqual(installed.installed.split(' ').sort(), ['beside-creator-v2', 'beside-other']);

  // A later download: beside-creator-v2 is the one its folder updates.
  files.set('/beside.zip', repo('Version 2.'));
  const again = (await fromAddress(page, `${site.url}/beside.zip`, 'url')).getByRole('group', { name: 'beside.zip holds 2 skills' });
  await again.waitFor();
  const row = again.locator('li[data-name="beside-creator"]');
  assert.equal(await again.getByRole('combobox', { name: 'What to do with beside-creator' }).inputValue(), 'update');
  assert.match(await row.textContent(), /an update of beside-creator-v2/);
  await again.getByRole('button', { name: 'Install 1 skill', exact: true }).click();
  const updated = await outcome(page);
  assert.equal(updated.state, 'done', updated.report);
  await page.waitForFunction(() => /Version 2\./.test(document.querySelector('li[data-id="beside-creator-v2"]')?.textContent ?? ''));
  assert.match(await list(page).locator('li[data-id="beside-creator"]').textContent(), /Mine, from elsewhere\./);
});

test('"Check for updates" asks about the skills installed now: not one removed in another tab while this panel was disconnected, and one installed there', { timeout: IMPORT_MS }, async (t) => {
  // A profile of its own: the skills the other tests installed from
  // servers they have closed would be checked too.
  const own = await start();
  t.after(() => own.browser.close());
  const files = new Map(['stale-gone', 'stale-new'].map((n) => [`/${n}.zip`, { type: 'application/zip', body: zipOf({ [`${n}/SKILL.md`]: md(n, 'Published.') }) }]));
  const site = await serveSite(files);
  t.after(site.close);
  const installFrom = async (page, name) => {
    const group = (await fromAddress(page, `${site.url}/${name}.zip`, 'url')).getByRole('group', { name: `${name}.zip holds 1 skill` });
    await group.getByRole('button', { name: 'Install 1 skill', exact: true }).click();
    const done = await outcome(page);
    assert.equal(done.state, 'done', done.report);
  };
  const panel = await openPanel(400, own);
  await installFrom(panel, 'stale-gone');
  await panel.waitForFunction(() => document.getElementById('skills')?.dataset.count === '1');

  // Chrome stops the idle worker (DevTools does it now), which closes the
  // panel's port: it hears of no change until its next call.
  await stopWorker(panel);
  await panel.waitForFunction(() => document.body.dataset.connected === 'false');

  // Another tab (which starts the worker again) installs one and removes the other.
  const other = await openPanel(400, own);
  await installFrom(other, 'stale-new');
  await list(other).getByRole('button', { name: 'Delete stale-gone', exact: true }).click();
  await other.getByRole('dialog', { name: 'Delete stale-gone?' }).getByRole('button', { name: 'Delete stale-gone', exact: true }).click();
  await other.locator('#skills > li[data-id="stale-gone"]').waitFor({ state: 'detached' });
  assert.equal(await panel.locator('#skills').getAttribute('data-count'), '1', 'the first panel still shows what it last read');

  site.log.length = 0;
  await panel.getByRole('button', { name: 'Check for updates' }).click();
  await panel.waitForFunction(() => ['done', 'error'].includes(document.getElementById('updates-section')?.dataset.state ?? ''));
  const checked = await panel.locator('#updates-section').evaluate((s) => ({ ...s.dataset, report: document.getElementById('updates-report').textContent }));
  assert.deepEqual([checked.state, checked.checked, checked.report], ['done', '1', '1 skill with a source; 0 to look at.'], JSON.stringify(checked));
  assert.deepEqual(site.log, ['GET /stale-new.zip 304']);
});

test('install from an address: a skill its repository moved to another folder and changed is offered as the update of the one installed, and Update updates it, with no copy beside', { timeout: IMPORT_MS }, async (t) => {
  const page = await openPanel(400);
  t.after(() => page.close());
  const v1 = { type: 'application/zip', body: zipOf({
    'moved-main/skills/moved-pdf/SKILL.md': md('moved-pdf', 'Version 1.'),
    'moved-main/skills/moved-docx/SKILL.md': md('moved-docx', 'Docx.'),
  }) };
  const files = new Map([['/moved.zip', v1]]);
  const site = await serveSite(files);
  t.after(site.close);
  const first = (await fromAddress(page, `${site.url}/moved.zip`, 'url')).getByRole('group', { name: 'moved.zip holds 2 skills' });
  await first.getByRole('button', { name: 'Install 2 skills', exact: true }).click();
  assert.equal((await outcome(page)).state, 'done');

  // The publisher moves moved-pdf into a folder of document skills, and changes it.
  files.set('/moved.zip', { type: 'application/zip', body: zipOf({
    'moved-main/document-skills/moved-pdf/SKILL.md': md('moved-pdf', 'Version 2.'),
    'moved-main/skills/moved-docx/SKILL.md': md('moved-docx', 'Docx.'),
  }) });
  const again = (await fromAddress(page, `${site.url}/moved.zip`, 'url')).getByRole('group', { name: 'moved.zip holds 2 skills' });
  await again.waitFor();
  assert.equal(await again.getByRole('combobox', { name: 'What to do with moved-pdf' }).inputValue(), 'update');
  assert.match(await again.locator('li[data-name="moved-pdf"]').textContent(), /an update of moved-pdf/);
  await again.getByRole('button', { name: 'Install 1 skill', exact: true }).click();
  const done = await outcome(page);
  assert.equal(done.state, 'done', done.report);
  await page.waitForFunction(() => /Version 2\./.test(document.querySelector('li[data-id="moved-pdf"]')?.textContent ?? ''));
  assert.deepEqual((await ids(page)).filter((id) => id.startsWith('moved-pdf')), ['moved-pdf'], 'no copy beside it');
});

test('install from an address: a preview left open while its skill is updated from "Check for updates" does not install the older version over it, and says why', { timeout: IMPORT_MS }, async (t) => {
  const page = await openPanel(400);
  t.after(() => page.close());
  const version = (n) => ({ type: 'application/zip', body: zipOf({ 'stale-main/skills/stale-skill/SKILL.md': md('stale-skill', `Version ${n}.`) }) });
  const files = new Map([['/stale.zip', version(1)]]);
  const site = await serveSite(files);
  t.after(site.close);
  const first = (await fromAddress(page, `${site.url}/stale.zip`, 'url')).getByRole('group', { name: 'stale.zip holds 1 skill' });
  await first.getByRole('button', { name: 'Install 1 skill', exact: true }).click();
  assert.equal((await outcome(page)).state, 'done');

  // Version 2 is previewed, Update chosen; the preview stays open.
  files.set('/stale.zip', version(2));
  const preview = (await fromAddress(page, `${site.url}/stale.zip`, 'url')).getByRole('group', { name: 'stale.zip holds 1 skill' });
  assert.equal(await preview.getByRole('combobox', { name: 'What to do with stale-skill' }).inputValue(), 'update');
  // Meanwhile the publisher releases version 3, which "Check for updates" installs.
  files.set('/stale.zip', version(3));
  await page.getByRole('button', { name: 'Check for updates' }).click();
  await page.locator('#updates button[data-update="stale-skill"]').click();
  await page.waitForFunction(() => /Version 3\./.test(document.querySelector('li[data-id="stale-skill"]')?.textContent ?? ''));

  // The preview's Install would put version 2 back: refused, nothing changed, and said.
  await preview.getByRole('button', { name: 'Install 1 skill', exact: true }).click();
  const done = await outcome(page);
  assert.deepEqual([done.state, done.error], ['error', 'Conflict'], done.report);
  assert.match(done.report, /"stale-skill" changed since the preview \(updated or edited\); nothing was installed: preview again to choose/);
  assert.match(await list(page).locator('li[data-id="stale-skill"]').textContent(), /Version 3\./);
});

test('"Check for updates" offers "Update all" for several skills of one download: one download of it updates them all, and the rows go; a failure of the download is one line for them all', { timeout: IMPORT_MS }, async (t) => {
  // A profile of its own: the skills other tests installed from servers they closed would be checked too.
  const own = await start();
  t.after(() => own.browser.close());
  const page = await openPanel(400, own);
  const repo = (v) => ({ type: 'application/zip', body: zipOf(Object.fromEntries(['many-a', 'many-b', 'many-c'].map((n) => [`many-main/skills/${n}/SKILL.md`, md(n, `Version ${v}.`)]))) });
  const files = new Map([['/many.zip', repo(1)]]);
  const site = await serveSite(files);
  t.after(site.close);
  const first = (await fromAddress(page, `${site.url}/many.zip`, 'url')).getByRole('group', { name: 'many.zip holds 3 skills' });
  await first.getByRole('button', { name: 'Install 3 skills', exact: true }).click();
  assert.equal((await outcome(page)).state, 'done');

  // Version 2 of many-b depends on many-d, a skill of the download not
  // installed: its row says that updating installs it too, and it does.
  const two = repo(2);
  two.body = zipOf({
    ...Object.fromEntries(['many-a', 'many-c'].map((n) => [`many-main/skills/${n}/SKILL.md`, md(n, 'Version 2.')])),
    'many-main/skills/many-b/SKILL.md': '---\nname: many-b\ndescription: Version 2.\nskill_dependencies: [many-d]\n---\n# many-b\n',
    'many-main/skills/many-d/SKILL.md': md('many-d', 'New in version 2.'),
  });
  files.set('/many.zip', two);
  await page.getByRole('button', { name: 'Check for updates' }).click();
  const all = page.getByRole('button', { name: 'Update all 3', exact: true });
  await all.waitFor();
  assert.equal(await page.locator('#updates > li[data-id="many-b"]').textContent(),
    'many-b — a new version is published; it now depends on many-d, from the same download, which updating installs too Update');
  site.log.length = 0;
  await all.click();
  await page.waitForFunction(() => document.getElementById('updates-report')?.textContent === 'Updated 3 skills, and installed many-d from the same download, as a new dependency.');
  await list(page).locator('li[data-id="many-d"]').waitFor();
  assert.deepEqual(site.log, ['GET /many.zip'], 'downloaded once for the three');
  assert.equal(await page.locator('#updates > li').count(), 0);
  assert.equal(await all.isHidden(), true);
  for (const n of ['many-a', 'many-b', 'many-c']) {
    await page.waitForFunction((n) => /Version 2\./.test(document.querySelector(`li[data-id="${n}"]`)?.textContent ?? ''), n);
  }

  // The address answers a web page now (a sign-in page): one line for the
  // four, saying so, and nothing to update.
  files.set('/many.zip', { type: 'text/html', body: '<!doctype html><title>Sign in</title>' });
  await page.locator('#updates-section').evaluate((s) => (s.dataset.state = 'idle'));
  await page.getByRole('button', { name: 'Check for updates' }).click();
  await page.waitForFunction(() => document.getElementById('updates-section')?.dataset.state === 'done');
  assert.deepEqual(await page.locator('#updates > li').evaluateAll((lis) => lis.map((li) => [li.dataset.id, li.dataset.status, li.textContent])), [[
    'many-a many-b many-c many-d', 'error',
    `many-a, many-b, many-c, many-d — ${site.url}/many.zip: the address answered with a web page, not an archive or a SKILL.md: give the address of the .zip or of the SKILL.md itself, or of a repository or folder on GitHub`,
  ]]);
  assert.equal(await page.locator('#updates button').count(), 0);
});

test('"Check for updates" and a skill changed here since its install: no update while its source publishes what was installed; once it publishes another, the row says that updating replaces the changes', { timeout: IMPORT_MS }, async (t) => {
  const own = await start();
  t.after(() => own.browser.close());
  const page = await openPanel(400, own);
  const repo = (a, b) => ({ type: 'application/zip', body: zipOf({
    'edits-main/skills/edits-a/SKILL.md': md('edits-a', a), 'edits-main/skills/edits-b/SKILL.md': md('edits-b', b),
  }) });
  const files = new Map([['/edits.zip', repo('A 1.', 'B 1.')]]);
  const site = await serveSite(files);
  t.after(site.close);
  const first = (await fromAddress(page, `${site.url}/edits.zip`, 'url')).getByRole('group', { name: 'edits.zip holds 2 skills' });
  await first.getByRole('button', { name: 'Install 2 skills', exact: true }).click();
  assert.equal((await outcome(page)).state, 'done');
  // edits-a is changed here (as its editor saves it).
  await withHost(page, (sk) => sk.registry.writeFile('edits-a', 'notes.md', 'My notes.\n'));

  const check = async () => {
    await page.locator('#updates-section').evaluate((s) => (s.dataset.state = 'idle'));
    await page.getByRole('button', { name: 'Check for updates' }).click();
    await page.waitForFunction(() => document.getElementById('updates-section')?.dataset.state === 'done');
    return page.locator('#updates > li').evaluateAll((lis) => lis.map((li) => [li.dataset.id, li.textContent]));
  };
  // The publisher changes edits-b only: edits-a has nothing new.
  files.set('/edits.zip', repo('A 1.', 'B 2.'));
  assert.deepEqual(await check(), [['edits-b', 'edits-b — a new version is published Update']]);
  // Then edits-a too: its row says what updating does.
  files.set('/edits.zip', repo('A 2.', 'B 2.'));
  assert.deepEqual(await check(), [
    ['edits-a', 'edits-a — a new version is published; you have changed this skill here, and updating replaces your changes Update, replacing my changes'],
    ['edits-b', 'edits-b — a new version is published Update'],
  ]);
  assert.equal(await page.locator('#updates-all').isHidden(), true, 'Update all leaves the changed skill to a click of its own');
});

test('install from an address: an index lists its skills to tick, as the site\'s do, and only those ticked install', { timeout: IMPORT_MS }, async (t) => {
  const page = await openPanel(400);
  t.after(() => page.close());
  const a = md('address-index-a', 'First.');
  const b = md('address-index-b', 'Second.');
  const site = await serveSite(new Map([
    ['/a/SKILL.md', { body: a, type: 'text/markdown' }],
    ['/b/SKILL.md', { body: b, type: 'text/markdown' }],
    ['/.well-known/agent-skills/index.json', { type: 'application/json', body: JSON.stringify({ $schema: SCHEMA_V2, skills: [
      { name: 'address-index-a', type: 'skill-md', description: 'First.', url: '/a/SKILL.md', digest: sha256(a) },
      { name: 'address-index-b', type: 'skill-md', description: 'Second.', url: '/b/SKILL.md', digest: sha256(b) },
    ] }) }],
  ]));
  t.after(site.close);
  // An address-index-b installed from elsewhere first: the index's is another.
  site.files.set('/elsewhere.zip', { type: 'application/zip', body: zipOf({ 'address-index-b/SKILL.md': md('address-index-b', 'From elsewhere.') }) });
  await (await fromAddress(page, `${site.url}/elsewhere.zip`, 'url')).getByRole('button', { name: 'Install 1 skill', exact: true }).click();
  assert.equal((await outcome(page)).state, 'done');
  site.log.length = 0;
  const section = await fromAddress(page, `${site.url}/.well-known/agent-skills/index.json`, 'index');
  assert.equal(await section.getByRole('heading', { level: 3 }).textContent(), `${new URL(site.url).host} publishes 2 skills`);
  assert.deepEqual(site.log, ['GET /.well-known/agent-skills/index.json'], 'nothing but the index is downloaded before the user confirms');
  assert.match(await section.locator('li[data-name="address-index-b"]').textContent(), /a skill named address-index-b from elsewhere is installed: this one installs beside it, as a copy of its own/);
  assert.doesNotMatch(await section.locator('li[data-name="address-index-a"]').textContent(), /elsewhere/);
  await section.getByRole('checkbox', { name: /address-index-b/ }).uncheck();
  // The site publishes another address-index-a after the review: what installs is the one reviewed.
  const swapped = md('address-index-a', 'Swapped after the review.');
  site.files.set('/swapped/SKILL.md', { body: swapped, type: 'text/markdown' });
  site.files.set('/.well-known/agent-skills/index.json', { type: 'application/json', body: JSON.stringify({ $schema: SCHEMA_V2, skills: [
    { name: 'address-index-a', type: 'skill-md', description: 'Swapped after the review.', url: '/swapped/SKILL.md', digest: sha256(swapped) },
  ] }) });
  await section.getByRole('button', { name: 'Install selected' }).click();
  const done = await outcome(page);
  assert.deepEqual([done.state, done.installed], ['done', 'address-index-a'], done.report);
  // The install reads the index reviewed, not the site's again, and fetches only what was ticked.
  assert.deepEqual(site.log, ['GET /.well-known/agent-skills/index.json', 'GET /a/SKILL.md']);
  assert.match(await list(page).locator('li[data-id="address-index-a"]').textContent(), /First\./);

  // Reviewed again, the entry installed is that skill: not to tick while
  // the site publishes it so; once it publishes a new version, ticked, to
  // update it in place, with no copy beside.
  const publish = (body) => {
    site.files.set('/now/SKILL.md', { body, type: 'text/markdown' });
    site.files.set('/.well-known/agent-skills/index.json', { type: 'application/json', body: JSON.stringify({ $schema: SCHEMA_V2, skills: [
      { name: 'address-index-a', type: 'skill-md', description: 'Again.', url: '/now/SKILL.md', digest: sha256(body) },
    ] }) });
  };
  publish(a);
  const same = await fromAddress(page, `${site.url}/.well-known/agent-skills/index.json`, 'index');
  assert.match(await same.locator('li[data-name="address-index-a"]').textContent(), /\(installed\)/);
  assert.equal(await same.getByRole('checkbox', { name: /address-index-a/ }).isDisabled(), true);
  publish(md('address-index-a', 'Third.'));
  const newer = await fromAddress(page, `${site.url}/.well-known/agent-skills/index.json`, 'index');
  assert.match(await newer.locator('li[data-name="address-index-a"]').textContent(), /installed as address-index-a: the index publishes a new version, which updates it in place\)/);
  assert.equal(await newer.getByRole('checkbox', { name: /address-index-a/ }).isChecked(), true);
  // Changed here since (as its editor saves it): the row says that the
  // update replaces the changes, and leaves it to a tick of its own.
  await withHost(page, (sk) => sk.registry.writeFile('address-index-a', 'notes.md', 'My notes.\n'));
  const edited = await fromAddress(page, `${site.url}/.well-known/agent-skills/index.json`, 'index');
  assert.match(await edited.locator('li[data-name="address-index-a"]').textContent(), /updates it in place, replacing the changes you made to it here\)/);
  const box = edited.getByRole('checkbox', { name: /address-index-a/ });
  assert.equal(await box.isChecked(), false);
  await box.check();
  await edited.getByRole('button', { name: 'Install selected' }).click();
  assert.equal((await outcome(page)).state, 'done');
  await list(page).locator('li[data-id="address-index-a"]').filter({ hasText: 'Third.' }).waitFor();
  assert.deepEqual((await ids(page)).filter((id) => id.startsWith('address-index-a')), ['address-index-a']);
});

test('install from an address: an MCP server\'s skills are previewed as an archive\'s, each with its choice, and what is stored afterwards is what was chosen, row by row', { timeout: IMPORT_MS }, async (t) => {
  const page = await openPanel(400);
  t.after(() => page.close());
  const local = join(mkdtempSync(join(tmpdir(), 'skillfs-mcp-')), 'mcp-local.zip');
  writeFileSync(local, zipOf({ 'SKILL.md': md('panel-mcp-d', 'Installed from a file.') }));
  assert.equal((await importFile(page, local)).ok, true);
  const server = await serveMcp();
  t.after(server.close);
  const host = new URL(server.url).host;
  const serve = (name, description) => server.skills.set(name, { frontmatter: { name, description }, files: { 'SKILL.md': md(name, description) } });
  serve('panel-mcp-a', 'Version 1.');
  serve('panel-mcp-b', 'Unchanged.');
  serve('panel-mcp-e', 'Version 1.');
  server.skills.set('panel-mcp-escape', { frontmatter: { name: 'panel-mcp-escape', description: 'Escapes.' }, files: { 'SKILL.md': md('panel-mcp-escape', 'Escapes.') },
    extra: [{ uri: 'skill://panel-mcp-escape/../panel-mcp-a/SKILL.md', digest: sha256('x'), size: 1 }] });
  const before = Number(await page.locator('#skills').getAttribute('data-count'));
  const row = (id) => list(page).locator(`li[data-id="${id}"]`);

  let section = await fromAddress(page, server.url, 'mcp');
  let group = section.getByRole('group', { name: `${host} holds 3 skills` });
  await group.waitFor();
  assert.equal(await group.locator('.preview-counts').textContent(), '3 new.');
  assert.match(await page.locator('#source-report').textContent(), /^Skipped panel-mcp-escape: path segment ".." refers to a parent directory/);
  assert.deepEqual(server.log, ['skills/list'], 'nothing but the listing is read before the user confirms');
  assert.equal(Number(await page.locator('#skills').getAttribute('data-count')), before, 'the review installed nothing');
  assert.deepEqual(await axeViolations(page), [], 'axe: an MCP server reviewed');
  await group.getByRole('button', { name: 'Install 3 skills', exact: true }).click();
  let done = await outcome(page);
  assert.deepEqual([done.state, done.installed], ['done', 'panel-mcp-a panel-mcp-b panel-mcp-e'], done.report);
  await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), before + 3);

  // a changed here since (as its editor saves it).
  await withHost(page, (sk) => sk.registry.writeFile('panel-mcp-a', 'notes.md', 'My notes.\n'));
  // New versions of a and e, a skill of the name of one installed from a
  // file (d), two new ones; c and e will be served otherwise after the review.
  serve('panel-mcp-a', 'Version 2.');
  serve('panel-mcp-c', 'Reviewed.');
  serve('panel-mcp-d', 'Served over MCP.');
  serve('panel-mcp-e', 'Version 2.');
  serve('panel-mcp-f', 'Not wanted.');
  section = await fromAddress(page, server.url, 'mcp');
  group = section.getByRole('group', { name: `${host} holds 6 skills` });
  await group.waitFor();
  assert.equal(await group.locator('.preview-counts').textContent(), '2 new, 3 differ from the installed skills of their names, 1 already installed, unchanged.');
  assert.match(await group.locator('li[data-name="panel-mcp-b"]').textContent(), /already installed/);
  assert.match(await group.locator('li[data-name="panel-mcp-a"]').textContent(), /1 file · skill:\/\/panel-mcp-a/);
  // A different choice on each row: Update (Skip by default), Keep both, install, Keep both (the default), Update, Skip.
  const choose = (name, label) => group.getByRole('combobox', { name: `What to do with ${name}` }).selectOption({ label });
  // An update from this server is chosen at first, unless the installed
  // skill was changed here since (a, as an index entry's is left
  // unticked); a skill of the name of one installed from elsewhere is
  // kept beside it.
  const chosen = (name) => group.getByRole('combobox', { name: `What to do with ${name}` }).inputValue();
  assert.deepEqual([await chosen('panel-mcp-a'), await chosen('panel-mcp-e'), await chosen('panel-mcp-d')], ['skip', 'update', 'keep-both']);
  // An update of a skill changed here says, as an index entry's row does, that it replaces those changes.
  assert.match(await group.locator('li[data-name="panel-mcp-a"]').textContent(), /an update of panel-mcp-a, replacing the changes you made to it here/);
  assert.doesNotMatch(await group.locator('li[data-name="panel-mcp-e"]').textContent(), /replacing/);
  // The choice says what it does: an update of this server's skill; over
  // one installed from elsewhere (maybe another publisher's), a replace.
  const labels = (name) => group.getByRole('combobox', { name: `What to do with ${name}` }).locator('option').allTextContents();
  assert.deepEqual(await labels('panel-mcp-a'), ['Update panel-mcp-a', 'Keep both (panel-mcp-a-v2)', 'Skip']);
  assert.deepEqual(await labels('panel-mcp-d'), ['Replace panel-mcp-d', 'Keep both (panel-mcp-d-v2)', 'Skip']);
  await choose('panel-mcp-a', 'Update panel-mcp-a');
  await choose('panel-mcp-b', 'Keep both (panel-mcp-b-v2)');
  await choose('panel-mcp-e', 'Update panel-mcp-e');
  await group.getByRole('checkbox', { name: 'panel-mcp-f', exact: true }).uncheck();
  assert.deepEqual(await axeViolations(page), [], 'axe: an MCP server reviewed, with installed skills');
  serve('panel-mcp-c', 'Swapped after the review.');
  serve('panel-mcp-e', 'Swapped after the review.');
  server.log.length = 0;
  await group.getByRole('button', { name: 'Install 5 skills', exact: true }).click();
  done = await outcome(page);
  assert.deepEqual([done.state, done.installed, done.refused], ['done', 'panel-mcp-a panel-mcp-b-v2 panel-mcp-d-v2', 'panel-mcp-e:Integrity panel-mcp-c:Integrity'], done.report);
  assert.ok(!server.log.includes('skills/list'), 'the listing reviewed is what installs');
  assert.ok(!server.log.some((l) => l.includes('panel-mcp-f')), 'a skipped skill is not read');

  // What is stored: each row as chosen; the rows refused left nothing, and
  // e, whose update was refused, is the version it was.
  await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), before + 5);
  assert.deepEqual((await ids(page)).filter((id) => id.startsWith('panel-mcp-')).sort(),
    ['panel-mcp-a', 'panel-mcp-b', 'panel-mcp-b-v2', 'panel-mcp-d', 'panel-mcp-d-v2', 'panel-mcp-e']);
  for (const [id, text] of [['panel-mcp-a', 'Version 2.'], ['panel-mcp-b', 'Unchanged.'], ['panel-mcp-b-v2', 'Unchanged.'],
    ['panel-mcp-d', 'Installed from a file.'], ['panel-mcp-d-v2', 'Served over MCP.'], ['panel-mcp-e', 'Version 1.']]) {
    assert.match(await row(id).textContent(), new RegExp(text.replace('.', '\\.')), id);
  }
});

test('install from an address: a skill refused for want of another says what to do about that one (select it, get it elsewhere, see why it was refused), or that two need each other', { timeout: IMPORT_MS }, async (t) => {
  const page = await openPanel(400);
  t.after(() => page.close());
  const server = await serveMcp();
  t.after(server.close);
  const needs = (name, on) => `---\nname: ${name}\ndescription: Needs ${on}.\nskill_dependencies: [${on}]\n---\n# ${name}\n`;
  const serve = (name, body, more = {}) => server.skills.set(name, { frontmatter: { name, description: `${name}.` }, files: { 'SKILL.md': body }, ...more });
  // a needs lone, which the review leaves out; b one the server does not
  // list; w liar, whose digest lies; x and y each other.
  serve('first-a', needs('first-a', 'first-lone'));
  serve('first-b', needs('first-b', 'first-absent'));
  serve('first-w', needs('first-w', 'first-liar'));
  serve('first-x', needs('first-x', 'first-y'));
  serve('first-y', needs('first-y', 'first-x'));
  serve('first-liar', md('first-liar', 'Lies.'), { lies: { 'SKILL.md': sha256('a lie') } });
  serve('first-lone', md('first-lone', 'Left out.'));
  const section = await fromAddress(page, server.url, 'mcp');
  const group = section.getByRole('group', { name: `${new URL(server.url).host} holds 7 skills` });
  await group.waitFor();
  await group.getByRole('checkbox', { name: 'first-lone', exact: true }).uncheck();
  await group.getByRole('button', { name: 'Install 6 skills', exact: true }).click();
  const done = await outcome(page);
  assert.deepEqual([done.state, done.installed], ['done', ''], done.report);
  const lines = Object.fromEntries(done.report.split('\n').map((l) => [l.match(/^Refused ([^:]+):/)?.[1], l]));
  const waits = (name, missing) => `Refused ${name}: '${name}' cannot be installed: it depends on '${missing}', which is not installed and is not part of this install: install '${missing}' first (InvalidArgument, unknown-skill).`;
  assert.deepEqual(Object.keys(lines).sort(), ['first-a', 'first-b', 'first-liar', 'first-w', 'first-x', 'first-y']);
  assert.equal(lines['first-a'], `${waits('first-a', 'first-lone')} This source offers first-lone: select it too, and install again.`);
  assert.equal(lines['first-b'], `${waits('first-b', 'first-absent')} This source offers no skill named first-absent: install it from elsewhere first.`);
  assert.equal(lines['first-w'], `${waits('first-w', 'first-liar')} first-liar was refused too: see why in its line.`);
  assert.equal(lines['first-x'], `${waits('first-x', 'first-y')} first-y depends on first-x in turn: neither can be installed before the other.`);
  assert.match(lines['first-liar'], /\(Integrity, digest-mismatch\)\.$/);

  // An index's entries: the same, in its words (an archive entry of
  // another name may hold the skill).
  const files = new Map();
  const entries = [];
  for (const [name, body] of [['first-c', needs('first-c', 'first-entry')], ['first-d', needs('first-d', 'first-nowhere')], ['first-entry', md('first-entry', 'Left out.')],
    ['first-p', needs('first-p', 'first-q')]]) {
    files.set(`/${name}/SKILL.md`, { body, type: 'text/markdown' });
    entries.push({ name, type: 'skill-md', description: `${name}.`, url: `/${name}/SKILL.md`, digest: sha256(body) });
  }
  // A broken skill whose name cannot be read, called by its folder,
  // first-q/: not the skill first-q that first-p needs.
  const pack = zipOf({ 'first-pack/first-q/SKILL.md': '---\nname: [unclosed\n---\n', 'first-pack/first-r/SKILL.md': md('first-r', 'Good.') });
  files.set('/first-pack.zip', { body: pack, type: 'application/zip' });
  entries.push({ name: 'first-pack', type: 'archive', description: 'A pack.', url: '/first-pack.zip', digest: sha256(pack) });
  files.set('/.well-known/agent-skills/index.json', { type: 'application/json', body: JSON.stringify({ $schema: SCHEMA_V2, skills: entries }) });
  const site = await serveSite(files);
  t.after(site.close);
  const index = await fromAddress(page, `${site.url}/.well-known/agent-skills/index.json`, 'index');
  await index.getByRole('checkbox', { name: /first-entry/ }).uncheck();
  await index.getByRole('button', { name: 'Install selected' }).click();
  const report = (await outcome(page)).report.split('\n');
  assert.deepEqual(report.filter((l) => !l.startsWith('Refused first-q:')).sort(), [
    'Installed 1 skill: first-r.',
    `${waits('first-c', 'first-entry')} This source offers first-entry: select it too, and install again.`,
    `${waits('first-d', 'first-nowhere')} This index lists no entry named first-nowhere: install it from elsewhere first (or from an archive entry that holds it).`,
    `${waits('first-p', 'first-q')} This index lists no entry named first-q: install it from elsewhere first (or from an archive entry that holds it).`,
  ]);
  assert.match(report.find((l) => l.startsWith('Refused first-q:')), /\(InvalidManifest, yaml-invalid\)\.$/);
});

test('a skill that enabled skills depend on, or that depends on disabled ones: its switch, "Disable selected" and "Enable selected" name them and offer to change them too, in one call, or nothing', { timeout: IMPORT_MS }, async () => {
  const page = await openPanel(400);
  const path = join(mkdtempSync(join(tmpdir(), 'skillfs-deps-')), 'deps-pack.zip');
  const needs = (name, on) => `---\nname: ${name}\ndescription: Needs ${on}.\nskill_dependencies: [${on}]\n---\n# ${name}\n`;
  writeFileSync(path, zipOf({
    'pack/dep-base/SKILL.md': md('dep-base', 'What the others need.'),
    'pack/dep-user/SKILL.md': needs('dep-user', 'dep-base'),
    'pack/dep-user-of-user/SKILL.md': needs('dep-user-of-user', 'dep-user'),
    'pack/dep-idle/SKILL.md': needs('dep-idle', 'dep-base'),
  }));
  const before = (await page.locator('#skills').count()) ? Number(await page.locator('#skills').getAttribute('data-count')) : 0;
  assert.ok((await importFile(page, path)).ok);
  await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), before + 4);
  await page.getByRole('searchbox', { name: 'Search skills' }).fill('dep-');
  const sw = (id) => page.getByRole('switch', { name: `Enabled: ${id}`, exact: true });
  const disabled = () => list(page).locator('li.disabled').evaluateAll((lis) => lis.map((li) => li.dataset.id).sort());
  const until = (want) => page.waitForFunction((want) => [...document.querySelectorAll('#skills > li.disabled')].map((li) => li.dataset.id).sort().join() === want, want.join());
  const focused = () => page.evaluate(() => document.activeElement?.textContent);
  const goes = (dialog, name) => dialog.getByRole('list', { name }).getByRole('listitem').allTextContents();

  // Nothing depends on dep-idle: its switch disables it at once. Disabled,
  // it holds nothing.
  await sw('dep-idle').uncheck();
  await until(['dep-idle']);

  // dep-base: the switch asks first, naming the enabled dependents (and
  // theirs), with Cancel focused; Cancel changes nothing. (Clicks: the
  // switch stays as it was while the dialog asks.)
  await sw('dep-base').click();
  let dialog = page.getByRole('dialog', { name: 'Disable dep-base?' });
  await dialog.waitFor();
  assert.equal(await dialog.locator('.dependents-note').textContent(), 'dep-user depends on it, and 1 other skill on that one, so it cannot be disabled alone.');
  assert.deepEqual(await goes(dialog, 'Disabling it with its dependents disables 3 skills:'), ['dep-base', 'dep-user', 'dep-user-of-user']);
  assert.equal(await focused(), 'Cancel');
  assert.equal(await sw('dep-base').isChecked(), true, 'the switch stays on while it asks');
  assert.deepEqual(await axeViolations(page), [], 'axe: the question before disabling a skill with dependents');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(await disabled(), ['dep-idle']);
  // Asked again and accepted: the three go together.
  await sw('dep-base').click();
  await dialog.getByRole('button', { name: 'Disable dep-base and 2 dependents', exact: true }).click();
  await until(['dep-base', 'dep-idle', 'dep-user', 'dep-user-of-user']);

  // The other way: dep-user is not enabled without dep-base, so its
  // switch asks to enable that too.
  await sw('dep-user').click();
  dialog = page.getByRole('dialog', { name: 'Enable dep-user?' });
  await dialog.waitFor();
  assert.equal(await dialog.locator('.dependents-note').textContent(), 'It needs dep-base, which is disabled, so it cannot be enabled alone.');
  assert.deepEqual(await goes(dialog, 'Enabling it with what it needs enables 2 skills:'), ['dep-user', 'dep-base']);
  assert.equal(await focused(), 'Cancel');
  assert.equal(await sw('dep-user').isChecked(), false, 'the switch stays off while it asks');
  await dialog.getByRole('button', { name: 'Enable dep-user and 1 dependency', exact: true }).click();
  await until(['dep-idle', 'dep-user-of-user']);

  // "Disable selected" with an enabled dependent outside the selection
  // asks as the switch does (the disabled ones are not named), and
  // disables it too in one call.
  const bar = page.getByRole('group', { name: 'Selection' });
  const said = bar.locator('.bulk-outcome[role=status]');
  await page.getByRole('checkbox', { name: 'Select dep-base', exact: true }).check();
  await bar.getByRole('button', { name: 'Disable selected' }).click();
  dialog = page.getByRole('dialog', { name: 'Disable 1 skill?' });
  await dialog.waitFor();
  assert.equal(await dialog.locator('.dependents-note').textContent(), 'dep-user, outside the selection, depends on it, so it cannot be disabled alone.');
  assert.deepEqual(await axeViolations(page), [], 'axe: the question before disabling a selection with dependents');
  await dialog.getByRole('button', { name: 'Disable 1 skill and 1 dependent', exact: true }).click();
  await until(['dep-base', 'dep-idle', 'dep-user', 'dep-user-of-user']);
  assert.equal(await said.textContent(), 'Disabled 2 skills.');

  // "Enable selected" of a skill needing disabled ones outside the
  // selection, and theirs: the same question, the other way.
  await bar.getByRole('button', { name: 'Clear selection' }).click();
  await page.getByRole('checkbox', { name: 'Select dep-user-of-user', exact: true }).check();
  await bar.getByRole('button', { name: 'Enable selected' }).click();
  dialog = page.getByRole('dialog', { name: 'Enable 1 skill?' });
  await dialog.waitFor();
  assert.equal(await dialog.locator('.dependents-note').textContent(), 'It needs dep-user, outside the selection, which is disabled, and that one needs 1 other disabled skill, so it cannot be enabled alone.');
  await dialog.getByRole('button', { name: 'Enable 1 skill and 2 dependencies', exact: true }).click();
  await until(['dep-idle']);
  assert.equal(await said.textContent(), 'Enabled 3 skills.');
  await page.close();
});

test('an archive whose skill depends on a disabled one: the preview warns that it installs disabled, and it does, saying so', { timeout: IMPORT_MS }, async () => {
  const page = await openPanel(400);
  const dir = mkdtempSync(join(tmpdir(), 'skillfs-needs-'));
  const base = join(dir, 'needs-base.zip');
  writeFileSync(base, zipOf({ 'pack/needs-base/SKILL.md': md('needs-base', 'What the other needs.') }));
  assert.ok((await importFile(page, base)).ok);
  await page.getByRole('searchbox', { name: 'Search skills' }).fill('needs-');
  await page.getByRole('switch', { name: 'Enabled: needs-base', exact: true }).uncheck();
  await page.locator('#skills > li.disabled[data-id="needs-base"]').waitFor();

  const path = join(dir, 'needs-user.zip');
  writeFileSync(path, zipOf({ 'pack/needs-user/SKILL.md': '---\nname: needs-user\ndescription: Needs needs-base.\nskill_dependencies: [needs-base]\n---\n# needs-user\n' }));
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
  await chooser.setFiles(path);
  const group = page.getByRole('group', { name: 'needs-user.zip holds 1 skill' });
  await group.waitFor({ timeout: IMPORT_MS });
  // Its warnings are final once the notes for the choices shown have come.
  await page.locator('.preview[aria-busy="false"]').waitFor();
  const note = "warning: Installed disabled, since it depends on 'needs-base', which is disabled: enable 'needs-base', then this skill.";
  assert.deepEqual(await group.getByRole('list', { name: 'Warnings for needs-user' }).getByRole('listitem').allTextContents(), [note]);
  assert.deepEqual(await axeViolations(page), [], 'axe: a preview warning that a skill installs disabled');
  await group.getByRole('button', { name: 'Install 1 skill', exact: true }).click();
  const box = page.locator('.import-result > div', { hasText: 'needs-user.zip' });
  await box.waitFor({ timeout: IMPORT_MS });
  assert.match(await box.textContent(), /^Installed 1 skill from needs-user\.zip: needs-user\.1 skill has warnings: needs-user \(1\)\.$/);
  await page.locator('#skills > li.disabled[data-id="needs-user"]').waitFor();
  await page.close();
});

test('the preview\'s warnings that a skill installs disabled follow each choice: an update takes the installed skill\'s place for the skills depending on it, a copy kept beside it or a skip does not', { timeout: IMPORT_MS }, async () => {
  const page = await openPanel(400);
  const dir = mkdtempSync(join(tmpdir(), 'skillfs-notes-'));
  const first = join(dir, 'nd-first.zip');
  writeFileSync(first, zipOf({ 'pack/nd-helper/SKILL.md': md('nd-helper', 'Helps.'), 'pack/nd-base/SKILL.md': md('nd-base', 'The base.') }));
  assert.ok((await importFile(page, first)).ok);
  await page.getByRole('searchbox', { name: 'Search skills' }).fill('nd-');
  await page.getByRole('switch', { name: 'Enabled: nd-helper', exact: true }).uncheck();
  await page.locator('#skills > li.disabled[data-id="nd-helper"]').waitFor();

  const path = join(dir, 'nd-next.zip');
  writeFileSync(path, zipOf({
    'pack/nd-base/SKILL.md': '---\nname: nd-base\ndescription: The base, v2.\nskill_dependencies: [nd-helper]\n---\n# nd-base\n',
    'pack/nd-user/SKILL.md': '---\nname: nd-user\ndescription: Uses the base.\nskill_dependencies: [nd-base]\n---\n# nd-user\n',
  }));
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
  await chooser.setFiles(path);
  const group = page.getByRole('group', { name: 'nd-next.zip holds 2 skills' });
  await group.waitFor({ timeout: IMPORT_MS });
  const helper = "warning: Installed disabled, since it depends on 'nd-helper', which is disabled: enable 'nd-helper', then this skill.";
  const base = "warning: Installed disabled, since it depends on 'nd-base', which is disabled: enable 'nd-base', then this skill.";
  /** Waits until the rows' warnings are want (by name), then says what they are. */
  const notes = async (want) => {
    const shown = () => group.locator('.preview-skills > li').evaluateAll((lis) =>
      Object.fromEntries(lis.map((li) => [li.dataset.name, [...li.querySelectorAll('.diagnostics li')].map((d) => d.textContent)])));
    await page.waitForFunction((w) => {
      const lis = [...document.querySelectorAll('.preview .preview-skills > li')];
      return JSON.stringify(Object.fromEntries(lis.map((li) => [li.dataset.name, [...li.querySelectorAll('.diagnostics li')].map((d) => d.textContent)]))) === w;
    }, JSON.stringify(want)).catch(() => {});
    return shown();
  };
  const choice = group.getByRole('combobox', { name: 'What to do with nd-base' });
  // Kept beside the installed one (the default): nd-base-v2 depends on
  // nd-helper; nd-user keeps the installed nd-base, enabled.
  assert.equal(await choice.inputValue(), 'keep-both');
  assert.deepEqual(await notes({ 'nd-base': [helper], 'nd-user': [] }), { 'nd-base': [helper], 'nd-user': [] });
  // An update disables nd-base, and nd-user with it.
  await choice.selectOption({ label: 'Replace nd-base' });
  assert.deepEqual(await notes({ 'nd-base': [helper], 'nd-user': [base] }), { 'nd-base': [helper], 'nd-user': [base] });
  // Skipped, nd-base is not installed: nd-user keeps the installed one.
  await choice.selectOption({ label: 'Skip' });
  assert.deepEqual(await notes({ 'nd-base': [], 'nd-user': [] }), { 'nd-base': [], 'nd-user': [] });
  await choice.selectOption({ label: 'Replace nd-base' });
  assert.deepEqual(await notes({ 'nd-base': [helper], 'nd-user': [base] }), { 'nd-base': [helper], 'nd-user': [base] });
  assert.deepEqual(await axeViolations(page), [], 'axe: warnings that follow the choices');
  // What the preview said is what is stored.
  await group.getByRole('button', { name: 'Install 2 skills', exact: true }).click();
  await page.locator('.import-result > div', { hasText: 'nd-next.zip' }).waitFor({ timeout: IMPORT_MS });
  await page.locator('#skills > li.disabled[data-id="nd-user"]').waitFor();
  await page.locator('#skills > li.disabled[data-id="nd-base"]').waitFor();
  await page.close();
});

test('a change of one choice in the preview asks for the warnings of the skills it can change, not the whole archive again; one whose ask failed keeps the error shown until asked again', { timeout: IMPORT_MS }, async () => {
  const page = await shared.browser.context.newPage();
  page.setDefaultTimeout(STEP_MS);
  // The skills of each previewNotes call the panel sends. While
  // globalThis.noWorker is set, every connection closes at once, as when
  // the worker cannot start (the failure is injected here, around the
  // real connect: no call the panel makes fails otherwise).
  await page.addInitScript(() => {
    globalThis.notesAsked = [];
    // The preview's aria-busy as each render leaves it, from its first.
    globalThis.previewBusy = [];
    new MutationObserver(() => {
      const busy = document.querySelector('.preview')?.getAttribute('aria-busy');
      if (busy && busy !== globalThis.previewBusy.at(-1)) globalThis.previewBusy.push(busy);
    }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['aria-busy'] });
    const connect = chrome.runtime.connect.bind(chrome.runtime);
    chrome.runtime.connect = (...a) => {
      if (globalThis.noWorker) {
        const closed = [];
        setTimeout(() => closed.forEach((f) => f()));
        return { postMessage() {}, disconnect() {}, onMessage: { addListener() {}, removeListener() {} }, onDisconnect: { addListener: (f) => closed.push(f) } };
      }
      const port = connect(...a);
      const post = port.postMessage.bind(port);
      port.postMessage = (m) => {
        if (m?.t === 'call' && m.method === 'registry.previewNotes') globalThis.notesAsked.push(m.args.preview.skills.map((s) => s.name));
        post(m);
      };
      return port;
    };
  });
  await page.setViewportSize({ width: 400, height: 900 });
  await page.goto(`chrome-extension://${shared.extId}/sidepanel.html`, { waitUntil: 'load' });
  await page.waitForFunction(() => document.getElementById('status')?.dataset.state === 'ready', undefined, { polling: 50 });
  const dir = mkdtempSync(join(tmpdir(), 'skillfs-parts-'));
  const base = join(dir, 'parts-base.zip');
  writeFileSync(base, zipOf({ 'pack/parts-base/SKILL.md': md('parts-base', 'What the others need.') }));
  assert.ok((await importFile(page, base)).ok);
  await page.getByRole('searchbox', { name: 'Search skills' }).fill('parts-');
  await page.getByRole('switch', { name: 'Enabled: parts-base', exact: true }).uncheck();
  await page.locator('#skills > li.disabled[data-id="parts-base"]').waitFor();

  // Eight pairs: each pair's first depends on parts-base (disabled), its second on its first.
  const files = {};
  const dep = (name, on) => `---\nname: ${name}\ndescription: Needs ${on}.\nskill_dependencies: [${on}]\n---\n# ${name}\n`;
  for (let k = 0; k < 8; k++) {
    files[`pack/parts-${k}-a/SKILL.md`] = dep(`parts-${k}-a`, 'parts-base');
    files[`pack/parts-${k}-b/SKILL.md`] = dep(`parts-${k}-b`, `parts-${k}-a`);
  }
  const path = join(dir, 'parts.zip');
  writeFileSync(path, zipOf(files));
  await page.evaluate(() => { globalThis.previewBusy = []; });
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
  await chooser.setFiles(path);
  const group = page.getByRole('group', { name: 'parts.zip holds 16 skills' });
  await group.waitFor({ timeout: IMPORT_MS });
  await page.locator('.preview[aria-busy="false"]').waitFor();
  // Busy from its first render until the notes came: never shown settled
  // before they were asked for.
  assert.deepEqual(await page.evaluate(() => globalThis.previewBusy), ['true', 'false'], 'the preview\'s aria-busy, render by render');
  const warned = () => group.locator('.preview-skills > li').evaluateAll((lis) => lis.filter((li) => li.querySelector('.diagnostics')).map((li) => li.dataset.name));
  const all = Object.keys(files).map((f) => f.split('/')[1]);
  assert.deepEqual(await warned(), all, 'every skill would be installed disabled');
  assert.equal((await page.evaluate(() => globalThis.notesAsked.splice(0))).length, 1, 'the preview asked once for all');

  // parts-3-a skipped: parts-3-b would depend on a skill neither installed
  // nor installing (refused, so no warning that it installs disabled); no
  // other skill's warning can change, and none is asked about.
  const answered = (n) => page.waitForFunction((n) => globalThis.notesAsked.length === n && document.querySelector('.preview')?.getAttribute('aria-busy') === 'false', n);
  await group.getByRole('checkbox', { name: 'parts-3-a', exact: true }).uncheck();
  await answered(1);
  assert.deepEqual(await page.evaluate(() => globalThis.notesAsked), [['parts-3-a', 'parts-3-b']]);
  assert.deepEqual(await warned(), all.filter((n) => n !== 'parts-3-a' && n !== 'parts-3-b'));
  await group.getByRole('checkbox', { name: 'parts-3-a', exact: true }).check();
  await answered(2);
  assert.deepEqual(await warned(), all);

  // The ask for parts-3 fails: their warnings are stale, and the error
  // says so. An answer for parts-5 leaves it shown: parts-3's are still
  // stale. parts-3 asked again and answered, it goes.
  const error = group.locator('.hint.error');
  await page.evaluate(() => { globalThis.noWorker = true; });
  await stopWorker(page);
  await page.waitForFunction(() => document.body.dataset.connected === 'false');
  await group.getByRole('checkbox', { name: 'parts-3-a', exact: true }).uncheck();
  await error.waitFor();
  await page.locator('.preview[aria-busy="false"]').waitFor();
  assert.match(await error.textContent(), /^Could not tell which skills would be installed disabled: the extension's background worker stopped before it answered/);
  assert.deepEqual(await warned(), all, 'the warnings before the failed ask');
  await page.evaluate(() => { globalThis.noWorker = false; globalThis.notesAsked = []; });
  await group.getByRole('checkbox', { name: 'parts-5-a', exact: true }).uncheck();
  await answered(1);
  assert.deepEqual(await warned(), all.filter((n) => n !== 'parts-5-a' && n !== 'parts-5-b'));
  assert.ok(await error.isVisible(), "the error went with parts-3's warnings still stale");
  await group.getByRole('checkbox', { name: 'parts-3-a', exact: true }).check();
  await answered(2);
  await error.waitFor({ state: 'detached' });
  assert.deepEqual(await warned(), all.filter((n) => n !== 'parts-5-a' && n !== 'parts-5-b'));
  await group.getByRole('button', { name: 'Cancel', exact: true }).click();
  await page.close();
});

test('a worker that cannot answer: a refresh says so in words, and reads the list no more than once', { timeout: 60_000 }, async () => {
  const page = await openPanel(400);
  // From now on, every connection closes at once, as when the worker
  // cannot start; then the worker is stopped, closing the panel's port.
  await page.evaluate(() => {
    globalThis.connects = 0;
    chrome.runtime.connect = () => {
      globalThis.connects++;
      const closed = [];
      setTimeout(() => closed.forEach((f) => f()));
      return { postMessage() {}, disconnect() {}, onMessage: { addListener() {}, removeListener() {} }, onDisconnect: { addListener: (f) => closed.push(f) } };
    };
  });
  await stopWorker(page);
  await page.waitForFunction(() => document.body.dataset.connected === 'false');
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.waitForFunction(() => document.getElementById('status')?.dataset.state === 'error');
  // The list and the revision, tried together on one connection and once
  // more on a fresh one (another section may have connected meanwhile);
  // then nothing: the failure sets off no other read.
  const connects = await page.evaluate(() => globalThis.connects);
  assert.ok(connects >= 2 && connects <= 4, `${connects} connections`);
  // A read the failure set off would come through the app's effects,
  // after a frame or Preact's 100 ms fallback, and a read that does not
  // come has no event: a second is past both.
  await page.waitForTimeout(1_000);
  assert.equal(await page.evaluate(() => globalThis.connects), connects, 'connections after the refresh failed');
  assert.match(await page.locator('#status').textContent(), /^Could not list the skills: the extension's background worker stopped before it answered .*; try again\.$/);
  await page.close();
});

/** path's zip with the SKILL.md of its first skill folder (in name order)
 * given a frontmatter that is not YAML, the rest as it was, written to
 * out; that skill's folder. */
function withBrokenSkill(path, out) {
  const files = unzipSync(readFileSync(path));
  const md = Object.keys(files).filter((k) => k.endsWith('/SKILL.md')).sort()[0];
  files[md] = strToU8(strFromU8(files[md]).replace(/^---\r?\n/, '---\nname: [unclosed\n'));
  writeFileSync(out, zipSync(files));
  return md.slice(0, -'/SKILL.md'.length);
}

test('a real download with one SKILL.md broken: the preview names it with its error in words, "Install the N valid skills" installs exactly the others, and the list shows them', { skip: skipReason, timeout: IMPORT_MS + 60_000 }, async () => {
  // A profile of its own, so every valid skill is new whatever the other tests installed.
  const own = await start();
  try {
    const page = await openPanel(400, own);
    const file = `${real.name}-broken.zip`;
    const path = join(mkdtempSync(join(tmpdir(), 'skillfs-broken-real-')), file);
    const dir = withBrokenSkill(real.path, path);
    const broken = dir.slice(dir.lastIndexOf('/') + 1);
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
    await chooser.setFiles(path);
    const group = page.getByRole('group', { name: /holds [\d,]+ skills?$/ });
    await group.waitFor({ timeout: IMPORT_MS });
    // Every valid row, 20 at a time.
    const drawMore = group.getByRole('button', { name: /^Show \d+ more that can be installed$/ });
    while (await drawMore.count()) await drawMore.click();
    const valid = await group.locator('.preview-skills > li:not(.invalid)').evaluateAll((lis) => lis.map((li) => li.dataset.name));
    const n = valid.length;
    assert.ok(n >= 5, `${n} valid skills`);
    assert.equal(await group.locator('#preview-title').textContent(), `${file} holds ${n + 1} skills`);
    assert.equal(await group.locator('.preview-counts').textContent(), `${n} new, 1 cannot be installed (shown with why).`);
    const invalid = await group.locator('.preview-skills > li.invalid').evaluateAll((lis) => lis.map((li) => [li.dataset.dir, li.dataset.code, li.dataset.reason]));
    assert.deepEqual(invalid, [[dir, 'InvalidManifest', 'yaml-invalid']]);
    const box = group.getByRole('checkbox', { name: `${broken} cannot be installed`, exact: true });
    assert.equal(await box.isDisabled(), true, `${broken} cannot be ticked`);
    assert.equal(await box.isChecked(), false);
    assert.match(await group.locator('li.invalid .reason').textContent(), new RegExp(`^The skill in ${dir.replace(/[.+]/g, '\\$&')}/ is invalid: The frontmatter is not valid YAML`));
    assert.deepEqual(await axeViolations(page), [], 'axe: a real download with a broken skill, previewed');

    await group.getByRole('button', { name: `Install the ${n} valid skills`, exact: true }).click();
    const result = page.locator('.import-result > div');
    await result.waitFor({ timeout: IMPORT_MS });
    const text = await result.textContent();
    assert.equal(await result.getAttribute('class'), 'ok', text);
    assert.match(text, new RegExp(`^Installed ${n} skills from ${file.replace(/[.+]/g, '\\$&')}: `));
    assert.match(text, /Left out 1 skill that cannot be installed:\s*The skill in .+ is invalid: The frontmatter is not valid YAML/);
    // The list: exactly the valid skills, not the broken one.
    await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), n);
    await page.reload();
    await page.locator('#skills').waitFor();
    const more = page.getByRole('button', { name: /^Show \d+ more of / });
    while (await more.count()) await more.click();
    assert.deepEqual((await ids(page)).sort(), valid.slice().sort());
  } finally {
    await own.browser.close();
  }
});

test('the focus stays where the keyboard user is, and what is said is what happened: an import\'s result, a dialog closed, a row deleted, the last "Show more", a selection deleted whole; skills already installed are not "skipped as you chose"; nothing to check for updates is said so', { timeout: IMPORT_MS }, async () => {
  const own = await start();
  try {
    const page = await openPanel(400, own);
    await page.bringToFront(); // keys go to the page in front
    const dir = mkdtempSync(join(tmpdir(), 'skillfs-focus-'));
    const ids56 = Array.from({ length: 55 }, (_, i) => `row-${String(i + 1).padStart(2, '0')}`);
    const first = join(dir, 'rows.zip');
    writeFileSync(first, zipOf(Object.fromEntries(ids56.map((id) => [`pack/${id}/SKILL.md`, md(id, `Row ${id}.`)]))));
    // The Install button goes with the preview: the focus goes to the result, which says what was done.
    const r = await importFile(page, first);
    assert.ok(r.ok, r.text);
    await focusOn(page, 'the import\'s result', () => document.activeElement?.matches('.import-result > div.ok'));

    // One skill installed byte for byte and one new: the preview leaves the
    // first out unless asked, and the result says it is installed, not that
    // the user chose to skip it.
    const second = join(dir, 'again.zip');
    writeFileSync(second, zipOf({ 'pack/row-01/SKILL.md': md('row-01', 'Row row-01.'), 'pack/fresh-one/SKILL.md': md('fresh-one', 'A new one.') }));
    const again = await importFile(page, second);
    assert.ok(again.ok, again.text);
    assert.match(again.text, /^Installed 1 skill from again\.zip: fresh-one\.Already installed, unchanged: row-01\./);
    assert.doesNotMatch(again.text, /Skipped, as you chose/);
    // A preview cancelled: the focus goes back to "Import…".
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
    await chooser.setFiles(second);
    const group = page.getByRole('group', { name: 'again.zip holds 2 skills' });
    await group.getByRole('button', { name: 'Cancel' }).click();
    await focusOn(page, '"Import…"', () => document.activeElement?.textContent === 'Import…');

    // Nothing was installed from an address: the check says there is nothing to check, not "0 skills with a source".
    await page.getByRole('button', { name: 'Check for updates' }).click();
    await page.locator('#updates-report').filter({ hasText: 'Nothing to check: no installed skill came from an address or a site, and a skill imported from a file has no source to ask for a new version.' }).waitFor();

    // A row's delete: Escape gives the focus back to its button; once
    // deleted, the focus goes to the next row (the button went with its row).
    await page.waitForFunction(() => document.getElementById('skills')?.dataset.count === '56');
    const del = list(page).getByRole('button', { name: 'Delete fresh-one', exact: true });
    await del.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Delete fresh-one?' }).waitFor();
    await page.keyboard.press('Escape');
    await focusOn(page, '"Delete fresh-one"', () => document.activeElement?.textContent === 'Delete fresh-one');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Delete fresh-one?' }).getByRole('button', { name: 'Delete fresh-one', exact: true }).click();
    await focusOn(page, '"Select row-01"', () => document.activeElement?.getAttribute('aria-label') === 'Select row-01');

    // The last "Show N more" goes with the rows it draws: the focus goes to the first of them.
    const more = page.getByRole('button', { name: 'Show 5 more of 5' });
    await more.focus();
    await page.keyboard.press('Enter');
    await more.waitFor({ state: 'detached' });
    await focusOn(page, '"Select row-51"', () => document.activeElement?.getAttribute('aria-label') === 'Select row-51');

    // Under "Enabled", a switch turned off takes its row out of the list:
    // the focus goes to the row now in its place.
    await page.getByRole('radio', { name: /^Enabled/ }).check();
    await page.getByRole('switch', { name: 'Enabled: row-02', exact: true }).focus();
    await page.keyboard.press('Space');
    await focusOn(page, '"Select row-03"', () => document.activeElement?.getAttribute('aria-label') === 'Select row-03');
    await page.getByRole('radio', { name: /^All/ }).check();

    // Every skill a search shows, selected and deleted: no row is left and
    // "Select all" is disabled; the focus goes to the way back to every skill.
    await page.getByRole('searchbox', { name: 'Search skills' }).fill('row-5');
    const bar = page.getByRole('group', { name: 'Selection' });
    // row-50 to row-55.
    await bar.getByRole('checkbox', { name: 'Select all 6' }).check();
    await bar.getByRole('button', { name: 'Delete selected…' }).click();
    // Frames late, as on a loaded machine: the delete is done before the
    // next one, and what it focused stays focused once the late frames ran.
    await page.evaluate(() => {
      window.rafAsIs = window.requestAnimationFrame;
      window.lateFrames = { asked: 0, ran: 0 };
      window.requestAnimationFrame = (f) => {
        lateFrames.asked++;
        return setTimeout(() => window.rafAsIs((t) => {
          lateFrames.ran++;
          f(t);
        }), 1000);
      };
    });
    await page.getByRole('dialog', { name: 'Delete 6 skills?' }).getByRole('button', { name: 'Delete 6 skills', exact: true }).click();
    await page.getByRole('button', { name: 'Show every skill' }).waitFor();
    // No frame asked from now on is late (nor counted), so the late ones
    // asked meanwhile come to an end; they are waited for by a timer's
    // polling, which asks no frame.
    await page.evaluate(() => (window.requestAnimationFrame = window.rafAsIs));
    await page.waitForFunction(() => lateFrames.asked > 0 && lateFrames.ran === lateFrames.asked, undefined, { polling: 50 });
    await focusOn(page, '"Show every skill"', () => document.activeElement?.textContent === 'Show every skill');
    assert.deepEqual(await axeViolations(page), [], 'axe: a search left empty by a delete');

    // The last skills deleted: the list goes, and the focus to what is said in its place.
    await page.getByRole('button', { name: 'Show every skill' }).press('Enter');
    await bar.getByRole('checkbox', { name: 'Select all 49' }).check();
    await bar.getByRole('button', { name: 'Delete selected…' }).click();
    await page.getByRole('dialog', { name: 'Delete 49 skills?' }).getByRole('button', { name: 'Delete 49 skills', exact: true }).click();
    await focusOn(page, 'the heading "No skills installed"', () => document.activeElement?.textContent === 'No skills installed');
  } finally {
    await own.browser.close();
  }
});

test('install from an address and "Check for updates" by keyboard: the focus stays on the button that works, and goes to what was done when the button goes with it', { timeout: IMPORT_MS }, async (t) => {
  // A profile of its own: the skills other tests installed from servers they closed would be checked too.
  const own = await start();
  t.after(() => own.browser.close());
  const page = await openPanel(400, own);
  await page.bringToFront(); // keys go to the page in front
  const repo = (v) => ({ type: 'application/zip', body: zipOf(Object.fromEntries(['keys-a', 'keys-b', 'keys-c'].map((n) => [`keys-main/skills/${n}/SKILL.md`, md(n, `Version ${v}.`)]))) });
  const files = new Map([['/keys.zip', repo(1)]]);
  const site = await serveSite(files);
  t.after(site.close);
  const section = page.locator('#install-from');
  await section.getByRole('textbox', { name: 'Address' }).fill(`${site.url}/keys.zip`);
  await section.getByRole('combobox', { name: 'What the address is' }).selectOption('url');
  const go = section.getByRole('button', { name: 'Install', exact: true });
  const review = section.getByRole('group', { name: 'keys.zip holds 3 skills' });
  // Cancelled, the review goes with its Cancel: the focus goes back to Install.
  await go.focus();
  await page.keyboard.press('Enter');
  await review.getByRole('button', { name: 'Cancel' }).focus();
  await page.keyboard.press('Enter');
  await review.waitFor({ state: 'detached' });
  await focusOn(page, 'Install', () => document.activeElement?.id === 'source-install');
  // Installed, the review goes with its Install: the focus goes to the report.
  await page.keyboard.press('Enter');
  await review.getByRole('button', { name: 'Install 3 skills', exact: true }).focus();
  await page.keyboard.press('Enter');
  assert.equal((await outcome(page)).state, 'done');
  await focusOn(page, 'the report of the install', () => document.activeElement?.id === 'source-report');

  // Nothing changed: "Check for updates" keeps the focus while it checks (it was disabled, which dropped it).
  const check = page.getByRole('button', { name: 'Check for updates' });
  await check.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('updates-report')?.textContent === '3 skills with a source; 0 to look at.');
  await focusOn(page, '"Check for updates"', () => document.activeElement?.id === 'updates-check');
  // Three changed: a row's Update takes its row away, "Update all" itself;
  // the focus goes to the report of what was updated.
  files.set('/keys.zip', repo(2));
  await page.keyboard.press('Enter');
  const update = page.locator('#updates > li[data-id="keys-a"] button');
  await update.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('updates-report')?.textContent === 'Updated keys-a.');
  await focusOn(page, 'the report of the update', () => document.activeElement?.id === 'updates-report');
  await page.getByRole('button', { name: 'Update all 2', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('updates-report')?.textContent === 'Updated 2 skills.');
  await focusOn(page, 'the report of the updates', () => document.activeElement?.id === 'updates-report');
  assert.deepEqual(await axeViolations(page), [], 'axe: the reports focused');
});

test('at 400 px, the source filter shows the whole name of a download as long as K-Dense-AI+claude-scientific-skills.zip, and its count', { timeout: IMPORT_MS }, async () => {
  const page = await openPanel(400);
  // As long as the longest of the six real downloads' names (39 characters).
  const path = join(mkdtempSync(join(tmpdir(), 'skillfs-source-')), 'Long-Org-Name+claude-example-skills.zip');
  writeFileSync(path, zipOf({ 'pack/long-source/SKILL.md': md('long-source', 'From a download with a long name.') }));
  assert.ok((await importFile(page, path)).ok);
  const source = page.getByRole('combobox', { name: 'Source' });
  await source.selectOption({ label: 'Long-Org-Name+claude-example-skills.zip (1)' });
  // The text the select shows needs its width plus the arrow's; it was cut at 16em.
  const fit = await source.evaluate((s) => {
    const c = document.createElement('canvas').getContext('2d');
    c.font = getComputedStyle(s).font;
    return { need: Math.ceil(c.measureText(s.selectedOptions[0].text).width) + 24, has: s.clientWidth };
  });
  assert.ok(fit.need <= fit.has, `the selected source needs ${fit.need} px and has ${fit.has}`);
  const wide = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
    .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`).slice(0, 5));
  assert.deepEqual(wide, [], 'nothing widens the page');
  await page.close();
});

test('the agent view counts the skills only the user may invoke (disable-model-invocation) apart from those the agent sees, in the same sentence', { timeout: 60_000 }, async () => {
  const own = await start();
  try {
    const page = await openPanel(400, own);
    const md = (name, extra = '') => strToU8(`---\nname: ${name}\ndescription: Does ${name} things.\n${extra}---\n# ${name}\n`);
    const zip = zipSync({ 'ledger/SKILL.md': md('ledger'), 'ship-it/SKILL.md': md('ship-it', 'disable-model-invocation: true\n'), 'tag-it/SKILL.md': md('tag-it', 'disable-model-invocation: true\n') });
    await withHost(page, (sk, b64) => sk.registry.importZip(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)), { source: 'three.zip' }), Buffer.from(zip).toString('base64'), STEP_MS);
    const label = page.locator('#catalog-label');
    // Three enabled, one in the catalog: not "all 1 skill" as if that were every enabled one.
    await page.waitForFunction(() => document.querySelector('#catalog')?.textContent.includes('ledger')); // the label comes with it
    assert.match(await label.textContent(), /^Every visible skill with its full description \(\d[\d,]* of 8,000 characters\); 2 more only you can invoke\.$/);
    await page.getByRole('combobox', { name: 'Catalog' }).selectOption('names');
    await page.waitForFunction(() => document.querySelector('#catalog-label')?.textContent.startsWith('The agent sees'));
    assert.match(await label.textContent(), /^The agent sees all 1 skill, 0 with a description: names only, as asked \(\d[\d,]* of 8,000 characters\); 2 more only you can invoke\.$/);
    // Forty more, whose first sentences would not all fit in 2,000
    // characters while their names do: none described, and the label
    // says why rather than leave the unused budget unexplained.
    await withHost(page, (sk, b64) => sk.registry.importZip(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)), { source: 'lab.zip' }), Buffer.from(longPack(40)).toString('base64'), STEP_MS);
    await page.getByRole('combobox', { name: 'Catalog' }).selectOption('full');
    await page.getByRole('combobox', { name: 'Budget' }).selectOption('2000');
    await page.waitForFunction(() => document.querySelector('#catalog-label')?.textContent.includes('of 2,000 characters'));
    assert.match(await label.textContent(), /^The agent sees all 41 skills, 0 with a description: the first sentence of each would not fit, and no skill is favoured over the others \(\d[\d,]* of 2,000 characters\); 2 more only you can invoke\.$/);
    await page.close();
  } finally {
    await own.browser.close();
  }
});

test('a release\'s .tar.gz is offered by "Import…" and installs as a zip does', { timeout: IMPORT_MS }, async () => {
  const page = await openPanel(400);
  // The chooser lists what the import reads (zipguard.ReadAny): a tarball too.
  assert.deepEqual((await page.locator('.importer input[type=file]').getAttribute('accept')).split(','), ['.zip', '.skill', '.tar.gz', '.tgz']);
  const path = join(mkdtempSync(join(tmpdir(), 'skillfs-tgz-')), 'tarball-pack.tar.gz');
  writeFileSync(path, tarGz({ 'tarball-pack-1.0/tarball-skill/SKILL.md': md('tarball-skill', 'From a release tarball.') }));
  const r = await importFile(page, path, { keyboard: true });
  assert.deepEqual(r.rows, ['tarball-skill']);
  assert.ok(r.ok, r.text);
  assert.equal(r.text, 'Installed 1 skill from tarball-pack.tar.gz: tarball-skill.');
  await withHost(page, (sk) => sk.registry.remove('tarball-skill'));
  await page.close();
});


test('install from an address: what is not a whole web address is said so, at the field, and nothing is fetched', { timeout: IMPORT_MS }, async (t) => {
  const page = await openPanel(400);
  t.after(() => page.close());
  const field = page.locator('#install-from').getByRole('textbox', { name: 'Address' });
  // "sample-pack.zip" is a file of the extension itself, which a name alone fetched.
  for (const [address, kind] of [['sample-pack.zip', 'url'], ['pdf tools', 'url'], ['mcp.example', 'mcp']]) {
    const section = await fromAddress(page, address, kind);
    assert.equal(await section.getAttribute('data-state'), 'error', address);
    assert.equal(await page.locator('#source-report').textContent(), `${address} is not a web address: give the whole address, starting with https:// (or http://).`);
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    await focusOn(page, 'the address field', () => document.activeElement?.id === 'source-address');
  }
  // A whole address is fetched, and the field is no longer marked.
  const site = await serveSite(new Map());
  t.after(site.close);
  await fromAddress(page, `${site.url}/none.zip`, 'url');
  assert.deepEqual(site.log, ['GET /none.zip']);
  assert.equal(await field.getAttribute('aria-invalid'), null);
});

test('several archives dropped at once: the first is previewed, and the panel names the others, which were not read', { timeout: IMPORT_MS }, async (t) => {
  const page = await openPanel(400);
  t.after(() => page.close());
  const b64 = (files) => Buffer.from(zipOf(files)).toString('base64');
  const files = [
    ['drop-one.zip', b64({ 'drop-one/SKILL.md': md('drop-one', 'The first dropped.') })],
    ['drop-two.zip', b64({ 'drop-two/SKILL.md': md('drop-two', 'The second dropped.') })],
    ['drop-three.zip', b64({ 'drop-three/SKILL.md': md('drop-three', 'The third dropped.') })],
  ];
  const dataTransfer = await page.evaluateHandle((files) => {
    const dt = new DataTransfer();
    for (const [name, b] of files) dt.items.add(new File([Uint8Array.from(atob(b), (c) => c.charCodeAt(0))], name, { type: 'application/zip' }));
    return dt;
  }, files);
  await page.getByRole('button', { name: /^Drop a \.zip/ }).dispatchEvent('drop', { dataTransfer });
  const group = page.getByRole('group', { name: 'drop-one.zip holds 1 skill' });
  await group.waitFor({ timeout: IMPORT_MS });
  assert.equal(await page.locator('#import-unread').textContent(),
    'One archive is read at a time: this is drop-one.zip. Drop or choose the 2 others after it: drop-two.zip, drop-three.zip.');
  await group.getByRole('button', { name: 'Cancel', exact: true }).click();
});

test('by keyboard, the sections past a list of 60 skills are a few Tab presses from the top: links named for each section, shown when focused, take the focus to its heading, and the next Tab goes on from there', { timeout: 60_000 }, async () => {
  const own = await start();
  try {
    let page = await openPanel(400, own);
    const zip = zipOf(Object.fromEntries(Array.from({ length: 60 }, (_, i) => `row-${i}`).map((id) => [`pack/${id}/SKILL.md`, md(id, `Row ${id}.`)])));
    await withHost(page, (sk, b64) => sk.registry.importZip(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)), { source: 'rows.zip' }), Buffer.from(zip).toString('base64'), STEP_MS);
    await page.close();
    // A panel opened with them: its first Tab stops are the links.
    page = await openPanel(400, own);
    await page.bringToFront(); // keys go to the page in front
    await page.waitForFunction(() => document.getElementById('skills')?.dataset.count === '60');
    const skip = page.getByRole('navigation', { name: 'Skip to' });
    assert.deepEqual(await skip.getByRole('link').allTextContents(), ['Import', 'Installed', 'Install from an address', 'Updates', 'What the agent sees']);
    for (const [name, presses, next] of [['Updates', 4, 'Check for updates'], ['What the agent sees', 5, null]]) {
      await page.reload({ waitUntil: 'load' });
      await page.waitForFunction(() => document.getElementById('skills')?.dataset.count === '60');
      for (let i = 0; i < presses; i++) await page.keyboard.press('Tab');
      await focusOn(page, `the link "${name}"`, (name) => document.activeElement?.matches('nav a') && document.activeElement.textContent === name, name);
      // Shown: a sighted keyboard user sees where the focus is.
      assert.ok((await skip.boundingBox()).width > 100, 'the links are shown while focused');
      assert.deepEqual(await axeViolations(page), [], 'axe: the skip links focused');
      await page.keyboard.press('Enter');
      await focusOn(page, `the heading "${name}"`, (name) => document.activeElement?.tagName === 'H2' && document.activeElement.textContent === name, name);
      if (!next) continue;
      await page.keyboard.press('Tab');
      await focusOn(page, `"${next}"`, (next) => document.activeElement?.textContent === next, next);
    }
  } finally {
    await own.browser.close();
  }
});

test('the source filter: the last skills of the source shown, deleted, take the filter back to every source, not that source\'s "(0)", and the focus to it; a search that matches nothing leaves every source in it, and it stays where it was', { timeout: IMPORT_MS }, async () => {
  const own = await start();
  try {
    const page = await openPanel(400, own);
    await page.bringToFront(); // keys go to the page in front
    const put = (name, files) => withHost(page, (sk, [b64, name]) => sk.registry.importZip(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)), { source: name }), [Buffer.from(zipOf(files)).toString('base64'), name], STEP_MS);
    // As long as the longest of the six real downloads' names: its select goes under its label at 400 px.
    await put('Long-Org-Name+claude-example-skills.zip', { 'pack/long-one/SKILL.md': md('long-one', 'Kept.') });
    await put('two.zip', { 'pack/two-a/SKILL.md': md('two-a', 'Goes.'), 'pack/two-b/SKILL.md': md('two-b', 'Goes too.') });
    await page.waitForFunction(() => document.getElementById('skills')?.dataset.count === '3');
    const source = page.getByRole('combobox', { name: 'Source' });
    const options = () => source.locator('option').allTextContents();
    const at = async () => {
      const b = await source.boundingBox();
      return { x: Math.round(b.x), y: Math.round(b.y), width: Math.round(b.width) };
    };
    const before = await at();
    const search = page.getByRole('searchbox', { name: 'Search skills' });
    await search.fill('nothing-matches-this');
    await page.getByRole('button', { name: 'Show every skill' }).waitFor();
    assert.deepEqual(await options(), ['every source (0)', 'Long-Org-Name+claude-example-skills.zip (0)', 'two.zip (0)']);
    assert.deepEqual(await at(), before, 'the Source select stays where it was');
    await search.fill('');

    await source.selectOption({ label: 'two.zip (2)' });
    const bar = page.getByRole('group', { name: 'Selection' });
    await bar.getByRole('checkbox', { name: 'Select all 2' }).check();
    await bar.getByRole('button', { name: 'Delete selected…' }).click();
    await page.getByRole('dialog', { name: 'Delete 2 skills?' }).getByRole('button', { name: 'Delete 2 skills', exact: true }).click();
    await focusOn(page, 'the Source select', () => document.activeElement?.matches('select.source'));
    assert.equal(await source.evaluate((s) => s.selectedOptions[0].text), 'every source (1)');
    assert.deepEqual(await options(), ['every source (1)', 'Long-Org-Name+claude-example-skills.zip (1)']);
    assert.deepEqual(await ids(page), ['long-one']);
    assert.equal(await page.getByRole('button', { name: 'Show every skill' }).count(), 0);
    // A skill imported with no source is a source of its own, "(none)",
    // not every source.
    await put('', { 'pack/no-source/SKILL.md': md('no-source', 'From bytes a page held.') });
    await page.waitForFunction(() => document.getElementById('skills')?.dataset.count === '2');
    await source.selectOption({ label: '(none) (1)' });
    await page.waitForFunction(() => document.querySelectorAll('#skills > li').length === 1);
    assert.deepEqual(await ids(page), ['no-source']);
    await source.selectOption({ label: 'every source (2)' });
    await page.waitForFunction(() => document.querySelectorAll('#skills > li').length === 2);
  } finally {
    await own.browser.close();
  }
});
