// js/agent.ts (the package's "skillfs/agent") gives any agent loop its
// skills with enforcement: it opens the session, writes the instructions,
// defines the two tools that load skills and read their files, says which
// tools a turn may offer, and checks every tool call against the active
// skills' allowed-tools on the call's real input. It decides nothing
// itself: the module does (pkg/resolver), as for every other caller.
// skillfs/ai-sdk and skillfs/openai-agents put it into those frameworks.

import {
  SkillfsError,
  type CallOptions,
  type CatalogOptions,
  type ErrorCode,
  type SkillBlock,
  type Skillfs,
  type SkillfsSession,
} from "./bridge.js";

/** A JSON schema valid in OpenAI's strict mode and everywhere else: every
 * property required, optional ones nullable, no other properties. */
export interface StrictObjectSchema {
  type: "object";
  properties: Record<string, { type: string | string[]; description: string }>;
  required: string[];
  additionalProperties: false;
}

/** One of the tools skillfs defines, for any framework. */
export interface SkillToolDefinition {
  name: string;
  description: string;
  parameters: StrictObjectSchema;
  /** Runs the call. Failures are returned as text the model can act on
   * (the code first), never thrown, except the signal's abort. */
  execute(input: unknown, o?: CallOptions): Promise<string>;
}

/** Which field of a tool's structured input its allowed-tools specifiers
 * (`Bash(git diff:*)`) are about, over the module's defaults (Claude Code's
 * tools: Bash→command, Read/Write/Edit→file_path, Grep/LS→path,
 * Glob→pattern, WebFetch→url, WebSearch→query): the field's name, or a
 * function that makes the string from the input. */
export type FieldMap = Record<string, string | ((input: Record<string, unknown>) => string | undefined)>;

export interface SkillsAgentOptions extends CallOptions {
  /** The conversation or tab; pins are kept per context. */
  contextId: string;
  /** The names of the host's own tools (Bash, Read, …). */
  tools: string[];
  /** Host tools kept whatever skills are active; none by default. */
  baseTools?: string[];
  /** Skills the user selected; every enabled skill when absent. */
  skills?: string[];
  /** How the catalog is written; 8,000 characters by default. */
  catalog?: Omit<CatalogOptions, "signal">;
  /** Overrides and additions to the module's field defaults. */
  fields?: FieldMap;
  /** The agent's working directory, for tools that take absolute paths
   * (see SessionOptions.workingDirectory). */
  workingDirectory?: string;
  /** The names of skillfs's own tools. */
  toolNames?: { load?: string; read?: string };
}

/** check's answer. */
export interface ToolCheck {
  allowed: boolean;
  /** The stable code of a refusal: ToolNotAllowed, InvalidArgument. */
  code?: ErrorCode;
  reason?: string;
  /** For the model: what was refused, why, and what it can do instead. */
  message: string;
}

/** Options of a turn. */
export interface TurnOptions extends CallOptions {
  /** The user's message: the skills the router finds for it keep their
   * descriptions in the catalog, which with many skills gives the others
   * their names only. Its first 8 KB are routed. */
  query?: string;
}

/** What one turn needs: computed once per turn (a model call or a run). */
export interface SkillsTurn {
  /** The catalog, how to use the tools, and the blocks of the pinned and always: true skills. */
  instructions: string;
  /** The names of the tools this turn may offer: skillfs's own and the
   * host's that the active skills allow. */
  activeTools: string[];
}

/** The user's message as the model gets it (SkillsAgent.userMessage). */
export interface UserMessage {
  /** The invoked skill's block, or the message as the user wrote it. */
  text: string;
  /** The skill the message invoked, now active in the session. */
  invoked?: SkillBlock;
}

/** A session's skills for an agent loop. */
export interface SkillsAgent {
  readonly session: SkillfsSession;
  /** skillfs's own tools: load a skill, read a skill file. */
  readonly tools: SkillToolDefinition[];
  /** The turn's instructions and active tools. A session whose skills
   * changed underneath (an update, a removal in another tab) is refreshed
   * first, so the catalog says what exists now. */
  turn(o?: TurnOptions): Promise<SkillsTurn>;
  /** The tools offered now (they change when a skill is loaded). */
  activeTools(o?: CallOptions): Promise<string[]>;
  /** Whether the host may run toolName with this input, checked by the
   * module on the field that the field map names. */
  check(toolName: string, input: unknown, o?: CallOptions): Promise<ToolCheck>;
  /** The user's message as the model gets it. One that starts with the
   * slash menu's `/skill:name args` invokes that skill on the user's path
   * (session.invoke): the skill is active from now on, its allowed-tools
   * narrowing the tools, and the message becomes its block with the
   * arguments substituted (its first part when longer than a part, as
   * load_skill gives it). Other text comes back as it is, "/skill:"
   * without a name after it too. A skill the user cannot invoke rejects
   * with its SkillfsError: SkillNotFound (not installed or disabled),
   * NotVisible (outside the session's skills), PermissionDenied
   * (not-user-invocable), Conflict (ambiguous-name); a message too long
   * to cross a port to skillfs, with TooLarge (limit). */
  userMessage(text: string, o?: CallOptions): Promise<UserMessage>;
  close(o?: CallOptions): Promise<void>;
}

