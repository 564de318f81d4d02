// The JavaScript half of an import (Go's pkg/external, pkg/zipguard's
// Browser): what Go hands over in one call instead of one crossing per
// file, because every crossing into syscall/js costs a few microseconds and
// a finalizer in Go, and WebAssembly memory that an import grows is never
// returned. The bridge passes this module to the Go module at start; Go's
// browser tests load its bundle (internal/jsoutside).
//
// docs/architecture.md#import explains the whole path.

import { inflateSync } from "fflate";

/** How long a loop runs before it yields to the event loop: well under the
 * 50 ms the browser counts as a long task, as Go's pkg/pace, since a slice
 * of Go's and one of these can run with no turn of the page's between. */
const sliceMs = 8;

/** Returns to the event loop and comes back in a later task: a message is
 * a task of its own, without the clamping of nested timers. */
function yieldTask(): Promise<void> {
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      ch.port1.close();
      resolve();
    };
    ch.port2.postMessage(null);
  });
}

/** When the task running now began, as far as this module can tell: when
 * the first of its handlers in this task ran, which posts a message that
 * comes back in a later task. Chromium may dispatch several IndexedDB
 * replies in one task, each running a handler of a commit, so a slice
 * measures from this, not from its own start. */
let taskBegan = -Infinity;
let inTask = false;

function taskStart(): number {
  if (!inTask) {
    taskBegan = performance.now();
    inTask = true;
    void yieldTask().then(() => (inTask = false));
  }
  return taskBegan;
}

/** A pacer: `await pace()` in a loop yields once sliceMs has passed, and
 * at its first call: Go calls these loops from a task it has already run
 * in for up to its own slice, so their first slice starts a task of its
 * own instead of adding to Go's. */
function pacer(): () => Promise<void> | undefined {
  let last = -Infinity;
  return () => {
    const now = performance.now();
    if (now - last < sliceMs) return undefined;
    return yieldTask().then(() => {
      last = performance.now();
    });
  };
}

let crcTable: Int32Array | undefined;

/** CRC-32 (IEEE) of b, continuing from prev, the CRC-32 of what came
 * before it; slicing by sixteen, reading four little-endian words at a
 * time through a DataView (any alignment, any platform): about 2.5 times
 * as fast here as slicing by eight read byte by byte, and faster than
 * DecompressionStream's native check of a stored entry framed as gzip. */
