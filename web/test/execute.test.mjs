// Skills that run (seed 003): session.execute runs a skill's
// wasm/skill.wasm in a Worker of the host, in real Chromium, with real
// WASI modules built from Go (internal/wasitest, GOOS=wasip1 by
// web/test/test.mk): one reads a reference file and echoes JSON, one loops
// forever, one allocates past its cap, one tries to leave its skill, one
// tries to write. Through the direct transport and over a port whose host
// offers agents execution; a port that does not offer it is refused.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { STEP_MS, TEST_DIST, TEST_MS, b64, closePage, ev, freshDB, skillMD, startBrowser, zip } from './helpers.mjs';

const module = (name) => new Uint8Array(readFileSync(join(TEST_DIST, 'wasi', `${name}.wasm`)));
const DATA = 'Reference data, read by the module.\n';
/** A skill named name whose module is the program prog, with allowed-tools. */
const skill = (name, prog, tools = 'Read') => ({
  [`pack/${name}/SKILL.md`]: skillMD(name, `Runs the ${prog} module for the tests.`).replace('\n---\n#', `\nallowed-tools: ${tools}\n---\n#`),
  [`pack/${name}/references/data.txt`]: DATA,
  [`pack/${name}/wasm/skill.wasm`]: module(prog),
});
/** A module whose start function loops: it never ends while instantiated. */
const START_LOOP = Uint8Array.from(Buffer.from(
  '0061736d01000000' + '010401600000' + '03020100' + '0503010001' +
  '07130206' + Buffer.from('_start').toString('hex') + '0000' + '06' + Buffer.from('memory').toString('hex') + '0200' +
  '080100' + '0a090107000340' + '0c000b0b', 'hex'));
const PACK = zip({
  ...skill('echo', 'echo'),
  ...skill('looper', 'loop'),
  ...skill('hog', 'alloc'),
  ...skill('escaper', 'escape'),
  ...skill('writer', 'write'),
  ...skill('scribe', 'write', 'Read Write Bash(python:*) WebFetch'),
  ...skill('flood', 'flood'),
  ...skill('filler', 'fill', 'Read Write'),
  ...skill('opener', 'fds'),
  [`pack/plain/SKILL.md`]: skillMD('plain', 'A skill with no module.'),
  [`pack/spinner/SKILL.md`]: skillMD('spinner', 'A module whose start function never returns.'),
  [`pack/spinner/wasm/skill.wasm`]: START_LOOP,
});
const sha = (s) => `sha256:${createHash('sha256').update(s).digest('hex')}`;

/** @type {Awaited<ReturnType<typeof startBrowser>>} */
let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

/** A page with the pack installed, window.ag the agent's skillfs (direct,
 * or over a port served with {execute}), window.s an open session. */
async function page(t, kind, execute = true) {
  const p = await b.openPage();
  t.after(() => closePage(p));
  await ev(p, async ([db, z, kind, execute]) => {
    window.sk = await T.load(db);
    await sk.registry.importZip(T.fromB64(z), { source: 'pack.zip' });
    if (kind === 'direct') window.ag = sk;
    else {
      const ch = new MessageChannel();
      T.bridge.serveSkillfs(sk, ch.port1, { capability: 'agent', execute });
      window.ag = T.bridge.connectSkillfs(ch.port2);
    }
    window.s = await ag.openSession({ contextId: 'run' });
  }, [freshDB(`execute-${kind}`), b64(PACK), kind, execute]);
  return p;
}