/** Opens a session of sk (loaded here or connected over a port) for an
 * agent that has the host tools opts.tools. */
export async function openSkillsAgent(sk: Skillfs, opts: SkillsAgentOptions): Promise<SkillsAgent> {
  const load = opts.toolNames?.load ?? "load_skill";
  const read = opts.toolNames?.read ?? "read_skill_file";
  const own = [load, read];
  // Field names go to the module, which reads the input itself; a
  // function's string is checked as the call's input.
  const fieldNames: Record<string, string> = {};
  for (const [tool, f] of Object.entries(opts.fields ?? {})) if (typeof f === "string") fieldNames[tool] = f;
  // skillfs's tools must be both available and base: a tool that is only
  // available vanishes from the active list as soon as a skill with
  // allowed-tools is loaded, and the model could load no other.
  const session = await sk.openSession({
    contextId: opts.contextId,
    availableTools: [...own, ...opts.tools],
    baseTools: [...own, ...(opts.baseTools ?? [])],
    ...(opts.skills ? { skills: opts.skills } : {}),
    ...(opts.workingDirectory !== undefined ? { workingDirectory: opts.workingDirectory } : {}),
    signal: opts.signal,
  });

  // A session the host closed, or lost with the connection, ends the
  // loop with one error, whatever call finds it (see sessionClosed).
  const closedOr = (e: unknown) => sessionClosed(e, opts.contextId) ?? e;
  const activeTools = async (o?: CallOptions) => (await session.activeTools(o).catch((e) => Promise.reject(closedOr(e)))).tools;

  const tools: SkillToolDefinition[] = [
    {
      name: load,
      description:
        "Load a skill from the available skills: returns its instructions, its base directory and the files it has. " +
        "Call it before doing a task a skill's description matches, then follow the instructions. Long instructions " +
        "come in parts: the answer then ends with the line to read on from; call it again with the same name and " +
        "arguments and that offset.",
      parameters: {
        type: "object",
        properties: {
          name: { type: "string", description: "The skill's name, as the catalog lists it." },
          arguments: { type: ["string", "null"], description: "Arguments for the skill, or null." },
          offset: { type: ["integer", "null"], description: "The line of the instructions to start at; null for the start." },
        },
        required: ["name", "arguments", "offset"],
        additionalProperties: false,
      },
      execute: (input, o) =>
        answer(closedOr, async () => {
          const { name, arguments: args, offset } = object(input, load);
          if (typeof name !== "string" || name === "") throw new SkillfsError("name must be a skill's name", "InvalidArgument", "", load);
          const from = lineNumber(offset, "offset", load);
          // The model's path, arguments or not: invoke is the user's, and
          // would load a skill only the user may run.
          const block = await session.activate(name, { arguments: args ? String(args) : undefined, signal: o?.signal });
          const text = page(block.content, from, undefined, load);
          // A part ends with its note, which says where to read on.
          return block.alreadyActive && text === block.content ? `${text}\n(The skill was already loaded; its instructions still apply.)` : text;
        }, o),
    },
    {
      name: read,
      description:
        "Read a file of a loaded skill, such as a reference it mentions: the path is the skill's base directory " +
        "(/skills/<name>/) followed by the file's path in it. A long file comes in parts: the answer then ends " +
        "with the line to read on from, as offset.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "/skills/<name>/<path in the skill>" },
          offset: { type: ["integer", "null"], description: "The line to start at, 1 for the first; null for the start." },
          limit: { type: ["integer", "null"], description: "How many lines to read at most; null for as many as fit." },
        },
        required: ["path", "offset", "limit"],
        additionalProperties: false,
      },
      execute: (input, o) =>
        answer(closedOr, async () => {
          const { path, offset, limit } = object(input, read);
          if (typeof path !== "string") throw new SkillfsError("path must be a string", "InvalidArgument", "", read);
          const from = lineNumber(offset, "offset", read);
          const count = lineNumber(limit, "limit", read);
          const f = await session.readFile(path, o);
          if (f.isText) return page(f.text(), from, count, read);
          return `${path} is not text: ${f.mediaType}, ${f.bytes.length} bytes. Tell the user where it is rather than reading it.`;
        }, o),
    },
  ];

  async function thisTurn(o?: TurnOptions): Promise<SkillsTurn> {
    const status = await session.status(o);
    if (status.stale) await session.refresh(o);
    // turn() first: it activates the pinned and always: true skills,
    // whose tools the active tools then include.
    const pinned = await session.turn(o);
    const query = head(o?.query ?? opts.catalog?.query ?? "", MAX_QUERY_BYTES);
    const [catalog, active] = await Promise.all([
      session.catalog({ ...opts.catalog, ...(query ? { query } : {}), signal: o?.signal }),
      activeTools(o),
    ]);
    const parts = [];
    if (catalog) {
      parts.push(
        catalog,
        `The skills above can be used in this conversation. When a task matches a skill's description, call ${load} with its name ` +
          `before anything else and follow what it says; read the files it mentions with ${read}. ` +
          "A loaded skill may limit which tools you can call and how: a refused call says why and what you can do instead.",
      );
    }
    // The pinned and always: true skills' blocks go in whole, within one
    // part's bound in all: one that does not fit is named instead, for
    // the model to load in parts, so that no skill fills every turn.
    let room = MAX_READ_CHARS;
    const named: string[] = [];
    for (const b of pinned.blocks) {
      if (b.content.length <= room) {
        parts.push(b.content);
        room -= b.content.length;
      } else named.push(b.name);
    }
    if (named.length) {
      const shown = named.slice(0, MAX_NAMED);
      const more = named.length > shown.length ? ` and ${named.length - shown.length} more` : "";
      parts.push(`These skills are loaded, but their instructions are too long to give here: ${shown.join(", ")}${more}. Call ${load} with a name to read its instructions before you act on it.`);
    }
    return { instructions: parts.join("\n\n"), activeTools: active };
  }

  return {
    session,
    tools,
    activeTools,
    turn: (o) => thisTurn(o).catch((e) => Promise.reject(closedOr(e))),
    async check(toolName, input, o) {
      if (own.includes(toolName)) return { allowed: true, message: "" };
      const field = opts.fields?.[toolName];
      let arg: string | Record<string, unknown>;
      if (typeof input === "string") arg = input;
      else if (typeof input !== "object" || input === null || Array.isArray(input)) {
        const err = new SkillfsError("the input must be a JSON object", "InvalidArgument", "", toolName);
        return { allowed: false, code: err.code, message: `${err.message}. Call ${toolName} again with the input its schema asks for.` };
      } else if (typeof field === "function") {
        const made = field(input as Record<string, unknown>);
        // A string that cannot be made would be checked as "": refuse instead.
        if (made === undefined) {
          const err = new SkillfsError("the input has no string to check", "InvalidArgument", "input-field", toolName);
          return { allowed: false, code: err.code, reason: err.reason, message: `${err.message}. Call ${toolName} again with the input its schema asks for.` };
        }
        arg = made;
      } else arg = input as Record<string, unknown>;
      let d;
      try {
        d = await session.isToolAllowed(toolName, arg, { fields: fieldNames, signal: o?.signal });
      } catch (e) {
        // A call that cannot be checked is refused, and the loop goes on.
        if (o?.signal?.aborted || sessionClosed(e, opts.contextId)) throw closedOr(e);
        const err = skillfsError(e);
        return {
          allowed: false,
          code: err.code,
          ...(err.reason ? { reason: err.reason } : {}),
          message: `${err.message}. ${toolName} was not run: the call could not be checked. ${advice(err)}`,
        };
      }
      if (d.allowed) return { allowed: true, message: "" };
      const active = (await activeTools(o)).filter((t) => !own.includes(t));
      const err = new SkillfsError(d.message ?? "not allowed", "ToolNotAllowed", d.reason ?? "", toolName);
      return {
        allowed: false,
        code: err.code,
        ...(d.reason ? { reason: d.reason } : {}),
        message:
          `${err.message}. ${toolName} was not run. What you can do: call a tool the loaded skills allow ` +
          `(${active.length ? active.join(", ") : "none of the host's"}) with an input they allow, load a skill that fits, or tell the user.`,
      };
    },
    async userMessage(text, o) {
      if (!INVOCATION.test(text)) return { text };
      let invoked;
      try {
        invoked = await session.invoke(text, o);
      } catch (e) {
        if (o?.signal?.aborted || !(e instanceof SkillfsError)) throw e;
        // "/skill:" with no name the module reads ("/skill:", "/skill:a.md"):
        // the user's text, as any other that invokes nothing.
        if (e.reason === NOT_AN_INVOCATION) return { text };
        // Over a port an agent's call is bounded, and the host's message
        // would name neither the message nor what to do.
        if (e.code === "TooLarge" && e.reason === "limit") {
          throw new SkillfsError(
            `the message is too long to invoke a skill with over this connection (${e.detail}): shorten the arguments, ` +
              "or invoke the skill alone (/skill:name) and send the text in a message of its own",
            "TooLarge",
            "limit",
            e.subject,
          );
        }
        throw closedOr(e);
      }
      return { text: page(invoked.content, 1, undefined, load), invoked };
    },
    // A session already closed is closed.
    close: (o) =>
      session.close(o).catch((e) => {
        if (!sessionClosed(e, opts.contextId)) throw e;
      }),
  };
}

