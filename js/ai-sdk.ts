// js/ai-sdk.ts (the package's "skillfs/ai-sdk") gives a Vercel AI SDK call
// (generateText, streamText, ToolLoopAgent) skills with enforcement:
//
//   const skills = await aiSdkSkills(sk, { contextId: "chat-1", tools: { Bash, Read } });
//   const r = await generateText({ model, prompt, stopWhen: isStepCount(20), ...(await skills.turn({ query: prompt })) });
//
// turn() gives the instructions (catalog, pinned skills), every tool
// (skillfs's and the host's), prepareStep (the tools the active skills
// allow, each step, since loading a skill changes them) and toolApproval
// (every host tool call checked on its real input; a refusal reaches the
// model as a denied call with the reason; an allowed call is then put to
// the host's own approval). The framework's activeTools alone filters
// names only, never inputs such as Bash(git diff:*).

import { jsonSchema, type GenericToolApprovalFunction, type SingleToolApprovalFunction, type ToolApprovalConfiguration, type ToolApprovalStatus, type ToolSet } from "ai";
import { openSkillsAgent, type SkillsAgent, type SkillsAgentOptions, type TurnOptions } from "./agent.js";
import type { Skillfs } from "./bridge.js";

export interface AiSdkSkillsOptions<T extends ToolSet> extends Omit<SkillsAgentOptions, "tools"> {
  /** The host's own tools, by name. */
  tools: T;
  /** The host's own approval of the calls the active skills allow (its
   * user asked before a Bash call runs), as generateText's toolApproval
   * takes it; without it, each tool's needsApproval. The turn's
   * toolApproval replaces the SDK's, so it asks these in its stead. */
  toolApproval?: ToolApprovalConfiguration<T, any>;
}

type ApprovalFunction = GenericToolApprovalFunction<ToolSet, any, any>;

/** What one generateText / streamText call (or ToolLoopAgent) takes. */
export interface AiSdkTurn {
  instructions: string;
  tools: ToolSet;
  prepareStep: () => Promise<{ activeTools: string[] }>;
  toolApproval: ApprovalFunction;
}

export interface AiSdkSkills {
  readonly agent: SkillsAgent;
  /** This turn's settings; call it once per user message, given as
   * query so that the catalog describes the skills it needs. */
  turn(o?: TurnOptions): Promise<AiSdkTurn>;
}

export async function aiSdkSkills<T extends ToolSet>(sk: Skillfs, opts: AiSdkSkillsOptions<T>): Promise<AiSdkSkills> {
  const agent = await openSkillsAgent(sk, { ...opts, tools: Object.keys(opts.tools) });
  const tools: ToolSet = { ...opts.tools };
  for (const t of agent.tools) {
    tools[t.name] = {
      description: t.description,
      inputSchema: jsonSchema(t.parameters),
      execute: (input: unknown, o: { abortSignal?: AbortSignal }) => t.execute(input, { signal: o.abortSignal }),
    };
  }
  return {
    agent,
    async turn(o) {
      const { instructions } = await agent.turn(o);
      return {
        instructions,
        tools,
        prepareStep: async () => ({ activeTools: await agent.activeTools(o) }),
        toolApproval: async (a) => {
          const { toolCall } = a;
          const c = await agent.check(toolCall.toolName, toolCall.input, o);
          return c.allowed ? hostApproval(opts.toolApproval as ToolApprovalConfiguration<ToolSet, any> | undefined, tools, a) : { type: "denied", reason: c.message };
        },
      };
    },
  };
}

/** What the SDK would decide for a call without the adapter's
 * toolApproval (resolveToolApproval in ai): the host's configuration, a
 * function for every call or a status or function per tool, else the
 * tool's own needsApproval. */
async function hostApproval(config: ToolApprovalConfiguration<ToolSet, any> | undefined, tools: ToolSet, a: Parameters<ApprovalFunction>[0]): Promise<ToolApprovalStatus> {
  if (typeof config === "function") return config(a);
  const { toolName: name, toolCallId, input } = a.toolCall;
  const context = a.toolsContext?.[name];
  const own = config && Object.hasOwn(config, name) ? config[name] : undefined;
  if (own != null) return typeof own === "function" ? (own as SingleToolApprovalFunction<unknown, unknown, unknown>)(input, { toolCallId, messages: a.messages, toolContext: context, runtimeContext: a.runtimeContext }) : own;
  const needs = Object.hasOwn(tools, name) ? tools[name]?.needsApproval : undefined;
  if (needs == null) return "not-applicable";
  const ask = typeof needs === "function" ? await needs(input as never, { toolCallId, messages: a.messages, context }) : needs;
  return ask ? "user-approval" : "not-applicable";
}
