// The adapters in the real frameworks (web/test/frameworks.ts: the AI
// SDK's generateText with MockLanguageModelV4, the Agents SDK's run with
// ScriptedModel) over the six real repository downloads installed in one
// database, 259 skills: the catalog in the system prompt within its
// default budget, naming every skill the model may load and describing
// the one the user's message needs; real skills loaded by the names the
// catalog gives (skill-creator-v2 is openai's skill-creator, renamed on
// its collision with anthropics'), their nested files read byte for byte,
// a skill only the user may run refused to the model even with arguments,
// the longest real SKILL.md (claude-api's, 74 KB) loaded in parts,
// the tools narrowed by a real allowed-tools line, and every skill of the
// slash menu invoked by the name it shows. The downloads are found through
// web/harness/realrepos.mjs and the test is skipped, saying so, where they
// are absent; frameworks.test.mjs runs the same runs on the sample pack
// always.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { unzipSync } from 'fflate';
import { realRepos } from '../harness/realrepos.mjs';
import { b64, closePage, ev, freshDB, startBrowser } from './helpers.mjs';

// Six imports of up to 5 MB and two agent runs, on a shared machine.
const REAL_MS = 600_000;
const DEFAULT_CATALOG_BUDGET = 8000;

/** The model's calls: [tool name, input]. */
const SCRIPT = [
  ['load_skill', { name: 'pdf', arguments: null }],
  ['read_skill_file', { path: '/skills/pdf/forms.md' }],
  ['read_skill_file', { path: '/skills/pdf/scripts/fill_fillable_fields.py' }],
  ['load_skill', { name: 'skill-creator-v2', arguments: null }],
  ['read_skill_file', { path: '/skills/skill-creator-v2/scripts/init_skill.py' }],
  ['load_skill', { name: 'neurokit2', arguments: null }],
  ['read_skill_file', { path: '/skills/neurokit2/references/ecg_cardiac.md' }],
  ['load_skill', { name: 'claude-api', arguments: null }],
  ['load_skill', { name: 'git-cleanup', arguments: '--dry-run' }],
  ['load_skill', { name: 'zeroize-audit', arguments: null }],
  ['Bash', { command: 'grep -rn memset src/' }],
  ['WebFetch', { url: 'https://example.com/' }],
];
const PROMPT = 'Fill in the form in report.pdf and check the ECG recording';

/** The bytes of the entry of the download repo whose name ends with suffix. */
function entry(repos, repo, suffix) {
  const files = unzipSync(readFileSync(repos.find((r) => r.name === repo).path), { filter: (f) => f.name.endsWith(suffix) });
  const names = Object.keys(files);
  assert.equal(names.length, 1, `${repo}: ${suffix} matches ${names}`);
  return new TextDecoder().decode(files[names[0]]);
}

/** @type {Awaited<ReturnType<typeof startBrowser>>} */
let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

