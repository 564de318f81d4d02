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
