// Where skills are published, for tests: a site with Agent Skills discovery
// indexes (v0.2.0 and v0.1.0) and an MCP server with the skills extension
// (SEP-2640) built with the official SDK. Both listen on 127.0.0.1 on free
// ports, answer CORS requests from any origin (the page that installs is
// another origin, as a real site is), and log every request so that tests
// can tell what was downloaded.

import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export const SCHEMA_V2 = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

const enc = new TextEncoder();
export const bytesOf = (v) => (typeof v === 'string' ? enc.encode(v) : v);
export const sha256 = (v) => `sha256:${createHash('sha256').update(bytesOf(v)).digest('hex')}`;

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': '*',
  'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version, etag',
  'cross-origin-resource-policy': 'cross-origin',
};

function listen(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`));
  });
}

function closer(server) {
  return () => new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
}

/**
 * A static site: files is a Map of path → {body, type?, chunked?, stalled?, held?}
 * that the test may change at any time. A chunked file is sent without
 * Content-Length, so only a running count can stop it. A stalled one
 * sends half its body, calls stalled(), and sends nothing more: a download
 * under way for the client to abort. A held one answers only once
 * held(req, res) settles: a slow server. Every file has an
 * ETag (its digest); a request whose If-None-Match matches gets 304 and no
 * body, logged as "GET path 304".
 */
export async function serveSite(files = new Map()) {
  const log = [];
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (req.method === 'OPTIONS') {
      // A CORS preflight (the If-None-Match header needs one) fetches nothing: not logged.
      res.writeHead(204, CORS).end();
      return;
    }
    let f = files.get(path);
    if (f?.held) {
      await f.held(req, res);
      f = files.get(path);
    }
    if (!f) {
      log.push(`${req.method} ${path}`);
      res.writeHead(404, { ...CORS, 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const body = Buffer.from(bytesOf(f.body));
    const etag = `"${sha256(body).slice(7, 39)}"`;
    if (req.headers['if-none-match'] === etag) {
      log.push(`${req.method} ${path} 304`);
      res.writeHead(304, { ...CORS, etag }).end();
      return;
    }
    log.push(`${req.method} ${path}`);
    const headers = { ...CORS, 'content-type': f.type ?? 'application/octet-stream', 'cache-control': 'no-store', etag };
    if (f.stalled) {
      res.writeHead(200, headers);
      res.write(body.subarray(0, body.length >> 1), () => f.stalled());
      return;
    }
    if (f.chunked) {
      res.writeHead(200, headers);
      // Several writes: the client sees the bytes arrive, not a length.
      for (let i = 0; i < body.length; i += 16 << 10) res.write(body.subarray(i, i + (16 << 10)));
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': String(body.length) }).end(body);
  });
  const url = await listen(server);
  return { url, files, log, close: closer(server) };
}

/**
 * An MCP server with the skills extension: skills is a Map of skill
 * directory → {frontmatter, files: {path: string | Uint8Array}, lies?:
 * {path: digest}, extra?: [{uri, digest, size}]} that the test may change;
 * every resources/read of a skill:// URI is answered from it. Stateless
 * Streamable HTTP: a fresh SDK server per request. With pageSize,
 * skills/list answers in pages of that many skills, each with the cursor
 * of the next.
 */
export async function serveMcp(skills = new Map(), { pageSize = Infinity } = {}) {
  const log = [];
  const entry = (dir, s) => ({
    uri: `skill://${dir}/SKILL.md`,
    frontmatter: s.frontmatter,
    resources: [
      ...Object.entries(s.files).map(([p, data]) => ({
        uri: `skill://${dir}/${p.split('/').map(encodeURIComponent).join('/')}`,
        digest: s.lies?.[p] ?? sha256(data),
        size: bytesOf(data).length,
      })),
      ...(s.extra ?? []),
    ],
  });
  const resource = (uri) => {
    for (const [dir, s] of skills) {
      const prefix = `skill://${dir}/`;
      if (!uri.startsWith(prefix)) continue;
      const p = decodeURIComponent(uri.slice(prefix.length));
      const data = s.files[p] ?? s.serve?.[p];
      if (data === undefined) continue;
      return typeof data === 'string'
        ? { uri, mimeType: 'text/markdown', text: data }
        : { uri, mimeType: 'application/octet-stream', blob: Buffer.from(data).toString('base64') };
    }
    return undefined;
  };
  const mcpServer = () => {
    const s = new Server({ name: 'skills-test', version: '1.0.0' },
      { capabilities: { resources: {}, extensions: { [SKILLS_EXTENSION]: {} } } });
    s.setRequestHandler(z.object({ method: z.literal('skills/list'), params: z.object({ cursor: z.string().optional() }).passthrough().optional() }), (req) => {
      log.push('skills/list');
      const from = Number(req.params?.cursor ?? 0);
      const to = from + pageSize;
      const page = [...skills].slice(from, to).map(([dir, sk]) => entry(dir, sk));
      return to < skills.size ? { skills: page, nextCursor: String(to) } : { skills: page };
    });
    s.setRequestHandler(z.object({ method: z.literal('skills/get'), params: z.object({ uri: z.string() }).passthrough() }), (req) => {
      log.push(`skills/get ${req.params.uri}`);
      const found = [...skills].find(([dir]) => `skill://${dir}/SKILL.md` === req.params.uri);
      if (!found) throw new Error(`no skill ${req.params.uri}`);
      return { skill: entry(...found) };
    });
    s.setRequestHandler(ReadResourceRequestSchema, (req) => {
      log.push(`resources/read ${req.params.uri}`);
      const c = resource(req.params.uri);
      if (!c) throw new Error(`no resource ${req.params.uri}`);
      return { contents: [c] };
    });
    return s;
  };
  const server = createServer(async (req, res) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const s = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void s.close();
    });
    await s.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  const url = await listen(server);
  return { url: `${url}/mcp`, skills, log, close: closer(server) };
}

/** A .tar.gz of files {path: string | Uint8Array} (ustar, regular files). */
export function tarGz(files) {
  const blocks = [];
  for (const [name, v] of Object.entries(files)) {
    const data = Buffer.from(bytesOf(v));
    const h = Buffer.alloc(512);
    h.write(name, 0, 100, 'utf8');
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    h.write(`${(1735689600).toString(8).padStart(11, '0')}\0`, 136);
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\0', 257);
    h.write('00', 263);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return new Uint8Array(gzipSync(Buffer.concat(blocks)));
}
