// The example MV3 extension (web/extension/) loaded unpacked into Debian's
// headless Chromium: the background service worker hosts skillfs, the side
// panel installs the sample pack over an "admin" port, and the content
// script — a tiny agent loop in a web page on 127.0.0.1 — uses a session
// over an "agent" port. The skills live in the extension's origin only.
//
//   make test-extension            (builds .bin/extension first)
//   node --test web/extension/extension.test.mjs   (after make extension-build)

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import { zipSync } from 'fflate';
import { stopWorker } from '../harness/extension.mjs';
import { launch, serve, withTimeout } from '../harness/index.mjs';
import { SCHEMA_V2, serveMcp, serveSite, sha256, tarGz } from '../harness/publish.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const EXT_DIR = resolve(process.env.SKILLFS_EXTENSION_DIR ?? join(REPO, '.bin/extension'));
const SAMPLE = join(REPO, 'web/sample-pack');
/** JSON for an assertion message, cut short. */
const j = (v) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 600 ? `${s.slice(0, 600)}…` : s;
};
/** Bound on every single wait. */
const STEP_MS = 20_000;
const SAMPLE_IDS = ['citation-style', 'commit-message', 'pdf-tools', 'release-notes', 'web-research', 'word-count'];

// The pure capability rule, compiled from capability.ts by esbuild (its
// imports are types only) and imported as a data: URL.
test('the host gives each sender the capability it should have', async () => {
  const { code } = await transform(readFileSync(join(HERE, 'capability.ts'), 'utf8'), { loader: 'ts', format: 'esm' });
  const { capabilityOf, contextScopeOf } = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  const id = 'abcdefghijklmnopabcdefghijklmnop';
  const self = { id, extensionBase: `chrome-extension://${id}/`, portName: 'skillfs' };
  const panel = `chrome-extension://${id}/sidepanel.html`;
  const cases = [
    ['the side panel', { id, url: panel, origin: `chrome-extension://${id}` }, 'admin'],
    ['sidepanel.html open as a tab', { id, url: panel, tab: { id: 3, url: panel }, frameId: 0 }, 'admin'],
    ['an extension tab whose url Chrome left out', { id, url: panel, tab: { id: 3 }, frameId: 0 }, 'admin'],
    ['an extension page framed in a web page', { id, url: panel, tab: { id: 3, url: 'https://evil.example/' }, frameId: 5 }, 'none'],
    ['an extension frame whose tab url Chrome left out', { id, url: panel, tab: { id: 3 }, frameId: 5 }, 'none'],
    ['a content script in a web page', { id, url: 'http://127.0.0.1:8080/x', tab: { id: 4, url: 'http://127.0.0.1:8080/x' }, frameId: 0 }, 'agent'],
    ['a content script in an https frame', { id, url: 'https://a.example/f', tab: { id: 4 }, frameId: 2 }, 'agent'],
    ['a content script in a file: page', { id, url: 'file:///tmp/x.html', tab: { id: 4 } }, 'none'],
    ['a web page URL without a tab', { id, url: 'https://a.example/' }, 'none'],
    ['another extension', { id: 'z'.repeat(32), url: `chrome-extension://${'z'.repeat(32)}/p.html` }, 'none'],
    ['another extension claiming our URL', { id: 'z'.repeat(32), url: panel }, 'none'],
    ['a sender with no URL', { id }, 'none'],
    ['no sender', undefined, 'none'],
  ];
  for (const [what, sender, want] of cases) assert.equal(capabilityOf(sender, 'skillfs', self), want, what);
  assert.equal(capabilityOf({ id, url: panel }, 'other', self), 'none', 'a port with another name');
  // An agent's contexts are its sender's origin's, whatever URL or path.
  assert.equal(contextScopeOf({ id, url: 'https://a.example/f?x', origin: 'https://a.example' }), 'https://a.example');
  assert.equal(contextScopeOf({ id, url: 'http://127.0.0.1:8080/x/y' }), 'http://127.0.0.1:8080');
  assert.equal(contextScopeOf({ id }), 'null');
  assert.equal(contextScopeOf(undefined), 'null');
});

/** What the tests below share: the extension's id and service worker, the
 * side panel tab, the web page and what its content script wrote.
 * @type {{ extId: string, sw: import('playwright-core').Worker, panel?: import('playwright-core').Page,
 *   agent?: { page: import('playwright-core').Page, out: any }, elsewhere?: Awaited<ReturnType<typeof serveSite>> }} */
let h;
/** @type {string | undefined} */
let site;
/** @type {Awaited<ReturnType<typeof serve>> | undefined} */
let server;
/** @type {Awaited<ReturnType<typeof launch>> | undefined} */
let browser;