export function crc32(b: Uint8Array, prev = 0): number {
  if (!crcTable) {
    crcTable = new Int32Array(16 * 256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
    for (let n = 0; n < 256; n++) {
      for (let t = 1; t < 16; t++) crcTable[t * 256 + n] = (crcTable[(t - 1) * 256 + n]! >>> 8) ^ crcTable[crcTable[(t - 1) * 256 + n]! & 0xff]!;
    }
  }
  const T = crcTable;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let c = ~prev;
  let i = 0;
  const n16 = b.length & ~15;
  for (; i < n16; i += 16) {
    c ^= v.getInt32(i, true);
    const d = v.getInt32(i + 4, true);
    const e = v.getInt32(i + 8, true);
    const f = v.getInt32(i + 12, true);
    c =
      T[3840 + (c & 0xff)]! ^ T[3584 + ((c >>> 8) & 0xff)]! ^ T[3328 + ((c >>> 16) & 0xff)]! ^ T[3072 + (c >>> 24)]! ^
      T[2816 + (d & 0xff)]! ^ T[2560 + ((d >>> 8) & 0xff)]! ^ T[2304 + ((d >>> 16) & 0xff)]! ^ T[2048 + (d >>> 24)]! ^
      T[1792 + (e & 0xff)]! ^ T[1536 + ((e >>> 8) & 0xff)]! ^ T[1280 + ((e >>> 16) & 0xff)]! ^ T[1024 + (e >>> 24)]! ^
      T[768 + (f & 0xff)]! ^ T[512 + ((f >>> 8) & 0xff)]! ^ T[256 + ((f >>> 16) & 0xff)]! ^ T[f >>> 24]!;
  }
  for (; i < b.length; i++) c = T[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** The fields of one entry in inflate's description, in this order. */
const fields = 5;

/** Deflated entries inflated here, synchronously, have a declared size
 * below smallSize and fewer compressed bytes than smallPacked: a
 * stream that lies about its size costs at most ~1,032 output bytes per
 * compressed byte before it is found out, ~33 MB here, tens of
 * milliseconds. Larger ones go to DecompressionStream, which stops them
 * at their declared size. */
const smallSize = 64 << 10;
const smallPacked = 32 << 10;

/** The output buffer of a small entry: exactly its declared size, since
 * IndexedDB clones a view's whole buffer (a buffer one byte longer, cut
 * to size by ArrayBuffer.prototype.transfer, cost a copy per file). With
 * a buffer given, fflate's inflateSync writes what fits, counts every
 * byte the stream holds, and returns `out.subarray(0, count)`: that call
 * tells the count, so a stream longer than declared still shows (and
 * the view handed on is a plain Uint8Array, not this). It is not called
 * for an empty input, which leaves the count at -1. */
class Counted extends Uint8Array {
  count = -1;
  override subarray(_begin?: number, end?: number): this {
    this.count = end ?? -1;
    return this;
  }
}

/** Whether the deflate stream in packed, which inflates to size bytes,
 * ends before its last byte: then it inflates without that byte too
 * (fflate tells no stream's end). A second pass: see mayHide for the
 * entries that pay it. */
function endsEarly(packed: Uint8Array, size: number): boolean {
  try {
    inflateSync(packed.subarray(0, packed.length - 1), { out: new Uint8Array(size) });
    return true;
  } catch {
    return false;
  }
}

/** Whether the bytes b, an entry's compressed data and the three bytes
 * after it, hold a local file header's or a data descriptor's signature.
 * Bytes after an entry's deflate stream and before its data descriptor
 * can show a reader that streams the archive other entries only through
 * one (docs/archives.md); compressed data holds one by chance once in
 * 2^31 positions, so the second pass of endsEarly, which every entry of
 * a download written by Go's or Java's zip writers would otherwise pay,
 * runs almost never. */
function mayHide(b: Uint8Array): boolean {
  for (let i = b.indexOf(0x50); i >= 0 && i + 3 < b.length; i = b.indexOf(0x50, i + 1)) {
    if (b[i + 1] === 0x4b && ((b[i + 2] === 3 && b[i + 3] === 4) || (b[i + 2] === 7 && b[i + 3] === 8))) return true;
  }
  return false;
}

/** gzip member header: deflate, no flags, no time, no OS. */
const gzipHeader = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/** How much of a stored entry is checked between two chances to yield. */
const storedChunk = 1 << 20;

/** The compressed bytes DecompressionStream gets at a time: the browser
 * inflates each piece in one go, on this thread, so a piece takes at most
 * a few milliseconds of the task that feeds it (~1,032 output bytes per
 * compressed byte, ~33 MB, for a stream that lies). */
const streamPiece = 32 << 10;

/** Inflates one deflated entry through the browser's DecompressionStream,
 * framed as a gzip member whose trailer holds the declared CRC-32 and
 * size, so that the browser checks both natively; a counting step stops
 * it as soon as it yields more than declared. The pieces are fed one at a
 * time, each after `pace`, so that a large entry spreads over tasks. */
async function inflateStream(data: Uint8Array, size: number, crc: number, pace: () => Promise<void> | undefined): Promise<Uint8Array | null> {
  try {
    return await inflateStreamOrThrow(data, size, crc, pace);
  } catch {
    return null; // Go reads it again and names the fault
  }
}

async function inflateStreamOrThrow(data: Uint8Array, size: number, crc: number, pace: () => Promise<void> | undefined): Promise<Uint8Array | null> {
  const trailer = new Uint8Array(8);
  const dv = new DataView(trailer.buffer);
  dv.setUint32(0, crc, true);
  dv.setUint32(4, size % 2 ** 32, true);
  // Views of the archive, whose buffer is a fixed-length ArrayBuffer (the
  // caller's; importZip copies a shared or resizable one).
  const pieces = [gzipHeader] as Uint8Array<ArrayBuffer>[];
  for (let at = 0; at < data.byteLength; at += streamPiece) pieces.push(data.subarray(at, at + streamPiece) as Uint8Array<ArrayBuffer>);
  pieces.push(trailer);
  let next = 0;
  const source = new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      async pull(ctl) {
        const p = pace();
        if (p) await p;
        if (next < pieces.length) ctl.enqueue(pieces[next++]!);
        else ctl.close();
      },
    },
    { highWaterMark: 0 },
  );
  let left = size;
  const count = new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>>({
    transform(chunk, ctl) {
      left -= chunk.byteLength;
      if (left < 0) ctl.error(new Error("the entry inflates past its declared size"));
      else ctl.enqueue(chunk);
    },
  });
  const inflated = source.pipeThrough(new DecompressionStream("gzip")).pipeThrough(count);
  const out = new Uint8Array(await new Response(inflated).arrayBuffer());
  return out.byteLength === size ? out : null;
}

/**
 * Inflates (or, for stored ones, checks) the entries of the zip archive
 * that `entries` describes, five numbers each: the offset of its data,
 * its compressed size, its declared size, its declared CRC-32, and 1 if
 * stored, 0 if deflated, 2 if deflated with a data descriptor after it
 * (its stream must end exactly at its compressed size: a reader that
 * streams the archive reads what follows the stream as the descriptor
 * and the entries after it). Resolves to `files`, with for each entry its
 * content in a buffer of its own, or null where it does not inflate to
 * exactly its declared size and CRC-32 — and for every small entry after
 * the first such one — and `ok`, 1 for each entry inflated, 0 for the
 * others: Go reads the null entries again, in archive order,
 * to name the fault, so that hostile input costs no more than one entry's
 * worth here. Yields to the event loop every few milliseconds.
 *
 * The archive is the caller's, which it may change or detach meanwhile:
 * every content is checked in a buffer of its own (a stored one is
 * copied before its CRC-32 is computed), and a detached archive makes
 * this reject or give nulls, which Go reads again and finds gone.
 */
export async function inflate(archive: Uint8Array, entries: Float64Array): Promise<{ files: (Uint8Array | null)[]; ok: Uint8Array }> {
  const n = entries.length / fields;
  const out: (Uint8Array | null)[] = new Array(n).fill(null);
  const at = (i: number) => {
    const e = entries.subarray(i * fields, (i + 1) * fields);
    return { off: e[0]!, packed: e[1]!, size: e[2]!, crc: e[3]!, stored: e[4] === 1, descriptor: e[4] === 2 };
  };
  const small = (e: ReturnType<typeof at>) => e.size < smallSize && e.packed < smallPacked;
  // One pacer, one entry at a time: the browser inflates a stream on this
  // thread too, and streams run side by side would put their pieces in
  // one task.
  const pace = pacer();
  for (let i = 0; i < n; i++) {
    const e = at(i);
    if (e.stored || small(e)) continue;
    out[i] = await inflateStream(archive.subarray(e.off, e.off + e.packed), e.size, e.crc, pace);
  }
  for (let i = 0; i < n; i++) {
    const e = at(i);
    let b: Uint8Array;
    let crc = 0;
    if (e.stored) {
      if (e.packed !== e.size) break;
      // Copied and checked here, in slices: faster than a round through
      // DecompressionStream.
      b = archive.slice(e.off, e.off + e.size);
      for (let k = 0; k < e.size; k += storedChunk) {
        crc = crc32(b.subarray(k, k + storedChunk), crc);
        const p = pace();
        if (p) await p;
      }
    } else if (!small(e)) {
      continue;
    } else {
      const o = new Counted(e.size);
      const packed = archive.subarray(e.off, e.off + e.packed);
      try {
        inflateSync(packed, { out: o });
      } catch {
        break;
      }
      if (o.count !== e.size) break;
      if (e.descriptor && mayHide(archive.subarray(e.off, e.off + e.packed + 3)) && endsEarly(packed, e.size)) break;
      b = new Uint8Array(o.buffer);
      crc = crc32(b);
    }
    if (crc !== e.crc) break;
    out[i] = b;
    const p = pace();
    if (p) await p;
  }
  return { files: out, ok: Uint8Array.from(out, (b) => (b ? 1 : 0)) };
}

/** Contents described for one call (Go's external.Pack): two numbers
 * each in `where`, an offset and a length in `bytes` (content held in
 * Go), or an index in `values` and -1, or an index in `lists[k]` and
 * -2-k (content held here). */
interface Pack {
  where: Int32Array;
  bytes: Uint8Array;
  values: Uint8Array[];
  lists: Uint8Array[][];
}

/** Content k of p: a view of p.bytes for content held in Go. */
function contentOf(p: Pack, k: number): Uint8Array {
  const a = p.where[2 * k]!;
  const n = p.where[2 * k + 1]!;
  if (n >= 0) return p.bytes.subarray(a, a + n);
  return n === -1 ? p.values[a]! : p.lists[-2 - n]![a]!;
}

/** What commit reports once it has issued every request, or stopped; and
 * how more requests are added to it. */
export interface Issued {
  /** The exception that stopped the issuing (the transaction is aborted). */
  error?: unknown;
  /** Whether it aborted the transaction because it was asked to (Go's
   * FailAfter test hook). */
  aborted?: boolean;
  /** Adds requests, described as commit's are, after those already given;
   * `more` says whether still more will follow. Ignored once the
   * transaction has ended. */
  add(keys: string, ops: Int32Array, values: Pack, issue: number, abortAfter: boolean, more: boolean): void;
}

/** Requests given to commit and not all issued yet. */
interface Batch {
  key: string[];
  ops: Int32Array;
  values: Pack;
  issue: number;
  abortAfter: boolean;
  next: number;
}

/**
 * Issues a commit's requests on the readwrite transaction tx (Go's
 * pkg/vfs IndexedDB.Commit and CommitThen), all described at once: `ops`
 * holds two numbers per operation, its kind (1 put, 2 delete, 3 delete by
 * key prefix) and the index of its store in `stores`; `values` each put's
 * value (and nothing for the others). `keys` are the operations' keys
 * joined by U+FFFF, which no key holds. Only the first `issue` operations
 * are issued; with `abortAfter` the transaction is then aborted.
 *
 * Issuing a request copies its value on the calling task (IndexedDB clones
 * it), so the requests are issued in slices of a few milliseconds, each
 * next slice from the success event of the previous slice's first request:
 * the transaction is active during its own requests' events and no other
 * task sees it in between. It stays one transaction; the caller awaits its
 * complete or abort event, and reads the returned object once it has.
 *
 * With `more`, further requests will be added (Issued.add) once the caller
 * knows them (an import's records, once its digests are): until then a
 * request after the last keeps the transaction from committing, each from
 * the success event of the one before, which IndexedDB answers only once
 * the writes before it are done. Once they are, it is asked again at each
 * answer: some thousands of small tasks a second (3,500-6,500 in Chromium
 * here) while Go waits, the price of a transaction kept open with nothing
 * to do, which the second part's work keeps short.
 */
export function commit(
  tx: IDBTransaction,
  stores: string[],
  keys: string,
  ops: Int32Array,
  values: Pack,
  issue: number,
  abortAfter: boolean,
  more = false,
): Issued {
  const handles = stores.map((s) => tx.objectStore(s));
  const queue: Batch[] = [];
  let open = true; // more requests may be added
  let ended = false; // the transaction completed or aborted
  let waiting = false; // a slice runs from a request's success event
  tx.addEventListener("complete", () => {
    ended = true;
    // Cannot happen while a request keeps it open; were it to, the commit
    // must not pass for whole.
    if (open || queue.length > 0) status.error ??= new Error("the transaction committed before all its requests were issued");
  });
  tx.addEventListener("abort", () => (ended = true));
  const stop = (err?: unknown) => {
    if (err !== undefined) status.error = err;
    else status.aborted = true;
    open = false;
    queue.length = 0;
    try {
      // The transaction is active (this is its task or one of its
      // events), so this abort undoes every request issued.
      tx.abort();
    } catch {
      // already finished
    }
  };
  const slice = () => {
    waiting = false;
    try {
      // Only a slice that issues requests measures: the keep-alive's
      // answers, thousands a second while Go works, need no clock.
      const start = queue.length > 0 ? taskStart() : 0;
      let first: IDBRequest | undefined;
      for (let b = queue[0]; b; b = queue[0]) {
        for (; b.next < b.issue; b.next++) {
          // Every request: a put of a large file copies it on this task.
          if (first && performance.now() - start >= sliceMs) {
            waiting = true;
            first.addEventListener("success", slice);
            return;
          }
          const st = handles[b.ops[2 * b.next + 1]!]!;
          const k = b.key[b.next]!;
          let req: IDBRequest;
          switch (b.ops[2 * b.next]) {
            case 1: {
              const v = contentOf(b.values, b.next);
              // A copy of its own for a view of Go's bytes: IndexedDB
              // clones a view's whole buffer.
              req = st.put(v.buffer === b.values.bytes.buffer ? v.slice() : v, k);
              break;
            }
            case 2:
              req = st.delete(k);
              break;
            default:
              req = st.delete(IDBKeyRange.bound(k, k + "\uffff"));
          }
          first ??= req;
        }
        queue.shift();
        if (b.abortAfter) return stop();
      }
      if (open) {
        // No key holds U+FFFF: a request that reads nothing.
        waiting = true;
        handles[0]!.count("\uffff").addEventListener("success", slice);
      }
    } catch (err) {
      stop(err);
    }
  };
  const status: Issued = {
    add(keys, ops, values, issue, abortAfter, more) {
      if (ended || !open) return;
      queue.push({ key: keys.split("\uffff"), ops, values, issue, abortAfter, next: 0 });
      open = more;
      // Issued by the pending request's success event: this task is
      // not the transaction's.
      if (!waiting) slice();
    },
  };
  status.add(keys, ops, values, issue, abortAfter, more);
  return status;
}

/** How many records a prefix read asks for at a time: each reply is read
 * (its values deserialised) in a task of its own, so that every skill's
 * record, thousands of them, is not one task of the host (5,100 records
 * took ~25 ms of it). */
export const readChunk = 512;

/**
 * A prefix read of store over [lower, upper]: getAllKeys and getAll of at
 * most readChunk records at a time, each next pair issued from the reply
 * to the last, in the one transaction. The keys and values gather in the
 * object returned, whole once the transaction completes (records lays
 * them out).
 */
export function readRange(store: IDBObjectStore, lower: string, upper: string): { keys: unknown[]; values: unknown[] } {
  const got = { keys: [] as unknown[], values: [] as unknown[] };
  const next = (range: IDBKeyRange) => {
    const keys = store.getAllKeys(range, readChunk);
    const values = store.getAll(range, readChunk);
    // The keys' reply comes first: requests are answered in order.
    values.onsuccess = () => {
      const ks = keys.result;
      got.keys.push(...ks);
      got.values.push(...values.result);
      if (ks.length === readChunk) next(IDBKeyRange.bound(ks[ks.length - 1], upper, true));
    };
  };
  next(IDBKeyRange.bound(lower, upper));
  return got;
}

const utf8 = new TextEncoder();
/** Matches what no key written here holds: a surrogate that is not half
 * of a pair (in a /u pattern, a pair is one character), or U+FFFF (Go's
 * checkQuery refuses it: prefix ranges end there). */
const foreignKey = /[\uD800-\uDFFF\uFFFF]/u;

/**
 * The records of a prefix read, getAllKeys' keys and getAll's values, laid
 * out in one buffer for Go to copy in one call (vfs recordsOf): the number
 * of records n, n key lengths and n value lengths (32 bits, little-endian),
 * the keys in UTF-8, then the values. Gives false if a key is not a
 * string or holds a lone surrogate (another program wrote it: in UTF-8 it
 * would read as U+FFFD, a key other than the one stored) or U+FFFF, or the
 * key of the first value that is not bytes.
 */
export function records(keys: unknown[], values: unknown[]): Uint8Array | string | false {
  const n = keys.length;
  if (values.length !== n) return false;
  let room = 4 * (1 + 2 * n);
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    const v = values[i];
    if (typeof k !== "string" || foreignKey.test(k)) return false;
    if (!(v instanceof Uint8Array)) return k;
    room += 3 * k.length + v.byteLength; // UTF-8 takes at most 3 bytes a UTF-16 unit
  }
  const out = new Uint8Array(room);
  const lens = new DataView(out.buffer);
  lens.setUint32(0, n, true);
  let at = 4 * (1 + 2 * n);
  for (let i = 0; i < n; i++) {
    const { written } = utf8.encodeInto(keys[i] as string, out.subarray(at));
    lens.setUint32(4 + 4 * i, written, true);
    at += written;
  }
  for (let i = 0; i < n; i++) {
    const v = values[i] as Uint8Array;
    lens.setUint32(4 + 4 * (n + i), v.byteLength, true);
    out.set(v, at);
    at += v.byteLength;
  }
  return out.subarray(0, at);
}