/** How a message invokes a skill: the slash menu's form (Command.invocation),
 * after any white space the module skips (Go's unicode.IsSpace: \s, and
 * U+0085); the module says whether a name follows. It also reads `/name`
 * and `$name`, but a message passed through an adapter that starts so is
 * as likely a path or a variable ("$HOME is empty"): a host that offers
 * those forms calls session.invoke itself. */
const INVOCATION = /^[\s\u0085]*\/skill:/;

/** The reason of session.invoke's refusal of text that is no invocation
 * (pkg/resolver's ReasonNotInvocation). */
const NOT_AN_INVOCATION = "not-an-invocation";

/** A chat message as the AI SDK and the Agents SDK write it: a role, and
 * content that is text or a list of parts. */
interface ChatMessage {
  role?: unknown;
  content?: unknown;
}

/** The user's input as the model gets it (SkillsAgent.userMessage): a
 * prompt, or a conversation whose last message, when it is the user's, is
 * given with its text (its content, or its first part when that is of
 * type textType, "text" in the AI SDK, "input_text" in the Agents SDK)
 * as userMessage makes it. query is that text as the user wrote it, for
 * the catalog. Earlier messages are history, as the host keeps it. */
export async function userInput<T extends string | readonly object[]>(
  agent: SkillsAgent,
  input: T,
  textType: string,
  o?: CallOptions,
): Promise<{ input: T; query: string }> {
  if (typeof input === "string") return { input: (await agent.userMessage(input, o)).text as T, query: input };
  const last = input.at(-1) as ChatMessage | undefined;
  if (last?.role !== "user") return { input, query: "" };
  const parts = Array.isArray(last.content) ? (last.content as { type?: unknown; text?: unknown }[]) : undefined;
  const text = typeof last.content === "string" ? last.content : parts?.[0]?.type === textType ? parts[0].text : undefined;
  if (typeof text !== "string") return { input, query: "" };
  const m = await agent.userMessage(text, o);
  if (!m.invoked) return { input, query: text };
  const content = parts ? [{ ...parts[0], text: m.text }, ...parts.slice(1)] : m.text;
  return { input: [...input.slice(0, -1), { ...last, content }] as unknown as T, query: text };
}

