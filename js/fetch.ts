// js/fetch.ts: every byte skillfs installs from the network comes through
// here, in the host (the extension holds the host permissions; the module
// never touches the network): bounded in time and size before the download
// completes, and abortable.

import { SkillfsError } from "./bridge.js";

/** Bounds of one install's downloads. */
export interface FetchOptions {
  /** How long each download may take, in milliseconds; 30,000 by default. */
  timeoutMs?: number;
  /** The most bytes one artifact may have; the archive guard's 34 MiB by
   * default. Checked against Content-Length before the body is read, and
   * counted while it arrives. */
  maxBytes?: number;
  /** Aborts every download of the call, and the install under way:
   * nothing of it is stored unless its commit had completed. */
  signal?: AbortSignal;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BYTES = 34 << 20;
/** What pkg/source accepts of an index or a listing (source.MaxIndexSize). */
export const MAX_INDEX_BYTES = 4 << 20;

/** A fetch whose responses are cut off (with TooLarge) at maxBytes and
 * whose requests end at the deadline or the caller's abort. */
export function cappedFetch(o: FetchOptions, maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES): typeof fetch {
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const ctl = new AbortController();
    const ms = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const within = ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
    const timer = setTimeout(() => ctl.abort(new SkillfsError(`${url} did not answer within ${within}: the server may be busy or unreachable; try again later`, "Timeout", "download-timeout", url)), ms);
    const onAbort = () => ctl.abort(new SkillfsError("the download was aborted", "FetchFailed", "aborted", url));
    if (o.signal?.aborted) onAbort();
    o.signal?.addEventListener("abort", onAbort, { once: true });
    init?.signal?.addEventListener("abort", () => ctl.abort(init.signal!.reason), { once: true });
    const done = () => {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
    };
    let res: Response;
    try {
      res = await fetch(input, { ...init, signal: ctl.signal, credentials: "omit" });
    } catch (e) {
      done();
      // The browser says no more than "Failed to fetch" whether the server
      // is unreachable or refuses this page its answer (CORS, as GitHub's
      // archive host does to every page): the person is told both.
      throw reasonOf(ctl.signal) ?? asSkillfsError(e, url, "the server did not answer, or does not let this page read its answer (CORS)");
    }
    const tooLarge = (n: number) => new SkillfsError(`${url} is ${sizeText(n)} or more, larger than the ${sizeText(maxBytes)} a download may be: it was not read further, and nothing of it was installed`, "TooLarge", "download-too-large", url);
    const declared = Number(res.headers.get("content-length") ?? NaN);
    if (declared > maxBytes) {
      const e = tooLarge(declared);
      done();
      ctl.abort(e);
      throw e;
    }
    // A 304 (or 204, 205) has no body, and a Response of that status must not have one.
    if (!res.body || [204, 205, 304].includes(res.status)) {
      done();
      await res.body?.cancel().catch(() => {});
      const nullBody = [204, 205, 304].includes(res.status);
      return new Response(nullBody ? null : new Uint8Array(), { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    let total = 0;
    const counted = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        total += chunk.byteLength;
        if (total > maxBytes) {
          const e = tooLarge(total);
          done();
          c.error(e);
          ctl.abort(e);
          return;
        }
        c.enqueue(chunk);
      },
      flush: done,
    }), { signal: ctl.signal });
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** n bytes as a person reads them: "900 bytes", "97.7 KiB", "34 MiB"
 * (the archive guard's limit, 35651584 bytes). */
export function sizeText(n: number): string {
  const [v, unit] = n >= 1 << 20 ? [n / (1 << 20), "MiB"] : n >= 1 << 10 ? [n / (1 << 10), "KiB"] : [n, n === 1 ? "byte" : "bytes"];
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${unit}`;
}

/** What an HTTP status that is no answer means to a person asking for a
 * download, for the commonest ones. */
function statusMeaning(status: number): string {
  if (status === 404 || status === 410) return "nothing is published at this address (any more)";
  if (status === 401 || status === 403) return "the server refuses it (it may need signing in, or be private)";
  if (status === 429) return "the server has had too many requests: try again later";
  return status >= 500 ? "the server failed: try again later" : "";
}

/** The bytes at url, or a SkillfsError: FetchFailed (network, HTTP status,
 * abort), Timeout, TooLarge. */
export async function fetchBytes(url: string, o: FetchOptions, maxBytes?: number): Promise<Uint8Array> {
  return (await fetchArtifact(url, o, maxBytes)).bytes!;
}

/** What fetchArtifact got: the bytes and their ETag, or, for a request
 * with etag that the server answered 304 Not Modified, no bytes. */
export interface Fetched {
  bytes?: Uint8Array;
  etag: string;
}

/** The bytes at url as fetchBytes gets them, with their ETag; given the
 * ETag of what is installed, a server that says it is unchanged (304)
 * sends nothing. */
export async function fetchArtifact(url: string, o: FetchOptions, maxBytes?: number, etag = ""): Promise<Fetched> {
  const res = await cappedFetch(o, maxBytes)(url, { cache: "no-store", redirect: "follow", headers: etag ? { "if-none-match": etag } : {} });
  if (etag && res.status === 304) {
    await res.body?.cancel().catch(() => {});
    return { etag };
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    const why = statusMeaning(res.status);
    throw new SkillfsError(`${url} answered HTTP ${res.status}${why ? `: ${why}` : ""}`, "FetchFailed", "http-status", url);
  }
  // Read chunk by chunk: a reader rejects with the stream's own error
  // (TooLarge, Timeout), where arrayBuffer() would say "network error".
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      total += value.byteLength;
    }
  } catch (e) {
    // The server answered, and let this page read it: not CORS.
    throw asSkillfsError(e, url, "the download stopped before the whole answer arrived");
  }
  return { bytes: concat(parts, total), etag: res.headers.get("etag") ?? "" };
}

function reasonOf(s: AbortSignal): SkillfsError | undefined {
  return s.aborted && s.reason instanceof SkillfsError ? s.reason : undefined;
}

/** e as a SkillfsError: the TooLarge or Timeout that cut a body off, or a
 * network failure, which why, if given, says what it means where it
 * happened. */
export function asSkillfsError(e: unknown, url: string, why = ""): SkillfsError {
  if (e instanceof SkillfsError) return e;
  const msg = String((e as Error)?.message ?? e);
  return new SkillfsError(`cannot fetch ${url}: ${why ? `${why} (${msg})` : msg}`, "FetchFailed", "network", url);
}

/** parts one after the other, total bytes in all. */
export function concat(parts: Uint8Array[], total = parts.reduce((n, p) => n + p.byteLength, 0)): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
