// A static file server for browser tests and benchmarks: node:http only,
// 127.0.0.1, a free port, correct MIME types (application/wasm for .wasm so
// WebAssembly.instantiateStreaming works), no caching, no directory listings.

import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** @type {Record<string, string>} */
export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
};

const ISOLATION_HEADERS = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * @typedef {object} ServeOptions
 * @property {string} root  Directory served at "/".
 * @property {Record<string, string>} [routes]  Extra mounts checked before root:
 *   a key ending in "/" maps a URL prefix to a directory ("/dist/": "/abs/dist");
 *   any other key maps one URL path to one file ("/input.zip": "/tmp/x.zip").
 * @property {number} [port]  Port to listen on (default 0: a free one).
 * @property {number} [timeoutMs]  Bound on listen() (default 10 s).
 * @property {(line: string) => void} [log]  Called with one line per request (default: silent).
 * @property {boolean} [isolate]  Send COOP/COEP headers so pages are crossOriginIsolated
 *   (finer performance.now(), SharedArrayBuffer). Default true; everything served is same-origin.
 */

/**
 * @typedef {object} Server
 * @property {string} url   Base URL with a trailing slash, e.g. "http://127.0.0.1:41234/".
 * @property {number} port
 * @property {() => Promise<void>} close  Idempotent; drops open connections; bounded in time.
 */

/**
 * Serve `root` (and `routes`) on 127.0.0.1 on a free port.
 * @param {ServeOptions} opts
 * @returns {Promise<Server>}
 */
export async function serve(opts) {
  const root = resolve(opts.root);
  const routes = Object.entries(opts.routes ?? {}).map(([prefix, target]) => {
    if (!prefix.startsWith('/')) throw new Error(`serve: route ${JSON.stringify(prefix)} must start with "/"`);
    return { prefix, target: resolve(target), dir: prefix.endsWith('/') };
  });
  // Longest prefix first so "/dist/x/" wins over "/dist/".
  routes.sort((a, b) => b.prefix.length - a.prefix.length);
  const log = opts.log ?? (() => {});
  const isolate = opts.isolate ?? true;

  /** @param {string} urlPath decoded, starts with "/" @returns {string | null} */
  function locate(urlPath) {
    for (const r of routes) {
      if (!r.dir && urlPath === r.prefix) return r.target;
      if (r.dir && urlPath.startsWith(r.prefix)) return inside(r.target, urlPath.slice(r.prefix.length));
    }
    return inside(root, urlPath.slice(1));
  }

  const server = createServer(async (req, res) => {
    const send = (/** @type {number} */ code, /** @type {string} */ msg) => {
      res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : msg + '\n');
      log(`${req.method} ${req.url} ${code}`);
    };
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed');
      let urlPath;
      try {
        urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      } catch {
        return send(400, 'bad path');
      }
      if (urlPath.includes('\0')) return send(400, 'bad path');
      if (urlPath.endsWith('/')) urlPath += 'index.html';
      const file = locate(urlPath);
      if (!file) return send(403, 'forbidden');
      let st;
      try {
        st = await stat(file);
      } catch {
        return send(404, 'not found');
      }
      if (!st.isFile()) return send(404, 'not found');
      res.writeHead(200, {
        'content-type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
        'content-length': st.size,
        'cache-control': 'no-store',
        ...(isolate ? ISOLATION_HEADERS : {}),
      });
      log(`${req.method} ${req.url} 200`);
      if (req.method === 'HEAD') return res.end();
      const stream = createReadStream(file);
      stream.on('error', () => res.destroy());
      stream.pipe(res);
    } catch (err) {
      if (!res.headersSent) send(500, String(err));
      else res.destroy();
    }
  });

  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await withTimeout(
    new Promise((ok, fail) => {
      server.once('error', fail);
      server.listen(opts.port ?? 0, '127.0.0.1', () => ok(undefined));
    }),
    opts.timeoutMs ?? 10_000,
    'server listen',
  );
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('serve: no TCP address');
  const url = `http://127.0.0.1:${addr.port}/`;

  /** @type {Promise<void> | null} */
  let closing = null;
  return {
    url,
    port: addr.port,
    close() {
      closing ??= (async () => {
        for (const s of sockets) s.destroy();
        await withTimeout(new Promise((ok) => server.close(() => ok(undefined))), 5_000, 'server close').catch(() => {});
      })();
      return closing;
    },
  };
}

/**
 * Resolve `rel` under `base`; null if it escapes `base`.
 * @param {string} base absolute directory
 * @param {string} rel
 */
function inside(base, rel) {
  const p = resolve(join(base, rel));
  const r = relative(base, p);
  if (r === '' || (!r.startsWith('..' + sep) && r !== '..' && !isAbsolute(r))) return p;
  return null;
}

/**
 * Reject with a readable error when `p` does not settle within `ms`.
 * @template T
 * @param {Promise<T>} p
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<T>}
 */
export function withTimeout(p, ms, what) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const t = new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what}: timed out after ${ms} ms`)), ms);
    timer.unref?.();
  });
  return /** @type {Promise<T>} */ (Promise.race([p, t]).finally(() => clearTimeout(timer)));
}
