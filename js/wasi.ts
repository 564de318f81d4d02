// js/wasi.ts runs a skill's WebAssembly module (wasm/skill.wasm, WASI
// preview 1) for the host: one dedicated Worker per run (js/wasi-worker.ts,
// shipped as wasi-worker.js beside the bridge), terminated at the run's
// deadline. What the module may see was decided by the module of skillfs
// (pkg/wasmrun, pkg/resolver's PrepareExecution); this file only moves the
// bytes and keeps time. See docs/architecture.md, "Skills that run".

/** A run as the skillfs module prepared it (session.execPrepare). */
export interface Execution {
  token: string;
  id: string;
  name: string;
  digest: string;
  env: string[];
  timeoutMs: number;
  memoryMb: number;
  /** The bytes begin with the capped module, this long… */
  moduleSize: number;
  /** …then the skill's files, in this order, preopened read-only at /skill. */
  files: { path: string; size: number }[];
  grants: { scratch: boolean; permissions: string[]; denied: { tool: string; reason: string }[] };
  stdoutLimit: number;
  stderrLimit: number;
}

/** What a runner saw of a run. */
export interface WasiOutcome {
  /** The exit code; null when the module trapped or was stopped. */
  exit: number | null;
  timeout: boolean;
  /** The engine's message when the module trapped or could not start. */
  trap: string;
  stdout: Uint8Array;
  stderr: Uint8Array;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  startMs: number;
  durationMs: number;
}

/** Runs prepared modules. The host gives one to loadSkillfs (wasiRunner);
 * where the context has Worker, workerRunner is the default. */
export interface WasiRunner {
  run(x: Execution, bytes: Uint8Array, signal?: AbortSignal): Promise<WasiOutcome>;
}

/** The message a run's Worker gets, and its answer. */
export interface WorkerJob {
  x: Execution;
  bytes: Uint8Array;
}
export type WorkerAnswer = Omit<WasiOutcome, "timeout" | "startMs" | "durationMs">;

/** A run's Worker whose script could not be loaded (not served, or not a
 * module): the host's setup, not the skill's module, which never started.
 * The bridge reports it as FetchFailed (worker-unavailable) naming url. */
export class WorkerUnavailable extends Error {
  constructor(readonly url: string) {
    super(`the worker that runs skills' modules could not be loaded from ${url}: serve wasi-worker.js beside the bridge (a bundler such as esbuild does not copy it) or pass loadSkillfs its URL as wasiWorkerURL`);
  }
}

/** Runs each module in a new dedicated Worker loaded from workerURL (the
 * wasi-worker.js shipped beside the bridge), terminated at the deadline:
 * the page and the skillfs module stay responsive, and a module that
 * never ends costs nothing after it. */
export function workerRunner(workerURL: string | URL): WasiRunner {
  return {
    run(x, bytes, signal) {
      return new Promise<WasiOutcome>((resolve, reject) => {
        // A caller that gave up while the run was prepared: no Worker, and
        // no abort event to wait for.
        if (signal?.aborted) return reject(signal.reason);
        const start = performance.now();
        const startMs = Date.now();
        const w = new Worker(workerURL, { type: "module", name: `skillfs skill ${x.id}` });
        const done = (o: Partial<WasiOutcome>) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          w.terminate();
          resolve({
            exit: null, timeout: false, trap: "", stdout: new Uint8Array(), stderr: new Uint8Array(),
            stdoutTruncated: false, stderrTruncated: false, ...o, startMs, durationMs: performance.now() - start,
          });
        };
        const timer = setTimeout(() => done({ timeout: true }), x.timeoutMs);
        const onAbort = () => {
          clearTimeout(timer);
          w.terminate();
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        w.onmessage = (e: MessageEvent<WorkerAnswer>) => done(e.data);
        w.onerror = (e) => {
          e.preventDefault();
          // A script that failed to load or parse fires a plain Event; an
          // error thrown while the module runs, an ErrorEvent.
          if (!(e instanceof ErrorEvent)) {
            clearTimeout(timer);
            signal?.removeEventListener("abort", onAbort);
            w.terminate();
            return reject(new WorkerUnavailable(new URL(workerURL, location.href).href));
          }
          done({ trap: e.message || "the module's worker failed to start" });
        };
        const copy = bytes.slice();
        w.postMessage({ x, bytes: copy } satisfies WorkerJob, [copy.buffer]);
      });
    },
  };
}
