#!/usr/bin/env node
// The page's longest task during an import by skillfs, two builds taking
// turns on one page: each import is traced (Chromium's toplevel category)
// and its longest main-thread task reported in wall time and in the
// thread's CPU time, which a loaded machine (this one is shared) does not
// stretch as it does wall time and the Long Tasks API's durations; and
// the main thread's CPU time over the whole import, the figure to compare
// two builds by on a loaded machine.
//
//   node web/bench/tasks.mjs ZIP BEFORE [--runs N]
//
// ZIP is imported RUNS times (default 5) by the build in dist/ and by the
// one in the folder BEFORE (its bridge.js and skillfs.wasm: build the
// commit before a change there, as for run.mjs --before), alternating.

import { build } from 'esbuild';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { open } from '../harness/index.mjs';
import { mainThread, trace } from '../harness/trace.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = resolve(REPO, '.bin/bench');
const { positionals, values } = parseArgs({ allowPositionals: true, options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
if (positionals.length !== 2 || !(runs >= 1)) {
  process.stderr.write('usage: node web/bench/tasks.mjs ZIP BEFORE [--runs N]\n');
  process.exit(2);
}
const [zip, before] = positionals.map((p) => resolve(p));

await build({ entryPoints: [resolve(REPO, 'web/bench/page.ts')], outfile: resolve(OUT, 'page.js'), bundle: true, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'warning' });
const h = await open({
  root: OUT,
  routes: { '/input.zip': zip, '/dist/': resolve(REPO, 'dist'), '/before/': before },
  path: 'index.html',
  readyExpression: 'window.bench?.ready === true',
  timeoutMs: 120000,
});
try {
  const cdp = await h.page.context().newCDPSession(h.page);
  // One import by the build under /dist/ or /before/, on a module opened
  // (and a zip fetched) before the trace starts.
  const one = async (build) => {
    await h.page.evaluate(async ([build]) => {
      const { loadSkillfs } = await import(`/${build}/bridge.js`);
      window.tasksSk = await loadSkillfs({ wasmURL: `/${build}/skillfs.wasm`, wasmExecURL: '/dist/wasm_exec.js', dbName: `tasks-${Date.now()}-${Math.random()}` });
      window.tasksZip ??= new Uint8Array(await (await fetch('/input.zip')).arrayBuffer());
    }, [build]);
    const { result: ms, events } = await trace(cdp, () => h.page.evaluate(async () => {
      await new Promise((ok) => setTimeout(ok, 0));
      performance.mark('tasks-start');
      const t0 = performance.now();
      await window.tasksSk.registry.importZip(window.tasksZip, { source: 'tasks.zip' });
      const ms = performance.now() - t0;
      performance.mark('tasks-end');
      return ms;
    }));
    const { tasks } = mainThread(events, 'tasks');
    const cpu = tasks.map((t) => t.tdur ?? 0);
    return { ms, wallMs: Math.max(...tasks.map((t) => t.dur)) / 1000, cpuMs: Math.max(...cpu) / 1000, totalCpuMs: cpu.reduce((a, b) => a + b, 0) / 1000 };
  };
  await one('before');
  await one('dist');
  const res = { before: [], dist: [] };
  for (let r = 0; r < runs; r++) for (const b of ['before', 'dist']) res[b].push(await one(b));
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const f = (x) => x.toFixed(1);
  console.log(`longest main-thread task during an import of ${basename(zip)}, ${runs} runs each, alternating (ms; median / max):`);
  for (const [b, name] of [['before', `before (${before})`], ['dist', 'this build (dist/)']]) {
    const rs = res[b];
    const col = (k) => `${f(median(rs.map((r) => r[k])))} / ${f(Math.max(...rs.map((r) => r[k])))}`;
    console.log(`  ${name}: import ${f(median(rs.map((r) => r.ms)))}; longest task, wall ${col('wallMs')}, thread CPU ${col('cpuMs')}; the thread's CPU in all ${f(median(rs.map((r) => r.totalCpuMs)))}`);
  }
} finally {
  await h.close();
}
