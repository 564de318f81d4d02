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
// model as a denied call with the reason). The framework's activeTools
// alone filters names only, never inputs such as Bash(git diff:*).

import { jsonSchema, type ToolApprovalStatus, type ToolSet, type TypedToolCall } from "ai";
import { openSkillsAgent, type SkillsAgent, type SkillsAgentOptions, type TurnOptions } from "./agent.js";
import type { Skillfs } from "./bridge.js";

export interface AiSdkSkillsOptions<T extends ToolSet> extends Omit<SkillsAgentOptions, "tools"> {
  /** The host's own tools, by name. */
  tools: T;
}

/** What one generateText / streamText call (or ToolLoopAgent) takes. */
export interface AiSdkTurn {
  instructions: string;
  tools: ToolSet;
  prepareStep: () => Promise<{ activeTools: string[] }>;
  toolApproval: (o: { toolCall: TypedToolCall<ToolSet> }) => Promise<ToolApprovalStatus>;
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
        toolApproval: async ({ toolCall }) => {
          const c = await agent.check(toolCall.toolName, toolCall.input, o);
          return c.allowed ? "not-applicable" : { type: "denied", reason: c.message };
        },
      };
    },
  };
}
