// The side panel as someone who keeps a few hundred skills uses it: the
// extension loaded unpacked into headless Chromium at 400 px, every
// download imported through the panel's own "Import…", then the list and
// the skill view worked through by roles and names. The six real
// repository downloads (SKILLFS_REAL_REPOS, 259 distinct skills) when they
// are there; always a generated pack of 260 with the same traits (long
// names, descriptions up to 1,900 characters, a warning). The same
// downloads are also published by a site on 127.0.0.1 (a URL each and a
// discovery index) and installed from the panel's "Install from an address".
//
// Speed is never asserted (the machine is shared): what is checked is the
// work the panel makes the browser do (layouts and the objects laid out,
// counted in a Chromium trace of the panel's own tasks, not the test's)
// and, logged only, the main-thread tasks over 50 ms (PerformanceObserver
// 'longtask', which counts the test's queries too).
//
//   make test-extension
//   node --test web/extension/crowded.test.mjs   (after make extension-build)

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { unzipSync, zipSync } from 'fflate';
import { axeViolations } from '../harness/axe.mjs';
import { stopWorker, withHost } from '../harness/extension.mjs';
import { launch } from '../harness/index.mjs';
import { SCHEMA_V2, serveSite, sha256 } from '../harness/publish.mjs';
import { realRepos } from '../harness/realrepos.mjs';
import { rendering, trace } from '../harness/trace.mjs';
import { longPack } from '../ui/fixtures.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EXT_DIR = resolve(process.env.SKILLFS_EXTENSION_DIR ?? join(REPO, '.bin/extension'));
const STEP_MS = 20_000;
/** A real download of 5 MB takes a while on a shared machine. */
const IMPORT_MS = 120_000;
const { repos, skipReason } = realRepos();

const tmp = mkdtempSync(join(tmpdir(), 'skillfs-crowded-'));
const GENERATED = join(tmp, 'lab-skills.zip');
writeFileSync(GENERATED, longPack(260));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The extension in a fresh profile, and its side panel as a tab at 400 px. */
async function panel() {
  for (const f of ['sidepanel.html', 'sidepanel.js', 'sidepanel.css']) {
    if (!existsSync(join(EXT_DIR, f))) throw new Error(`${join(EXT_DIR, f)} is missing: run \`make extension-build\``);
  }
  const browser = await launch({ timeoutMs: STEP_MS, args: [`--disable-extensions-except=${EXT_DIR}`, `--load-extension=${EXT_DIR}`] });
  // The worker's errors and its stops, in the test's output: when the
  // panel reports the worker gone, this tells a real stop (what the worker
  // said before it) from a host that only did not answer in time.
  const watch = (w) => {
    if (!w.url().startsWith('chrome-extension://')) return;
    w.on('console', (m) => ['error', 'warning'].includes(m.type()) && console.log(`[worker ${m.type()}] ${m.text()}`));
    w.on('close', () => console.log(`[worker] stopped at ${new Date().toISOString()}`));
  };
  browser.context.serviceWorkers().forEach(watch);
  browser.context.on('serviceworker', watch);
  const sw = browser.context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://')) ??
    (await browser.context.waitForEvent('serviceworker', { timeout: STEP_MS, predicate: (w) => w.url().startsWith('chrome-extension://') }));
  // The worker's event loop: every gap over 200 ms between the ticks of a
  // 50 ms timer, when the host could answer no ping.
  await sw.evaluate(() => {
    globalThis.gaps = [];
    let last = Date.now();
    setInterval(() => {
      const now = Date.now();
      if (now - last > 200) globalThis.gaps.push(`${now - last} ms to ${new Date(now).toISOString()}`);
      last = now;
    }, 50);
  });
  const page = await browser.context.newPage();
  page.setDefaultTimeout(STEP_MS);
  await page.setViewportSize({ width: 400, height: 900 });
  // Every main-thread task over 50 ms, with what the test was doing.
  await page.addInitScript(() => {
    globalThis.longTasks = [];
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) globalThis.longTasks.push(`${Math.round(e.duration)} ms during ${globalThis.doing ?? 'start'}`);
    }).observe({ type: 'longtask', buffered: true });
    // Every call the panel sends to the host, by method (and a bulk
    // call's number of skills): what one click costs the registry.
    globalThis.calls = [];
    // The liveness pings the panel sent and the answers it got, and what
    // the test was doing, for a failure that says the host is gone.
    globalThis.heard = [];
    globalThis.batchSizes = [];
    // The host's answers held while hold is true, until release(): a
    // commit that takes as long as the test needs, to act meanwhile.
    globalThis.hold = false;
    const held = [];
    globalThis.release = () => {
      globalThis.hold = false;
      for (const deliver of held.splice(0)) deliver();
    };
    const connect = chrome.runtime.connect.bind(chrome.runtime);
    chrome.runtime.connect = (...a) => {
      const port = connect(...a);
      const post = port.postMessage.bind(port);
      port.postMessage = (m) => {
        if (m?.t === 'ping') globalThis.heard.push(`ping ${new Date().toISOString()}`);
        if (m?.t === 'call') globalThis.calls.push(m.method);
        if (m?.t === 'call' && Array.isArray(m.args?.ids)) globalThis.batchSizes.push(m.args.ids.length);
        post(m);
      };
      const listen = port.onMessage.addListener.bind(port.onMessage);
      port.onMessage.addListener = (f) => listen((m, ...rest) => {
        if (m?.t === 'pong') globalThis.heard.push(`pong ${new Date().toISOString()}`);
        if (globalThis.hold && (m?.t === 'result' || m?.t === 'error')) held.push(() => f(m, ...rest));
        else f(m, ...rest);
      });
      return port;
    };
  });
  await page.goto(`chrome-extension://${new URL(sw.url()).host}/sidepanel.html`, { waitUntil: 'load' });
  await page.waitForFunction(() => document.getElementById('status')?.dataset.state === 'ready', undefined, { polling: 50 });
  const cdp = await page.context().newCDPSession(page);
  // What the host's liveness looked like from both ends, for a failure.
  const liveness = async () => `worker's event loop gaps: ${(await sw.evaluate(() => globalThis.gaps.slice(-20)).catch((e) => [e.message])).join('; ') || 'none'}\n` +
    `panel's pings and pongs: ${(await page.evaluate(() => globalThis.heard.slice(-40))).join('; ') || 'none'}`;
  return { browser, page, cdp, liveness };
}

