// The package's adapters in real agent frameworks, in Chromium: the Vercel
// AI SDK (generateText with ai/test's MockLanguageModelV4) and the OpenAI
// Agents SDK (run with @openai/agents-core/testing's ScriptedModel), each
// over a port with the "agent" capability. web/test/frameworks.ts runs
// them; this file checks what the model saw and what the host ran.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REPO, TEST_MS, assertOk, b64, filesOf, closePage, ev, freshDB, under, zip, startBrowser } from './helpers.mjs';

const SAMPLE = filesOf(join(REPO, 'web/sample-pack'));
const PACK = b64(zip(under('pack/', SAMPLE)));
const FORMS = new TextDecoder().decode(SAMPLE['pdf-tools/references/forms.md']);

/** @type {Awaited<ReturnType<typeof startBrowser>>} */
let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

/** The lines between the "glue" markers of fn in frameworks.ts. */
function glue(fn) {
  const src = readFileSync(join(REPO, 'web/test/frameworks.ts'), 'utf8');
  const body = src.slice(src.indexOf(`export async function ${fn}(`));
  const lines = body.slice(body.indexOf('// glue: start'), body.indexOf('// glue: end')).split('\n').slice(1);
  return lines.filter((l) => l.trim() !== '');
}

// The AI SDK's run both ways: generateText, and streamText, whose tools
// run as the stream is read.
for (const [fn, label, stream] of [['aiSdkRun', 'AI SDK', false], ['aiSdkRun', 'AI SDK streamText', true], ['openaiAgentsRun', 'OpenAI Agents SDK', false]]) {
  test(`${label}: skills with enforcement, in at most 5 lines of glue`, { timeout: TEST_MS }, async (t) => {
    assert.ok(glue(fn).length <= 5, `glue of ${fn}: ${glue(fn).length} lines`);
    const page = await b.openPage();
    t.after(() => closePage(page));
    const r = await ev(page, async ([fn, pack, db, stream]) => {
      const m = await import('/dist/frameworks.js');
      // A budget the pack's catalog does not fit, as hundreds of skills do not fit the default.
      return m[fn](m.agentSide(await m.installed([T.fromB64(pack)], db)), { budget: 600, stream });
    }, [fn, PACK, freshDB(label), stream]);

    // The catalog reached the system prompt of the first call, within its
    // budget, with the full description of the skill the user's message
    // needs.
    const catalog = r.systems[0].slice(r.systems[0].indexOf('<available_skills'), r.systems[0].indexOf('</available_skills>') + 19);
    assert.match(catalog, /^<available_skills shown="5" [\s\S]*pdf-tools[\s\S]*<\/available_skills>$/);
    assert.ok([...catalog].length <= 600, `${[...catalog].length} characters`);
    assert.match(catalog, /<name>\npdf-tools\n<\/name>\n<description>\nExtract text[^<]*Use when the user mentions a PDF/);
    assert.match(r.systems[0], /load_skill/);
    // Before a skill is loaded every host tool is offered but WebFetch, which
    // only web-research's tool_dependencies name (stage 3: it waits for a
    // skill that declares it); after pdf-tools (Read Bash(python:*)), Bash
    // and skillfs's own tools.
    assert.deepEqual([...r.offered[0]].sort(), ['Bash', 'load_skill', 'read_skill_file']);
    assert.deepEqual([...r.offered.at(-1)].sort(), ['Bash', 'load_skill', 'read_skill_file']);

    const [load, read, bash, webFetch, curl, escape, userOnly, modelOnly] = r.results;
    assert.match(load, /^<skill_content name="pdf-tools">/);
    assert.equal(read, FORMS, 'the reference reaches the model byte for byte');
    assert.equal(bash, 'ran python scripts/extract.py report.pdf');
    assert.match(webFetch, /WebFetch/);
    assert.doesNotMatch(webFetch, /^fetched$/);
    assert.match(curl, /ToolNotAllowed \(input-not-matched\): .*Bash\(python:\*\)/);
    assert.match(curl, /What you can do/);
    assert.match(escape, /^Error: PathRejected/);
    // Arguments keep the model on its own path: a skill only the user may
    // run stays refused, one only the model may run loads, with them.
    assert.match(userOnly, /^Error: PermissionDenied \(model-invocation-disabled\)/);
    assert.match(modelOnly, /^<skill_content name="citation-style">[\s\S]*ARGUMENTS: numbered/);
    assert.deepEqual(r.ran, ['python scripts/extract.py report.pdf'], 'only the allowed command ran');
    assert.equal(r.results.length, 8);
    assert.equal(r.text, 'done', 'the loop ended');
  });
}