before(async () => {
  for (const f of ['manifest.json', 'background.js', 'content.js', 'sidepanel.html', 'sidepanel.js', 'skillfs.wasm', 'wasm_exec.js', 'sample-pack.zip']) {
    if (!existsSync(join(EXT_DIR, f))) throw new Error(`${join(EXT_DIR, f)} is missing: run \`make extension-build\` (or make test-extension)`);
  }
  // A plain web page on 127.0.0.1, where the content script runs. It asks
  // for the demo's output the way the old example let pages ask, with
  // <meta name="skillfs-agent-demo">: it must get nothing.
  site = mkdtempSync(join(tmpdir(), 'skillfs-ext-site-'));
  writeFileSync(
    join(site, 'index.html'),
    '<!doctype html><meta charset="utf-8"><meta name="skillfs-agent-demo" content="1"><link rel="icon" href="data:,"><title>a web page</title><p>A web page with an agent in it.</p>\n',
  );
  server = await serve({ root: site, isolate: false });
  // Headless Chromium 156 (the new headless) loads unpacked extensions.
  // Playwright's default --disable-extensions is overridden by
  // --disable-extensions-except; CHROMIUM_FLAGS disable none.
  browser = await launch({
    timeoutMs: STEP_MS,
    // Names under .test reach this machine's servers from sites the
    // extension has no access to; GitHub is never reached.
    args: [`--disable-extensions-except=${EXT_DIR}`, `--load-extension=${EXT_DIR}`,
      '--host-resolver-rules=MAP *.test 127.0.0.1, MAP github.com ~NOTFOUND, MAP codeload.github.com ~NOTFOUND'],
  });
  const { context } = browser;
  const sw =
    context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://')) ??
    (await context.waitForEvent('serviceworker', { timeout: STEP_MS, predicate: (w) => w.url().startsWith('chrome-extension://') }));
  // The worker's console is not a page's: forward its errors and warnings.
  sw.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') process.stderr.write(`[worker console.${msg.type()}] ${msg.text()}\n`);
  });
  const m = /^chrome-extension:\/\/([a-p]{32})\/background\.js$/.exec(sw.url());
  assert.ok(m, `unexpected service worker ${sw.url()}`);
  h = { extId: m[1], sw };
  // The worker registers the content script as it starts; pages opened
  // before that would have none.
  await withTimeout(sw.evaluate(async () => {
    while (!(await chrome.scripting.getRegisteredContentScripts()).length) await new Promise((r) => setTimeout(r, 20));
  }), STEP_MS, 'the content script registered');
});

after(async () => {
  await browser?.close(); // ends Chromium, removes the profile; bounded, never throws
  await server?.close();
  await h?.elsewhere?.close();
  if (site) rmSync(site, { recursive: true, force: true });
});

/** Evaluate in a page or worker, within STEP_MS. */
const ev = (target, fn, arg) => withTimeout(target.evaluate(fn, arg), STEP_MS, `evaluate(${fn.name || 'fn'})`);

/** Waits until the side panel's "install from an address" is in one of states. */
const installSettles = (states) => h.panel.waitForFunction((ss) => ss.includes(document.getElementById('install-from')?.dataset.state ?? ''), states, { timeout: STEP_MS, polling: 50 });

/** What "install from an address" shows. */
const installState = () => h.panel.evaluate(() => ({ ...document.getElementById('install-from').dataset, report: document.getElementById('source-report')?.textContent }));

/** Types address into the side panel's "install from an address" as kind,
 * clicks Install and, when it shows what it offers, installs that (or
 * what untick leaves ticked of an index's list); what it says then. */
async function installFrom(address, kind, untick = []) {
  await h.panel.fill('#source-address', address, { timeout: STEP_MS });
  await h.panel.selectOption('#source-kind', kind, { timeout: STEP_MS });
  await h.panel.evaluate(() => (document.getElementById('install-from').dataset.state = 'idle'));
  await h.panel.click('#source-install', { timeout: STEP_MS });
  await installSettles(['previewed', 'done', 'error']);
  if (await h.panel.evaluate(() => document.getElementById('install-from').dataset.state === 'previewed')) {
    for (const name of untick) await h.panel.locator(`#source-review li[data-name="${name}"] input`).uncheck({ timeout: STEP_MS });
    // An index's list to tick, or a server's preview (as an archive's).
    await h.panel.locator('#source-review').getByRole('button', { name: /^Install (selected|\d+ skills?)$/ }).click({ timeout: STEP_MS });
    await installSettles(['done', 'error']);
  }
  return installState();
}

test('the background service worker runs the skillfs module', { timeout: 30_000 }, async () => {
  // The module registers no global of its own; the runtime it needs is
  // there, and the worker's origin is the extension's.
  const info = await ev(h.sw, () => ({ go: typeof globalThis.Go, origin: self.location.origin }));
  assert.deepEqual(info, { go: 'function', origin: `chrome-extension://${h.extId}` });
});

test('the side panel installs the sample pack over an admin port', { timeout: 40_000 }, async () => {
  const panel = await withTimeout(browser.context.newPage(), STEP_MS, 'new page');
  h.panel = panel;
  await panel.goto(`chrome-extension://${h.extId}/sidepanel.html`, { waitUntil: 'load', timeout: STEP_MS });
  await panel.waitForFunction(() => document.getElementById('status')?.dataset.state === 'ready', undefined, { timeout: STEP_MS, polling: 50 });
  // A fresh profile has no skills: the panel offers the sample pack.
  await panel.getByRole('button', { name: 'Install the sample pack' }).click({ timeout: STEP_MS });
  await panel.waitForFunction(
    () => {
      const s = document.getElementById('status')?.dataset.state;
      return (s === 'ready' && document.getElementById('skills')?.dataset.count === '6') || s === 'error';
    },
    undefined,
    { timeout: STEP_MS, polling: 50 },
  );
  assert.equal(await panel.locator('#status').getAttribute('data-state'), 'ready', await panel.locator('#status').textContent());
  const ids = await panel.locator('#skills li').evaluateAll((lis) => lis.map((li) => li.dataset.id));
  assert.deepEqual(ids, SAMPLE_IDS);
});