/** Names what the test does next, for the long-task log. */
const doing = (page, what) => page.evaluate((w) => {
  globalThis.doing = w;
  globalThis.heard.push(`${w} from ${new Date().toISOString()}`);
}, what);

/** Chooses path with "Import…"; the preview. */
async function preview(page, path) {
  await doing(page, `importing ${path.split('/').pop()}`);
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
  await chooser.setFiles(path);
  const group = page.getByRole('group', { name: /holds [\d,]+ skills?$/ });
  await group.waitFor({ timeout: IMPORT_MS });
  return group;
}

/** Imports path through "Import…", installing what the preview proposes. */
async function importFile(page, path) {
  const group = await preview(page, path);
  const install = group.getByRole('button', { name: /^Install [\d,]+ skills?$/ });
  if (await install.isDisabled()) {
    await group.getByRole('button', { name: 'Cancel' }).click();
    return '';
  }
  await install.click();
  const box = page.locator('.import-result > div');
  await box.waitFor({ timeout: IMPORT_MS });
  assert.equal(await box.getAttribute('class'), 'ok', await box.textContent());
  return box.textContent();
}

/** Imports the six real downloads through the panel; how many skills
 * they installed. The list follows an import through the host's change
 * notice, which can arrive after the import's result is shown, so the
 * count is taken from the panel opened again, whose first list reads what
 * is stored. */
async function importReal(page) {
  for (const r of repos) await importFile(page, r.path);
  await page.reload();
  await page.locator('#skills').waitFor();
  const n = Number(await page.locator('#skills').getAttribute('data-count'));
  assert.ok(n >= 250, `${n} skills installed`);
  return n;
}

/** Shows every row of the list ("Show 50 more" until there is none). */
async function showAll(page) {
  const more = page.getByRole('button', { name: /^Show \d+ more of / });
  while (await more.count()) await more.click();
}

/** Resolves once page has drawn n more frames: the layouts, resize
 * observations and the renders they set off of a change made before are
 * done by then (an observation is delivered in the frame that laid out
 * what it saw, and what it renders is laid out in the next). */
const frames = (page, n) => page.evaluate((n) => new Promise((done) => {
  const next = (left) => (left ? requestAnimationFrame(() => next(left - 1)) : done(undefined));
  next(n);
}), n);

/** The checks a list of n skills must pass, whatever their source. */
async function crowdedList(p, n) {
  const { page } = p;
  await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), n);
  await doing(page, 'showing every row');
  await showAll(page);
  assert.equal(await page.locator('#skills > li').count(), n);
  const first = await page.locator('#skills > li').first().getAttribute('data-id');

  // Open a skill and come back: the list, hidden meanwhile, is shown again.
  // Each row decides whether its description needs "more"; that must be
  // one layout for all the rows, not one layout per row.
  await doing(page, `opening ${first}`);
  const [files, size] = (await page.locator(`#skills > li[data-id="${first}"] .meta`).textContent()).split(' · ');
  await page.getByRole('button', { name: `Open ${first}`, exact: true }).click();
  await page.getByRole('heading', { level: 2, name: first }).waitFor();
  // Its size reads the same in the list and in its details.
  const details = page.getByRole('region', { name: 'Details' });
  const sized = details.locator('div', { has: page.getByRole('term').filter({ hasText: /^Size$/ }) }).getByRole('definition');
  assert.equal(await sized.textContent(), `${size} in ${files}`);
  await doing(page, 'going back to the list');
  const back = await renderingWork(p, async () => {
    await page.getByRole('button', { name: 'Back to the list' }).click();
    await page.getByRole('button', { name: `Open ${first}`, exact: true }).waitFor();
    await frames(page, 3); // every resize observation delivered, and what it rendered laid out
  });
  // One observer for all the rows ran 6 layouts here; one a row, 12 (each
  // row drawn re-rendered in a callback of its own, then laid out again):
  // the rows out of view are not laid out, so it is the rows drawn that
  // each cost a layout, not all n.
  assert.ok(back.layouts <= 8, `going back to a list of ${n} rows ran ${back.layouts} layouts`);
  // The rows still say which descriptions are cut: "more" on the long ones.
  assert.ok(await page.getByRole('button', { name: /^more about / }).count() > 0, 'no row offers "more"');
  // So do the rows drawn only once scrolled to (the rows out of view are not laid out).
  await page.locator('#skills > li').last().scrollIntoViewIfNeeded();
  await frames(page, 3); // the rows now in view measured
  const wrong = await page.locator('#skills > li').evaluateAll((lis) => lis.filter((li) => {
    const r = li.getBoundingClientRect();
    const p = li.querySelector('.desc');
    return r.bottom > 0 && r.top < innerHeight && (p.scrollHeight > p.clientHeight + 1) !== Boolean(li.querySelector('button.more'));
  }).map((li) => li.dataset.id));
  assert.deepEqual(wrong, [], 'rows in view whose "more" does not match their description');

  // A search that finds nothing says so, and how to get the list back.
  await doing(page, 'searching for nothing');
  await page.getByRole('radio', { name: /^Enabled/ }).check();
  await page.getByRole('searchbox', { name: 'Search skills' }).fill('no-such-skill-anywhere');
  await page.waitForFunction(() => document.querySelectorAll('#skills > li').length === 0);
  assert.equal(await page.locator('.list-count').textContent(), `0 of ${n.toLocaleString('en')} skills`);
  assert.equal(await page.locator('.no-match').textContent(), 'No skill matches “no-such-skill-anywhere” with the enabled filter. Show every skill');
  await page.getByRole('button', { name: 'Show every skill' }).click();
  await page.waitForFunction((n) => document.querySelector('.list-count')?.textContent === `${n.toLocaleString('en')} skills, the first 50 shown`, n);
  assert.equal(await page.getByRole('searchbox', { name: 'Search skills' }).inputValue(), '');
  assert.equal(await page.getByRole('radio', { name: /^All/ }).isChecked(), true);
}