test('a user\'s message longer than the catalog routes still gets its turn, and its skill described', { timeout: TEST_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  // Over 8 KB of UTF-8 (the catalog routes at most 8 KB), a multi-byte
  // character across the cut.
  const prompt = `Fill in the form in report.pdf. ${'表单 '.repeat(1365)}x${'é'.repeat(10)}`;
  const r = await ev(page, async ([pack, db, prompt]) => {
    const m = await import('/dist/frameworks.js');
    return T.outcome(m.aiSdkRun(m.agentSide(await m.installed([T.fromB64(pack)], db)), { prompt, budget: 600, script: [] }));
  }, [PACK, freshDB('long'), prompt]);
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.match(r.value.systems[0], /<name>\npdf-tools\n<\/name>\n<description>\nExtract text[^<]*Use when the user mentions a PDF/);
  assert.equal(r.value.text, 'done');
});

// A host whose Read takes absolute paths (Claude Code's file_path) tells
// the adapter its working directory: Read(*.md) then admits a path below
// it, as relative to it, and refuses one outside it, saying so.
test('an adapter with a working directory judges absolute paths below it by relative patterns', { timeout: TEST_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  const notes = b64(zip(under('pack/', { 'notes/SKILL.md': '---\nname: notes\ndescription: Read the project\'s notes. Use for notes.\nallowed-tools: Read(*.md)\n---\n# Notes\n' })));
  const run = (dir) => ev(page, async ([pack, db, dir]) => {
    const m = await import('/dist/frameworks.js');
    return m.readApprovals(m.agentSide(await m.installed([T.fromB64(pack)], db)), 'notes', dir, ['/home/u/proj/docs/a.md', '/home/u/other/a.md']);
  }, [notes, freshDB(dir.startsWith("/") ? "cwd-ok" : "cwd-bad"), dir]);
  const r = await run('/home/u/proj');
  assert.equal(r.approvals?.[0], 'not-applicable', JSON.stringify(r));
  assert.equal(r.approvals?.[1]?.type, 'denied');
  assert.match(r.approvals[1].reason, /working directory \/home\/u\/proj, and the path is outside it/);
  assert.equal((await run('home/u/proj/')).code, 'InvalidArgument');
});

// A host tool the user approves each call of keeps asking under the
// adapter, whichever way the SDK lets the host ask: the adapter's
// toolApproval replaces the SDK's own resolution, so it must consult the
// tool's needsApproval, or the host's toolApproval given to it, for the
// calls the skills allow. A call the skills refuse is denied, never put
// to the user.
for (const how of ['tool', 'call']) {
  test(`AI SDK: a host tool that needs the user's approval (${how === 'tool' ? 'needsApproval' : 'toolApproval'}) still asks for the calls the skills allow`, { timeout: TEST_MS }, async (t) => {
    const page = await b.openPage();
    t.after(() => closePage(page));
    const r = await ev(page, async ([pack, db, how]) => {
      const m = await import('/dist/frameworks.js');
      return m.aiSdkApprovals(m.agentSide(await m.installed([T.fromB64(pack)], db)), how);
    }, [PACK, freshDB(`approval-${how}`), how]);
    assert.deepEqual(r.ran, [], 'nothing ran without the user');
    assert.deepEqual(r.asked, ['python scripts/extract.py report.pdf']);
    assert.deepEqual(r.denied, ['c2'], 'the refused call was denied without asking');
  });
}

