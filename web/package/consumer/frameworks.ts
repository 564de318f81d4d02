// The adapters' declarations against the frameworks' own. Checked with
// skipLibCheck: the frameworks' declarations themselves do not pass
// exactOptionalPropertyTypes (main.ts checks skillfs's without it).

import { generateText, isStepCount, jsonSchema, streamText, tool, ToolLoopAgent, type LanguageModel } from "ai";
import { Agent, run, type Model } from "@openai/agents-core";
import type { Skillfs } from "skillfs";
import { aiSdkSkills } from "skillfs/ai-sdk";
import { openaiAgentsSkills } from "skillfs/openai-agents";

export async function withAiSdk(sk: Skillfs, model: LanguageModel): Promise<string> {
  const skills = await aiSdkSkills(sk, { contextId: "chat", tools: {} });
  return (await generateText({ model, prompt: "hi", stopWhen: isStepCount(5), ...(await skills.turn()) })).text;
}

export async function withAgents(sk: Skillfs, model: Model): Promise<unknown> {
  const skills = await openaiAgentsSkills(sk, { contextId: "chat", tools: [] });
  return (await run(new Agent({ name: "a", model, ...(await skills.turn()) }), "hi", skills.runOptions)).finalOutput;
}

// A typed host tool, with the host's own approval given to the adapter
// (its input typed from the tool's schema), in streamText and a
// ToolLoopAgent as in generateText.
export async function withAiSdkApproval(sk: Skillfs, model: LanguageModel): Promise<string[]> {
  const Bash = tool({
    description: "Run a command.",
    inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }),
    execute: async ({ command }) => `ran ${command}`,
  });
  const skills = await aiSdkSkills(sk, {
    contextId: "chat",
    tools: { Bash },
    toolApproval: { Bash: (input) => (input.command.startsWith("git push") ? "user-approval" : "not-applicable") },
  });
  const turn = await skills.turn({ query: "hi" });
  const streamed = streamText({ model, prompt: "hi", stopWhen: isStepCount(5), ...turn });
  const agent = new ToolLoopAgent({ model, ...turn });
  return [await streamed.text, (await agent.generate({ prompt: "hi" })).text];
}

// The host's tools keep their types through the turn: the result's
// toolCalls name them and skillfs's own (under the names given), and
// type their inputs.
export async function withAiSdkTypedCalls(sk: Skillfs, model: LanguageModel): Promise<string[]> {
  const Bash = tool({
    description: "Run a command.",
    inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }),
    execute: async ({ command }) => `ran ${command}`,
  });
  const skills = await aiSdkSkills(sk, { contextId: "chat", tools: { Bash }, toolNames: { load: "skill" } });
  const result = await generateText({ model, prompt: "hi", ...(await skills.turn()) });
  return result.toolCalls.map((c) => {
    if (c.dynamic) return "";
    const name: "Bash" | "skill" | "read_skill_file" = c.toolName;
    return c.toolName === "Bash" ? c.input.command : c.toolName === "skill" ? c.input.name : `${name} ${c.input.path}`;
  });
}