test('260 generated skills: the list shown again after a skill was open costs a few layouts, not one a row', { timeout: IMPORT_MS + 120_000 }, async () => {
  const p = await panel();
  try {
    const text = await importFile(p.page, GENERATED);
    assert.match(text, /^Installed 260 skills from lab-skills\.zip/);
    await crowdedList(p, 260);
    console.log(`long tasks: ${(await p.page.evaluate(() => globalThis.longTasks)).join('; ') || 'none'}`);
  } finally {
    await p.browser.close();
  }
});

test('the six real downloads imported through the panel: the same list checks', { skip: skipReason, timeout: 6 * IMPORT_MS + 120_000 }, async () => {
  const p = await panel();
  try {
    await crowdedList(p, await importReal(p.page));
    console.log(`long tasks: ${(await p.page.evaluate(() => globalThis.longTasks)).join('; ') || 'none'}`);
  } finally {
    await p.browser.close();
  }
});

/** A site publishing each zip at /NAME.zip and a discovery index of them all, plus one entry whose digest lies. */
async function publish(zips) {
  const files = new Map();
  const skills = [];
  for (const [name, path] of zips) {
    const body = readFileSync(path);
    files.set(`/${name}.zip`, { body, type: 'application/zip' });
    skills.push({ name: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'), type: 'archive', description: `The skills of ${name}.`, url: `/${name}.zip`, digest: sha256(body) });
  }
  skills.push({ name: 'liar', type: 'archive', description: 'Its digest lies.', url: skills[0].url, digest: sha256('other bytes') });
  files.set('/.well-known/agent-skills/index.json', { type: 'application/json', body: JSON.stringify({ $schema: SCHEMA_V2, skills }) });
  return serveSite(files);
}

/** Installs from address (kind: url, index) through "Install from an address",
 * confirming its preview as it comes; the section's outcome. */
async function installFrom(page, address, kind) {
  await doing(page, `installing ${kind} ${address}`);
  const section = page.locator('#install-from');
  await page.getByRole('textbox', { name: 'Address' }).fill(address);
  await page.getByRole('combobox', { name: 'What the address is' }).selectOption(kind);
  await section.evaluate((s) => (s.dataset.state = 'idle'));
  await section.getByRole('button', { name: 'Install', exact: true }).click();
  const settled = (states) => page.waitForFunction((states) => states.includes(document.getElementById('install-from').dataset.state), states, { timeout: IMPORT_MS, polling: 100 });
  await settled(['previewed', 'done', 'error']);
  if (await section.evaluate((s) => s.dataset.state === 'previewed')) {
    await section.getByRole('button', { name: kind === 'url' ? /^Install (the )?[\d,]+ (valid )?skills?$/ : 'Install selected' }).click();
    await settled(['done', 'error']);
  }
  return section.evaluate((s) => ({ ...s.dataset, text: document.getElementById('source-report').textContent }));
}

/** The install-from checks: many skills reported in a few lines, errors said once with their code. */
async function installFromSite(page, zips, total) {
  const site = await publish(zips);
  try {
    const [name] = zips[0];
    const one = await installFrom(page, `${site.url}/${name}.zip`, 'url');
    assert.equal(one.state, 'done', one.text);
    const n = one.installed.split(' ').length;
    assert.ok(n > 8, `${name} holds ${n} skills`);
    // Hundreds of skills in one sentence that names eight, not a line each.
    assert.match(one.text, new RegExp(`^Installed ${n} skills: [^\\n]+ and ${n - 8} more\\.`));
    assert.ok(one.text.split('\n').length <= 10, `the report has ${one.text.split('\n').length} lines`);

    const missing = await installFrom(page, `${site.url}/nothing-here.zip`, 'url');
    assert.equal(missing.error, 'FetchFailed');
    // What failed, why, and the code once, for a bug report.
    assert.equal(missing.text, `Could not install: ${site.url}/nothing-here.zip answered HTTP 404: nothing is published at this address (any more). (FetchFailed, http-status)`);

    const all = await installFrom(page, `${site.url}/.well-known/agent-skills/index.json`, 'index');
    assert.equal(all.state, 'done', all.text);
    assert.equal(all.refused, 'liar:Integrity');
    const refused = all.text.split('\n').filter((l) => l.startsWith('Refused'));
    assert.equal(refused.length, 1, all.text);
    assert.match(refused[0], /^Refused liar: .+ \(Integrity, digest-mismatch\)\.$/);
    assert.doesNotMatch(refused[0], /Integrity.*Integrity/);
    assert.ok(all.text.split('\n').length <= 20, `the report has ${all.text.split('\n').length} lines`);
    await page.waitForFunction((n) => Number(document.getElementById('skills')?.dataset.count) >= n, total);
  } finally {
    await site.close();
  }
}

test('260 generated skills installed from a site: the report and its errors fit a panel', { timeout: IMPORT_MS + 60_000 }, async () => {
  const p = await panel();
  try {
    await installFromSite(p.page, [['lab-skills', GENERATED]], 260);
  } finally {
    await p.browser.close();
  }
});

test('the six real downloads installed from a site: the report and its errors fit a panel', { skip: skipReason, timeout: 6 * IMPORT_MS + 60_000 }, async () => {
  const p = await panel();
  try {
    // The largest first: the single-URL install is the one with the most skills.
    const zips = repos.map((r) => [r.name, r.path]).sort((a, b) => readFileSync(b[1]).length - readFileSync(a[1]).length);
    await installFromSite(p.page, zips, 250);
  } finally {
    await p.browser.close();
  }
});

/** path's zip with every SKILL.md changed (a line added), as a newer download of it, written to out. */
function revised(path, out) {
  const files = unzipSync(readFileSync(path));
  for (const k of Object.keys(files)) if (k.endsWith('/SKILL.md')) files[k] = Buffer.concat([files[k], Buffer.from('\nRevised.\n')]);
  writeFileSync(out, zipSync(files));
  return out;
}

/** A newer download of path, imported alone, imported over it: one choice
 * updates every skill; imported again, nothing is new. */
async function importAgain(page, path) {
  const newer = revised(path, join(tmp, `newer-${path.split('/').pop()}`));
  let group = await preview(page, newer);
  // The rows are drawn 20 at a time: the number of skills is the heading's.
  const all = Number((await group.locator('#preview-title').textContent()).match(/holds ([\d,]+) skills$/)[1].replace(/,/g, ''));
  assert.equal(await group.locator('.preview-counts').textContent(), `${all} differ from the installed skills of their names.`);
  await group.getByRole('combobox', { name: `For the ${all} skills already installed` }).selectOption({ label: 'Replace each' });
  await group.getByRole('button', { name: `Install ${all} skills` }).click();
  const box = page.locator('.import-result > div');
  await page.waitForFunction(() => /^Updated /.test(document.querySelector('.import-result > div')?.textContent ?? ''), undefined, { timeout: IMPORT_MS });
  assert.match(await box.textContent(), new RegExp(`^Updated [^.]+ and ${all - 8} more\\.`));
  await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), all);
  assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('#skills > li')].map((li) => li.dataset.id).filter((id) => /-v\d+$/.test(id))), [], 'no copies');

  // The same newer download once more: everything is there already, and the preview says so first.
  group = await preview(page, newer);
  assert.equal(await group.locator('.preview-counts').textContent(), `${all} already installed, unchanged.`);
  assert.ok(await group.getByRole('button', { name: 'Install 0 skills' }).isDisabled());
  await group.getByRole('button', { name: 'Cancel' }).click();
}

