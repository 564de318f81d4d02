// A new user's project: it imports the installed skillfs package by its
// published names only, type-checked under the strictest settings people
// use, bundled by esbuild, and run in Chromium (web/package/consumer.test.mjs).

import "skillfs/wasm_exec.js";
import { loadSkillfs, SkillfsError, type SessionFile, type SkillfsSession, type SkillToolSet } from "skillfs";
import { openSkillsAgent, type SkillsTurn } from "skillfs/agent";

interface Report {
  imported: string[];
  turn: SkillsTurn;
  reference: string;
  mediaType: string;
  escape: string;
  code: string;
  tools: SkillToolSet;
}

async function run(zip: Uint8Array): Promise<Report> {
  // skillfs.wasm is found beside the bundle (import.meta.url).
  const sk = await loadSkillfs({ dbName: `consumer-${Date.now()}` });
  const { skills } = await sk.registry.importZip(zip, { source: "pack.zip" });
  const agent = await openSkillsAgent(sk, { contextId: "consumer", tools: ["Bash"] });
  const session: SkillfsSession = agent.session;
  const file: SessionFile = await session.readFile(`/skills/${skills[0]?.id ?? ""}/SKILL.md`);
  const [, read] = agent.tools;
  let code = "";
  try {
    await session.readFile("/skills/../etc/passwd");
  } catch (e) {
    if (e instanceof SkillfsError) code = e.code;
  }
  return {
    imported: skills.map((s) => s.id),
    turn: await agent.turn(),
    reference: file.text(),
    mediaType: file.mediaType,
    escape: (await read?.execute({ path: "/skills/../etc/passwd" })) ?? "",
    code,
    tools: await session.activeTools(),
  };
}

(globalThis as { run?: typeof run }).run = run;
