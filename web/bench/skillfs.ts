// skillfs in the import benchmark: the same zip through js/bridge.ts and
// dist/skillfs.wasm (served under /dist/ by run.mjs), a fresh database per
// run. The import resolves once its one IndexedDB transaction committed.

import { loadSkillfs, type Skillfs } from '../../js/bridge.ts';
import type { Benchmark, ImportResult, ReadResult } from './registry.ts';

const WASM = { wasmURL: '/dist/skillfs.wasm', wasmExecURL: '/dist/wasm_exec.js' };

let lastDB = '';

async function open(dbName: string): Promise<Skillfs> {
  return loadSkillfs({ ...WASM, dbName });
}

// watchStalls measures how responsive the page stays: the longest gap
// between turns of its event loop, sampled with a zero-delay timer chain.
function watchStalls(): { stop(): number } {
  let last = performance.now();
  let worst = 0;
  let on = true;
  const tick = () => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
    if (on) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  return {
    stop() {
      on = false;
      return Math.max(worst, performance.now() - last);
    },
  };
}

export const skillfs: Benchmark = {
  async importZip(zip: Uint8Array): Promise<ImportResult> {
    lastDB = `bench-skillfs-${Date.now()}-${Math.random().toString(36).slice(2, 10)}`;
    const t0 = performance.now();
    const sk = await open(lastDB);
    const setupMs = performance.now() - t0;
    const stalls = watchStalls();
    const res = await sk.registry.importZip(zip, { source: 'bench.zip' });
    const ms = performance.now() - t0;
    return {
      ms,
      setupMs,
      maxStallMs: stalls.stop(),
      files: res.skills.reduce((n, s) => n + s.fileCount, 0),
      bytes: res.skills.reduce((n, s) => n + s.size, 0),
    };
  },

  // A cold read as a new page does it: start the module on the stored
  // database, then read the file through the registry.
  async readFile(entry: string): Promise<ReadResult> {
    const parts = entry.split('/');
    const at = parts.lastIndexOf('SKILL.md');
    const id = parts[at - 1];
    const t0 = performance.now();
    const sk = await open(lastDB);
    const t1 = performance.now();
    const bytes = await sk.registry.readFile(id, parts.slice(at).join('/'));
    return { mountMs: t1 - t0, ms: performance.now() - t1, bytes: bytes.length };
  },
};

/** Cold start, as an extension page pays it on every open: fetch and
 * instantiate the module, open its database, list every skill. The pack
 * is imported once first, untimed. */
export async function coldStart(zip: Uint8Array, runs = 5): Promise<{ medianMs: number; runsMs: number[]; skills: number }> {
  const db = `bench-coldstart-${Date.now()}`;
  await (await open(db)).registry.importZip(zip, { source: 'coldstart.zip' });
  const runsMs: number[] = [];
  let skills = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const sk = await open(db);
    skills = (await sk.registry.list()).length;
    runsMs.push(performance.now() - t0);
  }
  const sorted = [...runsMs].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)], runsMs, skills };
}