test('260 generated skills imported again, newer: one choice updates them all, no copies', { timeout: 3 * IMPORT_MS }, async () => {
  const p = await panel();
  try {
    await importFile(p.page, GENERATED);
    await importAgain(p.page, GENERATED);
  } finally {
    await p.browser.close();
  }
});

test('a real download imported again, newer: one choice updates them all, no copies', { skip: skipReason, timeout: 3 * IMPORT_MS }, async () => {
  const p = await panel();
  try {
    const big = repos.find((r) => r.name.startsWith('K-Dense')) ?? repos[0];
    await importFile(p.page, big.path);
    await importAgain(p.page, big.path);
  } finally {
    await p.browser.close();
  }
});

/** The worker stops while path's import runs: the panel says so in words, and lists what is stored. */
async function stoppedDuringImport(page, path) {
  const group = await preview(page, path);
  // The import's answer is held from the panel until the worker has
  // stopped: however soon the import ends, the panel has had no answer.
  await page.evaluate(() => (globalThis.hold = true));
  await group.getByRole('button', { name: /^Install [\d,]+ skills?$/ }).click();
  await page.locator('.importer progress').waitFor();
  await doing(page, 'stopping the worker during the import');
  await stopWorker(page);
  await page.evaluate(() => globalThis.release());
  const box = page.locator('.import-result > div');
  await box.waitFor({ timeout: IMPORT_MS });
  const text = await box.textContent();
  assert.equal(await box.getAttribute('class'), 'error', text);
  assert.equal(await box.getAttribute('data-code'), 'Internal');
  assert.match(text, /^Could not import [^:]+: the extension's background worker stopped before it answered .*the list now shows what is stored/);
  assert.doesNotMatch(text, /skillfs host/);
  // The list is read again over a new connection, with no click: what the store holds.
  await page.waitForFunction(() => document.body.dataset.connected === 'true' && document.getElementById('status')?.dataset.state === 'ready', undefined, { timeout: STEP_MS });
  assert.match(await page.locator('#status').textContent(), /^[\d,]+ skills? installed/);
}

test('the worker stopped during an import of 260 generated skills: the panel says so in words and lists what is stored', { timeout: IMPORT_MS + 60_000 }, async () => {
  const p = await panel();
  try {
    await stoppedDuringImport(p.page, GENERATED);
  } finally {
    await p.browser.close();
  }
});

test('the worker stopped during the import of a real download: the panel says so in words and lists what is stored', { skip: skipReason, timeout: IMPORT_MS + 60_000 }, async () => {
  const p = await panel();
  try {
    await stoppedDuringImport(p.page, (repos.find((r) => r.name.startsWith('K-Dense')) ?? repos[0]).path);
  } finally {
    await p.browser.close();
  }
});

/** The registry calls the panel sent since the last look. */
const callsSent = (page) => page.evaluate(() => globalThis.calls.splice(0).filter((m) => m.startsWith('registry.')));

/** The long tasks logged since the last look, while the test was doing what. */
const longTasksDuring = (page, what) => page.evaluate((w) => globalThis.longTasks.splice(0).filter((t) => t.endsWith(`during ${w}`)), what);

/**
 * The objects laid out and the elements restyled by the panel's own tasks
 * while step runs (a Chromium trace): counts, the same on a loaded machine.
 */
async function renderingWork({ page, cdp }, step) {
  const { events } = await trace(cdp, async () => {
    await page.evaluate(() => performance.mark('work-start'));
    await step();
    await page.evaluate(() => performance.mark('work-end'));
  });
  return rendering(events, 'work');
}

/** Select, enable, disable and delete several of n skills at once, by roles, names and keys. */
async function bulk(p, n) {
  const { page } = p;
  await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), n);
  await doing(page, 'showing every row');
  await showAll(page);
  const order = await page.locator('#skills > li').evaluateAll((lis) => lis.map((li) => li.dataset.id));
  assert.equal(order.length, n);
  const box = (id) => page.getByRole('checkbox', { name: `Select ${id}`, exact: true });
  const count = page.locator('.bulk-count');
  const picked = () => page.locator('#skills > li').evaluateAll((lis) => lis.filter((li) => li.querySelector('input.pick').checked).map((li) => li.dataset.id));
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? (document.activeElement === document.body ? 'the body' : document.activeElement?.textContent));
  assert.equal(await count.textContent(), 'None selected');
  assert.equal(await page.getByRole('button', { name: 'Disable selected' }).getAttribute('aria-disabled'), 'true', 'nothing to act on yet');

  // A click, then a Shift+click: the range between them, in the order shown.
  await box(order[0]).click();
  await box(order[4]).click({ modifiers: ['Shift'] });
  assert.deepEqual(await picked(), order.slice(0, 5));
  assert.equal(await count.textContent(), '5 selected');
  // From the keyboard: ArrowDown moves to the next row's box, Shift+ArrowDown
  // selects it too, Space toggles, Shift+Space selects the range from the last toggled.
  await box(order[4]).focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), `Select ${order[5]}`);
  await page.keyboard.press('Shift+ArrowDown');
  assert.equal(await focused(), `Select ${order[6]}`);
  assert.deepEqual(await picked(), [...order.slice(0, 5), order[6]]);
  await page.keyboard.press('Space');
  assert.deepEqual(await picked(), order.slice(0, 5));
  await box(order[9]).focus();
  await page.keyboard.press('Shift+Space');
  assert.deepEqual(await picked(), [...order.slice(0, 5), ...order.slice(6, 10)]);
  await page.getByRole('button', { name: 'Clear selection' }).click();
  assert.equal(await count.textContent(), 'None selected');

  // "Select all" takes what the search shows, not what it hides; what
  // another search hides stays selected, and the bar says so.
  const search = page.getByRole('searchbox', { name: 'Search skills' });
  await search.fill(order[1]);
  await page.waitForFunction((id) => [...document.querySelectorAll('#skills > li')].every((li) => li.textContent.toLowerCase().includes(id)) , order[1]);
  const matching = await page.locator('#skills > li').evaluateAll((lis) => lis.map((li) => li.dataset.id));
  assert.ok(matching.length < n, `${matching.length} match ${order[1]}`);
  await page.getByRole('checkbox', { name: `Select all ${matching.length}`, exact: true }).check();
  assert.deepEqual(await picked(), matching);
  const other = order.find((id) => !matching.includes(id) && !id.includes(order[1]));
  await search.fill(other);
  await page.waitForFunction((id) => [...document.querySelectorAll('#skills > li')].some((li) => li.dataset.id === id), other);
  const m = matching.length;
  assert.equal(await count.textContent(), `${m} selected, ${m} of them hidden by the search or filters`);
  assert.equal(await page.getByRole('checkbox', { name: /^Select all \d+$/ }).isChecked(), false);
  await page.getByRole('button', { name: 'Clear selection' }).click();
  await search.fill('');
  await page.waitForFunction((n) => document.querySelectorAll('#skills > li').length === Math.min(n, 50), n);
  await doing(page, 'showing every row');
  await showAll(page);
  await callsSent(page);

  // Every skill, every row shown: selected and disabled in one call, the panel never frozen long.
  await page.evaluate(() => globalThis.longTasks.splice(0));
  await doing(page, 'selecting every skill');
  const t0 = Date.now();
  const selectWork = await renderingWork(p, async () => {
    await page.getByRole('checkbox', { name: `Select all ${n}`, exact: true }).check();
    await page.waitForFunction((n) => document.querySelectorAll('#skills input.pick:checked').length === n, n);
    await frames(page, 2); // drawn
  });
  const selectMs = Date.now() - t0;
  assert.equal(await count.textContent(), `${n.toLocaleString('en')} selected`);
  const selecting = await longTasksDuring(page, 'selecting every skill');
  await doing(page, 'disabling every skill');
  const t1 = Date.now();
  const disableWork = await renderingWork(p, async () => {
    await page.getByRole('button', { name: 'Disable selected' }).click();
    await page.waitForFunction((n) => document.getElementById('status')?.textContent === `${n.toLocaleString('en')} skills installed, 0 enabled.` &&
      document.querySelectorAll('#skills > li.disabled').length === n, n, { timeout: IMPORT_MS });
    await frames(page, 2); // drawn
    // The switches' transitions ended.
    await page.evaluate(() => Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished)));
  });
  const disableMs = Date.now() - t1;
  const disabling = await longTasksDuring(page, 'disabling every skill');
  console.log(`${n} skills, every row shown: select all ${selectMs} ms to the boxes checked (long tasks: ${selecting.join('; ') || 'none'}; ${JSON.stringify(selectWork)}); ` +
    `disable all ${disableMs} ms to the list showing it (long tasks: ${disabling.join('; ') || 'none'}; ${JSON.stringify(disableWork)})`);
  // Every row changed, but only the rows in view are drawn again: a row
  // is over 30 layout objects and 15 elements, and laying out or
  // restyling every row would be far more than 8 objects and 4 elements
  // a row (as it was: 8,000–15,000 objects, 4,700 elements for 259 rows).
  for (const [what, w] of [['selecting', selectWork], ['disabling', disableWork]]) {
    assert.ok(w.laidOut < 8 * n, `${what} every skill laid out ${w.laidOut} objects for ${n} rows`);
    assert.ok(w.restyled < 4 * n, `${what} every skill restyled ${w.restyled} elements for ${n} rows`);
  }
  assert.equal(await page.locator('.bulk-outcome[role=status]').textContent(), `Disabled ${n.toLocaleString('en')} skills.`);
  assert.deepEqual(await callsSent(page), ['registry.setEnabledMany', 'registry.list', 'registry.revision'], 'one change, then the list read again');
  assert.equal(await focused(), 'Disable selected', 'focus stays on the button that acted');
  assert.deepEqual(await axeViolations(page), [], 'axe: every skill selected and disabled');

  // The selection stays: the other button undoes it.
  await page.getByRole('button', { name: 'Enable selected' }).click();
  await page.waitForFunction((n) => document.getElementById('status')?.textContent === `${n.toLocaleString('en')} skills installed, ${n} enabled.`, n, { timeout: IMPORT_MS });
  assert.equal(await page.locator('.bulk-outcome[role=status]').textContent(), `Enabled ${n.toLocaleString('en')} skills.`);
  assert.equal((await callsSent(page))[0], 'registry.setEnabledMany');

  // Deleting many asks first, with how many and the first eight names; Cancel deletes nothing.
  await page.getByRole('button', { name: 'Delete selected…' }).click();
  let dialog = page.getByRole('dialog', { name: `Delete ${n.toLocaleString('en')} skills?` });
  await dialog.waitFor();
  assert.equal(await dialog.locator('.bulk-names').textContent(), `${order.slice(0, 8).join(', ')} and ${n - 8} more`);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  // The bar focuses it in the frame after the dialog is gone (a check right
  // after the dialog went found the body once, on a loaded machine).
  await page.waitForFunction(() => document.activeElement?.textContent === 'Delete selected…').catch(() => {});
  assert.equal(await focused(), 'Delete selected…', 'focus back on the button that asked');
  await page.getByRole('button', { name: 'Clear selection' }).click();

  // Three in the middle of the list, scrolled to: named in the confirmation,
  // deleted in one call; focus and the view stay where the user was.
  const gone = order.slice(20, 23);
  await box(gone[0]).click();
  await box(gone[2]).click({ modifiers: ['Shift'] });
  await page.getByRole('button', { name: 'Delete selected…' }).click();
  dialog = page.getByRole('dialog', { name: 'Delete 3 skills?' });
  await dialog.waitFor();
  assert.equal(await dialog.locator('.bulk-names').textContent(), gone.join(', '));
  assert.deepEqual(await axeViolations(page), [], 'axe: the confirmation of a bulk delete');
  await callsSent(page);
  await dialog.getByRole('button', { name: 'Delete 3 skills' }).click();
  await page.waitForFunction((id) => !document.querySelector(`#skills > li[data-id="${id}"]`), gone[1]);
  await page.waitForFunction((id) => document.activeElement?.getAttribute('aria-label') === `Select ${id}`, order[23]);
  assert.equal((await callsSent(page))[0], 'registry.removeMany');
  assert.equal(await page.locator('.bulk-outcome[role=status]').textContent(), `Deleted 3 skills: ${gone.join(', ')}.`);
  assert.equal(await count.textContent(), 'None selected');
  assert.equal(await page.locator('#skills').getAttribute('data-count'), String(n - 3));
  const inView = await page.evaluate(() => {
    const r = document.activeElement.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  });
  assert.ok(inView, 'the focused row is in view');

  // A skill outside the selection that depends on the one selected: the
  // confirmation names it and deletes it too, in the same call.
  // The dependent is the second skill: in the generated pack, the one with
  // a 64-character name, which the dialog wraps.
  const [on, by] = [order[25], order[1]];
  await withHost(page, (sk, [id, on]) => sk.registry.setDependencies(id, { skills: [on] }), [by, on]);
  await box(on).click();
  await page.getByRole('button', { name: 'Delete selected…' }).click();
  dialog = page.getByRole('dialog', { name: 'Delete 1 skill?' });
  // Once the panel's list has the dependency (the change notice).
  await dialog.locator('.dependents-note').filter({ hasText: by }).waitFor();
  assert.match(await dialog.locator('.dependents-note').textContent(), /, outside the selection, depends? on it.*, so it cannot be deleted alone\.$/);
  const goes = await dialog.getByRole('list', { name: /^Deleting it with its dependents deletes \d+ skills:$/ }).getByRole('listitem').allTextContents();
  assert.deepEqual(goes.slice(0, 2), [on, by]);
  assert.deepEqual(await axeViolations(page), [], 'axe: the confirmation of a bulk delete with dependents');
  assert.deepEqual(await dialog.evaluate((d) => [d.scrollWidth <= d.clientWidth, d.getBoundingClientRect().right <= innerWidth]), [true, true], 'the dialog holds its names');
  await callsSent(page);
  await dialog.getByRole('button', { name: /^Delete 1 skill and \d+ dependents?$/ }).click();
  await page.waitForFunction((id) => !document.querySelector(`#skills > li[data-id="${id}"]`), by);
  assert.deepEqual((await callsSent(page)).filter((m) => m === 'registry.removeMany'), ['registry.removeMany']);
  // Named as deleted: dependents first.
  const said = await page.locator('.bulk-outcome[role=status]').textContent();
  assert.ok(said.startsWith(`Deleted ${goes.length} skills: ${by}`) && said.includes(on), said);
  assert.equal(await page.locator('#skills').getAttribute('data-count'), String(n - 3 - goes.length));
}