// The user's `/skill:name args`, passed through an adapter as the host
// passes the user's message (the AI SDK's prompt or messages, the Agents
// SDK's run input), invokes that skill on the user's path: the model
// gets its instructions, the arguments substituted, as the user's
// message; its allowed-tools narrow the tools from the first model call
// (release-notes: Bash(git log:*), Bash(git tag:*), Read; Write is gone)
// and every call is checked against them. It is a skill only the user
// may run, which the model could not load. A skill the user cannot
// invoke rejects with its code before the model is called, and so does a
// message too long to reach skillfs over the port, saying what to do; a
// message that only starts with a slash is the user's text, and so is
// one that starts with "/skill:" but no name the module reads (nor white
// space it skips: U+FEFF is not; U+0085 is).
for (const shape of ['prompt', 'messages', 'agents']) {
  test(`${shape === 'agents' ? 'OpenAI Agents SDK' : `AI SDK ${shape}`}: the user's /skill:name args activates that skill for the run`, { timeout: TEST_MS }, async (t) => {
    const page = await b.openPage();
    t.after(() => closePage(page));
    const r = await ev(page, async ([pack, db, shape]) => {
      const m = await import('/dist/frameworks.js');
      const host = await m.installed([T.fromB64(pack)], db);
      await host.registry.setEnabled('word-count', false);
      const sk = m.agentSide(host);
      const run = (message) => T.outcome(m.invokedRun(sk, shape, message));
      return {
        invoked: await run('  /skill:release-notes v1.2.0'),
        plain: await run('/etc is full, free some space'),
        unknown: await run('/skill:no-such-skill x'),
        disabled: await run('/skill:word-count some text'),
        modelOnly: await run('/skill:citation-style numbered'),
        long: await run(`/skill:release-notes ${'x'.repeat(20_000)}`),
        // 9,000 characters, 27,000 bytes in UTF-8 as the module counts them.
        wide: await run(`/skill:release-notes ${'字'.repeat(9_000)}`),
        nel: await run('\u0085/skill:release-notes v1.2.0'),
        noName: [await run('/skill:'), await run('/skill:release-notes.md v1'), await run('\ufeff/skill:release-notes v1')],
      };
    }, [PACK, freshDB(`invoke-${shape}`), shape]);

    const { users, offered, results, ran, text } = assertOk(r.invoked, 'invoked');
    assert.match(users[0], /^<skill_content name="release-notes">[\s\S]*v1\.2\.0/, 'the model got the skill\'s instructions as the user\'s message');
    assert.deepEqual([...offered[0]].sort(), ['Bash', 'load_skill', 'read_skill_file'], 'narrowed from the first call');
    assert.deepEqual(ran, ['git log --oneline v1.1.0..v1.2.0'], 'only the allowed command ran');
    assert.match(results[1], /ToolNotAllowed \(input-not-matched\)/);
    assert.match(results[2], /Write/);
    assert.notEqual(results[2], 'wrote');
    assert.equal(text, 'done');

    const plain = assertOk(r.plain, 'plain');
    assert.equal(plain.users[0], '/etc is full, free some space');
    assert.ok(plain.offered[0].includes('Write'), 'nothing was activated');
    for (const [i, message] of ['/skill:', '/skill:release-notes.md v1', '\ufeff/skill:release-notes v1'].entries()) {
      const { users, offered } = assertOk(r.noName[i], message);
      assert.equal(users[0], message);
      assert.ok(offered[0].includes('Write'), `${message}: nothing was activated`);
    }
    assert.match(assertOk(r.nel, 'U+0085').users[0], /^<skill_content name="release-notes">/);
    for (const [what, { ok, error }] of [['long', r.long], ['wide', r.wide]]) {
      assert.equal(ok, false, what);
      assert.deepEqual({ code: error.code, reason: error.reason }, { code: 'TooLarge', reason: 'limit' }, `${what}: ${error.message}`);
      assert.match(error.message, /^TooLarge \(limit\): the message is too long to invoke a skill with over this connection \(a string is longer than 16384 bytes\): shorten the arguments, or invoke the skill alone \(\/skill:name\) and send the text in a message of its own$/, what);
    }

    // frameworks.js bundles its own bridge: its errors are SkillfsErrors
    // by name, not of the page's class.
    for (const [what, { ok, error }, code, reason, subject] of [
      ['unknown', r.unknown, 'SkillNotFound', 'not-installed', 'no-such-skill'],
      ['disabled', r.disabled, 'SkillNotFound', 'not-installed', 'word-count'],
      ['user-invocable: false', r.modelOnly, 'PermissionDenied', 'not-user-invocable', 'citation-style'],
    ]) {
      assert.equal(ok, false, what);
      assert.deepEqual({ name: error.name, code: error.code, reason: error.reason, subject: error.subject }, { name: 'SkillfsError', code, reason, subject }, `${what}: ${error.message}`);
    }
  });
}

