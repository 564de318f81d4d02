// js/mcp.ts: skills from an MCP server that declares the skills extension
// (SEP-2640), through the official TypeScript SDK over Streamable HTTP.
// It only fetches: skills/list pages and each file with resources/read.
// pkg/source checks the listing and every digest before anything is stored.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { fromBase64 } from "./base64.js";
import { SkillfsError } from "./bridge.js";
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, MAX_INDEX_BYTES, asSkillfsError, cappedFetch, sizeText, type FetchOptions } from "./fetch.js";

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";
/** skills/list pages followed at most: a server that keeps answering
 * with a cursor must not keep the host busy. A listing with more is
 * refused (TooLarge), never installed in part. */
const MAX_PAGES = 50;

export interface McpSkillsClient {
  /** Every skill of every page of skills/list, as {"skills": [...]} JSON bytes. */
  list(): Promise<Uint8Array>;
  /** One skill by its skill://…/SKILL.md URI (skills/get), as {"skill": …} JSON bytes. */
  get(uri: string): Promise<Uint8Array>;
  /** The bytes of resource uri: text as UTF-8, a blob decoded. */
  read(uri: string): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** The most of what a server says that a message quotes, as the module
 * quotes what a publisher wrote (skillerr.MaxQuoted). */
const MAX_QUOTED = 160;

/** Why a request failed, in a line a person reads: an answer that is not
 * JSON-RPC said so (the SDK's validation error lists every mismatch, a
 * few kilobytes), and what the server said (an error's message, as long
 * as it likes) clipped. */
function whyOf(e: unknown): string {
  if (Array.isArray((e as { issues?: unknown })?.issues)) return "its answer is not a JSON-RPC message";
  const why = String((e as Error)?.message ?? e);
  return why.length <= MAX_QUOTED ? why : `${why.slice(0, MAX_QUOTED).replace(/[\uD800-\uDBFF]$/, "")}…`;
}

export async function connectMcp(serverUrl: string, o: FetchOptions): Promise<McpSkillsClient> {
  const timeout = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxFile = o.maxBytes ?? DEFAULT_MAX_BYTES;
  let url: URL | undefined;
  try {
    url = new URL(serverUrl);
  } catch {}
  // In the module's words for an index's address (source's httpURL): a
  // data: or file: address was asked, and its failure blamed on CORS or
  // the server.
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new SkillfsError("this is not an absolute http or https URL", "InvalidArgument", "bad-url", serverUrl);
  }
  const client = new Client({ name: "skillfs", version: "1.0.0" });
  // A blob crosses as base64 inside JSON: a third more than its bytes.
  const transport = new StreamableHTTPClientTransport(url, { fetch: cappedFetch(o, Math.ceil(maxFile * 4 / 3) + (64 << 10)) });
  const fail = async (e: unknown, reason: string): Promise<never> => {
    await client.close().catch(() => {});
    if (e instanceof SkillfsError) throw e;
    const cause = (e as { cause?: unknown })?.cause;
    if (cause instanceof SkillfsError) throw cause;
    const why = whyOf(e);
    throw new SkillfsError(reason === "mcp-connect" ? `${serverUrl} did not answer as an MCP server (${why}): check that the address is the server's endpoint, often ending in /mcp` : `the MCP server at ${serverUrl} failed the request (${why}): try again later`, "FetchFailed", reason, serverUrl);
  };
  try {
    await client.connect(transport, { timeout, signal: o.signal });
  } catch (e) {
    return fail(e, "mcp-connect");
  }
  const caps = client.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined;
  if (!caps?.extensions?.[SKILLS_EXTENSION]) {
    await client.close().catch(() => {});
    throw new SkillfsError(`${serverUrl} is an MCP server without the skills extension (${SKILLS_EXTENSION})`, "FetchFailed", "no-skills-extension", serverUrl);
  }
  const opts = { timeout, signal: o.signal };
  return {
    async list() {
      const skills: unknown[] = [];
      let cursor: string | undefined;
      let size = 0;
      for (let page = 0; page < MAX_PAGES; page++) {
        let res: { skills?: unknown; nextCursor?: unknown };
        try {
          res = await client.request({ method: "skills/list", params: cursor ? { cursor } : {} }, ResultSchema, opts) as typeof res;
        } catch (e) {
          return fail(e, "mcp-request");
        }
        if (!Array.isArray(res.skills)) throw new SkillfsError("skills/list did not answer with a list of skills", "InvalidIndex", "malformed", serverUrl);
        size += JSON.stringify(res.skills).length;
        if (size > MAX_INDEX_BYTES) throw new SkillfsError(`the skills listing is larger than ${MAX_INDEX_BYTES} bytes`, "TooLarge", "index-too-large", serverUrl);
        skills.push(...res.skills);
        if (typeof res.nextCursor !== "string" || res.nextCursor === "") return new TextEncoder().encode(JSON.stringify({ skills }));
        cursor = res.nextCursor;
      }
      throw new SkillfsError(`the skills listing goes on after ${MAX_PAGES} pages (${skills.length} skills)`, "TooLarge", "index-too-large", serverUrl);
    },
    async get(uri) {
      let res: { skill?: unknown };
      try {
        res = await client.request({ method: "skills/get", params: { uri } }, ResultSchema, opts) as typeof res;
      } catch (e) {
        return fail(e, "mcp-request");
      }
      const json = JSON.stringify({ skill: res.skill ?? null });
      if (json.length > MAX_INDEX_BYTES) throw new SkillfsError(`the skill's listing is larger than ${MAX_INDEX_BYTES} bytes`, "TooLarge", "index-too-large", uri);
      return new TextEncoder().encode(json);
    },
    async read(uri) {
      let res: Awaited<ReturnType<typeof client.readResource>>;
      try {
        res = await client.readResource({ uri }, opts);
      } catch (e) {
        return fail(e, "mcp-request");
      }
      const c = res.contents.find((x) => x.uri === uri) ?? (res.contents.length === 1 ? res.contents[0] : undefined);
      let bytes: Uint8Array | undefined;
      if (c && "text" in c && typeof c.text === "string") bytes = new TextEncoder().encode(c.text);
      if (c && "blob" in c && typeof c.blob === "string") {
        try {
          bytes = fromBase64(c.blob);
        } catch (e) {
          throw asSkillfsError(e, uri);
        }
      }
      if (!bytes) throw new SkillfsError("resources/read did not return this resource's contents", "FetchFailed", "mcp-no-contents", uri);
      if (bytes.byteLength > maxFile) throw new SkillfsError(`the resource is ${sizeText(bytes.byteLength)}, larger than the ${sizeText(maxFile)} a file may be: nothing of the skill was installed`, "TooLarge", "download-too-large", uri);
      return bytes;
    },
    close: () => client.close().catch(() => {}),
  };
}
