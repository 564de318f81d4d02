#!/usr/bin/env node
// The host's longest task during each call a side panel or an agent makes
// with thousands of skills installed: the module runs on a page (the
// host, as the extension's service worker is) and serves it over
// MessagePorts to panels and an agent in a Worker, so the host's thread
// does only what a host does. Each call is traced (Chromium's toplevel
// category) and the host's longest task reported in wall time and in the
// thread's CPU time (which a loaded machine does not stretch), with the
// number of tasks over 50 ms: the rule is that no call an agent or a
// panel sends holds the host's event loop (a panel's port declares the
// host gone after 5 s without an answer to its ping).
//
//   node web/bench/calls.mjs [--n 5100] [--dist DIR] [--panels 4]
//
// DIR holds skillfs.wasm, wasm_exec.js and bridge.js (by default
// .bin/test-dist, which web/test/test.mk builds). The skills are
// fixtures.mjs's longPack(n, 'many'), installed from a URL (so that
// checkUpdates has a source to ask); the batches are of 5,000, the
// bridge's MAX_BATCH. While they are disabled, an archive of n other
// skills, each depending on the one before it and the first on an
// installed one, is previewed: every one would be installed disabled;
// and one of n skills in pairs, the first of each pair depending on an
// installed one, where one change of choice (a pair's first skipped)
// changes the notes of its pair only.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { open } from '../harness/index.mjs';
import { mainThread, trace } from '../harness/trace.mjs';
import { longPack } from '../ui/fixtures.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({ options: {
  n: { type: 'string', default: '5100' },
  dist: { type: 'string', default: join(REPO, '.bin/test-dist') },
  panels: { type: 'string', default: '4' },
  profile: { type: 'boolean', default: false },
} });
const n = Number(values.n);
const panels = Number(values.panels);
const BATCH = 5000;
if (!(n > BATCH + 10) || !(panels >= 1)) {
  process.stderr.write('usage: node web/bench/calls.mjs [--n N > 5010] [--dist DIR] [--panels P]\n');
  process.exit(2);
}

// The host: the module, serving `panels` admin ports and one agent port,
// whose other ends go to the Worker.
const HOST = `<!doctype html><meta charset="utf-8"><title>host</title>
<script type="module">
import * as bridge from '/dist/bridge.js';
const sk = await bridge.loadSkillfs({ wasmURL: '/dist/skillfs.wasm', wasmExecURL: '/dist/wasm_exec.js', dbName: 'calls-' + Date.now() });
const ports = [];
for (let i = 0; i <= ${panels}; i++) {
  const ch = new MessageChannel();
  bridge.serveSkillfs(sk, ch.port1, i < ${panels} ? { capability: 'admin' } : { capability: 'agent', contextScope: 'calls' });
  ports.push(ch.port2);
}
const worker = new Worker('/client.js', { type: 'module' });
const waiting = new Map();
let next = 0;
worker.onmessage = (e) => { waiting.get(e.data.id)?.(e.data); waiting.delete(e.data.id); };
worker.postMessage({ ports }, ports);
window.run = (op, arg) => new Promise((ok) => { const id = ++next; waiting.set(id, ok); worker.postMessage({ id, op, arg }); });
window.ready = true;
</script>`;