// A skill's allowed-tools narrow every kind of tool the Agents SDK lets a
// model call, not only function tools: a hosted tool and a hosted MCP
// server leave the model's requests (the provider runs them inside its
// answer, so the request is where they can be taken away), a handoff is
// disabled, and of an MCP server's tools only the allowed one is offered;
// a call of the other that reaches the server is refused, not run.
const NARROW = b64(zip(under('pack/', {
  'narrow/SKILL.md': '---\nname: narrow\ndescription: Work on files with python only. Use for narrow tasks.\nallowed-tools: Bash(python:*) mcp__files__read_file\n---\n# Narrow\n',
})));
test('OpenAI Agents SDK: hosted tools, hosted MCP, handoffs and MCP tools are narrowed by the loaded skill', { timeout: TEST_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  const r = await ev(page, async ([pack, db]) => {
    const m = await import('/dist/frameworks.js');
    const host = await m.installed([T.fromB64(pack)], db);
    return {
      kinds: await T.outcome(m.openaiAgentsKinds(m.agentSide(host))),
      race: await m.openaiAgentsHandoffInSameAnswer(m.agentSide(host)),
      refused: await m.openaiAgentsRefusedTools(m.agentSide(host)),
    };
  }, [NARROW, freshDB('kinds')]);
  const { offered, results, ran, refused } = assertOk(r.kinds, 'kinds');
  assert.deepEqual([...offered[0]].sort(), ['Bash', 'delete_file', 'hosted:hosted_mcp', 'hosted:web_search', 'load_skill', 'read_file', 'read_skill_file', 'transfer_to_billing'], 'before the skill, everything');
  for (const after of offered.slice(1)) assert.deepEqual([...after].sort(), ['Bash', 'load_skill', 'read_file', 'read_skill_file'], 'after it, what it allows');
  assert.deepEqual(ran, ['read_file {"path":"a.md"}'], 'only the allowed MCP tool ran');
  const [, read, del, transfer] = results;
  assert.match(read, /read_file done/);
  assert.match(del, /delete_file/);
  assert.match(transfer, /transfer_to_billing/);
  assert.equal(results.length, 4);
  assert.match(JSON.stringify(refused), /ToolNotAllowed \(tool-not-listed\)/, 'a call that reaches the server anyway is refused');
  // Asked for in the same answer as the load that takes it away, a
  // handoff cannot be refused to the model: the run ends with the refusal.
  assert.equal(r.race.name, 'SkillfsError', JSON.stringify(r.race));
  assert.deepEqual({ code: r.race.code, reason: r.race.reason }, { code: 'ToolNotAllowed', reason: 'tool-not-listed' }, r.race.message);
  // Hosted tools without the model they are narrowed in are refused, and
  // so is a shell tool, never passed on unnarrowed, and an MCP server (or
  // a hosted one) whose name allowed-tools would read as another's.
  const [noModel, shell, server, hosted] = r.refused;
  assert.deepEqual([noModel, shell, server, hosted].map((e) => e.reason), ['no-model', 'tool-kind', 'server-name', 'server-name']);
  assert.equal(noModel.code, 'InvalidArgument', JSON.stringify(noModel));
  assert.match(noModel.message, /the hosted tool web_search can be narrowed only in the requests to the model: give the adapter the agent's model/);
  assert.equal(shell.code, 'InvalidArgument', JSON.stringify(shell));
  assert.match(shell.message, /shell tools cannot be narrowed by skills/);
  for (const [e, name] of [[server, 'files__admin'], [hosted, 'docs__admin']]) {
    assert.equal(e.code, 'InvalidArgument', JSON.stringify(e));
    assert.match(e.message, new RegExp(`the MCP server ${name} has "__" in its name[^:]*: a line allowing the server ${name.split('__')[0]} \\(mcp__${name.split('__')[0]}\\) would allow its tools\\. Name it without "__"`));
  }
});

/** Checks that the answers parts of tool (read_skill_file or load_skill)
 * hold at most 50,000 characters each, in whole lines, each ending with
 * a note of its lines of all and where to read on (but the last), and
 * make up whole. */
function assertParts(parts, whole, all, tool) {
  assert.ok(whole.length > 200_000 && parts.length >= 4, `${tool}: ${parts.length} parts of ${whole.length} characters`);
  let joined = '';
  let line = 1;
  for (const [i, part] of parts.entries()) {
    const m = new RegExp(`\\n\\[${tool}: lines (\\d+)-(\\d+) of ${all}(?:; read on with offset (\\d+))?\\]$`).exec(part);
    assert.ok(m, `${tool}: part ${i} ends with its note: …${part.slice(-120)}`);
    const text = part.slice(0, m.index + 1);
    assert.ok(text.length <= 50_000, `${tool}: part ${i}: ${text.length} characters`);
    assert.equal(Number(m[1]), line, `${tool}: part ${i} starts where the last ended`);
    line = Number(m[2]) + 1;
    assert.equal(m[3] === undefined, i === parts.length - 1, `${tool}: only the last part has no offset to read on: ${m[0]}`);
    joined += text;
  }
  // The last part gains a line break when the whole ends without one.
  assert.equal(joined, whole.endsWith('\n') ? whole : `${whole}\n`, `${tool}: the parts make up the whole`);
}

// A skill's file, SKILL.md included, may be up to 10 MB; read_skill_file
// and load_skill give at most 50,000 characters at a time, in whole
// lines, each part saying where to read on, and the parts put back
// together are the file or the skill's block. Both frameworks take the
// tools' schemas (offset and limit, nullable, in strict mode) and the
// model gets a bounded first part.
test('a long skill file or skill reaches the model in bounded parts that make up the whole', { timeout: TEST_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  const lines = [];
  for (let i = 1; i <= 4000; i++) lines.push(`${i}: ${'表格 field value '.repeat(1 + (i % 7))}é\n`);
  const big = lines.join('');
  const pack = b64(zip(under('pack/', {
    'big-ref/SKILL.md': '---\nname: big-ref\ndescription: A reference too long to read at once. Use for big references.\n---\n# Big\n\nRead references/big.md.\n',
    'big-ref/references/big.md': big,
    'big-ref/references/min.json': JSON.stringify({ rows: Array.from({ length: 6000 }, (_, i) => `row ${i} 😀`) }),
    'long-skill/SKILL.md': `---\nname: long-skill\ndescription: A skill whose instructions are too long to load at once. Use for long skills.\n---\n# Long\n\n${big}`,
  })));
  const script = [['load_skill', { name: 'big-ref', arguments: null }], ['read_skill_file', { path: '/skills/big-ref/references/big.md', offset: null, limit: null }]];
  const r = await ev(page, async ([pack, db, script]) => {
    const m = await import('/dist/frameworks.js');
    const host = await m.installed([T.fromB64(pack)], db);
    return {
      read: await m.readInParts(m.agentSide(host), 'big-ref', '/skills/big-ref/references/big.md'),
      min: await m.readInParts(m.agentSide(host), 'big-ref', '/skills/big-ref/references/min.json'),
      loaded: await m.readInParts(m.agentSide(host), 'long-skill'),
      block: (await (await host.openSession({ contextId: 'whole' })).activate('long-skill')).content,
      ai: await m.aiSdkRun(m.agentSide(host), { script, prompt: 'read the big reference' }),
      agents: await m.openaiAgentsRun(m.agentSide(host), { script, prompt: 'read the big reference' }),
    };
  }, [pack, freshDB('parts'), script]);
  assertParts(r.read.parts, big, 4000, 'read_skill_file');
  assert.match(r.read.past, /^Error: InvalidArgument: offset 1000000 is past the end: there are 4000 lines/);
  const blockLines = r.block.split(/(?<=\n)/).length;
  assertParts(r.loaded.parts, r.block, blockLines, 'load_skill');
  assert.match(r.loaded.past, new RegExp(`^Error: InvalidArgument: offset 1000000 is past the end: there are ${blockLines} lines`));
  // One line longer than a part (minified JSON) is cut, between characters.
  const [min] = r.min.parts;
  assert.equal(r.min.parts.length, 1);
  const cut = min.indexOf('\n[read_skill_file: line 1 of 1 is longer than 50000 characters and was cut]');
  assert.ok(cut > 49_990 && cut <= 50_000, `cut at ${cut}`);
  assert.ok(!/[\ud800-\udbff]$/.test(min.slice(0, cut)), 'no half of a surrogate pair');
  for (const [label, run] of [['AI SDK', r.ai], ['OpenAI Agents SDK', r.agents]]) {
    assert.equal(run.results.length, 2, label);
    assert.equal(run.results[1], r.read.parts[0], `${label}: the model got the first part`);
    assert.equal(run.text, 'done', label);
  }
});

// A host tool's input is checked on the field the skills vet, whatever
// else it holds: a long string (a Write's content) or a deeply nested
// argument elsewhere in it neither crashes the loop nor is refused; a
// vetted field too long to check is refused as too long (saying the
// limit), not as missing; and a call that cannot be
// checked at all (over the port's limits) is refused with the reason,
// and the loop goes on.
test('long and nested tool inputs are checked on their vetted field, and never end the run', { timeout: TEST_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  let deep = {};
  for (let i = 0; i < 12; i++) deep = { a: deep };
  const echo = `echo ${'x'.repeat(20_000)}`;
  const extract = 'python scripts/extract.py report.pdf';
  const script = [
    ['Bash', { command: echo }],
    ['load_skill', { name: 'pdf-tools', arguments: null }],
    ['Bash', { command: `python ${'x'.repeat(20_000)}` }],
    ['Bash', { command: extract, note: 'é'.repeat(20_000), deep }],
    ['Bash', { command: 'python ok', ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, 'y'.repeat(15_000)])) }],
  ];
  for (const fn of ['aiSdkRun', 'openaiAgentsRun']) {
    const r = await ev(page, async ([pack, db, script, fn]) => {
      const m = await import('/dist/frameworks.js');
      return T.outcome(m[fn](m.agentSide(await m.installed([T.fromB64(pack)], db)), { script }));
    }, [PACK, freshDB(`inputs-${fn}`), script, fn]);
    assert.equal(r.ok, true, `${fn}: ${JSON.stringify(r.error)}`);
    const { results, ran, text } = r.value;
    assert.deepEqual(ran.map((c) => c.slice(0, 40)), [echo.slice(0, 40), extract], fn);
    // The vetted command is longer than a call carries (16 KB): refused
    // as too long to check, saying the limit, not as a command not given.
    assert.match(results[2], /ToolNotAllowed \(input-too-long\): the call's command is 20007 bytes, too long to check: the active skills' patterns for this tool are checked on at most 16384\. Bash was not run/, fn);
    assert.match(results[4], /TooLarge \(limit\): the arguments are larger than 262144 bytes\. Bash was not run: the call could not be checked\./, fn);
    assert.equal(results.length, 5, fn);
    assert.equal(text, 'done', fn);
  }
});

