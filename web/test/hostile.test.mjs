// A hostile agent on a port: everything it sends is refused in bounded
// time with a typed error, and nothing it sends delays the extension's own
// calls, reaches another site's contexts, or tells it which skills are
// disabled.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TEST_MS, assertOk, assertRejected, b64, closePage, ev, freshDB, packZip, startBrowser } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startBrowser>>} */
let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

// window.setup(db, zip): skillfs loaded with alpha and beta (the host), an
// admin port with a session of its own (the side panel), and agent(scope)
// to serve a new agent port, over MessageChannels.
const SETUP = `window.setup = async (db, zipB64) => {
  const sk = await T.load(db);
  await sk.registry.importZip(T.fromB64(zipB64));
  const serve = (capability, extra = {}) => {
    const ch = new MessageChannel();
    T.bridge.serveSkillfs(sk, ch.port1, { capability, ...extra });
    return T.bridge.connectSkillfs(ch.port2);
  };
  const admin = serve('admin');
  const mine = await admin.openSession({ contextId: 'sidepanel' });
  window.H = { sk, admin, mine, agent: (contextScope) => serve('agent', contextScope ? { contextScope } : {}) };
};`;

async function setupPage(t, what) {
  const page = await b.openPage();
  t.after(() => closePage(page));
  await page.addScriptTag({ content: SETUP });
  await ev(page, ([db, z]) => setup(db, z), [freshDB(what), b64(packZip())]);
  return page;
}

// Before this fix one agent call with 60,000 selected ids (a 0.7 MB
// message) kept the module busy for longer than this test's step limit,
// and every admin call with it; now the host refuses it unread. A flood of
// legal calls waits in the agent port's queue, started one per task, so
// the admin's call, sent after the flood, settles before the flood does.
test('an agent\'s flood does not delay an admin call on another port', { timeout: TEST_MS }, async (t) => {
  const page = await setupPage(t, 'flood');
  const out = await ev(page, async () => {
    const agent = H.agent();
    const s = await agent.openSession({ contextId: 'flood' });
    const order = [];
    const ids = Array.from({ length: 60000 }, (_, i) => `skill-${i}`);
    const giant = T.outcome(agent.openSession({ contextId: 'giant', skills: ids })).then((o) => (order.push('giant'), o));
    const flood = [];
    for (let i = 0; i < 50; i++) flood.push(s.status().then(() => order.push(`agent-${i}`)));
    const admin = H.mine.status().then(() => order.push('admin'));
    await Promise.all([giant, admin, ...flood]);
    return { order, giant: await giant };
  });
  assert.ok(out.order.indexOf('admin') < out.order.indexOf('agent-49'),
    `the admin call settled after the agent's whole flood: ${out.order.join(' ')}`);
  assertRejected(out.giant, { code: 'TooLarge', reason: 'limit', subject: 'resolver.openSession' }, '60,000 selected ids');
});

