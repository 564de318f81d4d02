// The offscreen document: where the service-worker host runs skills'
// modules. A Chrome MV3 service worker has no Worker constructor, and a
// skill's module must run in a dedicated Worker it can terminate (see
// docs/architecture.md, "Skills that run"), so the host hands each run to
// this document (offscreenRunner), which runs it with the bridge's own
// workerRunner and answers. The bytes cross chrome.runtime messaging,
// which is JSON, as base64.

import { fromBase64, toBase64 } from '../../js/base64.ts';
import { workerRunner, type Execution, type WasiOutcome, type WasiRunner } from '../../js/wasi.ts';
import { chrome } from './chrome.ts';

interface RunMessage { t: 'wasi-run'; id: string; x: Execution; bytes: string }
interface AbortMessage { t: 'wasi-abort'; id: string }
type Answer = Omit<WasiOutcome, 'stdout' | 'stderr'> & { stdout: string; stderr: string };

/** The service worker's runner: each run goes to the offscreen document,
 * which is created on the first run. */
export function offscreenRunner(): WasiRunner {
  let ready: Promise<void> | undefined;
  const ensure = () =>
    (ready ??= chrome.offscreen!.createDocument({
      url: 'offscreen.html',
      reasons: ['WORKERS'],
      justification: "runs skills' WebAssembly modules in Workers it can stop",
    }).catch((e: unknown) => {
      // Already there (a worker restarted while it lived) is fine.
      if (!/single offscreen document/i.test(String((e as Error)?.message))) {
        ready = undefined;
        throw e;
      }
    }));
  let next = 0;
  return {
    async run(x, bytes, signal) {
      await ensure();
      const id = `${Date.now()}-${++next}`;
      const onAbort = () => void chrome.runtime.sendMessage({ t: 'wasi-abort', id } satisfies AbortMessage).catch(() => {});
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const a = (await chrome.runtime.sendMessage({ t: 'wasi-run', id, x, bytes: toBase64(bytes) } satisfies RunMessage)) as Answer | undefined;
        signal?.throwIfAborted();
        if (!a) throw new Error('the offscreen document did not answer');
        return { ...a, stdout: fromBase64(a.stdout), stderr: fromBase64(a.stderr) };
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}

/** In the offscreen document: runs what the service worker sends. */
export function serveRuns(): void {
  const runner = workerRunner('wasi-worker.js');
  const running = new Map<string, AbortController>();
  chrome.runtime.onMessage.addListener((m, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id) return;
    const msg = m as RunMessage | AbortMessage;
    if (msg.t === 'wasi-abort') {
      running.get(msg.id)?.abort();
      return;
    }
    if (msg.t !== 'wasi-run') return;
    const ctl = new AbortController();
    running.set(msg.id, ctl);
    runner.run(msg.x, fromBase64(msg.bytes), ctl.signal).then(
      (o) => sendResponse({ ...o, stdout: toBase64(o.stdout), stderr: toBase64(o.stderr) } satisfies Answer),
      () => sendResponse(undefined),
    ).finally(() => running.delete(msg.id));
    return true;
  });
}

if (typeof document !== 'undefined' && document.documentElement.dataset.offscreen === 'skillfs') serveRuns();
