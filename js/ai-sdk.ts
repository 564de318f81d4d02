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

import { jsonSchema, type GenericToolApprovalFunction, type ModelMessage, type SingleToolApprovalFunction, type Tool, type ToolApprovalConfiguration, type ToolApprovalStatus, type ToolSet } from "ai";
import { openSkillsAgent, userInput, type SkillsAgent, type SkillsAgentOptions, type TurnOptions } from "./agent.js";
import type { Skillfs } from "./bridge.js";

export interface AiSdkSkillsOptions<T extends ToolSet, L extends string = "load_skill", R extends string = "read_skill_file">
  extends Omit<SkillsAgentOptions, "tools" | "toolNames"> {
  /** The host's own tools, by name. */
  tools: T;
  /** The host's own approval of the calls the active skills allow (its
   * user asked before a Bash call runs), as generateText's toolApproval
   * takes it; without it, each tool's needsApproval. The turn's
   * toolApproval replaces the SDK's, so it asks these in its stead. */
  toolApproval?: ToolApprovalConfiguration<T, any>;
  /** The names of skillfs's own tools (see SkillsAgentOptions.toolNames). */
  toolNames?: { load?: L; read?: R };
}

/** load_skill's input, as the model gives it. */
export interface LoadSkillInput {
  name: string;
  arguments: string | null;
  offset: number | null;
}

/** read_skill_file's input, as the model gives it. */
export interface ReadSkillFileInput {
  path: string;
  offset: number | null;
  limit: number | null;
}

/** skillfs's own tools, under the names toolNames gives them. */
export type SkillTools<L extends string = "load_skill", R extends string = "read_skill_file"> =
  { [K in L]: Tool<LoadSkillInput, string> } & { [K in R]: Tool<ReadSkillFileInput, string> };

type ApprovalFunction = GenericToolApprovalFunction<ToolSet, any, any>;

/** What one generateText / streamText call (or ToolLoopAgent) takes;
 * TOOLS are the host's tools and skillfs's, typed, so that the result's
 * toolCalls name them and type their inputs. */
export interface AiSdkTurn<TOOLS extends ToolSet = ToolSet> {
  instructions: string;
  tools: TOOLS;
  prepareStep: () => Promise<{ activeTools: (keyof TOOLS & string)[] }>;
  toolApproval: GenericToolApprovalFunction<TOOLS, any, any>;
}

/** A turn's options: the user's input as generateText takes it, prompt
 * or messages, which the turn gives back as the model gets it (see
 * SkillsAgent.userMessage; of messages, the last if it is the user's),
 * and whose text is the catalog's query unless query is given. */
export interface AiSdkTurnOptions extends TurnOptions {
  prompt?: string | ModelMessage[];
  messages?: ModelMessage[];
}

export interface AiSdkSkills<TOOLS extends ToolSet = ToolSet> {
  readonly agent: SkillsAgent;
  /** This turn's settings; call it once per user message, given as prompt
   * or messages (or as query) so that the catalog describes the skills it
   * needs. A `/skill:name` the user cannot invoke rejects with its
   * SkillfsError (see SkillsAgent.userMessage). */
  turn<O extends AiSdkTurnOptions = {}>(o?: O): Promise<AiSdkTurn<TOOLS> & UserInputOf<O>>;
}

/** The prompt or messages of a turn's options, as they were given (each
 * member of a union on its own, so that generateText's Prompt takes it). */
export type UserInputOf<O> = O extends unknown ? Pick<O, Extract<keyof O, "prompt" | "messages">> : never;

export async function aiSdkSkills<T extends ToolSet, L extends string = "load_skill", R extends string = "read_skill_file">(
  sk: Skillfs,
  opts: AiSdkSkillsOptions<T, L, R>,
): Promise<AiSdkSkills<T & SkillTools<L, R>>> {
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
    async turn<O extends AiSdkTurnOptions = {}>(options?: O) {
      const { prompt, messages, ...o }: AiSdkTurnOptions = options ?? {};
      const given = messages ?? prompt;
      // The invocation first: the skill it activates is in this turn.
      const user = given === undefined ? undefined : await userInput(agent, given, "text", o);
      const { instructions } = await agent.turn({ ...o, query: o.query ?? user?.query });
      const toolApproval: ApprovalFunction = async (a) => {
        const { toolCall } = a;
        const c = await agent.check(toolCall.toolName, toolCall.input, o);
        return c.allowed ? hostApproval(opts.toolApproval as ToolApprovalConfiguration<ToolSet, any> | undefined, tools, a) : { type: "denied", reason: c.message };
      };
      // The names and inputs are the module's and the model's: the types
      // only say which tools exist, as the SDK's own do.
      return {
        instructions,
        tools: tools as T & SkillTools<L, R>,
        prepareStep: async () => ({ activeTools: (await agent.activeTools(o)) as (keyof (T & SkillTools<L, R>) & string)[] }),
        toolApproval: toolApproval as GenericToolApprovalFunction<T & SkillTools<L, R>, any, any>,
        ...(user ? { [messages ? "messages" : "prompt"]: user.input } : {}),
      } as AiSdkTurn<T & SkillTools<L, R>> & UserInputOf<O>;
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
