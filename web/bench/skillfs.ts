// skillfs in the import benchmark: the same zip through js/bridge.ts and
// dist/skillfs.wasm (served under /dist/ by run.mjs), a fresh database per
// run. The import resolves once its one IndexedDB transaction committed.

import { loadSkillfs, type Skillfs } from '../../js/bridge.ts';
import { watchStalls, type Benchmark, type ImportResult, type ReadResult } from './registry.ts';

let lastDB = '';

/** A module of the build under dist (run.mjs serves dist/ at /dist/ and,
 * with --before, another build's at /before/). wasm_exec.js is loaded once,
 * from /dist/: both builds must come from the same Go. */
async function open(dbName: string, dist = '/dist/'): Promise<Skillfs> {
  return loadSkillfs({ wasmURL: `${dist}skillfs.wasm`, wasmExecURL: '/dist/wasm_exec.js', dbName });
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
      ...stalls.stop(),
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

/** Imports zip into a new database, untimed, for the cold start and list
 * figures, which then run on fresh pages: returns the database's name. */
export async function importPack(zip: Uint8Array): Promise<string> {
  const db = `bench-pack-${Date.now()}-${Math.random().toString(36).slice(2, 10)}`;
  await (await open(db)).registry.importZip(zip, { source: 'pack.zip' });
  return db;
}

/** Times of one cold start, in ms. */
export interface StartRun {
  /** fetch + compile + instantiate + Go's start + open + the first list. */
  total: number;
  /** Of which fetch + compile + instantiate. */
  instantiate: number;
  /** Go's start (runtime and package inits) and the open of the database, to the module's API. */
  open: number;
  list: number;
  skills: number;
}

/** One cold start, as an extension page pays it on every open: a bare Go
 * hello world fetched, compiled and run to the end of main (the floor),
 * then, for each build in dists, the module fetched and instantiated, its
 * database db opened, every skill listed. Run it on a fresh page. */
export async function coldStartOnce(db: string, helloURL: string, dists: string[]): Promise<{ hello: { total: number; instantiate: number }; builds: StartRun[] }> {
  // index.html loads wasm_exec.js, as a page that starts the module would.
  const Go = (globalThis as unknown as { Go: new () => { importObject: WebAssembly.Imports; run(i: WebAssembly.Instance): Promise<void> } }).Go;
  let t0 = performance.now();
  const go = new Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch(helloURL, { cache: 'no-store' }), go.importObject);
  const helloInst = performance.now() - t0;
  await go.run(instance);
  const hello = { total: performance.now() - t0, instantiate: helloInst };
  const builds: StartRun[] = [];
  for (const dist of dists) {
    t0 = performance.now();
    const sk = await open(db, dist);
    const t1 = performance.now();
    const skills = (await sk.registry.list()).length;
    const t2 = performance.now();
    builds.push({ total: t2 - t0, instantiate: lastInstantiated - t0, open: t1 - lastInstantiated, list: t2 - t1, skills });
  }
  return { hello, builds };
}

/** One list of db's skills by a module just opened (nothing cached) of
 * each build in dists, and a raw getAll + JSON.parse of the same records,
 * first when rawFirst (whichever reads first may find the browser's
 * caches cold): times in ms. Run it on a fresh page. */
export async function listOnce(db: string, dists: string[], rawFirst: boolean): Promise<{ builds: number[]; raw: number; skills: number }> {
  const builds: number[] = [];
  let skills = 0;
  const lists = async () => {
    for (const dist of dists) {
      const sk = await open(db, dist);
      const t0 = performance.now();
      skills = (await sk.registry.list()).length;
      builds.push(performance.now() - t0);
    }
  };
  if (!rawFirst) await lists();
  const idb = await new Promise<IDBDatabase>((ok, fail) => {
    const r = indexedDB.open(db);
    r.onsuccess = () => ok(r.result);
    r.onerror = () => fail(r.error);
  });
  const t0 = performance.now();
  const values = await new Promise<Uint8Array[]>((ok, fail) => {
    const r = idb.transaction('meta', 'readonly').objectStore('meta').getAll();
    r.onsuccess = () => ok(r.result as Uint8Array[]);
    r.onerror = () => fail(r.error);
  });
  const dec = new TextDecoder();
  const parsed = values.map((v) => JSON.parse(dec.decode(v)) as unknown);
  const raw = performance.now() - t0;
  idb.close();
  if (rawFirst) await lists();
  if (parsed.length !== skills) throw new Error(`raw getAll found ${parsed.length} records, list ${skills}`);
  return { builds, raw, skills };
}

// The module's linear memory, which Go's WebAssembly port grows and never
// returns: the bench records the instance the bridge creates to read it.
let lastMemory: WebAssembly.Memory | undefined;
// When the last instantiation finished, for the cold start's phases.
let lastInstantiated = NaN;
// The bridge compiles while wasm_exec.js loads, then instantiates the
// module; a bridge.js built before that (run.mjs --before, tasks.mjs)
// instantiates from the response.
const instantiated = (i: WebAssembly.Instance) => {
  lastInstantiated = performance.now();
  lastMemory = i.exports.mem as WebAssembly.Memory | undefined;
};
const instantiateStreaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
WebAssembly.instantiateStreaming = async (source, imports) => {
  const res = await instantiateStreaming(source, imports);
  instantiated(res.instance);
  return res;
};
const instantiate = WebAssembly.instantiate.bind(WebAssembly) as (m: WebAssembly.Module, i?: WebAssembly.Imports) => Promise<WebAssembly.Instance>;
WebAssembly.instantiate = (async (m: WebAssembly.Module, imports?: WebAssembly.Imports) => {
  const res = await instantiate(m, imports);
  if (res instanceof WebAssembly.Instance) instantiated(res);
  return res;
}) as typeof WebAssembly.instantiate;

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