test('260 generated skills: several selected by click, Shift+click and keys; all disabled, enabled, three deleted, one call each', { timeout: IMPORT_MS + 120_000 }, async () => {
  const p = await panel();
  try {
    await importFile(p.page, GENERATED);
    await bulk(p, 260);
  } finally {
    await p.browser.close();
  }
});

test('the six real downloads: the same bulk checks over every skill', { skip: skipReason, timeout: 6 * IMPORT_MS + 120_000 }, async () => {
  const p = await panel();
  try {
    await bulk(p, await importReal(p.page));
  } finally {
    await p.browser.close();
  }
});

/** Installs the zip's skills over a port of the test's own, not through
 * the panel; how many it installed. */
async function installOverPort(page, zip) {
  return withHost(page, async (sk, b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return (await sk.registry.importZip(bytes, { source: 'many-skills.zip' })).skills.length;
  }, Buffer.from(zip).toString('base64'), IMPORT_MS);
}

test('5,100 generated skills, more than one registry call takes: disabled, stopped, enabled and deleted in batches of 5,000 (dependents first, across the batches), each outcome saying how many changed', { timeout: 3 * IMPORT_MS + 120_000 }, async () => {
  const n = 5_100;
  const p = await panel();
  const { page } = p;
  try {
    // Installed over a port of the test's own: the panel's import is not what is tested here.
    assert.equal(await installOverPort(page, longPack(n, 'many')), n);
    await page.reload();
    await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), n);
    const bar = page.getByRole('group', { name: 'Selection' });
    const said = page.locator('.bulk-outcome[role=status]');
    const status = page.locator('#status');
    const sizes = () => page.evaluate(() => globalThis.batchSizes.splice(0));
    const focused = () => page.evaluate(() => document.activeElement?.textContent);
    await bar.getByRole('checkbox', { name: 'Select all 5,100', exact: true }).check();
    assert.equal(await bar.locator('.bulk-count').textContent(), '5,100 selected');
    await sizes();

    // Disable: the first batch runs (its answer held); its progress is
    // shown, Stop takes effect after it, and the outcome says how many.
    await page.evaluate(() => (globalThis.hold = true));
    await doing(page, 'disabling 5,100 skills');
    await bar.getByRole('button', { name: 'Disable selected' }).click();
    const progress = bar.getByRole('progressbar', { name: 'Disabling 5,100 skills' });
    await progress.waitFor();
    await page.waitForFunction(() => globalThis.batchSizes.length === 1);
    assert.equal(await said.textContent(), 'Disabling 5,100 skills in batches of 5,000: 0 done.');
    assert.deepEqual(await axeViolations(page), [], 'axe: a change in batches under way');
    await bar.getByRole('button', { name: 'Stop after this batch', exact: true }).click();
    await bar.getByRole('button', { name: 'Stopping after this batch…' }).waitFor();
    await page.evaluate(() => globalThis.release());
    await progress.waitFor({ state: 'detached' });
    assert.equal(await said.textContent(), 'Stopped as you asked: disabled 5,000 skills; the other 100 were not changed.');
    assert.deepEqual(await sizes(), [5_000], 'one batch, then no other');
    assert.equal(await focused(), 'Disable selected', 'focus back on the button that acted when Stop went');
    await page.waitForFunction(() => document.getElementById('status')?.textContent === '5,100 skills installed, 100 enabled.');

    // Enable, while another tab deletes one skill of the second batch:
    // the first batch stays enabled, the second is refused whole, and the
    // alert says both.
    const chip = (name) => page.locator('label.chip').filter({ has: page.getByRole('radio', { name }) });
    await chip(/^Enabled/).click();
    await page.waitForFunction(() => document.querySelector('.list-count')?.textContent.startsWith('100 of '));
    const gone = await page.locator('#skills > li').first().getAttribute('data-id');
    await chip(/^All/).click();
    await page.evaluate(() => (globalThis.hold = true));
    await doing(page, 'enabling 5,100 skills');
    await bar.getByRole('button', { name: 'Enable selected' }).click();
    await page.waitForFunction(() => globalThis.batchSizes.length === 1);
    const other = await p.browser.context.newPage();
    await other.goto(page.url());
    await withHost(other, (sk, id) => sk.registry.remove(id), gone);
    await other.close();
    await page.evaluate(() => globalThis.release());
    const alert = bar.getByRole('alert');
    await alert.waitFor({ timeout: IMPORT_MS });
    assert.equal(await alert.getAttribute('data-code'), 'SkillNotFound');
    assert.match(await alert.textContent(), /^Could not enable 5,100 skills: .+\. Enabled 5,000 skills before that; the other 100 were not changed\.$/);
    assert.deepEqual(await sizes(), [5_000, 100]);
    await page.waitForFunction(() => document.getElementById('status')?.textContent === '5,099 skills installed, 5,099 enabled.');

    // The agent view's completions of 5,099 skills: the first 50 that
    // hold what is typed (a datalist builds every option it holds), and
    // typing a name narrows them to the skills whose invocation holds it.
    const completions = () => page.locator('#commands option').evaluateAll((os) => os.map((o) => o.value.trim()));
    await page.waitForFunction(() => document.getElementById('invoke-hint')?.textContent.startsWith('5,099 skills you can run'));
    assert.equal((await completions()).length, 50);
    const named = await page.locator('#skills > li').nth(1).getAttribute('data-id');
    await page.getByRole('combobox', { name: /Run a skill as the user would type it/ }).fill(`/skill:${named}`);
    await page.waitForFunction((want) => document.querySelector('#commands option')?.value.trim() === want, `/skill:${named}`);
    assert.ok((await completions()).every((c) => c.includes(named)), 'every completion holds the name typed');

    // Dependencies across the batches' boundary, set through the host (the
    // list follows): in the list's order (by name) the first batch deletes
    // skills 1 to 5,000, the second 5,001 to 5,098, and the last one (in
    // the second) depends on the 10th (in the first), which depends on
    // nothing; 5,060 depends on that last one; 4,999 and 5,050 depend on
    // each other. Sent in that order the first batch is refused (a
    // dependent outside it): dependents go first, a cycle in one batch.
    const order = await withHost(page, async (sk) => (await sk.registry.list()).map((s) => s.id).sort((a, b) => a.localeCompare(b, 'en')));
    const needs = [[5_098, 10], [5_060, 5_098], [4_999, 5_050], [5_050, 4_999]];
    await withHost(page, async (sk, needs) => {
      for (const [id, on] of needs) await sk.registry.setDependencies(id, { skills: [on] });
    }, needs.map(([a, b]) => [order[a], order[b]]));
    // The panel's list has them once the 10th's delete says who depends on it.
    await page.getByRole('button', { name: `Delete ${order[10]}`, exact: true }).click();
    const asked = page.getByRole('dialog', { name: `Delete ${order[10]}?` });
    await asked.locator('.dependents-note').filter({ hasText: `${order[5_098]} depends on it, and 1 other skill on that one` }).waitFor();
    await asked.getByRole('button', { name: 'Cancel' }).click();

    // Delete all but the first: two batches, to the end; the list keeps the one.
    const kept = await page.locator('#skills > li').first().getAttribute('data-id');
    assert.equal(kept, order[0]);
    await page.getByRole('checkbox', { name: `Select ${kept}`, exact: true }).uncheck();
    assert.equal(await bar.locator('.bulk-count').textContent(), '5,098 selected');
    await doing(page, 'deleting 5,098 skills');
    await bar.getByRole('button', { name: 'Delete selected…' }).click();
    await page.getByRole('dialog', { name: 'Delete 5,098 skills?' }).getByRole('button', { name: 'Delete 5,098 skills' }).click();
    await page.waitForFunction(() => /^Deleted /.test(document.querySelector('.bulk-outcome[role=status]')?.textContent ?? '') || document.querySelector('.bulk-outcome[role=alert]'), undefined, { timeout: IMPORT_MS });
    assert.deepEqual(await bar.getByRole('alert').allTextContents(), [], 'no batch refused');
    assert.match(await said.textContent(), /^Deleted 5,098 skills: [^.]+ and 5,090 more\.$/);
    assert.deepEqual(await sizes(), [5_000, 98]);
    await page.waitForFunction(() => document.getElementById('status')?.textContent === '1 skill installed, 1 enabled.', undefined, { timeout: IMPORT_MS });
    assert.deepEqual(await page.locator('#skills > li').evaluateAll((lis) => lis.map((li) => li.dataset.id)), [kept]);
    console.log(`long tasks: ${(await page.evaluate(() => globalThis.longTasks)).join('; ') || 'none'}`);
  } catch (e) {
    console.log(await p.liveness());
    throw e;
  } finally {
    await p.browser.close();
  }
});

