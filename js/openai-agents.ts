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
// Each turn's tools are its run's: runs at once on one adapter keep their
// own signals, and share the session's loaded skills.

import { tool, type AgentInputItem, type FunctionTool, type RunContext, type ToolNotFoundBehavior } from "@openai/agents-core";
import { openSkillsAgent, userInput, type SkillsAgent, type SkillsAgentOptions, type TurnOptions } from "./agent.js";
import type { CallOptions, Skillfs } from "./bridge.js";

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
  /** The user's input for run(), as the model gets it (see
   * SkillsAgent.userMessage; of items, the last if it is the user's):
   * call it before the run. A `/skill:name` the user cannot invoke
   * rejects with its SkillfsError. */
  input<I extends string | AgentInputItem[]>(input: I, o?: CallOptions): Promise<I>;
  /** For run() or a Runner. */
  readonly runOptions: { toolNotFoundBehavior: ToolNotFoundBehavior };
}

export async function openaiAgentsSkills(sk: Skillfs, opts: OpenAIAgentsSkillsOptions): Promise<OpenAIAgentsSkills> {
  const agent = await openSkillsAgent(sk, { ...opts, tools: opts.tools.map((t) => t.name) });
  // The skills loaded are the session's, which every run of this adapter
  // shares (docs/architecture.md, "The adapters"): a load in any run makes
  // every run's list old.
  let loads = 0;
  // A turn's tools, with its own signal and list: runs at once on one
  // adapter neither abort nor reuse each other's.
  const toolsFor = (signal: AbortSignal | undefined): AnyFunctionTool[] => {
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
    return [...own, ...host];
  };
  return {
    agent,
    runOptions: { toolNotFoundBehavior: "return_error_to_model" },
    input: async (input, o) => (await userInput(agent, input, "input_text", o)).input,
    async turn(o) {
      const { instructions } = await agent.turn(o);
      return { instructions, tools: toolsFor(o?.signal) };
    },
  };
}
