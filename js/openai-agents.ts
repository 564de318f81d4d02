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

import { tool, type FunctionTool, type RunContext, type ToolNotFoundBehavior } from "@openai/agents-core";
import { openSkillsAgent, type SkillsAgent, type SkillsAgentOptions, type TurnOptions } from "./agent.js";
import type { Skillfs } from "./bridge.js";

type AnyFunctionTool = FunctionTool<any, any, any>;

export interface OpenAIAgentsSkillsOptions extends Omit<SkillsAgentOptions, "tools"> {
  /** The host's own function tools. */
  tools: AnyFunctionTool[];
}

export interface OpenAIAgentsTurn {
  instructions: string;
  tools: AnyFunctionTool[];
}

export interface OpenAIAgentsSkills {
  readonly agent: SkillsAgent;
  /** This turn's instructions and tools; call it once per user message,
   * given as query so that the catalog describes the skills it needs. */
  turn(o?: TurnOptions): Promise<OpenAIAgentsTurn>;
  /** For run() or a Runner. */
  readonly runOptions: { toolNotFoundBehavior: ToolNotFoundBehavior };
}

export async function openaiAgentsSkills(sk: Skillfs, opts: OpenAIAgentsSkillsOptions): Promise<OpenAIAgentsSkills> {
  const agent = await openSkillsAgent(sk, { ...opts, tools: opts.tools.map((t) => t.name) });
  let signal: AbortSignal | undefined;
  // The active list, computed once and kept until a skill is loaded or
  // the next turn: isEnabled is asked for every tool on every model call.
  let active: Promise<Set<string>> | undefined;
  const activeNow = () => (active ??= agent.activeTools({ signal }).then((a) => new Set(a)));
  const own = agent.tools.map((t) =>
    tool({
      name: t.name,
      description: t.description,
      parameters: t.parameters as never,
      strict: true,
      execute: async (input: unknown, _rc?: RunContext<unknown>, details?: { signal?: AbortSignal }) => {
        active = undefined;
        return t.execute(input, { signal: details?.signal ?? signal });
      },
    }),
  );
  const host = opts.tools.map((t): AnyFunctionTool => ({
    ...t,
    isEnabled: async (rc, ag) => (await t.isEnabled(rc, ag)) && (await activeNow()).has(t.name),
    // The SDK asks the user before invoke: a call the skills refuse is
    // not put to them (invoke refuses it), as the AI SDK adapter denies
    // it without asking.
    needsApproval: async (rc, input, callId) =>
      (await t.needsApproval(rc, input, callId)) && (await agent.check(t.name, input, { signal })).allowed,
    invoke: async (rc, input, details) => {
      let parsed: unknown = input;
      try {
        parsed = JSON.parse(input);
      } catch {
        // Checked as the raw string.
      }
      const c = await agent.check(t.name, parsed, { signal: details?.signal ?? signal });
      return c.allowed ? t.invoke(rc, input, details) : c.message;
    },
  }));
  return {
    agent,
    runOptions: { toolNotFoundBehavior: "return_error_to_model" },
    async turn(o) {
      signal = o?.signal;
      active = undefined;
      const { instructions } = await agent.turn(o);
      return { instructions, tools: [...own, ...host] };
    },
  };
}
