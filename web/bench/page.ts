// Entry of the bench page bundle. It registers every stack under test and
// exposes window.bench for the Node driver (run.mjs), which calls
//   bench.names()                      -> ["zenfs", ...]
//   bench.importZip(name, zipUrl)      -> ImportResult
//   bench.readFile(name, entry)        -> ReadResult | null (when unsupported)
//   bench.cleanup(name)
//   bench.importPack(zipUrl)           -> a database holding the pack (untimed)
//   bench.coldStartOnce(db, helloUrl, dists), bench.listOnce(db, dists, rawFirst)
//                                      -> one run's times, on a fresh page each
//   bench.memoryBench(packUrl, largeUrl, largeMB)
// To add a stack (e.g. skillfs through js/bridge.ts and dist/skillfs.wasm,
// which run.mjs serves under /dist/ when that folder exists): write a module
// that exports a Benchmark, import it here and register it below.

import { get, names, register, type ImportResult, type ReadResult } from './registry.ts';
import { limit } from './limit.ts';
import { coldStartOnce, importPack, listOnce, memoryBench, skillfs } from './skillfs.ts';
import { zenfs } from './zenfs.ts';

register('zenfs', zenfs); // baseline: first registered
register('skillfs', skillfs);
register('limit', limit); // the browser alone: fflate + one IndexedDB transaction

const zips = new Map<string, Uint8Array>();

async function fetchZip(url: string): Promise<Uint8Array> {
  let bytes = zips.get(url);
  if (!bytes) {
    const resp = await fetch(url);
    if (!resp.ok) throw new Error(`GET ${url}: HTTP ${resp.status}`);
    bytes = new Uint8Array(await resp.arrayBuffer());
    zips.set(url, bytes);
  }
  return bytes;
}

export interface BenchPage {
  ready: boolean;
  crossOriginIsolated: boolean;
  names(): string[];
  importZip(name: string, zipUrl: string): Promise<ImportResult>;
  readFile(name: string, entry: string): Promise<ReadResult | null>;
  cleanup(name: string): Promise<void>;
  importPack(zipUrl: string): Promise<string>;
  coldStartOnce(db: string, helloUrl: string, dists: string[]): ReturnType<typeof coldStartOnce>;
  listOnce(db: string, dists: string[], rawFirst: boolean): ReturnType<typeof listOnce>;
  memoryBench(packUrl: string, largeUrl: string, largeMB: number): ReturnType<typeof memoryBench>;
}

const bench: BenchPage = {
  ready: true,
  crossOriginIsolated: globalThis.crossOriginIsolated === true,
  names,
  async importZip(name, zipUrl) {
    const zip = await fetchZip(zipUrl); // not timed: bytes already in memory, as after a file picker
    return get(name).importZip(zip);
  },
  async readFile(name, entry) {
    const b = get(name);
    return b.readFile ? b.readFile(entry) : null;
  },
  async cleanup(name) {
    await get(name).cleanup?.();
  },
  async importPack(zipUrl) {
    return importPack(await fetchZip(zipUrl));
  },
  coldStartOnce,
  listOnce,
  async memoryBench(packUrl, largeUrl, largeMB) {
    return memoryBench(await fetchZip(packUrl), await fetchZip(largeUrl), largeMB);
  },
};

declare global {
  interface Window {
    bench: BenchPage;
  }
}
window.bench = bench;