// The panels and the agent. Every panel and the agent count the changes
// they are told of; an op answers with a summary, never a whole list.
const CLIENT = `import * as bridge from '/dist/bridge.js';
const { connectSkillfs } = bridge;
let panels, agent, session, order, previewed;
const changes = [];
const ids = (l) => l.map((s) => s.id);
const ops = {
  install: async (url) => (await panels[0].registry.installFromUrl(url)).installed?.length ?? 'done',
  preview: async (url) => (previewed = await panels[0].registry.previewZip(new Uint8Array(await (await fetch(url)).arrayBuffer()))).skills.length,
  // What the panel's preview asks at each change of choice: here, every skill under one policy.
  notes: async (policy) => Object.keys(await panels[0].registry.previewNotes(previewed, Object.fromEntries(previewed.skills.map((s) => [s.name, policy])))).length,
  // What the panel's preview asks when one choice changes: the third
  // skill skipped, every other installed as a copy. previewPart (when the
  // bridge has it) gives the skills whose notes that choice can change.
  change: async () => {
    const name = previewed.skills[2].name;
    const part = bridge.previewPart?.(previewed, name) ?? previewed;
    const choose = Object.fromEntries(part.skills.filter((s) => s.name !== name).map((s) => [s.name, 'rename']));
    return Object.keys(await panels[0].registry.previewNotes(part, choose)).length + ' notes of ' + part.skills.length + ' skills sent';
  },
  list: async () => (await panels[0].registry.list()).length,
  listAll: async () => (await Promise.all(panels.map((p) => p.registry.list()))).map((l) => l.length).join(','),
  order: async () => { order = ids(await panels[0].registry.list()).sort((a, b) => a.localeCompare(b, 'en')); return order.length; },
  get: async () => (await panels[0].registry.get(order[7])).id,
  setOne: async (on) => (await panels[0].registry.setEnabled(order[7], on)).enabled,
  setMany: async ([from, to, on]) => (await panels[0].registry.setEnabledMany(order.slice(from, to), on)).length,
  deps: async () => {
    const needs = [[${BATCH} + 98, 10], [${BATCH} + 60, ${BATCH} + 98], [${BATCH} - 1, ${BATCH} + 50], [${BATCH} + 50, ${BATCH} - 1]];
    for (const [a, b] of needs) await panels[0].registry.setDependencies(order[a], { skills: [order[b]] });
    return needs.length;
  },
  open: async () => { session = await agent.openSession({ contextId: 'tab-1' }); return session.id; },
  catalog: async () => (await session.catalog()).length,
  commands: async () => (await session.commands()).length,
  route: async () => (await session.route('convert the genome dataset and render a chart')).candidates?.length ?? 'done',
  plan: async () => (await session.startPlan('extract the spectra table and validate it')).run ?? 'done',
  activate: async () => (await session.activate(order[20])).name ?? 'done',
  invoke: async () => (await session.invoke('/skill:' + order[21] + ' now')).name ?? 'done',
  refresh: async () => (await session.refresh()).stale,
  checkUpdates: async () => (await panels[0].registry.checkUpdates()).length,
  exportZip: async () => (await panels[0].registry.exportZip(order[30])).length,
  tree: async () => (await panels[0].registry.tree(order[30])).length,
  // Dependents first (5,060, then 5,098, which the 10th's removal needs
  // gone), then the rest in order: the panel's batches.
  removeFirst: async () => {
    const rest = order.slice(1, ${BATCH} + 99).filter((id) => id !== order[${BATCH} + 60] && id !== order[${BATCH} + 98]);
    order.del = [order[${BATCH} + 60], order[${BATCH} + 98], ...rest];
    await panels[0].registry.removeMany(order.del.slice(0, ${BATCH}));
    return ${BATCH};
  },
  removeSecond: async () => { await panels[0].registry.removeMany(order.del.slice(${BATCH})); return order.del.length - ${BATCH}; },
  changes: async () => changes.join(','),
};
self.onmessage = async (e) => {
  if (e.data.ports) {
    const all = e.data.ports.map((p) => connectSkillfs(p));
    agent = all.pop();
    panels = all;
    [...panels, agent].forEach((c, i) => { changes[i] = 0; c.onChange(() => changes[i]++); });
    return;
  }
  const { id, op, arg } = e.data;
  try {
    self.postMessage({ id, ok: true, value: await ops[op](arg) });
  } catch (err) {
    self.postMessage({ id, ok: false, error: (err?.code ?? '') + ' ' + (err?.reason ?? '') + ': ' + (err?.message ?? err) });
  }
};
`;

// The functions that held the longest task (the samples within it): each
// function's share, counted once per sample it is on the stack of.
function heaviest(profile, task) {
  const byId = new Map(profile.nodes.map((nd) => [nd.id, nd]));
  const parent = new Map();
  for (const nd of profile.nodes) for (const c of nd.children ?? []) parent.set(c, nd.id);
  const counts = new Map();
  let t = profile.startTime;
  let total = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i];
    if (t < task.ts || t > task.ts + task.dur) return;
    total++;
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const name = byId.get(at).callFrame.functionName || '(anonymous)';
      if (!seen.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
      seen.add(name);
    }
  });
  const top = [...counts].filter(([name]) => !/^\(/.test(name)).sort((a, b) => b[1] - a[1]).slice(0, 40);
  return top.map(([name, c]) => `      ${(100 * c / Math.max(total, 1)).toFixed(0).padStart(3)}% ${name}`).join('\n');
}

