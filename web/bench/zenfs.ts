// The peer stack: what the AIPex extension does to import a skills zip.
// @zenfs/core with @zenfs/dom's IndexedDB backend mounted at /skills, the zip
// unpacked with fflate's unzipSync, then for each entry mkdir -p of its parent
// and fs.promises.writeFile (text files decoded to strings first, as AIPex's
// extractZipToFS does). Each writeFile closes its handle, which commits the
// backend's IndexedDB transaction and waits for its 'complete' event, so the
// last await is the durability point; there is nothing else to flush.
//
// Differences from AIPex, none of which changes the cost measured: one
// store per run (a fresh database name) instead of "aipex-skills-fs", files
// go to /skills/<zip path> (AIPex strips a shared top-level folder and writes
// under /skills/<skill id>), and no separate metadata database is written.

import { configure, fs, mounts, umount } from '@zenfs/core';
import { IndexedDB } from '@zenfs/dom';
import { strFromU8, unzipSync } from 'fflate';
import { isJunkEntry, type Benchmark, type ImportResult, type ReadResult } from './registry.ts';

const MOUNT = '/skills';
const TEXT = /\.(md|txt|js|ts|json|css|html|xml|yaml|yml)$/i;

let lastStore: string | null = null;
const stores: string[] = [];

async function mountStore(storeName: string): Promise<void> {
  if (mounts.has(MOUNT)) umount(MOUNT);
  await configure({ mounts: { [MOUNT]: { backend: IndexedDB, storeName } } });
}

async function exists(path: string): Promise<boolean> {
  try {
    await fs.promises.stat(path);
    return true;
  } catch {
    return false;
  }
}

export async function zenfsImport(zipBytes: Uint8Array): Promise<ImportResult> {
  const storeName = `bench-zenfs-${Date.now()}-${Math.random().toString(36).slice(2, 10)}`;
  const t0 = performance.now();

  // zenfs.initialize(): configure the mount, mkdir -p /skills.
  await mountStore(storeName);
  await fs.promises.mkdir(MOUNT, { recursive: true });
  const setupMs = performance.now() - t0;

  // extractZipToFS(zip, targetPath, checkConflict = true)
  // AIPex refuses to overwrite an existing skill folder: one stat per
  // top-level folder of the zip.
  const target = MOUNT;
  const unzipped = unzipSync(zipBytes);
  const paths = Object.keys(unzipped).filter((p) => !isJunkEntry(p));
  for (const top of new Set(paths.map((p) => p.split('/')[0]))) {
    if (await exists(`${target}/${top}`)) throw new Error(`skill ${top} already exists`);
  }
  await fs.promises.mkdir(target, { recursive: true });

  let files = 0;
  let bytes = 0;
  for (const path of paths) {
    const data = unzipped[path];
    if (!data) continue;
    if (path.endsWith('/')) continue; // directory entry
    const full = `${target}/${path}`;
    const parent = full.substring(0, full.lastIndexOf('/'));
    if (parent && parent !== target) await fs.promises.mkdir(parent, { recursive: true });
    if (TEXT.test(path)) await fs.promises.writeFile(full, strFromU8(data));
    else await fs.promises.writeFile(full, data);
    files++;
    bytes += data.length;
  }

  const ms = performance.now() - t0;
  lastStore = storeName;
  stores.push(storeName);
  return { ms, files, bytes, setupMs };
}

/** Cold read: remount the last store from IndexedDB (ZenFS preloads every record at mount), then read. */
export async function zenfsReadFile(entry: string): Promise<ReadResult> {
  if (!lastStore) throw new Error('zenfsReadFile: nothing imported yet');
  const t0 = performance.now();
  await mountStore(lastStore);
  const t1 = performance.now();
  const data = await fs.promises.readFile(`${MOUNT}/${entry}`);
  const t2 = performance.now();
  return { mountMs: t1 - t0, ms: t2 - t1, bytes: data.byteLength };
}

async function cleanup(): Promise<void> {
  if (mounts.has(MOUNT)) umount(MOUNT);
  // ZenFS never closes its IDBDatabase, so deleteDatabase may stay blocked
  // until the page goes away; don't wait for it (the profile is temporary).
  for (const name of stores.splice(0)) indexedDB.deleteDatabase(name);
  lastStore = null;
}

export const zenfs: Benchmark = { importZip: zenfsImport, readFile: zenfsReadFile, cleanup };
