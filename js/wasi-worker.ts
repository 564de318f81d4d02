// The Worker one run of a skill's module lives in (see js/wasi.ts): WASI
// preview 1 by @bjorn3/browser_wasi_shim, the skill's files preopened
// read-only at /skill, a writable /scratch only when the run was granted
// one (holding at most the run's memory cap), nothing else. Every byte
// here is a copy that dies with the Worker: a module can change nothing
// stored.

import { ConsoleStdout, Directory, File, OpenDirectory, OpenFile, PreopenDirectory, WASI, wasi, type Fd, type Inode } from "@bjorn3/browser_wasi_shim";
import type { WorkerAnswer, WorkerJob } from "./wasi.js";

type DirClass = new (...args: any[]) => OpenDirectory;

/** A directory through which nothing can be created, removed, linked or
 * opened for writing (EROFS), nor can any directory opened through it. */
function readOnly<B extends DirClass>(Base: B) {
  return class extends Base {
    override path_open(dirflags: number, path: string, oflags: number, rights: bigint, inheriting: bigint, fdflags: number): { ret: number; fd_obj: Fd | null } {
      if (oflags & (wasi.OFLAGS_CREAT | wasi.OFLAGS_TRUNC) || rights & BigInt(wasi.RIGHTS_FD_WRITE)) return { ret: wasi.ERRNO_ROFS, fd_obj: null };
      const r = super.path_open(dirflags, path, oflags, rights, inheriting, fdflags);
      if (r.fd_obj instanceof OpenDirectory && !(r.fd_obj instanceof ReadOnlyDir)) return { ret: r.ret, fd_obj: new ReadOnlyDir(r.fd_obj.dir) };
      return r;
    }
    override path_create_directory(): number { return wasi.ERRNO_ROFS; }
    override path_link(): number { return wasi.ERRNO_ROFS; }
    override path_unlink(): { ret: number; inode_obj: Inode | null } { return { ret: wasi.ERRNO_ROFS, inode_obj: null }; }
    override path_unlink_file(): number { return wasi.ERRNO_ROFS; }
    override path_remove_directory(): number { return wasi.ERRNO_ROFS; }
  };
}
const ReadOnlyDir = readOnly(OpenDirectory);
const ReadOnlyPreopen = readOnly(PreopenDirectory);

// Files' bytes in this Worker. /skill's are read-only and never change,
// stdin is empty: every File that is written is one of /scratch, whose
// bytes count against the run's limit (its memory cap). The shim grows
// and truncates files by assigning File.data, from several places (writes,
// O_TRUNC, ftruncate): one accessor sees them all.
const scratch = { used: 0, limit: 0 };
const bytesOf = new WeakMap<File, Uint8Array>();
Object.defineProperty(File.prototype, "data", {
  get(this: File) {
    return bytesOf.get(this);
  },
  set(this: File, d: Uint8Array) {
    // The constructor sets data before readonly: a new File counts from
    // its first change (scratch files start empty).
    if (this.readonly === false) scratch.used += d.byteLength - (bytesOf.get(this)?.byteLength ?? 0);
    bytesOf.set(this, d);
  },
});

// A descriptor may not resize a read-only file (the shim checks only
// writes), nor grow a scratch file past the limit: EBADF and ENOSPC, as a
// POSIX file system says.
const { fd_write, fd_pwrite, fd_allocate, fd_filestat_set_size } = OpenFile.prototype;
const fits = (f: OpenFile, end: bigint) => end <= f.file.size || scratch.used + Number(end - f.file.size) <= scratch.limit;
Object.assign(OpenFile.prototype, {
  fd_write(this: OpenFile, data: Uint8Array) {
    if (!this.file.readonly && !fits(this, this.file_pos + BigInt(data.byteLength))) return { ret: wasi.ERRNO_NOSPC, nwritten: 0 };
    return fd_write.call(this, data);
  },
  fd_pwrite(this: OpenFile, data: Uint8Array, offset: bigint) {
    if (!this.file.readonly && !fits(this, offset + BigInt(data.byteLength))) return { ret: wasi.ERRNO_NOSPC, nwritten: 0 };
    return fd_pwrite.call(this, data, offset);
  },
  fd_allocate(this: OpenFile, offset: bigint, len: bigint) {
    if (this.file.readonly) return wasi.ERRNO_BADF;
    return fits(this, offset + len) ? fd_allocate.call(this, offset, len) : wasi.ERRNO_NOSPC;
  },
  fd_filestat_set_size(this: OpenFile, size: bigint) {
    if (this.file.readonly) return wasi.ERRNO_BADF;
    return fits(this, size) ? fd_filestat_set_size.call(this, size) : wasi.ERRNO_NOSPC;
  },
});

