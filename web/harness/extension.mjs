// A connection of a test's own to the example extension's host, from one
// of its pages: js/bridge.ts bundled as an IIFE (global SkillfsTest) and
// evaluated in the page, which then connects a port as the side panel
// does, with its admin capability. For seeding and re-reading the store
// apart from the UI under test.

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { withTimeout } from './server.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** @type {Promise<string> | undefined} */
let bridgeIIFE;

/**
 * fn(sk, arg) in page (an extension page), with sk a connection of its
 * own to the host; its result. fn is sent as source text: strings are
 * evaluated by the debugger, which the page's CSP (no eval) allows.
 * @param {import('playwright-core').Page} page
 * @param {(sk: any, arg: any) => unknown} fn
 */
export async function withHost(page, fn, arg, timeoutMs = 20_000) {
  bridgeIIFE ??= build({
    entryPoints: [join(REPO, 'js/bridge.ts')], bundle: true, format: 'iife', globalName: 'SkillfsTest',
    target: 'es2022', write: false, external: ['./mcp.js'], logLevel: 'silent',
  }).then((out) => out.outputFiles[0].text);
  if (!(await page.evaluate(() => 'SkillfsTest' in globalThis))) await page.evaluate(`${await bridgeIIFE};globalThis.SkillfsTest = SkillfsTest;`);
  const call = `(async () => {
    const sk = globalThis.SkillfsTest.connectSkillfs(chrome.runtime.connect({ name: 'skillfs' }));
    return (${fn})(sk, ${JSON.stringify(arg)});
  })()`;
  return withTimeout(page.evaluate(call), timeoutMs, 'a call to the extension\'s host');
}

/**
 * Stops the extension's service worker as Chrome stops an idle one
 * (DevTools' ServiceWorker domain, attached to page, a page of the
 * extension's origin), once it is seen running, and resolves once it has
 * been seen stopped. Sent before the domain has reported the worker, the stop
 * can miss it on a loaded machine; the states seen are in the error.
 * @param {import('playwright-core').Page} page
 */
export async function stopWorker(page, timeoutMs = 20_000) {
  // URL's origin is "null" for chrome-extension: URLs.
  const { protocol, host } = new URL(page.url());
  const ext = `${protocol}//${host}`;
  const cdp = await withTimeout(page.context().newCDPSession(page), timeoutMs, 'CDP session');
  try {
    /** @type {string[]} */
    const states = [];
    cdp.on('ServiceWorker.workerVersionUpdated', (e) => {
      for (const v of e.versions) if (v.scriptURL.startsWith(`${ext}/`)) states.push(v.runningStatus);
    });
    const until = async (what, ok) => {
      const end = Date.now() + timeoutMs;
      while (!ok()) {
        if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms (worker states: ${states.join(' ') || 'none'})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await withTimeout(cdp.send('ServiceWorker.enable'), timeoutMs, 'ServiceWorker.enable');
    await until('the worker running', () => states.includes('running'));
    const sent = states.length;
    await withTimeout(cdp.send('ServiceWorker.stopAllWorkers'), timeoutMs, 'ServiceWorker.stopAllWorkers');
    // Seen stopped, if only for a moment: a port of a page may start it again at once.
    await until('the worker stopped', () => states.slice(sent).includes('stopped'));
  } finally {
    await cdp.detach().catch(() => {});
  }
}