/**
 * The SHA-256 of each of several lists of parts, each list hashed as the
 * concatenation of its parts, by crypto.subtle (several times faster than
 * Go's WebAssembly), all described at once: `counts` holds the number of
 * parts of each list, `parts` the parts of all of them. Resolves to the
 * sums one after another, 32 bytes each.
 */
export async function digest(counts: Int32Array, parts: Pack): Promise<Uint8Array> {
  const part = (k: number) => contentOf(parts, k);
  const sums: Promise<ArrayBuffer>[] = [];
  let k = 0;
  const pace = pacer();
  // One buffer for every list's join: digest copies its input before it
  // returns, and a fresh buffer a list cost the page its zeroing and,
  // through the garbage collector, its whole size again.
  let join = new Uint8Array(0);
  for (const count of counts) {
    const end = k + count;
    let size = 0;
    for (let j = k; j < end; j++) size += part(j).byteLength;
    if (size > join.byteLength) join = new Uint8Array(size);
    for (let at = 0; k < end; k++) {
      const p = part(k);
      join.set(p, at);
      at += p.byteLength;
    }
    sums.push(crypto.subtle.digest("SHA-256", join.subarray(0, size)));
    const p = pace();
    if (p) await p;
  }
  const out = new Uint8Array(32 * counts.length);
  (await Promise.all(sums)).forEach((s, i) => out.set(new Uint8Array(s), 32 * i));
  return out;
}
