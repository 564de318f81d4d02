// skillfs in the import benchmark: the same zip through js/bridge.ts and
// dist/skillfs.wasm (served under /dist/ by run.mjs), a fresh database per
// run. The import resolves once its one IndexedDB transaction committed.

import { loadSkillfs, type Skillfs } from '../../js/bridge.ts';
import { watchStalls, type Benchmark, type ImportResult, type ReadResult } from './registry.ts';

const WASM = { wasmURL: '/dist/skillfs.wasm', wasmExecURL: '/dist/wasm_exec.js' };

let lastDB = '';

async function open(dbName: string): Promise<Skillfs> {
  return loadSkillfs({ ...WASM, dbName });
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

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export interface ColdStart {
  skills: number;
  /** skillfs: fetch + instantiate + open + list, per run. */
  runsMs: number[];
  medianMs: number;
  /** The floor: a Go module that does nothing, fetched, compiled and run to the end of main. */
  helloMedianMs: number;
}

/** Cold start, as an extension page pays it on every open: fetch and
 * instantiate the module, open its database, list every skill; beside it
 * the same for a bare Go hello world, alternating run by run. The pack is
 * imported once first, untimed. */
export async function coldStart(zip: Uint8Array, helloURL: string, runs = 5): Promise<ColdStart> {
  const db = `bench-coldstart-${Date.now()}`;
  await (await open(db)).registry.importZip(zip, { source: 'coldstart.zip' });
  const Go = (globalThis as unknown as { Go: new () => { importObject: WebAssembly.Imports; run(i: WebAssembly.Instance): Promise<void> } }).Go;
  const runsMs: number[] = [];
  const helloMs: number[] = [];
  let skills = 0;
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    const go = new Go();
    const { instance } = await WebAssembly.instantiateStreaming(fetch(helloURL, { cache: 'no-store' }), go.importObject);
    await go.run(instance);
    helloMs.push(performance.now() - t0);
    t0 = performance.now();
    const sk = await open(db);
    skills = (await sk.registry.list()).length;
    runsMs.push(performance.now() - t0);
  }
  return { medianMs: median(runsMs), runsMs, skills, helloMedianMs: median(helloMs) };
}

export interface ListBench {
  skills: number;
  /** registry.list() on a module just opened (nothing cached), median. */
  listMs: number;
  /** The floor: getAll on the same records store and JSON.parse of each, median. */
  rawMs: number;
}

/** List on a fresh module against a raw getAll + JSON.parse of the same
 * records, alternating run by run. The pack is imported once, untimed. */
export async function listBench(zip: Uint8Array, runs = 5): Promise<ListBench> {
  const db = `bench-list-${Date.now()}`;
  await (await open(db)).registry.importZip(zip, { source: 'list.zip' });
  const listMs: number[] = [];
  const rawMs: number[] = [];
  let skills = 0;
  for (let i = 0; i < runs; i++) {
    const sk = await open(db);
    let t0 = performance.now();
    skills = (await sk.registry.list()).length;
    listMs.push(performance.now() - t0);

    const idb = await new Promise<IDBDatabase>((ok, fail) => {
      const r = indexedDB.open(db);
      r.onsuccess = () => ok(r.result);
      r.onerror = () => fail(r.error);
    });
    t0 = performance.now();
    const values = await new Promise<Uint8Array[]>((ok, fail) => {
      const r = idb.transaction('meta', 'readonly').objectStore('meta').getAll();
      r.onsuccess = () => ok(r.result as Uint8Array[]);
      r.onerror = () => fail(r.error);
    });
    const dec = new TextDecoder();
    const parsed = values.map((v) => JSON.parse(dec.decode(v)) as unknown);
    rawMs.push(performance.now() - t0);
    idb.close();
    if (parsed.length !== skills) throw new Error(`raw getAll found ${parsed.length} records, list ${skills}`);
  }
  return { skills, listMs: median(listMs), rawMs: median(rawMs) };
}

// The module's linear memory, which Go's WebAssembly port grows and never
// returns: the bench records the instance the bridge creates to read it.
let lastMemory: WebAssembly.Memory | undefined;
const instantiateStreaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
WebAssembly.instantiateStreaming = async (source, imports) => {
  const res = await instantiateStreaming(source, imports);
  lastMemory = res.instance.exports.mem as WebAssembly.Memory | undefined;
  return res;
};

export interface MemoryBench {
  /** The host's linear memory just after it opened, in bytes. */
  openedBytes: number;
  /** After ten imports of the 10 MB pack (each replacing the last). */
  afterTenBytes: number;
  /** On a fresh host, after one import of the large pack. */
  afterLargeBytes: number;
  largeMB: number;
}

/** What a long-lived host keeps: its linear memory after ten imports of
 * the pack, and, on a fresh host, after one of the large pack. */
export async function memoryBench(pack: Uint8Array, large: Uint8Array, largeMB: number): Promise<MemoryBench> {
  const bytes = () => lastMemory?.buffer.byteLength ?? NaN;
  let sk = await open(`bench-mem-${Date.now()}`);
  const openedBytes = bytes();
  for (let i = 0; i < 10; i++) await sk.registry.importZip(pack, { source: 'mem.zip', onConflict: 'replace' });
  const afterTenBytes = bytes();
  sk = await open(`bench-mem-large-${Date.now()}`);
  await sk.registry.importZip(large, { source: 'large.zip' });
  return { openedBytes, afterTenBytes, afterLargeBytes: bytes(), largeMB };
}
