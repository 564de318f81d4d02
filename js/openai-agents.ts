// js/openai-agents.ts (the package's "skillfs/openai-agents") gives an
// OpenAI Agents SDK Agent skills with enforcement:
//
//   const skills = await openaiAgentsSkills(sk, { contextId: "chat-1", tools: [bash, read] });
//   const result = await run(new Agent({ name: "helper", model, ...(await skills.turn({ query: input })) }), input, skills.runOptions);
//
// turn() gives the instructions (catalog, pinned skills) and the tools:
// skillfs's own (strict JSON schemas), and the host's, each enabled only
// while the active skills allow it (isEnabled, from one list computed per
// turn and again after a skill is loaded) and checked on its real input
// before it runs: a refused call is not run, nor put to the user by the
// tool's needsApproval, and the model gets the refusal with its code. runOptions makes a call to a tool the turn does
// not offer an error the model sees rather than the end of the run.
// input() gives the user's input as the model gets it: `/skill:name args`
// becomes that skill's instructions, the skill active for the run.
// Hosted tools, handoffs and MCP servers given to the adapter are narrowed
// too, each where the SDK lets a host act (docs/architecture.md, "The
// adapters").
// Each turn's tools are its run's: runs at once on one adapter keep their
// own signals, and share the session's loaded skills.

import {
  getHandoff,
  tool,
  type Agent,
  type AgentInputItem,
  type CallToolResultContent,
  type FunctionTool,
  type Handoff,
  type HostedTool,
  type MCPServer,
  type MCPToolFilterCallable,
  type Model,
  type ModelRequest,
  type RunContext,
  type ToolNotFoundBehavior,
} from "@openai/agents-core";
import { openSkillsAgent, userInput, type SkillsAgent, type SkillsAgentOptions, type TurnOptions } from "./agent.js";
import { SkillfsError, type CallOptions, type Skillfs } from "./bridge.js";

/** A function tool of the Agents SDK, whatever its context, parameters and result. */
export type AnyFunctionTool = FunctionTool<any, any, any>;
/** A handoff of the Agents SDK, whatever its context and output. */
export type AnyHandoff = Handoff<any, any>;

export interface OpenAIAgentsSkillsOptions extends Omit<SkillsAgentOptions, "tools"> {
  /** The host's own tools: function tools, and hosted tools (web search,
   * file search, code interpreter, hosted MCP, …), which need model. */
  tools: (AnyFunctionTool | HostedTool)[];
  /** The agent's model, which the turn gives back. Required with hosted
   * tools: the provider runs them inside its answer and the SDK asks them
   * nothing, so they are narrowed where the model is asked: each request
   * holds only the hosted tools the active skills allow. A hosted MCP
   * server is the tool mcp__<server_label>, allowed only whole. */
  model?: Model;
  /** The agent's handoffs, each a tool the model calls by its toolName
   * (transfer_to_…): enabled only while the active skills allow it. */
  handoffs?: (Agent<any, any> | AnyHandoff)[];
  /** The agent's MCP servers, connected: their tools are the host's tools
   * mcp__<server>__<tool>, as listed now, offered only while the active
   * skills allow them and checked on their arguments before they are called. */
  mcpServers?: MCPServer[];
}

export interface OpenAIAgentsTurn {
  instructions: string;
  tools: (AnyFunctionTool | HostedTool)[];
  /** The adapter's model, narrowing the hosted tools of each request. */
  model?: Model;
  handoffs?: AnyHandoff[];
  mcpServers?: MCPServer[];
}

export interface OpenAIAgentsSkills {
  readonly agent: SkillsAgent;
  /** This turn's settings for the Agent; call it once per user message,
   * given as query so that the catalog describes the skills it needs. */
  turn(o?: TurnOptions): Promise<OpenAIAgentsTurn>;
  /** The user's input for run(), as the model gets it (see
   * SkillsAgent.userMessage; of items, the last if it is the user's):
   * call it before the run. A `/skill:name` the user cannot invoke
   * rejects with its SkillfsError. */
  input<I extends string | AgentInputItem[]>(input: I, o?: CallOptions): Promise<I>;
  /** For run() or a Runner. */
  readonly runOptions: { toolNotFoundBehavior: ToolNotFoundBehavior };
}