// The Agents SDK asks the user (needsApproval) before invoke, where the
// adapter checks the call: a call the skills refuse must not be put to
// the user, as the AI SDK adapter denies it without asking; the model
// gets the refusal, and the user is asked about the call they allow,
// which runs once approved.
test('OpenAI Agents SDK: a host tool that needs the user\'s approval is asked only for the calls the skills allow', { timeout: TEST_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  const r = await ev(page, async ([pack, db]) => {
    const m = await import('/dist/frameworks.js');
    return m.openaiAgentsApprovals(m.agentSide(await m.installed([T.fromB64(pack)], db)));
  }, [PACK, freshDB('approval-agents')]);
  assert.deepEqual(r.asked, ['python scripts/extract.py report.pdf']);
  assert.deepEqual(r.ran, ['python scripts/extract.py report.pdf'], 'the approved call ran once the run resumed');
  const [, curl, python] = r.results;
  assert.match(curl, /ToolNotAllowed \(input-not-matched\)/, 'the model got the refusal');
  assert.equal(python, 'ran python scripts/extract.py report.pdf');
  assert.equal(r.text, 'done');
});

// The pinned and always: true skills' blocks go into every turn's
// instructions; within one part's bound in all: a block that does not
// fit is named instead, and the model loads it in parts.
test('an always: true skill too long for a turn is named in the instructions, and loaded in parts', { timeout: TEST_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  const always = (name, body) => `---\nname: ${name}\ndescription: Always there (${name}). Use for everything.\nalways: true\n---\n${body}`;
  const pack = b64(zip(under('pack/', {
    'house-style/SKILL.md': always('house-style', '# House style\n\nWrite plainly.\n'),
    'handbook/SKILL.md': always('handbook', `# Handbook\n\n${'Every rule of the house, at length. '.repeat(40).concat('\n').repeat(60)}`),
  })));
  const script = [['load_skill', { name: 'handbook', arguments: null, offset: null }]];
  const runs = await ev(page, async ([pack, db, script]) => {
    const m = await import('/dist/frameworks.js');
    const host = await m.installed([T.fromB64(pack)], db);
    return [await m.aiSdkRun(m.agentSide(host), { script }), await m.openaiAgentsRun(m.agentSide(host), { script })];
  }, [pack, freshDB('always'), script]);
  for (const [label, r] of [['AI SDK', runs[0]], ['OpenAI Agents SDK', runs[1]]]) {
    const system = r.systems[0];
    assert.match(system, /<skill_content name="house-style">\n# House style\n\nWrite plainly\./, label);
    assert.doesNotMatch(system, /<skill_content name="handbook">/, label);
    assert.match(system, /their instructions are too long to give here: handbook\. Call load_skill/, label);
    assert.ok(system.length < 20_000, `${label}: instructions of ${system.length} characters`);
    assert.match(r.results[0], /^<skill_content name="handbook">[\s\S]*\n\[load_skill: lines 1-\d+ of \d+; read on with offset \d+\]$/, label);
    assert.ok(r.results[0].length < 50_200, `${label}: ${r.results[0].length} characters`);
  }
});

// Mistakes a model makes with skillfs's own tools get answers it can act
// on: a file the skill does not have is not "a name from the available
// skills", and a skill named as the slash menu writes it loads (still on
// the model's path: one only the user may run stays refused).
test('the model\'s mistakes with load_skill and read_skill_file get answers it can act on', { timeout: TEST_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  const [load, missing, slash, userOnly] = await ev(page, async ([pack, db]) => {
    const m = await import('/dist/frameworks.js');
    return m.toolAnswers(m.agentSide(await m.installed([T.fromB64(pack)], db)), [
      ['load_skill', { name: 'pdf-tools', arguments: null, offset: null }],
      ['read_skill_file', { path: '/skills/pdf-tools/references/missing.md', offset: null, limit: null }],
      ['load_skill', { name: '/skill:citation-style', arguments: null, offset: null }],
      ['load_skill', { name: '/skill:release-notes', arguments: 'v1', offset: null }],
    ]);
  }, [PACK, freshDB('answers')]);
  assert.match(load, /^<skill_content name="pdf-tools">/);
  assert.match(missing, /^Error: SkillNotFound \(not-exist\): .*Read a file the loaded skill lists, by the path under its base directory\.$/);
  assert.doesNotMatch(missing, /available skills/);
  assert.match(slash, /^<skill_content name="citation-style">/);
  assert.match(userOnly, /^Error: PermissionDenied \(model-invocation-disabled\)/);
});

// Runs at once on one Agents SDK adapter are each their own: the second's
// turn, given an aborted signal, ends that run alone, and the first (whose
// own signal is live) loads its skill, is narrowed by it, and finishes.
// The skills loaded are the session's, which both share.
test('OpenAI Agents SDK: runs at once on one adapter keep their own signals', { timeout: TEST_MS }, async (t) => {
  const page = await b.openPage();
  t.after(() => closePage(page));
  const r = await ev(page, async ([pack, db]) => {
    const m = await import('/dist/frameworks.js');
    return T.outcome(m.openaiAgentsConcurrent(m.agentSide(await m.installed([T.fromB64(pack)], db))));
  }, [PACK, freshDB('concurrent')]);
  assert.equal(r.ok, true, JSON.stringify(r.error));
  const { ran, offered, text, other } = r.value;
  assert.equal(text, 'done');
  assert.deepEqual(ran, ['python scripts/extract.py report.pdf']);
  assert.deepEqual(offered.at(-1).sort(), ['Bash', 'load_skill', 'read_skill_file']);
  assert.equal(other.name, 'AbortError', JSON.stringify(other));
});

// A session the host closes (it keeps 64 and closes the oldest) or loses
// with the port, in the middle of a run: the loop ends with one typed
// error that says so and how to go on, and so does the next turn();
// close() resolves.
for (const framework of ['ai', 'agents']) {
  for (const how of ['evicted', 'lost']) {
    test(`${framework === 'ai' ? 'AI SDK' : 'OpenAI Agents SDK'}: a session ${how === 'evicted' ? 'the host closed' : 'lost with its port'} ends the run with Conflict (session-closed)`, { timeout: TEST_MS }, async (t) => {
      const page = await b.openPage();
      t.after(() => closePage(page));
      const r = await ev(page, async ([pack, db, framework, how]) => {
        const m = await import('/dist/frameworks.js');
        return T.outcome(m.afterSessionClosed(await m.installed([T.fromB64(pack)], db), framework, how));
      }, [PACK, freshDB(`closed-${framework}-${how}`), framework, how]);
      assert.equal(r.ok, true, JSON.stringify(r.error));
      const { ran, run, turn, closed } = r.value;
      assert.deepEqual(ran, ['python scripts/extract.py report.pdf'], 'nothing ran after the session went');
      // The Agents SDK wraps what its tools throw in its ToolCallError.
      const err = framework === 'ai' ? run : run.error;
      if (framework === 'agents') assert.equal(run.name, 'ToolCallError', JSON.stringify(run));
      for (const e of [err, turn]) {
        assert.equal(e?.name, 'SkillfsError', JSON.stringify(e));
        assert.equal(e.code, 'Conflict');
        assert.equal(e.reason, 'session-closed');
        assert.match(e.message, how === 'evicted' ? /was closed: the host closed it to make room for newer sessions\./ : /was closed: the connection to skillfs was lost \(the skillfs host stopped serving this port\)\./);
        assert.match(e.message, /Open a new one \(openSkillsAgent, aiSdkSkills or openaiAgentsSkills[^)]*\) and start the turn again: the skills the model had loaded, and the allowed-tools restrictions they set, are not carried over/);
      }
      assert.equal(closed, true, 'close() of a closed session resolves');
    });
  }
}
