#!/usr/bin/env node
// The side panel's "Disable selected" over every skill, every row shown,
// traced: the extension (make extension-build) loaded into headless
// Chromium at 400 px, ZIPs imported through "Import…", every row shown,
// "Select all" checked; then each run clicks "Disable selected" (and
// "Enable selected", alternating) under a trace and reports, on the panel's
// main thread, the longest task in wall time and in the thread's CPU time
// (which a loaded machine, as this shared one, does not stretch), the
// layouts and style recalculations with the elements they touched, and
// where the longest task's time went.
//
//   node web/bench/bulk.mjs ZIP... [--runs N] [--ext DIR]

import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launch } from '../harness/index.mjs';
import { mainThread, rendering, trace } from '../harness/trace.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { positionals: zips, values } = parseArgs({ allowPositionals: true, options: { runs: { type: 'string', default: '4' }, ext: { type: 'string', default: join(REPO, '.bin/extension') } } });
const runs = Number(values.runs);
if (!zips.length || !(runs >= 1)) {
  process.stderr.write('usage: node web/bench/bulk.mjs ZIP... [--runs N] [--ext DIR]\n');
  process.exit(2);
}
const ext = resolve(values.ext);
const MS = 180_000;
const f = (x) => x.toFixed(1);

const browser = await launch({ timeoutMs: MS, args: [`--disable-extensions-except=${ext}`, `--load-extension=${ext}`] });
try {
  const sw = browser.context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://')) ??
    (await browser.context.waitForEvent('serviceworker', { predicate: (w) => w.url().startsWith('chrome-extension://') }));
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 400, height: 900 });
  await page.goto(`chrome-extension://${new URL(sw.url()).host}/sidepanel.html`, { waitUntil: 'load' });
  await page.waitForFunction(() => document.getElementById('status')?.dataset.state === 'ready');
  for (const zip of zips) {
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
    await chooser.setFiles(resolve(zip));
    const install = page.getByRole('group', { name: /holds [\d,]+ skills?$/ }).getByRole('button', { name: /^Install [\d,]+ skills?$/ });
    await install.click();
    await page.locator('.import-result > div').waitFor();
  }
  await page.reload();
  await page.locator('#skills').waitFor();
  const n = Number(await page.locator('#skills').getAttribute('data-count'));
  const more = page.getByRole('button', { name: /^Show \d+ more of / });
  while (await more.count()) await more.click();
  await page.getByRole('checkbox', { name: `Select all ${n.toLocaleString('en')}`, exact: true }).check();
  await page.waitForFunction((n) => document.querySelectorAll('#skills input.pick:checked').length === n, n);

  const cdp = await page.context().newCDPSession(page);
  // Which elements are laid out, restyled and painted, and for how long, per click.
  const one = async (on) => {
    const { events } = await trace(cdp, async () => {
      await page.evaluate(() => performance.mark('bulk-start'));
      await page.getByRole('button', { name: on ? 'Enable selected' : 'Disable selected' }).click();
      await page.waitForFunction(([n, on]) => document.querySelectorAll('#skills > li.disabled').length === (on ? 0 : n) &&
        document.querySelector('.bulk-outcome[role=status]')?.textContent.startsWith(on ? 'Enabled' : 'Disabled'), [n, on], { timeout: MS });
      await page.waitForTimeout(500); // the list read again and drawn, transitions ended
      await page.evaluate(() => performance.mark('bulk-end'));
    });
    const { events: xs, ours, within } = mainThread(events, 'bulk');
    const longest = ours.reduce((a, b) => (b.dur > a.dur ? b : a));
    const sum = (names, pred = () => true) => xs.filter((e) => names.includes(e.name) && pred(e)).reduce((t, e) => t + e.dur, 0) / 1000;
    return {
      wall: longest.dur / 1000,
      cpu: (longest.tdur ?? 0) / 1000,
      over50: ours.filter((t) => t.dur > 50_000).length,
      ...rendering(events, 'bulk'),
      script: sum(['FunctionCall', 'EvaluateScript', 'RunMicrotasks'], within(longest)),
      style: sum(['UpdateLayoutTree'], within(longest)),
      layout: sum(['Layout'], within(longest)),
      paint: sum(['PrePaint', 'Paint', 'Layerize'], within(longest)),
    };
  };
  const res = [];
  for (let r = 0; r < runs * 2; r++) res.push(await one(r % 2 === 1));
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const col = (k) => `${f(median(res.map((r) => r[k])))} / ${f(Math.max(...res.map((r) => r[k])))}`;
  console.log(`"Disable selected" and "Enable selected" over ${n} skills, every row shown (${zips.map((z) => basename(z)).join(', ')}), ${res.length} clicks; median / max:`);
  console.log(`  the panel's longest main-thread task: wall ${col('wall')} ms, thread CPU ${col('cpu')} ms; tasks over 50 ms ${col('over50')}`);
  console.log(`  of it: script ${col('script')} ms, style ${col('style')}, layout ${col('layout')}, paint ${col('paint')}`);
  console.log(`  layouts ${col('layouts')}, objects laid out ${col('laidOut')}; style recalculations ${col('restyles')}, elements restyled ${col('restyled')}`);
} finally {
  await browser.close();
}