export async function openaiAgentsSkills(sk: Skillfs, opts: OpenAIAgentsSkillsOptions): Promise<OpenAIAgentsSkills> {
  const functions: AnyFunctionTool[] = [];
  const hosted: HostedTool[] = [];
  for (const t of opts.tools) {
    if (t.type === "function") functions.push(t);
    else if (t.type === "hosted_tool") hosted.push(t);
    // Computer, shell and apply_patch tools run on the host without a
    // check the adapter could make (README, the Agents SDK): never
    // passed on unnarrowed.
    else throw new SkillfsError(`${(t as { type: string }).type} tools cannot be narrowed by skills: leave this one out, or give it to the Agent yourself, outside the skills' allowed-tools`, "InvalidArgument", "tool-kind", (t as { name: string }).name);
  }
  const hostedNames = new Set(hosted.map(hostedName));
  if (hosted.length && !opts.model) {
    const name = [...hostedNames][0];
    throw new SkillfsError(`the hosted tool ${name} can be narrowed only in the requests to the model: give the adapter the agent's model`, "InvalidArgument", "no-model", name);
  }
  for (const name of [...(opts.mcpServers ?? []).map((s) => s.name), ...hosted.flatMap((t) => hostedLabel(t) ?? [])]) mcpServerName(name);
  const handoffs = (opts.handoffs ?? []).map((h) => getHandoff(h));
  const servers = await Promise.all((opts.mcpServers ?? []).map(async (server) => ({ server, tools: await server.listTools() })));
  const agent = await openSkillsAgent(sk, {
    ...opts,
    tools: [
      ...functions.map((t) => t.name),
      ...hostedNames,
      ...handoffs.map((h) => h.toolName),
      ...servers.flatMap(({ server, tools }) => tools.map((t) => mcpName(server, t))),
    ],
  });
  // The skills loaded are the session's, which every run of this adapter
  // shares (docs/architecture.md, "The adapters"): a load in any run makes
  // every run's list old.
  let loads = 0;
  // A turn's settings, with its own signal and list: runs at once on one
  // adapter neither abort nor reuse each other's.
  const turnFor = (signal: AbortSignal | undefined): Omit<OpenAIAgentsTurn, "instructions"> => {
    // The active list, computed once and kept until a skill is loaded:
    // isEnabled is asked for every tool on every model call.
    let active: { loads: number; list: Promise<Set<string>> } | undefined;
    const activeNow = () => {
      if (active?.loads !== loads) {
        const list = agent.activeTools({ signal }).then((a) => new Set(a));
        const mine = { loads, list };
        // A failure is not kept: the next model call asks again.
        list.catch(() => {
          if (active === mine) active = undefined;
        });
        active = mine;
      }
      return active.list;
    };
    const own = agent.tools.map((t) =>
      tool({
        name: t.name,
        description: t.description,
        parameters: t.parameters as never,
        strict: true,
        execute: async (input: unknown, _rc?: RunContext<unknown>, details?: { signal?: AbortSignal }) => {
          try {
            return await t.execute(input, { signal: details?.signal ?? signal });
          } finally {
            loads++;
          }
        },
      }),
    );
    const host = functions.map((t): AnyFunctionTool => ({
      ...t,
      isEnabled: async (rc, ag) => (await t.isEnabled(rc, ag)) && (await activeNow()).has(t.name),
      // The SDK asks the user before invoke: a call the skills refuse is
      // not put to them (invoke refuses it), as the AI SDK adapter denies
      // it without asking.
      needsApproval: async (rc, input, callId) =>
        (await t.needsApproval(rc, input, callId)) && (await agent.check(t.name, input, { signal })).allowed,
      invoke: async (rc, input, details) => {
        const c = await agent.check(t.name, parsed(input), { signal: details?.signal ?? signal });
        return c.allowed ? t.invoke(rc, input, details) : c.message;
      },
    }));
    const out: Omit<OpenAIAgentsTurn, "instructions"> = { tools: [...own, ...host, ...hosted] };
    if (opts.model) {
      const model = opts.model;
      const narrowed = async (req: ModelRequest): Promise<ModelRequest> => {
        const now = await activeNow();
        return { ...req, tools: req.tools.filter((t) => t.type !== "hosted_tool" || !hostedNames.has(hostedName(t)) || now.has(hostedName(t))) };
      };
      out.model = overriding(model, {
        getResponse: async (req) => model.getResponse(await narrowed(req)),
        getStreamedResponse: async function* (req) {
          yield* model.getStreamedResponse(await narrowed(req));
        },
      });
    }
    if (handoffs.length) {
      out.handoffs = handoffs.map((h) =>
        h.clone({
          isEnabled: async (a) => (await h.isEnabled(a)) && (await activeNow()).has(h.toolName),
          // The model asked for it in the same answer as the load_skill
          // that took it away: the SDK cannot refuse a handoff to the
          // model, so the run ends with the refusal.
          onInvokeHandoff: async (rc, args) => {
            const c = await agent.check(h.toolName, parsed(args), { signal });
            if (!c.allowed) {
              throw new SkillfsError("the skills loaded in the same answer leave this handoff out: it was not made, and the run ends here, as the Agents SDK cannot refuse a handoff to the model", "ToolNotAllowed", c.reason ?? "", h.toolName);
            }
            return h.onInvokeHandoff(rc, args);
          },
        }),
      );
    }
    if (servers.length) {
      out.mcpServers = servers.map(({ server }) => {
        // The refusal for a call of name (null when allowed), as the model gets it.
        const refusal = async (name: string, args: unknown, s?: AbortSignal) => {
          const c = await agent.check(mcpName(server, { name }), args ?? {}, { signal: s ?? signal });
          return c.allowed ? null : c.message;
        };
        const filter = server.toolFilter;
        const over: Partial<MCPServer> = {
          toolFilter: async (ctx, t) => (await hostKeeps(filter, ctx, t)) && (await activeNow()).has(mcpName(server, t)),
          callTool: async (name, args, meta, o) => {
            const no = await refusal(name, args, o?.signal);
            return no === null ? server.callTool(name, args, meta, o) : ([{ type: "text", text: no }] as CallToolResultContent);
          },
        };
        const full = server.callToolResult?.bind(server);
        if (full) {
          over.callToolResult = async (name, args, meta, o) => {
            const no = await refusal(name, args, o?.signal);
            return no === null ? full(name, args, meta, o) : { content: [{ type: "text", text: no }], isError: true };
          };
        }
        return overriding(server, over);
      });
    }
    return out;
  };
  return {
    agent,
    runOptions: { toolNotFoundBehavior: "return_error_to_model" },
    async input(input, o) {
      const r = await userInput(agent, input, "input_text", o);
      loads++; // an invocation activates a skill, as a load does
      return r.input;
    },
    async turn(o) {
      const { instructions } = await agent.turn(o);
      return { instructions, ...turnFor(o?.signal) };
    },
  };
}

