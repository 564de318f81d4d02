// The adapters' declarations against the frameworks' own. Checked with
// skipLibCheck: the frameworks' declarations themselves do not pass
// exactOptionalPropertyTypes (main.ts checks skillfs's without it).

import { generateText, isStepCount, type LanguageModel } from "ai";
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