/** The catalog routes at most this much of the user's message, in UTF-8
 * bytes (the module's MaxCatalogQuery; longer is refused, TooLarge). */
const MAX_QUERY_BYTES = 8 << 10;

/** The start of s, at most max UTF-8 bytes, cut between characters: a
 * pasted document must not cost the turn its catalog. */
function head(s: string, max: number): string {
  const bytes = new TextEncoder().encode(s);
  if (bytes.length <= max) return s;
  let end = max;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/** The most of a file or a skill's instructions one answer of
 * read_skill_file or load_skill gives, in characters (about 12,000
 * tokens): a skill's file, SKILL.md included, may be up to 10 MB, and a
 * model's context is not. Longer ones are read in parts. */
const MAX_READ_CHARS = 50_000;

/** How many loaded skills whose blocks do not fit a turn are named. */
const MAX_NAMED = 50;

/** A positive line number or count from the model, or undefined for null. */
function lineNumber(v: unknown, field: string, tool: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) {
    throw new SkillfsError(`${field} must be a whole number from 1, or null`, "InvalidArgument", "", tool);
  }
  return v;
}

/** The lines of text from line from (1-based) on, at most count of them
 * and MAX_READ_CHARS characters; the whole text byte for byte when it
 * fits. A part ends with a note of the lines it holds and where to read
 * on; a single line longer than the bound is cut. */