const { repos, skipReason } = realRepos();
test('both frameworks over the real downloads in one database', { skip: skipReason, timeout: REAL_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  const out = await ev(page, async ([zips, db, script, prompt]) => {
    const m = await import('/dist/frameworks.js');
    const host = await m.installed(zips.map(T.fromB64), db);
    const metas = await host.registry.list();
    const runs = {
      ai: await m.aiSdkRun(m.agentSide(host), { script, prompt }),
      agents: await m.openaiAgentsRun(m.agentSide(host), { script, prompt }),
    };
    // The slash menu: every skill the user may invoke, by the name shown.
    const s = await m.agentSide(host).openSession({ contextId: 'menu' });
    const menu = await s.commands();
    const invoked = [];
    for (const c of menu) {
      const block = await T.outcome(s.invoke(`${c.invocation} x`));
      invoked.push({ invocation: c.invocation, ok: block.ok && block.value.content.startsWith(`<skill_content name="${c.name}">`), error: block.error });
    }
    return { metas: metas.map((x) => ({ id: x.id, name: x.name, dmi: x.disableModelInvocation })), runs, invoked };
  }, [repos.map((r) => b64(readFileSync(r.path))), freshDB('real'), SCRIPT, PROMPT], REAL_MS);

  const visible = out.metas.filter((x) => !x.dmi);
  t.diagnostic(`${out.metas.length} skills installed, ${visible.length} the model may load`);
  assert.ok(out.metas.some((x) => x.id === 'skill-creator-v2'), 'the second skill-creator is renamed');
  const forms = entry(repos, 'anthropics+skills', 'skills/pdf/forms.md');
  const fill = entry(repos, 'anthropics+skills', 'skills/pdf/scripts/fill_fillable_fields.py');
  const init = entry(repos, 'openai+skills', '.system/skill-creator/scripts/init_skill.py');
  const ecg = entry(repos, 'K-Dense-AI+claude-scientific-skills', 'neurokit2/references/ecg_cardiac.md');

  for (const [label, r] of Object.entries(out.runs)) {
    const system = r.systems[0];
    const catalog = system.slice(system.indexOf('<available_skills'), system.indexOf('</available_skills>') + '</available_skills>'.length);
    const length = [...catalog].length;
    t.diagnostic(`${label}: catalog ${length} characters, ${catalog.slice(0, catalog.indexOf('\n'))}`);
    assert.ok(length > 0 && length <= DEFAULT_CATALOG_BUDGET, `${label}: catalog of ${length} characters`);
    for (const x of visible) assert.ok(catalog.includes(x.name), `${label}: the catalog does not name ${x.name}`);
    for (const x of out.metas.filter((x) => x.dmi)) assert.ok(!catalog.includes(`"${x.name}"`) && !catalog.includes(`>\n${x.name}\n<`), `${label}: the catalog names ${x.name}`);
    // The user's message needs pdf: its whole description is there.
    assert.match(catalog, /<name>\npdf\n<\/name>\n<description>\nUse this skill whenever[^<]*If the user mentions a \.pdf file/, label);

    const [pdf, formsRead, fillRead, creator, initRead, neurokit, ecgRead, claudeApi, gitCleanup, zeroize, bash, webFetch] = r.results;
    assert.match(pdf, /^<skill_content name="pdf">[\s\S]*<file>forms\.md<\/file>[\s\S]*<file>scripts\/fill_fillable_fields\.py<\/file>/, label);
    assert.equal(formsRead, forms, `${label}: forms.md byte for byte`);
    assert.equal(fillRead, fill, `${label}: a script byte for byte`);
    assert.match(creator, /^<skill_content name="skill-creator-v2">[\s\S]*Skill directory: \/skills\/skill-creator-v2\//, label);
    assert.equal(initRead, init, `${label}: the renamed skill's script byte for byte`);
    assert.match(neurokit, /^<skill_content name="neurokit2">[\s\S]*<file>references\/ecg_cardiac\.md<\/file>/, label);
    assert.equal(ecgRead, ecg, `${label}: a nested reference byte for byte`);
    // claude-api's SKILL.md is 74 KB: its block comes in parts.
    assert.match(claudeApi, /^<skill_content name="claude-api">[\s\S]*\n\[load_skill: lines 1-\d+ of \d+; read on with offset \d+\]$/, label);
    assert.ok(claudeApi.length < 50_200, `${label}: claude-api's first part is ${claudeApi.length} characters`);
    assert.match(gitCleanup, /^Error: PermissionDenied \(model-invocation-disabled\)/, label);
    assert.match(zeroize, /^<skill_content name="zeroize-audit">/, label);
    assert.equal(bash, 'ran grep -rn memset src/', label);
    assert.match(webFetch, /WebFetch/, label);
    assert.doesNotMatch(webFetch, /^fetched$/, `${label}: zeroize-audit's allowed-tools leave WebFetch out`);
    assert.deepEqual([...r.offered.at(-1)].sort(), ['Bash', 'load_skill', 'read_skill_file'], label);
    assert.deepEqual(r.ran, ['grep -rn memset src/'], label);
    assert.equal(r.results.length, SCRIPT.length, label);
    assert.equal(r.text, 'done', label);
  }

  assert.equal(out.invoked.length, out.metas.length, 'the slash menu lists every skill');
  const failed = out.invoked.filter((x) => !x.ok);
  assert.deepEqual(failed, [], 'every /skill:name of the menu invokes its skill');
});