test('the content script is an agent: sessions work, the registry is refused', { timeout: 90_000 }, async () => {
  assert.ok(h.panel, 'needs the side panel test');
  const { page, state, out } = await agentRun('first');
  assert.equal(state, 'done', j(out));
  h.agent = { page, out };
  assert.equal(out.origin, new URL(server.url).origin);
  // The host scoped the page's context to its origin.
  assert.equal(out.contextId.value, `${out.origin} page:${page.url()}`, j(out.contextId));

  // Level 1: the adapter's instructions hold the catalog of the sample
  // skills the model may see, and how to use the two tools.
  assert.equal(out.turn.ok, true, j(out.turn));
  const { instructions, activeTools: firstTools } = out.turn.value;
  assert.match(instructions, /^<available_skills>/);
  for (const id of ['citation-style', 'commit-message', 'pdf-tools', 'web-research']) {
    assert.ok(instructions.includes(`/skills/${id}/SKILL.md`), `catalog lacks ${id}:\n${instructions}`);
  }
  assert.doesNotMatch(instructions, /release-notes/, 'disable-model-invocation keeps release-notes out');
  assert.match(instructions, /call load_skill with its name/);
  // Before a skill is loaded: every host tool but WebFetch, which only
  // web-research's tool_dependencies name (it waits for that skill).
  assert.deepEqual([...firstTools].sort(), ['Bash', 'Read', 'WebSearch', 'Write', 'load_skill', 'read_skill_file']);

  // /skill:name args: the block with the arguments substituted.
  assert.equal(out.invoke.ok, true, j(out.invoke));
  const block = out.invoke.value;
  assert.equal(block.id, 'commit-message');
  assert.equal(block.arguments, 'api fix retries');
  assert.match(block.content, /<skill_content name="commit-message">/);
  // Named arguments are words of the arguments, in order (shell-style
  // splitting, as Claude Code does): $scope is "api", $summary is "fix".
  assert.match(block.content, /Scope: api\. What the user said the change does: fix\n/);
  assert.doesNotMatch(block.content, /\$scope|\$summary|\$ARGUMENTS/);

  // The model's load_skill call, then a reference file byte for byte
  // through read_skill_file; an escape answers with its code, as text.
  assert.equal(out.load.ok, true, j(out.load));
  assert.match(out.load.value, /<skill_content name="pdf-tools">/);
  assert.equal(out.reference.ok, true, j(out.reference));
  assert.equal(out.reference.value, readFileSync(join(SAMPLE, 'pdf-tools/references/forms.md'), 'utf8'));
  assert.equal(out.escape.ok, true, j(out.escape));
  assert.match(out.escape.value, /^Error: PathRejected \(/, out.escape.value);

  // Tools narrowed by the loaded skills' allowed-tools: commit-message
  // (Read, Bash(git diff:*), Bash(git status:*)) and pdf-tools (Read, Bash(python:*)).
  assert.equal(out.activeTools.ok, true, j(out.activeTools));
  assert.deepEqual([...out.activeTools.value].sort(), ['Bash', 'Read', 'load_skill', 'read_skill_file']);

  // Every call checked on its structured input, by the module.
  assert.equal(out.checks.ok, true, j(out.checks));
  const c = out.checks.value;
  assert.equal(c.gitDiff.allowed, true, j(c.gitDiff));
  assert.equal(c.python.allowed, true, j(c.python));
  assert.equal(c.pipeToShell.allowed, false, j(c.pipeToShell));
  assert.equal(c.pipeToShell.code, 'ToolNotAllowed');
  assert.match(c.pipeToShell.message, /Bash was not run/);
  assert.equal(c.noCommand.allowed, false, 'a missing command is refused, not checked as ""');
  assert.equal(c.noCommand.reason, 'input-field-missing', j(c.noCommand));
  assert.equal(c.webSearch.allowed, false, j(c.webSearch));
  assert.equal(c.webSearch.code, 'ToolNotAllowed');

  // The agent ran word-count's module (built from its Go source by make)
  // in a Worker of the offscreen document: the service worker has none.
  assert.equal(out.run.ok, true, j(out.run));
  assert.equal(out.run.value.status, 'success');
  assert.deepEqual(out.run.value.output, { words: 12, unique: 6, top: [{ word: 'cat', count: 2 }, { word: 'dog', count: 2 }, { word: 'saw', count: 2 }] });
  assert.deepEqual(out.run.value.permissions, ['read:/skill']);

  // Managing skills is refused to an agent, by the host.
  assert.equal(out.registryList.ok, false, `registry.list() was allowed: ${j(out.registryList)}`);
  assert.equal(out.registryList.error.name, 'SkillfsError');
  assert.equal(out.registryList.error.code, 'PermissionDenied', j(out.registryList));
});

test("the web page's origin holds no skillfs data and its scripts cannot reach skillfs", { timeout: 40_000 }, async () => {
  assert.ok(h.agent, 'needs the content-script test');
  const { page } = h.agent;
  const seen = await ev(page, async (extId) => {
    const dbs = (await indexedDB.databases()).map((d) => d.name);
    // Anything a page script can find or ask for.
    const globals = Object.getOwnPropertyNames(window).filter((k) => /skillfs|^Go$/i.test(k));
    const runtime = typeof (/** @type {any} */ (window).chrome?.runtime?.connect);
    // Speak the bridge's wire protocol to whatever listens to window
    // messages; nothing may answer (the content script listens to none).
    const sent = [
      { t: 'call', id: 1, method: 'registry.list', args: {}, progress: false },
      { t: 'call', id: 2, method: 'resolver.openSession', args: { contextId: 'page' }, progress: false },
      { type: 'skillfs', method: 'registry.list' },
    ];
    const got = [];
    const onMessage = (e) => got.push(e.data);
    window.addEventListener('message', onMessage);
    for (const m of sent) window.postMessage(m, '*');
    // An answer would come from a listener in another world, most likely
    // after a round trip to the extension's worker, in no order with the
    // page's own messages: no message of ours can mark that none is
    // coming, so the page waits a second for one.
    await new Promise((r) => setTimeout(r, 1000));
    window.removeEventListener('message', onMessage);
    const answers = got.filter((d) => !sent.some((m) => JSON.stringify(m) === JSON.stringify(d)));
    // If the page has chrome.runtime at all, a connection to the extension
    // must get nowhere (it declares no externally_connectable).
    let external = 'no chrome.runtime';
    if (runtime === 'function') {
      external = await new Promise((r) => {
        try {
          const p = window.chrome.runtime.connect(extId, { name: 'skillfs' });
          p.onMessage.addListener((m) => r(`answered: ${JSON.stringify(m)}`));
          p.onDisconnect.addListener(() => r('disconnected'));
          p.postMessage({ t: 'call', id: 1, method: 'registry.list', args: {}, progress: false });
          // Nothing tells that no answer is coming: a second of silence
          // stands for it.
          setTimeout(() => r('no answer'), 1000);
        } catch (e) {
          r(`threw: ${e.message}`);
        }
      });
    }
    return { dbs, globals, runtime, answers, external, text: document.documentElement.outerHTML };
  }, h.extId);
  // The page asked with <meta name="skillfs-agent-demo">, the agent ran,
  // and the page got nothing of what it saw.
  assert.doesNotMatch(seen.text, /skillfs-agent"|available_skills|skill_content|pdf-tools/, 'the agent wrote into the page');
  assert.deepEqual(seen.dbs.filter((n) => n?.startsWith('skillfs')), [], `the page's origin has skillfs databases: ${seen.dbs}`);
  assert.deepEqual(seen.globals, [], 'page globals');
  assert.notEqual(seen.runtime, 'function', 'the page has chrome.runtime.connect');
  assert.deepEqual(seen.answers, [], 'something answered window messages');
  assert.equal(seen.external, 'no chrome.runtime');

});

test("the skills live in the extension's origin, where the side panel sees them", { timeout: 30_000 }, async () => {
  assert.ok(h.panel, 'needs the side panel test');
  const swDbs = await ev(h.sw, async () => (await indexedDB.databases()).map((d) => d.name));
  assert.ok(swDbs.includes('skillfs'), `the worker's origin has no skillfs database: ${swDbs}`);
  const panelSeen = await ev(h.panel, async () => ({
    dbs: (await indexedDB.databases()).map((d) => d.name),
    ids: [...document.querySelectorAll('#skills li')].map((li) => li.dataset.id),
  }));
  assert.ok(panelSeen.dbs.includes('skillfs'), `the side panel's origin has no skillfs database: ${panelSeen.dbs}`);
  assert.deepEqual(panelSeen.ids, SAMPLE_IDS);
  // A reload asks the host again: the skills are still there.
  await h.panel.reload({ waitUntil: 'load', timeout: STEP_MS });
  await h.panel.waitForFunction(() => document.getElementById('skills')?.dataset.count === '6', undefined, { timeout: STEP_MS, polling: 50 });
});

/**
 * Opens index.html?query in a new tab and has the side panel, the
 * extension's own UI, ask that tab's content script to run its agent
 * (chrome.tabs.sendMessage); returns what the agent answered. The page
 * itself is never told.
 */
async function agentRun(query) {
  const page = await withTimeout(browser.context.newPage(), STEP_MS, 'new page');
  const url = new URL(`index.html?${query}`, server.url).href;
  const resp = await page.goto(url, { waitUntil: 'load', timeout: STEP_MS });
  assert.ok(resp?.ok(), `GET ${url}: ${resp?.status()}`);
  // The agent's whole run is bounded by the content script (45 s).
  const res = await withTimeout(h.panel.evaluate(async (url) => {
    const end = Date.now() + 30_000;
    for (;;) {
      const tab = (await chrome.tabs.query({})).find((t) => t.url === url);
      try {
        if (tab) return await chrome.tabs.sendMessage(tab.id, { t: 'agent-demo' });
      } catch (e) {
        // The content script is not there yet (document_idle).
        if (Date.now() > end) throw e;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }, url), 60_000, 'the agent run');
  const { state, ...out } = res ?? {};
  return { page, state, out };
}

test('when Chrome stops the idle worker, a content script wakes it and the side panel reconnects', { timeout: 100_000 }, async () => {
  assert.ok(h.panel && h.agent, 'needs the earlier tests');
  // Chrome stops an idle MV3 worker after ~30 s; stopWorker does it now.
  await stopWorker(h.panel, STEP_MS);
  // The panel's port was closed with the worker.
  await h.panel.waitForFunction(() => document.body.dataset.connected === 'false', undefined, { timeout: STEP_MS, polling: 50 });

  // A content script's connection starts the worker again (the agent's
  // answers come from it); its first calls wait while the module loads
  // (the worker holds them).
  const again = await agentRun('after-stop');
  assert.equal(again.state, 'done', j(again.out));
  assert.equal(again.out.turn.ok, true, j(again.out.turn));
  assert.match(again.out.turn.value.instructions, /\/skills\/pdf-tools\/SKILL\.md/);
  assert.equal(again.out.reference.ok, true, j(again.out.reference));
  assert.equal(again.out.registryList.error?.code, 'PermissionDenied', j(again.out.registryList));
  await again.page.close().catch(() => {});

  // The panel connects again on its next call and finds the skills.
  await h.panel.click('#refresh', { timeout: STEP_MS });
  await h.panel.waitForFunction(() => document.body.dataset.connected === 'true' && document.getElementById('status')?.dataset.state !== 'busy', undefined, { timeout: STEP_MS, polling: 50 });
  assert.equal(await h.panel.locator('#status').getAttribute('data-state'), 'ready', await h.panel.locator('#status').textContent());
  assert.equal(await h.panel.locator('#skills').getAttribute('data-count'), '6');
});

test('the side panel offers the skills of the site you are on; only the user\'s click installs them', { timeout: 50_000 }, async (t) => {
  assert.ok(h.panel, 'needs the side panel test');
  await declineNewSites();
  const md = (name, d) => `---\nname: ${name}\ndescription: ${d}\n---\n# ${name}\n`;
  const shopMD = md('shop-search', 'Search the shop.');
  const cart = zipSync({ 'SKILL.md': new TextEncoder().encode(md('shop-cart', 'Fill the cart.')), 'references/api.md': new TextEncoder().encode('API\n') });
  const tgz = tarGz({ 'SKILL.md': md('shop-track', 'Track an order.'), 'scripts/track.sh': 'echo tracked\n' });
  const files = new Map([
    ['/.well-known/agent-skills/shop-track.tar.gz', { body: tgz, type: 'application/gzip' }],
    ['/shop.html', { body: '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>a shop</title><p>A shop that publishes skills.</p>\n', type: 'text/html' }],
    ['/.well-known/agent-skills/shop-search/SKILL.md', { body: shopMD, type: 'text/markdown' }],
    ['/.well-known/agent-skills/shop-cart.zip', { body: cart, type: 'application/zip' }],
    ['/.well-known/agent-skills/index.json', { type: 'application/json', body: JSON.stringify({ $schema: SCHEMA_V2, skills: [
      { name: 'shop-search', type: 'skill-md', description: 'Search the shop.', url: 'shop-search/SKILL.md', digest: sha256(shopMD) },
      { name: 'shop-cart', type: 'archive', description: 'Fill the cart.', url: 'shop-cart.zip', digest: sha256(cart) },
      { name: 'shop-track', type: 'archive', description: 'Track an order.', url: 'shop-track.tar.gz', digest: sha256(tgz) },
      { name: 'shop-lies', type: 'archive', description: 'Its digest lies.', url: 'shop-cart.zip', digest: sha256('other bytes') },
      { name: 'shop-future', type: 'mcp-bundle', description: 'An unknown type.', url: 'x', digest: sha256('x') },
    ] }) }],
  ]);
  const pub = await serveSite(files);
  t.after(pub.close);
  const page = await withTimeout(browser.context.newPage(), STEP_MS, 'new page');
  t.after(() => page.close().catch(() => {}));
  await page.goto(`${pub.url}/shop.html`, { waitUntil: 'load', timeout: STEP_MS });
  await page.bringToFront();
  // The content script noticed the index; the panel offers its skills.
  await h.panel.waitForFunction(() => ['offered', 'error'].includes(document.getElementById('site-skills')?.dataset.state ?? ''), undefined, { timeout: STEP_MS, polling: 50 });
  const offered = await h.panel.evaluate(() => {
    const s = document.getElementById('site-skills');
    return { state: s.dataset.state, hidden: s.hidden, title: s.querySelector('h2')?.textContent, names: [...s.querySelectorAll('li')].map((li) => li.dataset.name), report: document.getElementById('site-report')?.textContent };
  });
  assert.deepEqual(offered.names, ['shop-search', 'shop-cart', 'shop-track', 'shop-lies'], j(offered));
  assert.equal(offered.title, `${new URL(pub.url).host} publishes 4 skills`);
  assert.equal(offered.hidden, false);
  assert.match(offered.report, /Skipped shop-future/);
  // Offering installed nothing, and the agent fetched the index only to notice it.
  assert.equal(await h.panel.locator('#skills').getAttribute('data-count'), '6');
  assert.ok(!pub.log.some((l) => l.includes('shop-cart.zip')), j(pub.log));

  // The shop lists nothing by the time the user clicks: what installs is what was offered.
  const reviewed = files.get('/.well-known/agent-skills/index.json');
  files.set('/.well-known/agent-skills/index.json', { type: 'application/json', body: JSON.stringify({ $schema: SCHEMA_V2, skills: [] }) });
  // Pressed from the keyboard, as focus and a click (the shop's tab stays in
  // front, the one whose skills the panel offers): the button keeps the
  // focus while it installs and after (disabled, it dropped it on the body).
  await h.panel.evaluate(() => {
    const b = document.getElementById('site-install');
    b.focus();
    b.click();
  });
  await h.panel.waitForFunction(() => ['done', 'error'].includes(document.getElementById('site-skills')?.dataset.state ?? ''), undefined, { timeout: STEP_MS, polling: 50 });
  assert.equal(await h.panel.evaluate(() => document.activeElement?.id), 'site-install', 'the focus stays on Install');
  files.set('/.well-known/agent-skills/index.json', reviewed);
  const done = await h.panel.evaluate(() => ({ ...document.getElementById('site-skills').dataset, report: document.getElementById('site-report')?.textContent }));
  assert.equal(done.state, 'done', j(done));
  assert.equal(done.installed, 'shop-search shop-cart shop-track');
  assert.equal(done.refused, 'shop-lies:Integrity');
  await h.panel.waitForFunction(() => document.getElementById('skills')?.dataset.count === '9', undefined, { timeout: STEP_MS, polling: 50 });
  const ids = await h.panel.locator('#skills li').evaluateAll((lis) => lis.map((li) => li.dataset.id));
  assert.deepEqual(ids, [...SAMPLE_IDS, 'shop-cart', 'shop-search', 'shop-track'].sort());

  // The shop publishes a new shop-cart. Checking downloads only the index;
  // the user's click on Update downloads the one changed artifact.
  const cart2 = zipSync({ 'SKILL.md': new TextEncoder().encode(md('shop-cart', 'Fill the cart, faster.')) });
  const index = JSON.parse(files.get('/.well-known/agent-skills/index.json').body);
  index.skills[1].digest = sha256(cart2);
  files.set('/.well-known/agent-skills/index.json', { body: JSON.stringify(index), type: 'application/json' });
  files.set('/.well-known/agent-skills/shop-cart.zip', { body: cart2, type: 'application/zip' });
  pub.log.length = 0;
  const settled = () => h.panel.waitForFunction(() => ['done', 'error'].includes(document.getElementById('updates-section')?.dataset.state ?? ''), undefined, { timeout: STEP_MS, polling: 50 });
  await h.panel.click('#updates-check', { timeout: STEP_MS });
  await settled();
  const checked = await h.panel.evaluate(() => ({ ...document.getElementById('updates-section').dataset,
    rows: [...document.querySelectorAll('#updates li')].map((li) => `${li.dataset.id}:${li.dataset.status}`) }));
  assert.deepEqual([checked.state, checked.checked, checked.rows], ['done', '3', ['shop-cart:changed']], j(checked));
  assert.deepEqual(pub.log, ['GET /.well-known/agent-skills/index.json']);
  await h.panel.evaluate(() => (document.getElementById('updates-section').dataset.state = 'idle'));
  await h.panel.click('button[data-update="shop-cart"]', { timeout: STEP_MS });
  await settled();
  const up = await h.panel.evaluate(() => ({ ...document.getElementById('updates-section').dataset, report: document.getElementById('updates-report').textContent }));
  assert.deepEqual([up.state, up.updated, up.report], ['done', 'shop-cart', 'Updated shop-cart.'], j(up));
  assert.deepEqual(pub.log, ['GET /.well-known/agent-skills/index.json', 'GET /.well-known/agent-skills/index.json', 'GET /.well-known/agent-skills/shop-cart.zip']);
  await h.panel.waitForFunction(() => document.querySelector('#skills li[data-id="shop-cart"]')?.textContent?.includes('faster'), undefined, { timeout: STEP_MS, polling: 50 });
  // Install, Check for updates and Update each asked for the shop's site (granted at install), in its click.
  assert.deepEqual(await asked(), [['http://127.0.0.1/*'], ['http://127.0.0.1/*'], ['http://127.0.0.1/*']]);
});

test('the side panel installs from an MCP server the user names: what verifies, nothing else', { timeout: 40_000 }, async (t) => {
  assert.ok(h.panel, 'needs the side panel test');
  const md = (name) => `---\nname: ${name}\ndescription: Over MCP.\n---\n# ${name}\n`;
  const server = await serveMcp(new Map([
    ['mcp-notes', { frontmatter: { name: 'mcp-notes', description: 'Over MCP.' }, files: { 'SKILL.md': md('mcp-notes'), 'references/n.md': 'N\n' } }],
    ['mcp-liar', { frontmatter: { name: 'mcp-liar', description: 'Over MCP.' }, files: { 'SKILL.md': md('mcp-liar') }, lies: { 'SKILL.md': sha256('not it') } }],
    ['mcp-escape', { frontmatter: { name: 'mcp-escape', description: 'Over MCP.' }, files: { 'SKILL.md': md('mcp-escape') },
      extra: [{ uri: 'skill://mcp-escape/../mcp-notes/SKILL.md', digest: sha256('x'), size: 1 }] }],
  ]));
  t.after(server.close);
  const before = Number(await h.panel.locator('#skills').getAttribute('data-count'));
  const done = await installFrom(server.url, 'mcp');
  assert.equal(done.state, 'done', j(done));
  assert.equal(done.installed, 'mcp-notes');
  // The escaping skill was left out of the review, from its manifest, before any file is read.
  assert.equal(done.refused, 'mcp-liar:Integrity');
  await h.panel.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), before + 1, { timeout: STEP_MS, polling: 50 });
  assert.ok(!server.log.some((l) => l.includes('mcp-escape')), j(server.log));

  const missing = await installFrom(`${new URL(server.url).origin}/nothing/index.json`, 'index');
  assert.deepEqual([missing.state, missing.error], ['error', 'FetchFailed'], j(missing));
  // A failure names the address once, and says in words what went wrong:
  // the download's own error names it, as does a server's.
  const once = (r, address) => assert.equal(r.report.split(address).length, 2, j(r));
  once(missing, `${new URL(server.url).origin}/nothing/index.json`);
  assert.match(missing.report, /^Could not install: http:\/\/\S+ answered HTTP 405\. \(FetchFailed, http-status\)$/, j(missing));
  const site = await serveSite();
  t.after(site.close);
  const notMcp = await installFrom(`${site.url}/nothing`, 'mcp');
  assert.deepEqual([notMcp.state, notMcp.error], ['error', 'FetchFailed'], j(notMcp));
  once(notMcp, `${site.url}/nothing`);
  assert.match(notMcp.report, /^Could not install: http:\/\/\S+ did not answer as an MCP server \(.*not found\): check that the address is the server's endpoint, often ending in \/mcp\. \(FetchFailed, mcp-connect\)$/, j(notMcp));
  // Each Install asked for the server's site in its click; the preview's Install fetches nothing new.
  assert.deepEqual(await asked(), [['http://127.0.0.1/*'], ['http://127.0.0.1/*'], ['http://127.0.0.1/*']]);
});

/** Reads the manifest the extension was loaded from. */
const manifest = () => JSON.parse(readFileSync(join(EXT_DIR, 'manifest.json'), 'utf8'));

test('the extension may reach 127.0.0.1 and localhost from install, any other site only once the user allows it', { timeout: 40_000 }, async (t) => {
  const m = manifest();
  assert.deepEqual(m.host_permissions, ['http://127.0.0.1/*', 'http://localhost/*']);
  assert.deepEqual(m.optional_host_permissions, ['https://*/*', 'http://*/*']);
  assert.deepEqual(m.permissions, ['sidePanel', 'offscreen', 'scripting']);
  // The content script is registered at run time (every http(s) page, where Chrome lets it).
  assert.equal(m.content_scripts, undefined);
  const got = await ev(h.sw, async () => ({
    granted: (await chrome.permissions.getAll()).origins,
    scripts: (await chrome.scripting.getRegisteredContentScripts()).map(({ id, matches, js, runAt }) => ({ id, matches, js, runAt })),
  }));
  assert.deepEqual(got, {
    granted: ['http://127.0.0.1/*', 'http://localhost/*'],
    scripts: [{ id: 'agent', matches: ['http://*/*', 'https://*/*'], js: ['content.js'], runAt: 'document_idle' }],
  });

  // A site the user has not allowed: it publishes an index, but the
  // extension cannot see the tab's address nor run a script there, so no
  // content script looks for it.
  const site = () => new Map([
    ['/page.html', { body: '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>a site</title><p>x</p>\n', type: 'text/html' }],
    ['/.well-known/agent-skills/index.json', { body: JSON.stringify({ $schema: SCHEMA_V2, skills: [] }), type: 'application/json' }],
  ]);
  const far = await serveSite(site());
  t.after(far.close);
  const page = await withTimeout(browser.context.newPage(), STEP_MS, 'new page');
  t.after(() => page.close().catch(() => {}));
  await page.goto(`http://shop.test:${new URL(far.url).port}/page.html`, { waitUntil: 'load', timeout: STEP_MS });
  await page.bringToFront();
  const seen = await ev(h.panel, async () => {
    const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
    const run = await chrome.scripting.executeScript({ target: { tabId: tab.id }, func: () => 1 }).then(() => 'ran', (e) => String(e.message));
    return { url: tab.url ?? null, run };
  });
  assert.equal(seen.url, null, j(seen));
  assert.match(seen.run, /Cannot access contents of the page/, j(seen));
  // A page of the same kind on 127.0.0.1, opened after it, gets the
  // content script, which finds the index and tells the panel; by then
  // the other page's would have too.
  const near = await serveSite(site());
  t.after(near.close);
  const nearPage = await withTimeout(browser.context.newPage(), STEP_MS, 'new page');
  t.after(() => nearPage.close().catch(() => {}));
  await nearPage.goto(`${near.url}/page.html`, { waitUntil: 'load', timeout: STEP_MS });
  await nearPage.bringToFront();
  await h.panel.waitForFunction(() => document.getElementById('site-skills')?.dataset.state === 'offered', undefined, { timeout: STEP_MS, polling: 50 });
  assert.ok(near.log.includes('GET /.well-known/agent-skills/index.json'), j(near.log));
  assert.deepEqual(far.log, ['GET /page.html']);
});

/**
 * Wraps chrome.permissions.request in the side panel (once): every call's
 * origins are recorded in window.asked, and in window.late the ones asked
 * for after the click that led to them was dispatched — Chrome shows its
 * prompt only during the click's user gesture, which an await of the
 * worker (one Chrome may have to start) can outlast. A capture-phase click
 * listener on the window marks the dispatch; a bubble-phase one unmarks
 * it, and runs after the button's listener and the microtasks it queued
 * (a click from input runs them between listeners), so before anything
 * that awaited a reply from the worker: no timing. Chrome answers those
 * origins it has granted already (no prompt). The prompt for any other
 * origin is the one thing that cannot run here — headless Chromium shows
 * it to no one, and the request would never settle — so the person's
 * answer is played: they decline.
 */
async function declineNewSites() {
  // In front: a page in a background tab gets few frames, which each click waits for.
  await h.panel.bringToFront();
  await ev(h.panel, () => {
    if (window.asked) return;
    const request = chrome.permissions.request.bind(chrome.permissions);
    window.asked = [];
    window.late = [];
    let inClick = false;
    addEventListener('click', () => (inClick = true), { capture: true });
    addEventListener('click', () => (inClick = false));
    chrome.permissions.request = async (p) => {
      window.asked.push(p.origins);
      if (!inClick) window.late.push(p.origins);
      return (await chrome.permissions.contains(p)) ? request(p) : false;
    };
  });
}
/** The origins asked for since the last call, each asked for during its click. */
const asked = async () => {
  const { origins, late } = await ev(h.panel, () => ({ origins: window.asked.splice(0), late: window.late.splice(0) }));
  assert.deepEqual(late, [], `asked for after its click, when Chrome may no longer show its prompt: ${j(late)}`);
  return origins;
};

test('the side panel asks for exactly the sites an address needs; declined, nothing is fetched or installed', { timeout: 60_000 }, async () => {
  assert.ok(h.panel, 'needs the side panel test');
  await declineNewSites();
  const md = (name) => `---\nname: ${name}\ndescription: Elsewhere.\n---\n# ${name}\n`;
  const local = zipSync({ 'SKILL.md': new TextEncoder().encode(md('near-skill')) });
  const cdn = zipSync({ 'SKILL.md': new TextEncoder().encode(md('far-skill')) });
  const files = new Map([
    ['/near.zip', { body: local, type: 'application/zip' }],
    ['/far.zip', { body: cdn, type: 'application/zip' }],
  ]);
  // Kept for the update check below; closed with the browser.
  const pub = await serveSite(files);
  h.elsewhere = pub;
  const port = new URL(pub.url).port;
  files.set('/.well-known/agent-skills/index.json', { type: 'application/json', body: JSON.stringify({ $schema: SCHEMA_V2, skills: [
    { name: 'near-skill', type: 'archive', description: 'Here.', url: '/near.zip', digest: sha256(local) },
    { name: 'far-skill', type: 'archive', description: 'On another site.', url: `http://cdn.test:${port}/far.zip`, digest: sha256(cdn) },
  ] }) });
  const count = async () => Number(await h.panel.locator('#skills').getAttribute('data-count'));
  const before = await count();
  const declined = (r, sites) => {
    assert.deepEqual([r.state, r.error], ['error', 'PermissionDenied'], j(r));
    assert.ok(r.report.includes(`not allowed to reach ${sites}, so nothing was downloaded or installed`), r.report);
  };

  // A repository's page on GitHub: its archive is served from github.com by a redirect to codeload.github.com.
  declined(await installFrom('https://github.com/o/r/tree/main/skills/x', 'url'), 'github.com and codeload.github.com');
  assert.deepEqual(await asked(), [['https://github.com/*', 'https://codeload.github.com/*']]);
  // An archive's address on www.github.com, which source.Locate leaves as it is, starts there and is redirected to both.
  declined(await installFrom('https://www.github.com/o/r/archive/refs/heads/main.zip', 'url'), 'www.github.com, github.com and codeload.github.com');
  assert.deepEqual(await asked(), [['https://www.github.com/*', 'https://github.com/*', 'https://codeload.github.com/*']]);
  // A SKILL.md's raw address, which source.Locate makes its folder of the repository's archive on github.com.
  declined(await installFrom('https://raw.githubusercontent.com/o/r/main/skills/x/SKILL.md', 'url'), 'raw.githubusercontent.com, github.com and codeload.github.com');
  assert.deepEqual(await asked(), [['https://raw.githubusercontent.com/*', 'https://github.com/*', 'https://codeload.github.com/*']]);
  // An index, and an MCP server, on sites not allowed: nothing reaches them.
  declined(await installFrom(`http://shop.test:${port}/.well-known/agent-skills/index.json`, 'index'), 'shop.test');
  declined(await installFrom(`http://tools.test:${port}/mcp`, 'mcp'), 'tools.test');
  declined(await installFrom(`http://shop.test:${port}/near.zip`, 'url'), 'shop.test');
  assert.deepEqual(await asked(), [['http://shop.test/*'], ['http://tools.test/*'], ['http://shop.test/*']]);
  assert.deepEqual(pub.log, []);

  // An index on 127.0.0.1 (granted at install) is read as before; one
  // artifact it lists is on another site, asked for at Install: declined,
  // neither is downloaded.
  const both = await installFrom(`${pub.url}/.well-known/agent-skills/index.json`, 'index');
  declined(both, 'cdn.test');
  assert.deepEqual(await asked(), [['http://127.0.0.1/*'], ['http://127.0.0.1/*', 'http://cdn.test/*']]);
  assert.deepEqual(pub.log, ['GET /.well-known/agent-skills/index.json']);
  assert.equal(await count(), before);
  // Without it, the one on 127.0.0.1 installs as it always did.
  await h.panel.locator('#source-review li[data-name="far-skill"] input').uncheck({ timeout: STEP_MS });
  await h.panel.locator('#source-review').getByRole('button', { name: 'Install selected' }).click({ timeout: STEP_MS });
  await installSettles(['done']);
  const near = await installState();
  assert.deepEqual([near.state, near.installed], ['done', 'near-skill'], j(near));
  assert.deepEqual(await asked(), [['http://127.0.0.1/*']]);
  assert.deepEqual(pub.log, ['GET /.well-known/agent-skills/index.json', 'GET /near.zip']);

  // And an archive on localhost (granted at install too).
  const far = await installFrom(`http://localhost:${port}/far.zip`, 'url');
  assert.deepEqual([far.state, far.installed], ['done', 'far-skill'], j(far));
  assert.deepEqual(await asked(), [['http://localhost/*']]);
  await h.panel.waitForFunction((n) => document.getElementById('skills')?.dataset.count === String(n), before + 2, { timeout: STEP_MS, polling: 50 });
});

test('"Check for updates" asks for the sites of the sources; one not allowed is not contacted, and said so', { timeout: 60_000 }, async (t) => {
  assert.ok(h.panel, 'needs the side panel test');
  await declineNewSites();
  // far-skill came from localhost (the test above). The person withdraws
  // the extension's access to localhost, as chrome://extensions lets them
  // ("Site access: on specific sites", 127.0.0.1 kept).
  const settings = await withTimeout(browser.context.newPage(), STEP_MS, 'new page');
  const access = (hostAccess) => withTimeout(settings.evaluate(async ({ id, hostAccess }) => {
    await chrome.developerPrivate.updateExtensionConfiguration({ extensionId: id, hostAccess });
    if (hostAccess === 'ON_SPECIFIC_SITES') await chrome.developerPrivate.addHostPermission(id, 'http://127.0.0.1/*');
  }, { id: h.extId, hostAccess }), STEP_MS, `site access ${hostAccess}`);
  await settings.goto('chrome://extensions', { waitUntil: 'load', timeout: STEP_MS });
  t.after(async () => {
    await access('ON_ALL_SITES');
    await settings.close().catch(() => {});
  });
  await access('ON_SPECIFIC_SITES');
  const origin = await ev(h.panel, () => chrome.permissions.getAll().then((p) => p.origins));
  assert.deepEqual(origin, ['http://127.0.0.1/*']);
  const pub = h.elsewhere;
  assert.ok(pub, 'needs the test above');
  pub.log.length = 0;

  await h.panel.evaluate(() => (document.getElementById('updates-section').dataset.state = 'idle'));
  await h.panel.click('#updates-check', { timeout: STEP_MS });
  await h.panel.waitForFunction(() => ['done', 'error'].includes(document.getElementById('updates-section')?.dataset.state ?? ''), undefined, { timeout: STEP_MS, polling: 50 });
  const checked = await h.panel.evaluate(() => ({ ...document.getElementById('updates-section').dataset,
    report: document.getElementById('updates-report').textContent,
    rows: [...document.querySelectorAll('#updates li')].map((li) => `${li.dataset.id}:${li.dataset.status}`) }));
  // One prompt for every source's site; declined, the ones still allowed
  // are checked (near-skill's index, current), and localhost is not contacted.
  assert.deepEqual((await asked()).map((o) => o.sort()), [['http://127.0.0.1/*', 'http://localhost/*']]);
  assert.equal(checked.state, 'done', j(checked));
  assert.deepEqual(checked.rows.filter((r) => /^(far|near)-skill:/.test(r)), ['far-skill:no-access'], j(checked));
  assert.deepEqual(pub.log, ['GET /.well-known/agent-skills/index.json']);
  assert.equal(checked.notChecked, '1');
  assert.match(checked.report, /; 1 not checked: the extension was not allowed to reach localhost\.$/);
});