function page(text: string, from = 1, count = Infinity, tool: string): string {
  if (from === 1 && count === Infinity && text.length <= MAX_READ_CHARS) return text;
  const lines = text.split(/(?<=\n)/);
  if (from > lines.length) {
    throw new SkillfsError(`offset ${from} is past the end: there are ${lines.length} lines`, "InvalidArgument", "", tool);
  }
  let out = "";
  let end = from - 1; // lines[from-1 .. end-1] are in out
  while (end < lines.length && end - from + 1 < count && out.length + lines[end].length <= MAX_READ_CHARS) out += lines[end++];
  if (end === from - 1) {
    // One line over the bound: its start, cut between characters.
    let cut = MAX_READ_CHARS;
    if (/[\uDC00-\uDFFF]/.test(lines[end][cut] ?? "")) cut--;
    return `${lines[end].slice(0, cut)}\n[${tool}: line ${from} of ${lines.length} is longer than ${MAX_READ_CHARS} characters and was cut]`;
  }
  if (from === 1 && end === lines.length) return out;
  const more = end < lines.length ? `; read on with offset ${end + 1}` : "";
  return `${out}${out.endsWith("\n") ? "" : "\n"}[${tool}: lines ${from}-${end} of ${lines.length}${more}]`;
}

function object(input: unknown, tool: string): Record<string, unknown> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new SkillfsError("the input must be a JSON object", "InvalidArgument", "", tool);
  }
  return input as Record<string, unknown>;
}

/** Advice for the model, by code: what it can do next. */
const next: Partial<Record<ErrorCode, string>> = {
  SkillNotFound: "Use a name from the available skills.",
  NotVisible: "Use a name from the available skills.",
  Disabled: "The user turned this skill off; do the task without it or tell the user.",
  PathRejected: "Use a path inside the skill's base directory, as the loaded skill lists its files.",
  InvalidArgument: "Call the tool again with the input its schema asks for.",
  NotText: "The file is not text; tell the user where it is.",
  TooLarge: "The file is too large to read here; tell the user where it is.",
  Conflict: "The skill changed while you used it; load it again.",
  Timeout: "Try once more, or go on without it.",
};

/** fn's text, or its failure as text that keeps the code and says what to
 * do next. An abort is the caller's, and is thrown, as is a closed
 * session (closedOr makes its error). */
async function answer(closedOr: (e: unknown) => unknown, fn: () => Promise<string>, o?: CallOptions): Promise<string> {
  try {
    return await fn();
  } catch (e) {
    if (o?.signal?.aborted) throw e;
    const closed = closedOr(e);
    if (closed !== e) throw closed;
    const err = skillfsError(e);
    return `Error: ${err.message}. ${advice(err)}`;
  }
}

/** The reason of the error every call of an agent (and its adapters'
 * prepareStep and isEnabled) fails with once its session is gone: the
 * host closed it (it keeps a bounded number, 64 in all, and closes the
 * oldest) or the connection to skillfs was lost. Its code is Conflict. */
export const SESSION_CLOSED = "session-closed";

/** The error that says e means the agent's session is gone, and how to go
 * on; undefined for any other e. */
function sessionClosed(e: unknown, contextId: string): SkillfsError | undefined {
  if (!(e instanceof SkillfsError)) return undefined;
  if (e.reason === SESSION_CLOSED) return e;
  const evicted = e.code === "InvalidArgument" && e.reason === "no-session";
  const lost = e.reason === "host-gone";
  if (!evicted && !lost) return undefined;
  const why = evicted ? "the host closed it to make room for newer sessions" : `the connection to skillfs was lost (${e.detail})`;
  return new SkillfsError(
    `the skills session of context ${contextId} was closed: ${why}. Open a new one (openSkillsAgent, aiSdkSkills or ` +
      `openaiAgentsSkills${lost ? ", on a new connection" : ""}) and start the turn again: the skills the model had loaded, ` +
      "and the allowed-tools restrictions they set, are not carried over, and the model loads them again",
    "Conflict",
    SESSION_CLOSED,
    contextId,
  );
}

function skillfsError(e: unknown): SkillfsError {
  return e instanceof SkillfsError ? e : new SkillfsError(String((e as Error)?.message ?? e), "Internal");
}

/** What the model can do after err. */
function advice(err: SkillfsError): string {
  return nextByReason[`${err.code} ${err.reason}`] ?? next[err.code] ?? "Go on without it, or tell the user.";
}

/** Advice where a code's reason says more than the code. */
const nextByReason: Record<string, string> = {
  // A limit on the call's own input, not a file's size.
  "TooLarge limit": "Call the tool again with a shorter input, or tell the user.",
  // A file, not a skill, that does not exist.
  "SkillNotFound not-exist": "Read a file the loaded skill lists, by the path under its base directory.",
};
