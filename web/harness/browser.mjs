// Debian's Chromium driven by playwright-core, for browser tests and
// benchmarks. No browser download: the system binary is used (CHROMIUM env or
// /usr/bin/chromium). Each launch gets a fresh temporary profile, so
// IndexedDB starts empty. close() ends Chromium, stops the server and removes
// the profile, also when something failed; every wait has a time limit.

import { chromium } from 'playwright-core';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, withTimeout } from './server.mjs';

export { serve, withTimeout };

/** Flags that work here as root on a machine with no network but loopback. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/**
 * @typedef {object} LaunchOptions
 * @property {string} [executablePath]  Default: $CHROMIUM or /usr/bin/chromium.
 * @property {string[]} [args]  Extra Chromium flags, after CHROMIUM_FLAGS.
 * @property {boolean} [headless]  Default true.
 * @property {number} [timeoutMs]  Limit for launch and for every page action/evaluate
 *   that has no limit of its own (default 30 s).
 * @property {boolean} [forwardConsole]  Print the page's console errors/warnings and
 *   uncaught exceptions to stderr (default true).
 */

/**
 * @typedef {object} Launched
 * @property {import('playwright-core').Browser | null} browser
 * @property {import('playwright-core').BrowserContext} context
 * @property {import('playwright-core').Page} page
 * @property {Error[]} pageErrors  Uncaught exceptions seen in any page so far.
 * @property {string} profileDir
 * @property {() => Promise<void>} close  Idempotent; never throws; bounded in time.
 */

/** Profile dirs still to remove if the process exits without close(). */
const live = new Set();
let exitHookInstalled = false;

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Synchronous last resort: on 'exit' only synchronous work runs.
  process.once('exit', () => {
    for (const dir of live) {
      killByProfile(dir);
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {}
    }
  });
}

/**
 * Launch Chromium with a fresh profile and open one page (about:blank).
 * @param {LaunchOptions} [opts]
 * @returns {Promise<Launched>}
 */
export async function launch(opts = {}) {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const executablePath = opts.executablePath ?? process.env.CHROMIUM ?? DEFAULT_CHROMIUM;
  const profileDir = mkdtempSync(join(tmpdir(), 'skillfs-chromium-'));
  live.add(profileDir);
  installExitHook();

  /** @type {import('playwright-core').BrowserContext | undefined} */
  let context;
  /** @type {Promise<void> | null} */
  let closing = null;
  const close = () => {
    closing ??= (async () => {
      if (context) {
        await withTimeout(context.close(), 10_000, 'chromium close').catch(() => {});
      }
      killByProfile(profileDir); // no-op when close() worked
      try {
        rmSync(profileDir, { recursive: true, force: true, maxRetries: 3 });
      } catch {}
      live.delete(profileDir);
    })();
    return closing;
  };

  try {
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath,
      headless: opts.headless ?? true,
      args: [...CHROMIUM_FLAGS, ...(opts.args ?? [])],
      timeout: timeoutMs,
      // Our own close() and exit hook handle signals and cleanup as well.
      handleSIGINT: true,
      handleSIGTERM: true,
      handleSIGHUP: true,
    });
    context.setDefaultTimeout(timeoutMs);
    context.setDefaultNavigationTimeout(timeoutMs);
    /** @type {Error[]} */
    const pageErrors = [];
    const watch = (/** @type {import('playwright-core').Page} */ p) => {
      p.on('pageerror', (err) => {
        pageErrors.push(err);
        if (opts.forwardConsole ?? true) process.stderr.write(`[uncaught] ${err.stack ?? err.message}\n`);
      });
      if (opts.forwardConsole ?? true) {
        p.on('console', (msg) => {
          const t = msg.type();
          if (t === 'error' || t === 'warning') process.stderr.write(`[console.${t}] ${msg.text()}\n`);
        });
      }
    };
    // The first page already exists when launchPersistentContext returns, so
    // the 'page' event covers only later ones.
    context.on('page', watch);
    let page = context.pages()[0];
    if (page) watch(page);
    else page = await context.newPage();
    return { browser: context.browser(), context, page, pageErrors, profileDir, close };
  } catch (err) {
    await close();
    throw new Error(`could not start Chromium (${executablePath}): ${err instanceof Error ? err.message : err}`);
  }
}

/**
 * @typedef {object} OpenOptions
 * @property {string} root  Directory to serve at "/".
 * @property {Record<string, string>} [routes]  See serve().
 * @property {string} [path]  Page to open, relative to the server root (default "index.html").
 * @property {string} [readyExpression]  A JS expression evaluated in the page; open() waits
 *   until it is truthy (e.g. "window.bench?.ready === true").
 * @property {boolean} [isolate]  See serve() (default true).
 */

/**
 * @typedef {Launched & { url: string, server: import('./server.mjs').Server }} Opened
 */

/**
 * Serve a directory, launch Chromium and open a page from it.
 * On any failure everything started so far is cleaned up before the error is thrown.
 * @param {OpenOptions & LaunchOptions} opts
 * @returns {Promise<Opened>}
 */
export async function open(opts) {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const server = await serve({ root: opts.root, routes: opts.routes, isolate: opts.isolate });
  /** @type {Launched | undefined} */
  let launched;
  const close = async () => {
    await launched?.close();
    await server.close();
  };
  try {
    launched = await launch(opts);
    const url = new URL(opts.path ?? 'index.html', server.url).href;
    const resp = await launched.page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
    if (!resp || !resp.ok()) throw new Error(`GET ${url}: HTTP ${resp?.status() ?? 'no response'}`);
    if (opts.readyExpression) {
      await launched.page
        .waitForFunction(opts.readyExpression, undefined, { timeout: timeoutMs, polling: 50 })
        .catch((err) => {
          const first = launched?.pageErrors[0];
          throw new Error(
            `page not ready (${opts.readyExpression}) within ${timeoutMs} ms` +
              (first ? `; first page error: ${first.message}` : `: ${err.message}`),
          );
        });
    }
    return { ...launched, url, server, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * SIGKILL the Chromium processes started with this profile dir (ours only:
 * the dir is a fresh mkdtemp). Linux /proc; a no-op elsewhere.
 * @param {string} profileDir
 */
function killByProfile(profileDir) {
  let pids;
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return;
  }
  const needle = `--user-data-dir=${profileDir}`;
  for (const pid of pids) {
    let cmd;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmd.split('\0').includes(needle)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {}
    }
  }
}