const site = mkdtempSync(join(tmpdir(), 'skillfs-calls-'));
writeFileSync(join(site, 'index.html'), HOST);
writeFileSync(join(site, 'client.js'), CLIENT);
writeFileSync(join(site, 'many.zip'), longPack(n, 'many'));
writeFileSync(join(site, 'chain.zip'), longPack(n, 'chain', 'many-000'));
writeFileSync(join(site, 'pairs.zip'), longPack(n, 'pair', 'many-000', 2));
const h = await open({ root: site, routes: { '/dist/': resolve(values.dist) }, readyExpression: 'window.ready === true', timeoutMs: 600_000 });
const f = (x) => x.toFixed(1);
try {
  const cdp = await h.page.context().newCDPSession(h.page);
  // One op under a trace of the host's thread; after it the host gets
  // 300 ms more, for the change notices it sends the ports.
  const step = async (label, op, arg) => {
    if (values.profile) await cdp.send('Profiler.enable').then(() => cdp.send('Profiler.setSamplingInterval', { interval: 200 })).then(() => cdp.send('Profiler.start'));
    const { result, events } = await trace(cdp, () => h.page.evaluate(async ([op, arg]) => {
      performance.mark('calls-start');
      const t0 = performance.now();
      const r = await window.run(op, arg);
      const ms = performance.now() - t0;
      await new Promise((ok) => setTimeout(ok, 300));
      performance.mark('calls-end');
      return { ...r, ms };
    }, [op, arg]), 'toplevel,blink.user_timing');
    if (!result.ok) throw new Error(`${label}: ${result.error}`);
    const { tasks } = mainThread(events, 'calls');
    const longest = tasks.reduce((a, t) => (t.dur > (a?.dur ?? -1) ? t : a), undefined);
    const cpu = Math.max(...tasks.map((t) => t.tdur ?? 0)) / 1000;
    const over = tasks.filter((t) => t.dur > 50_000).length;
    const profile = values.profile && (await cdp.send('Profiler.stop')).profile;
    console.log(`${label.padEnd(44)} ${f(result.ms).padStart(8)} ms | longest task ${f(longest.dur / 1000).padStart(7)} wall ${f(cpu).padStart(7)} CPU | ${String(over).padStart(3)} over 50 ms | ${result.value}`);
    if (profile && cpu > 30) console.log(heaviest(profile, tasks.reduce((a, t) => ((t.tdur ?? 0) > (a.tdur ?? 0) ? t : a))));
  };
  console.log(`${n} skills (longPack(${n}, 'many')), ${panels} panels and an agent on ports of a host page; ${values.dist}`);
  console.log(`${'call'.padEnd(44)} ${'took'.padStart(11)} | host's longest task (ms)`);
  await step('installFromUrl', 'install', new URL('many.zip', h.url).href);
  await step('previewZip of the same skills', 'preview', new URL('many.zip', h.url).href);
  await step('previewNotes of it (no skill depends on one)', 'notes', 'replace');
  await step('list (first)', 'list');
  await step('list', 'list');
  await step(`list by ${panels} panels at once`, 'listAll');
  await step('list (sorted in the worker)', 'order');
  await step('get', 'get');
  await step('setEnabled one off', 'setOne', false);
  await step('setEnabled one on', 'setOne', true);
  await step(`setEnabledMany ${BATCH} off`, 'setMany', [0, BATCH, false]);
  await step(`setEnabledMany ${n - BATCH} off`, 'setMany', [BATCH, n, false]);
  await step('previewZip of a chain of dependencies', 'preview', new URL('chain.zip', h.url).href);
  await step('previewNotes of it (each depends on one)', 'notes', 'rename');
  await step('previewNotes of one change of choice in it', 'change');
  await step('previewZip of pairs of dependencies', 'preview', new URL('pairs.zip', h.url).href);
  await step('previewNotes of it (each depends on one)', 'notes', 'rename');
  await step('previewNotes of one change of choice in it', 'change');
  await step('list (first after the batches)', 'list');
  await step(`setEnabledMany ${BATCH} on`, 'setMany', [0, BATCH, true]);
  await step(`setEnabledMany ${n - BATCH} on`, 'setMany', [BATCH, n, true]);
  await step('list (first after the batches)', 'list');
  await step('setDependencies x4', 'deps');
  await step('openSession (agent)', 'open');
  await step('catalog', 'catalog');
  await step('commands', 'commands');
  await step('route', 'route');
  await step('startPlan', 'plan');
  await step('activate', 'activate');
  await step('invoke', 'invoke');
  await step('tree', 'tree');
  await step('exportZip', 'exportZip');
  await step('checkUpdates', 'checkUpdates');
  await step(`removeMany ${BATCH}`, 'removeFirst');
  await step('list (first after the batch)', 'list');
  await step('session refresh', 'refresh');
  await step('removeMany 98', 'removeSecond');
  await step('list (first after the batch)', 'list');
  await step('changes each port was told of', 'changes');
} finally {
  await h.close();
  rmSync(site, { recursive: true, force: true });
}
