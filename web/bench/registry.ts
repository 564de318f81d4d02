// The benchmark registry the bench page exposes to the Node driver (run.mjs).
//
// Extension point: a stack under test is one module that calls register()
// with a name and a Benchmark, imported from page.ts. The driver runs every
// registered benchmark in the same page and browser, interleaved run by run,
// and prints one row each; the first registered one ("zenfs") is the baseline
// for the ratio column.

/** Outcome of importing one zip. */
export interface ImportResult {
  /** Wall time from zip bytes in memory to every file durably stored. */
  ms: number;
  /** Files written (directories not counted). */
  files: number;
  /** Uncompressed bytes written. */
  bytes: number;
  /** Part of `ms` spent creating and opening the empty store, if the stack reports it. */
  setupMs?: number;
  /** The longest the page's event loop was blocked during the import, if measured. */
  maxStallMs?: number;
  /** The durations of the page's tasks over 50 ms during the import (the
   * Long Tasks API), if measured: the target is none. */
  longTasksMs?: number[];
}

/** Outcome of one cold read. */
export interface ReadResult {
  /** Time to open the stored data again from IndexedDB (mount, open, preload...). */
  mountMs: number;
  /** Time to read the file once the store is open. */
  ms: number;
  /** Bytes returned. */
  bytes: number;
}

export interface Benchmark {
  /**
   * Import a skills zip into a fresh, empty store (a new database each call)
   * and resolve only once everything is durable in IndexedDB.
   */
  importZip(zip: Uint8Array): Promise<ImportResult>;
  /**
   * Cold read: reopen the store the last importZip wrote, as a new page
   * would, and read `entry` — a file name exactly as it appears in the zip.
   */
  readFile?(entry: string): Promise<ReadResult>;
  /** Delete what the runs stored (not timed). */
  cleanup?(): Promise<void>;
}

const registry = new Map<string, Benchmark>();

export function register(name: string, bench: Benchmark): void {
  if (registry.has(name)) throw new Error(`benchmark ${name} registered twice`);
  registry.set(name, bench);
}

export function get(name: string): Benchmark {
  const b = registry.get(name);
  if (!b) throw new Error(`no benchmark named ${name}; have: ${[...registry.keys()].join(', ')}`);
  return b;
}

export function names(): string[] {
  return [...registry.keys()];
}

/** Whether a zip entry is one AIPex would skip (macOS metadata, Thumbs.db...). */
export function isJunkEntry(path: string): boolean {
  if (path.includes('__MACOSX/') || path.includes('/._')) return true;
  if (path.split('/').some((part) => part.startsWith('._'))) return true;
  return path.includes('.DS_Store') || path.includes('Thumbs.db');
}

/** How responsive the page stays until stop(): the longest gap between
 * turns of its event loop, sampled with a zero-delay timer chain, and the
 * tasks over 50 ms the browser reports. The gap can be longer than any
 * one task: the browser may run several tasks (messages, IndexedDB
 * events) before a timer's. */
export function watchStalls(): { stop(): { maxStallMs: number; longTasksMs: number[] } } {
  const longTasksMs: number[] = [];
  const take = (es: PerformanceEntryList) => es.forEach((e) => longTasksMs.push(e.duration));
  const observer = new PerformanceObserver((list) => take(list.getEntries()));
  observer.observe({ type: 'longtask' });
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
      take(observer.takeRecords());
      observer.disconnect();
      return { maxStallMs: Math.max(worst, performance.now() - last), longTasksMs };
    },
  };
}
