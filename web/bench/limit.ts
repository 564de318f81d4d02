// The limit: what the browser alone does with the same zip bytes in the same
// page, the floor any import stack pays. fflate unzips everything (inflate
// and CRC check), then ONE IndexedDB transaction puts each file's bytes and
// one small record per file, and the import awaits its completion once.
// Nothing is validated, hashed or indexed: skillfs's import within a small
// factor of this is as fast as the platform allows.

import { unzipSync } from 'fflate';
import { isJunkEntry, watchStalls, type Benchmark, type ImportResult } from './registry.ts';

const dbs: string[] = [];

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((ok, fail) => {
    r.onsuccess = () => ok(r.result);
    r.onerror = () => fail(r.error);
  });
}

function openDB(name: string): Promise<IDBDatabase> {
  const r = indexedDB.open(name, 1);
  r.onupgradeneeded = () => {
    r.result.createObjectStore('blobs');
    r.result.createObjectStore('records');
  };
  return request(r);
}

export const limit: Benchmark = {
  async importZip(zip: Uint8Array): Promise<ImportResult> {
    const name = `bench-limit-${Date.now()}-${Math.random().toString(36).slice(2, 10)}`;
    dbs.push(name);
    const t0 = performance.now();
    const db = await openDB(name);
    const setupMs = performance.now() - t0;
    const stalls = watchStalls();
    const entries = unzipSync(zip);
    const tx = db.transaction(['blobs', 'records'], 'readwrite');
    const blobs = tx.objectStore('blobs');
    const records = tx.objectStore('records');
    let files = 0;
    let bytes = 0;
    for (const [path, data] of Object.entries(entries)) {
      if (path.endsWith('/') || isJunkEntry(path)) continue;
      blobs.put(data, path);
      records.put({ path, size: data.length }, path);
      files++;
      bytes += data.length;
    }
    await new Promise<void>((ok, fail) => {
      tx.oncomplete = () => ok();
      tx.onerror = () => fail(tx.error);
      tx.onabort = () => fail(tx.error ?? new Error('transaction aborted'));
    });
    const ms = performance.now() - t0;
    db.close();
    return { ms, setupMs, ...stalls.stop(), files, bytes };
  },

  async cleanup() {
    for (const name of dbs.splice(0)) await request(indexedDB.deleteDatabase(name)).catch(() => {});
  },
};