test('an agent\'s call beyond the limits is refused by the host, a flood beyond the queue too', { timeout: TEST_MS }, async (t) => {
  const page = await setupPage(t, 'limits');
  const out = await ev(page, async () => {
    const agent = H.agent();
    const s = await agent.openSession({ contextId: 'limits' });
    const call = (method, args, bytes) => T.outcome(agent.transport.call(method, args, bytes));
    const many = Array.from({ length: 1001 }, (_, i) => `t${i}`);
    const res = {
      list: await call('resolver.openSession', { contextId: 'x', availableTools: many }),
      string: await call('session.invoke', { session: s.id, text: '/skill:alpha ' + 'a'.repeat(20000) }),
      deep: await call('session.route', { session: s.id, query: 'q', history: [[[[[[[[['deep']]]]]]]]] }),
      // Under 256 KiB as text, over it as JSON, which the module counts:
      // escapes take six bytes a character, numbers as many as they print.
      escaped: await call('session.route', { session: s.id, query: 'q', history: Array(3).fill('\u0001'.repeat(16000)) }),
      numbers: await call('session.route', { session: s.id, query: 'q', history: Array.from({ length: 12 }, () => Array(1000).fill(1.2345678901234567e-300)) }),
      bytes: await call('session.status', { session: s.id }, new Uint8Array(4)),
      // The module's own check, behind the host's: a key it does not know.
      longS: await call('session.status', { session: s.id, ſession: H.mine.id }),
    };
    const burst = await Promise.all(Array.from({ length: 80 }, () => T.outcome(s.status())));
    res.busy = burst.filter((o) => !o.ok).map((o) => [o.error.code, o.error.reason]);
    res.served = burst.filter((o) => o.ok).length;
    res.after = await T.outcome(s.status());
    return res;
  });
  assertRejected(out.list, { code: 'TooLarge', reason: 'limit', subject: 'resolver.openSession' }, '1,001 tools');
  assertRejected(out.string, { code: 'TooLarge', reason: 'limit', subject: 'session.invoke' }, 'a 20,000-character text');
  assertRejected(out.deep, { code: 'TooLarge', reason: 'limit', subject: 'session.route' }, 'nine levels deep');
  assertRejected(out.escaped, { code: 'TooLarge', reason: 'limit', subject: 'session.route' }, '48,000 control characters, 288 KB as JSON');
  assertRejected(out.numbers, { code: 'TooLarge', reason: 'limit', subject: 'session.route' }, '12,000 long numbers, 288 KB as JSON');
  assertRejected(out.bytes, { code: 'InvalidArgument', reason: '', subject: 'session.status' }, 'bytes from an agent');
  assertRejected(out.longS, { code: 'InvalidArgument', reason: 'unknown-key', subject: 'ſession' }, 'ſession (U+017F)');
  // 64 wait; one may have started before the last arrived.
  assert.ok(out.served >= 64 && out.busy.length >= 10, `${out.served} served, ${out.busy.length} refused`);
  assert.deepEqual(out.busy, Array(out.busy.length).fill(['TooLarge', 'busy']));
  assertOk(out.after, 'a call once the queue drained');
});

test('contexts are scoped by the host: an agent cannot pin into another site\'s context', { timeout: TEST_MS }, async (t) => {
  const page = await setupPage(t, 'scope');
  const out = await ev(page, async () => {
    const evil = await H.agent('https://evil.example').openSession({ contextId: 'page:https://bank.example/' });
    const bank = await H.agent('https://bank.example').openSession({ contextId: 'page:https://bank.example/' });
    await evil.pin('alpha');
    return {
      evil: (await evil.status()).contextId,
      bankPins: (await bank.pinned()).pinned,
      bankTurn: (await bank.turn()).blocks.map((b) => b.id),
      evilPins: (await evil.pinned()).pinned,
    };
  });
  assert.equal(out.evil, 'https://evil.example page:https://bank.example/');
  assert.deepEqual(out.evilPins, ['alpha']);
  assert.deepEqual(out.bankPins, [], 'the other site\'s context got the pin');
  assert.deepEqual(out.bankTurn, []);
});

test('an agent gets the same answer for a disabled skill as for a missing one; admins clear what agents wrote', { timeout: TEST_MS }, async (t) => {
  const page = await setupPage(t, 'disabled');
  const out = await ev(page, async () => {
    await H.sk.registry.setEnabled('beta', false);
    const s = await H.agent().openSession({ contextId: 'c', skills: ['beta', 'ghost'] });
    const strip = (o) => (o.ok ? o : { code: o.error.code, reason: o.error.reason, message: o.error.message.replace(o.error.subject, 'X') });
    const answers = {};
    for (const id of ['beta', 'ghost']) {
      answers[id] = [
        strip(await T.outcome(s.activate(id))),
        strip(await T.outcome(s.readFile(`/skills/${id}/SKILL.md`))),
        strip(await T.outcome(s.invoke(`/skill:${id}`))),
      ];
    }
    const diags = (await s.status()).diagnostics.map((d) => [d.code, d.message.replace(/'(beta|ghost)'/, "'X'")]);
    await s.pin('alpha').catch(() => {});
    const a = await H.agent().openSession({ contextId: 'c2' });
    await a.pin('alpha');
    await a.activate('alpha');
    await a.recordOutcome('alpha', true);
    await H.admin.registry.clearPins();
    await H.admin.registry.clearStats();
    await H.admin.registry.clearAudit();
    return { answers, diags, pins: (await a.pinned()).pinned, audit: await H.admin.registry.audit() };
  });
  assert.deepEqual(out.answers.beta, out.answers.ghost, 'a disabled skill answers differently');
  assert.equal(out.answers.beta[0].code, 'SkillNotFound');
  assert.equal(out.diags.length, 2);
  assert.deepEqual(out.diags[0], out.diags[1], 'status tells a disabled skill from a missing one');
  assert.deepEqual(out.pins, []);
  assert.deepEqual(out.audit, []);
});