test('5,100 generated skills previewed, 2,550 of them installed in another version: 20 rows and 20 more on request, and the counts, the one choice and the install cover all 5,100', { timeout: 4 * IMPORT_MS }, async () => {
  const n = 5_100;
  const half = n / 2;
  const p = await panel();
  const { page } = p;
  try {
    // The first half installed over a port of the test's own; the pack of
    // all of them, each changed, goes through the preview.
    assert.equal(await installOverPort(page, longPack(half, 'many')), half);
    const all = join(tmp, 'many-skills.zip');
    writeFileSync(all, longPack(n, 'many'));
    const group = await preview(page, revised(all, join(tmp, 'many-newer.zip')));
    assert.equal(await group.locator('#preview-title').textContent(), 'many-newer.zip holds 5,100 skills');
    assert.equal(await group.locator('.preview-counts').textContent(), '2,550 new, 2,550 differ from the installed skills of their names.');
    const rows = () => group.locator('.preview-skills > li').evaluateAll((lis) => lis.map((li) => li.dataset.name));
    const first = await rows();
    assert.equal(first.length, 20, 'the first 20 skills have a row, not 5,100');
    const more = group.locator('.preview-more');
    assert.equal(await more.textContent(), 'And 5,080 more skills that can be installed. Show 20 more that can be installed');
    assert.deepEqual(await axeViolations(page), [], 'axe: a preview of 5,100 skills');
    // 20 more on request, from the keyboard; the button keeps the focus.
    await more.getByRole('button', { name: 'Show 20 more that can be installed' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('.preview-skills > li').length === 40);
    assert.deepEqual((await rows()).slice(0, 20), first);
    assert.equal(await more.textContent(), 'And 5,060 more skills that can be installed. Show 20 more that can be installed');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Show 20 more that can be installed');

    // One choice for the 2,550 installed, 2,510 of them never drawn; the
    // install installs all 5,100: 2,550 new and 2,550 updated, no copies.
    await group.getByRole('combobox', { name: 'For the 2,550 skills already installed' }).selectOption({ label: 'Replace each' });
    // No skill of the archive depends on another, so no choice can store
    // one disabled: the preview's notes ask the host nothing (the module
    // would decode 5,100 rows in one task at each choice).
    await page.locator('.preview[aria-busy="false"]').waitFor();
    assert.ok(!(await page.evaluate(() => globalThis.calls)).includes('registry.previewNotes'), 'previewNotes was called');
    await doing(page, 'installing 5,100 skills from the preview');
    await group.getByRole('button', { name: 'Install 5,100 skills', exact: true }).click();
    const box = page.locator('.import-result > div');
    await box.waitFor({ timeout: IMPORT_MS });
    assert.equal(await box.getAttribute('class'), 'ok', await box.textContent());
    const lines = await box.locator('p').allTextContents();
    assert.match(lines[0], /^Installed 2,550 skills from many-newer\.zip: .+ and 2,542 more\.$/);
    assert.match(lines[1], /^Updated .+ and 2,542 more\.$/);
    await page.reload();
    await page.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), n, { timeout: IMPORT_MS });
    const stored = await withHost(page, async (sk) => {
      const ids = (await sk.registry.list()).map((s) => s.id);
      // The last installed one and the last new one, neither ever drawn.
      const revisedOnes = [];
      for (const id of ['many-2549', 'many-5099']) if ((await sk.registry.readText(id, 'SKILL.md')).includes('Revised.')) revisedOnes.push(id);
      return { copies: ids.filter((id) => /-v\d+$/.test(id)), revisedOnes };
    }, undefined, IMPORT_MS);
    assert.deepEqual(stored, { copies: [], revisedOnes: ['many-2549', 'many-5099'] });
  } finally {
    await p.browser.close();
  }
});