/** The skill's files as a tree of read-only files. */
function tree(job: WorkerJob): Map<string, Inode> {
  const root = new Map<string, Inode>();
  let off = job.x.moduleSize;
  for (const f of job.x.files) {
    const data = job.bytes.subarray(off, off + f.size);
    off += f.size;
    const parts = f.path.split("/");
    let dir = root;
    for (const p of parts.slice(0, -1)) {
      let d = dir.get(p);
      if (!(d instanceof Directory)) dir.set(p, (d = new Directory(new Map())));
      dir = (d as Directory).contents;
    }
    dir.set(parts.at(-1)!, new File(data, { readonly: true }));
  }
  // Directory links each child to its parent when built: rebuild from the leaves.
  const link = (m: Map<string, Inode>): Map<string, Inode> =>
    new Map([...m].map(([k, v]) => [k, v instanceof Directory ? new Directory(link(v.contents)) : v]));
  return link(root);
}

/** How many descriptors a module may hold open, as a ulimit would. */
const maxFds = 1024;

/** path_open takes the lowest free descriptor, as POSIX's open does: the
 * shim only appends, so a module that opens and closes files would grow
 * its table (the Worker's memory) without end. Past maxFds open: ENFILE. */
function lowestFds(w: WASI): void {
  const open = w.wasiImport.path_open as (...a: unknown[]) => number;
  w.wasiImport.path_open = (...a: unknown[]) => {
    const free = w.fds.indexOf(undefined as unknown as Fd);
    if (free < 0 && w.fds.length >= maxFds) return wasi.ERRNO_NFILE;
    const ret = open(...a);
    if (ret === wasi.ERRNO_SUCCESS && free >= 0) {
      w.fds[free] = w.fds.pop()!;
      new DataView(w.inst.exports.memory.buffer).setUint32(a[8] as number, free, true);
    }
    return ret;
  };
}

/** Collects output up to limit bytes, and says whether more came. */
function capture(limit: number) {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const c = {
    truncated: false,
    fd: new ConsoleStdout((b) => {
      const room = limit - size;
      if (b.length > room) c.truncated = true;
      if (room > 0) {
        const part = b.slice(0, room);
        chunks.push(part);
        size += part.length;
      }
    }),
    bytes(): Uint8Array {
      const out = new Uint8Array(size);
      let o = 0;
      for (const ch of chunks) {
        out.set(ch, o);
        o += ch.length;
      }
      return out;
    },
  };
  return c;
}

self.onmessage = async (e: MessageEvent<WorkerJob>) => {
  const job = e.data;
  scratch.limit = job.x.memoryMb << 20;
  const stdout = capture(job.x.stdoutLimit);
  const stderr = capture(job.x.stderrLimit);
  const fds: Fd[] = [new OpenFile(new File(new Uint8Array(), { readonly: true })), stdout.fd, stderr.fd, new ReadOnlyPreopen("/skill", tree(job))];
  if (job.x.grants.scratch) fds.push(new PreopenDirectory("/scratch", new Map()));
  const answer: WorkerAnswer = { exit: null, trap: "", stdout: new Uint8Array(), stderr: new Uint8Array(), stdoutTruncated: false, stderrTruncated: false };
  try {
    const w = new WASI([job.x.id], job.x.env, fds);
    lowestFds(w);
    const module = await WebAssembly.compile(job.bytes.subarray(0, job.x.moduleSize) as Uint8Array<ArrayBuffer>);
    const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: w.wasiImport });
    answer.exit = w.start(instance as unknown as Parameters<WASI["start"]>[0]);
  } catch (err) {
    answer.trap = String((err as Error)?.message ?? err);
  }
  answer.stdout = stdout.bytes();
  answer.stderr = stderr.bytes();
  answer.stdoutTruncated = stdout.truncated;
  answer.stderrTruncated = stderr.truncated;
  (self as unknown as Worker).postMessage(answer, [answer.stdout.buffer, answer.stderr.buffer]);
};