for (const kind of ['direct', 'port']) {
  test(`${kind}: a module reads its reference and answers JSON; the run is audited`, { timeout: TEST_MS }, async (t) => {
    const p = await page(t, kind);
    const out = await ev(p, async () => {
      const before = await T.outcome(s.execute('echo'));
      await s.activate('echo');
      const res = await s.execute('echo', { input: { q: 'x', n: 1 }, seed: 5 });
      // The seed the host picked, as the module got it and as reported.
      const picked = await s.execute('echo');
      const plain = await T.outcome((await s.activate('plain'), s.execute('plain')));
      const audit = (await sk.registry.audit(20)).filter((a) => a.kind === 'execute');
      return { before, res, picked: [picked.output.seed, String(picked.seed)], plain, audit: audit.slice(1), digest: (await sk.registry.get('echo')).digest };
    });
    assert.equal(out.before.ok, false);
    assert.equal(out.before.error.code, 'PermissionDenied');
    assert.equal(out.before.error.reason, 'not-activated');
    assert.equal(out.plain.error.code, 'WasmError');
    assert.equal(out.plain.error.reason, 'no-module');
    assert.equal(out.picked[0], out.picked[1], 'the reported seed is not the one the module got');
    const r = out.res;
    assert.equal(r.status, 'success');
    assert.equal(r.exitCode, 0);
    assert.deepEqual(r.output, { id: 'echo', name: 'echo', input: { q: 'x', n: 1 }, timeoutMs: '30000', seed: '5', reference: DATA });
    assert.equal(r.stderr, 'echo: done\n');
    assert.deepEqual(r.permissions, ['read:/skill']);
    assert.equal(r.seed, 5);
    assert.equal(out.audit.length, 1, JSON.stringify(out.audit));
    const [a] = out.audit;
    assert.equal(a.skill, 'echo');
    assert.equal(a.outcome, 'ok');
    assert.equal(a.exec.version, out.digest);
    assert.equal(a.exec.status, 'success');
    assert.equal(a.exec.inputHash, sha('{"q":"x","n":1}'));
    assert.equal(a.exec.outputHash, sha(r.stdout));
    assert.deepEqual(a.exec.permissions, ['read:/skill']);
    assert.ok(a.exec.startMs > 0 && a.exec.durationMs > 0, JSON.stringify(a.exec));
  });

  test(`${kind}: limits out of range are refused with a code, before anything runs`, { timeout: TEST_MS }, async (t) => {
    const p = await page(t, kind);
    const out = await ev(p, async () => {
      await s.activate('echo');
      const got = {};
      for (const [k, v] of Object.entries({ negative: -1, NaN, Infinity, huge: 1e12, string: '100', fraction: 1.5, past2to53: 2 ** 60 })) {
        for (const opt of ['timeoutMs', 'memoryMb', 'seed']) {
          const o = await T.outcome(s.execute('echo', { [opt]: v }));
          got[`${opt} ${k}`] = o.ok ? 'ran' : `${o.error.code}/${o.error.reason}`;
        }
      }
      got['input NaN'] = await T.outcome(s.execute('echo', { input: { n: NaN } })).then((o) => (o.ok ? 'ran' : `${o.error.code}/${o.error.reason}`));
      got.runs = (await sk.registry.audit(100)).filter((a) => a.kind === 'execute').length;
      return got;
    });
    const { runs, ...refusals } = out;
    for (const [what, got] of Object.entries(refusals)) {
      // A seed may be negative, and 1e12 is one.
      if (what === 'seed negative' || what === 'seed huge') assert.equal(got, 'ran');
      else assert.match(got, /^InvalidArgument\//, `${what}: ${got}`);
    }
    assert.equal(runs, 2, 'only the runs with a negative and a large seed ran');
  });

  test(`${kind}: a module that never ends is stopped at its deadline; the page keeps running meanwhile`, { timeout: TEST_MS }, async (t) => {
    const p = await page(t, kind);
    const out = await ev(p, async () => {
      await s.activate('looper');
      let ticks = 0;
      const timer = setInterval(() => ticks++, 20);
      const run = await T.outcome(s.execute('looper', { timeoutMs: 1500 }));
      clearInterval(timer);
      const after = await T.outcome(s.activate('echo').then(() => s.execute('echo')));
      const spin = await T.outcome(s.activate('spinner').then(() => s.execute('spinner', { timeoutMs: 500 })));
      const audit = (await sk.registry.audit(20)).filter((a) => a.kind === 'execute');
      return { run, ticks, after, spin, audit };
    });
    assert.equal(out.run.ok, false);
    assert.equal(out.run.error.code, 'Timeout');
    assert.equal(out.run.error.reason, 'deadline');
    assert.ok(out.ticks > 0, 'no timer fired on the page while the module ran');
    assert.equal(out.after.ok, true, 'the host runs the next module');
    // A start function runs as the module is instantiated: the deadline holds there too.
    assert.equal(out.spin.error?.code, 'Timeout', JSON.stringify(out.spin));
    const looped = out.audit.find((a) => a.skill === 'looper');
    assert.equal(out.audit.find((a) => a.skill === 'spinner').exec.status, 'timeout');
    assert.equal(looped.exec.status, 'timeout');
    assert.equal(looped.outcome, 'Timeout');
  });

  test(`${kind}: memory is capped for real; the module is refused more than the cap it declares`, { timeout: TEST_MS }, async (t) => {
    const p = await page(t, kind);
    const out = await ev(p, async () => {
      await s.activate('hog');
      const run = await T.outcome(s.execute('hog', { memoryMb: 48 }));
      const tiny = await T.outcome(s.execute('hog', { memoryMb: 1 }));
      const audit = (await sk.registry.audit(20)).filter((a) => a.kind === 'execute');
      return { run, tiny, audit };
    });
    assert.equal(out.run.ok, false);
    assert.equal(out.run.error.code, 'WasmError');
    assert.equal(out.run.error.reason, 'failed');
    assert.match(out.run.error.message, /exited with code 2/, out.run.error.message);
    // The Go runtime's own words, in the record's first KiB of stderr:
    // memory.grow failed at the cap the module was given.
    assert.equal(out.audit[0].exec.status, 'failed');
    assert.match(out.audit[0].exec.stderr, /allocated another 8 MiB\n[\s\S]*fatal error: out of memory/, out.audit[0].exec.stderr);
    // A Go module declares a few MiB up front: more than 1 MiB.
    assert.equal(out.tiny.error.code, 'WasmError');
    assert.equal(out.tiny.error.reason, 'memory-too-large');
  });

  test(`${kind}: a module cannot leave its skill nor change it; a scratch directory only when Write is allowed`, { timeout: TEST_MS }, async (t) => {
    const p = await page(t, kind);
    const out = await ev(p, async () => {
      for (const n of ['escaper', 'writer', 'scribe']) await s.activate(n);
      const escape = (await s.execute('escaper')).output;
      const writer = await s.execute('writer');
      const scribe = await s.execute('scribe');
      const stored = await sk.registry.readText('writer', 'SKILL.md');
      const tree = (await sk.registry.tree('writer')).map((e) => e.path);
      return { escape, writer, scribe, stored, tree };
    });
    for (const path of ['/etc/passwd', '../etc/passwd', '/skill/../etc/passwd', '/skill/../../etc/passwd', '/']) {
      assert.match(out.escape[path], /^error: /, `${path}: ${out.escape[path]}`);
    }
    assert.match(out.escape['/skill/SKILL.md'], /^read /);
    const { 'size /skill/SKILL.md': size, ...w } = out.writer.output;
    for (const [what, got] of Object.entries(w)) assert.match(got, /^error: /, `${what}: ${got}`);
    assert.match(w['write /skill/SKILL.md'], /read-only file system|permission denied/i);
    // Not even through a descriptor opened for reading.
    assert.match(w['truncate /skill/SKILL.md'], /bad file number/i);
    assert.equal(size, String(new TextEncoder().encode(out.stored).length));
    assert.deepEqual(out.writer.permissions, ['read:/skill']);
    const s2 = out.scribe.output;
    assert.equal(s2['write /scratch/out.txt'], 'ok');
    assert.equal(s2['read /scratch/out.txt'], 'scratch');
    assert.match(s2['write /skill/SKILL.md'], /^error: /);
    assert.deepEqual(out.scribe.permissions, ['read:/skill', 'write:/scratch']);
    assert.deepEqual(out.scribe.denied.map((d) => d.tool), ['Bash', 'WebFetch']);
    // Nothing stored changed.
    assert.match(out.stored, /^---\nname: writer\n/);
    assert.ok(!out.tree.some((p) => /new\.txt|made/.test(p)), out.tree.join(' '));
  });
}

test('a port whose host does not offer execution is refused, and cannot call the host-only steps', { timeout: TEST_MS }, async (t) => {
  const p = await page(t, 'port', false);
  const out = await ev(p, async () => {
    await s.activate('echo');
    return {
      run: await T.outcome(s.execute('echo')),
      prepare: await T.outcome(s.value('session.execPrepare', { name: 'echo' })),
    };
  });
  assert.equal(out.run.error.code, 'PermissionDenied');
  assert.equal(out.run.error.reason, 'execution-not-offered');
  assert.equal(out.prepare.error.code, 'PermissionDenied');
});

test('a run keeps 1 MiB of stdout and 64 KiB of stderr, and /scratch holds at most its memory cap', { timeout: TEST_MS }, async (t) => {
  const p = await page(t, 'direct');
  const out = await ev(p, async () => {
    await s.activate('flood');
    await s.activate('filler');
    const flood = await s.execute('flood', { input: { stdout: 3 << 20, stderr: 200 << 10 } });
    const fill = await s.execute('filler', { input: { files: 3, mib: 6 }, memoryMb: 16 });
    const audit = (await sk.registry.audit(5)).filter((a) => a.kind === 'execute');
    return { flood: { ...flood, stdout: flood.stdout.length, stderr: flood.stderr.length }, fill: fill.output, audit };
  });
  assert.equal(out.flood.stdout, 1 << 20);
  assert.equal(out.flood.stderr, 64 << 10);
  assert.ok(out.flood.stdoutTruncated && out.flood.stderrTruncated && out.flood.output === null, JSON.stringify(out.flood));
  const floodRec = out.audit.find((a) => a.skill === 'flood').exec;
  assert.ok(floodRec.stdout.length <= 1024 && floodRec.stderr.length <= 1024, JSON.stringify(floodRec));
  // 12 MiB fit in 16; the third file does not.
  assert.deepEqual(out.fill.slice(0, 2), ['ok', 'ok']);
  assert.match(out.fill[2], /^error: .*no space left on device/i, out.fill[2]);
});

test('a module holds at most 1,024 descriptors, and one that opens and closes files reuses the lowest', { timeout: TEST_MS }, async (t) => {
  const p = await page(t, 'direct');
  const out = await ev(p, async () => {
    await s.activate('opener');
    return (await s.execute('opener', { input: { cycles: 2000, n: 1100 } })).output;
  });
  // 0-2 are stdin, stdout and stderr, 3 is /skill.
  assert.equal(out.fd, 4, JSON.stringify(out));
  assert.equal(out.opened, 1024 - 4, JSON.stringify(out));
  assert.match(out.error, /^open \/skill\/SKILL.md: /, JSON.stringify(out));
});

test('a flood of runs from an agent port never holds every run of the host: its own run goes first', { timeout: 2 * TEST_MS }, async (t) => {
  const p = await page(t, 'port');
  const out = await ev(p, async () => {
    // Counts the modules' Workers alive at once.
    let live = 0;
    let most = 0;
    window.Worker = class extends Worker {
      constructor(...a) {
        super(...a);
        most = Math.max(most, ++live);
      }
      terminate() {
        live--;
        super.terminate();
      }
    };
    await s.activate('looper');
    const panel = await sk.openSession({ contextId: 'panel' });
    await panel.activate('echo');
    const stop = new AbortController();
    let ended = 0;
    const flood = Array.from({ length: 100 }, () => T.outcome(s.execute('looper', { timeoutMs: 60_000, signal: stop.signal }))
      .then((o) => ((ended += o.ok || o.error.reason !== 'busy'), o)));
    // The port runs 4 calls at once: let them all reach the runner. The
    // fourth waits for a slot unseen (only the Workers are), so this is a
    // pause, not a wait for it: were the host's run to come first, it
    // would still pass, only proving less.
    while (live < 3) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    const mine = await T.outcome(panel.execute('echo'));
    const endedBefore = ended;
    stop.abort();
    const all = await Promise.all(flood);
    return { mine, endedBefore, most, refused: all.filter((o) => !o.ok && o.error.reason === 'busy').map((o) => o.error.code) };
  }, undefined, 2 * STEP_MS);
  assert.equal(out.mine.ok, true, JSON.stringify(out.mine));
  assert.equal(out.endedBefore, 0, 'the host\'s run waited for agents\' runs to end');
  // Agents run at most 3 of the 4 modules a host runs at once.
  assert.equal(out.most, 3 + 1, 'three agents\' runs and the host\'s');
  assert.ok(out.refused.length > 0 && out.refused.every((c) => c === 'TooLarge'), JSON.stringify(out.refused));
});

test('a run aborted while it waits gives its place up at once; one aborted while it is prepared does not start', { timeout: 2 * TEST_MS }, async (t) => {
  const p = await page(t, 'direct');
  const out = await ev(p, async () => {
    await s.activate('looper');
    await s.activate('echo');
    const stopRuns = new AbortController();
    const running = Array.from({ length: 4 }, () => T.outcome(s.execute('looper', { timeoutMs: 20_000, signal: stopRuns.signal })));
    const giveUp = new AbortController();
    const waiting = Array.from({ length: 16 }, () => T.outcome(s.execute('echo', { signal: giveUp.signal })));
    giveUp.abort();
    const gaveUp = await Promise.all(waiting);
    const next = T.outcome(s.execute('echo'));
    // The four are still being prepared (or just started): all stop.
    stopRuns.abort();
    await Promise.all(running);
    return { gaveUp: gaveUp.map((o) => o.ok || o.error.name), next: await next };
  }, undefined, 2 * STEP_MS);
  assert.deepEqual(out.gaveUp, Array(16).fill('AbortError'));
  assert.equal(out.next.ok, true, JSON.stringify(out.next));
});

test('a run whose session closes while it runs is recorded all the same', { timeout: TEST_MS }, async (t) => {
  const p = await page(t, 'direct');
  const out = await ev(p, async () => {
    let started;
    const running = new Promise((r) => (started = r));
    window.Worker = class extends Worker {
      constructor(...a) {
        super(...a);
        started();
      }
    };
    await s.activate('looper');
    const run = T.outcome(s.execute('looper', { timeoutMs: 1500 }));
    await running;
    await s.close();
    const res = await run;
    const audit = (await sk.registry.audit(20)).filter((a) => a.kind === 'execute');
    return { res, audit: audit.map((a) => [a.skill, a.session === s.id, a.exec?.status]) };
  });
  assert.equal(out.res.error?.code, 'Timeout', JSON.stringify(out.res));
  assert.deepEqual(out.audit, [['looper', true, 'timeout']]);
});

test('a run whose worker script is not served fails as FetchFailed naming its URL, not as the skill trapping', { timeout: TEST_MS }, async (t) => {
  const p = await b.openPage();
  t.after(() => closePage(p));
  const out = await ev(p, async ([db, z]) => {
    // As an esbuild bundle copied without wasi-worker.js beside it.
    const sk = await T.load(db, { wasiWorkerURL: '/dist/missing/wasi-worker.js' });
    await sk.registry.importZip(T.fromB64(z), { source: 'pack.zip' });
    const s = await sk.openSession({ contextId: 'run' });
    await s.activate('echo');
    const res = await T.outcome(s.execute('echo', { input: { q: 'x', n: 1 } }));
    const audit = (await sk.registry.audit(20)).filter((a) => a.kind === 'execute');
    return { res, audit: audit.map((a) => a.exec?.status) };
  }, [freshDB('execute-no-worker'), b64(PACK)]);
  assert.equal(out.res.ok, false, JSON.stringify(out.res));
  assert.equal(out.res.error.code, 'FetchFailed', JSON.stringify(out.res));
  assert.equal(out.res.error.reason, 'worker-unavailable');
  assert.match(out.res.error.subject, /^http:\/\/[^/]+\/dist\/missing\/wasi-worker\.js$/);
  assert.match(out.res.error.message, /could not be loaded from http:\/\/\S+\/dist\/missing\/wasi-worker\.js: serve wasi-worker\.js beside the bridge/);
  // The attempt is audited all the same.
  assert.equal(out.audit.length, 1);
});