/** A tool call's arguments, parsed: checked as the raw string when they
 * are not JSON. */
function parsed(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/** The host's tool name of an MCP server's tool, as allowed-tools names
 * it (toolrule's mcp__server__tool). */
const mcpName = (server: MCPServer, t: { name: string }) => `mcp__${server.name}__${t.name}`;

/** The host's tool name of a hosted tool: its name, but a hosted MCP
 * server's (every one is named hosted_mcp) is mcp__<server_label>, which
 * an allowed-tools line naming the whole server admits, and one naming a
 * single tool of it does not: the provider lists and calls its tools,
 * never the host. */
function hostedName(t: { name: string; providerData?: Record<string, any> }): string {
  const label = hostedLabel(t);
  return label === undefined ? t.name : `mcp__${label}`;
}

/** The server label of a hosted MCP server; undefined for another
 * hosted tool. */
function hostedLabel(t: { name: string; providerData?: Record<string, any> }): string | undefined {
  const label = t.providerData?.server_label;
  return t.name === "hosted_mcp" && typeof label === "string" ? label : undefined;
}

/** Refuses an MCP server's name (or a hosted one's label) that holds
 * "__": allowed-tools lines read a server's name in mcp__<server>__<tool>
 * to its first "__" (toolrule's Rule.Names), so a line allowing another
 * server would allow this one's tools. */
function mcpServerName(name: string): void {
  if (!name.includes("__")) return;
  const other = name.slice(0, name.indexOf("__"));
  throw new SkillfsError(
    `the MCP server ${name} has "__" in its name, which allowed-tools read as the end of a server's name (mcp__<server>__<tool>): ` +
      `a line allowing the server ${other} (mcp__${other}) would allow its tools. Name it without "__"`,
    "InvalidArgument",
    "server-name",
    name,
  );
}

/** Whether the host's own tool filter of an MCP server keeps t, as the
 * SDK applies one: a function, or names allowed and blocked. */
async function hostKeeps(f: MCPServer["toolFilter"], ...[ctx, t]: Parameters<MCPToolFilterCallable>): Promise<boolean> {
  if (typeof f === "function") return f(ctx, t);
  const allowed = f?.allowedToolNames ?? [];
  return (allowed.length === 0 || allowed.includes(t.name)) && !(f?.blockedToolNames ?? []).includes(t.name);
}

/** target with the members over gives replaced; its other methods are
 * called on target itself, so that a class's private fields still work. */
function overriding<T extends object>(target: T, over: Partial<T>): T {
  return new Proxy(target, {
    get(t, p) {
      if (Object.hasOwn(over, p)) return over[p as keyof T];
      const v = Reflect.get(t, p, t);
      return typeof v === "function" ? v.bind(t) : v;
    },
  });
}