/** How many times each of the panel's functions named in names ran since the last look (V8's precise coverage, call counts). */
async function callCounts(cdp, names) {
  const { result } = await cdp.send('Profiler.takePreciseCoverage');
  const fns = result.filter((s) => s.url.endsWith('/sidepanel.js')).flatMap((s) => s.functions);
  return Object.fromEntries(names.map((n) => [n, fns.filter((f) => f.functionName === n).reduce((t, f) => t + f.ranges[0].count, 0)]));
}

test('260 generated skills installed from the preview: the preview is drawn again a few times, not once a progress report', { timeout: IMPORT_MS + 60_000 }, async () => {
  const { browser, page, cdp } = await panel();
  try {
    const group = await preview(page, GENERATED);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await callCounts(cdp, []);
    await group.getByRole('button', { name: 'Install 260 skills' }).click();
    await page.locator('.import-result > div').waitFor({ timeout: IMPORT_MS });
    const n = await callCounts(cdp, ['Importer', 'Preview']);
    // The importer is drawn again for each progress report; the preview
    // only when busy starts and when it is gone.
    assert.ok(n.Importer >= 20, `the importer was drawn ${n.Importer} times: too few progress reports to tell`);
    assert.ok(n.Preview <= 3, `the preview was drawn ${n.Preview} times during the import (the importer ${n.Importer})`);
  } finally {
    await browser.close();
  }
});
