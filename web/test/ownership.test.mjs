// Sessions belong to the port that opened them. The module decodes
// arguments with encoding/json, which matches keys regardless of case, so
// a port must not reach another session by spelling "session" otherwise;
// agent ports share the module's pool of sessions with the extension's own
// pages and must not push their sessions out; and a port client must not
// judge a live host gone because its own timer ran late.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TEST_MS, closePage, ev, freshDB, startBrowser } from './helpers.mjs';

let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

// sidePanelAndAgent runs in the page: skillfs loaded on db, a session of
// its own (the side panel's), and a client of a MessagePort it serves with
// the agent capability.
const SETUP = `window.sidePanelAndAgent = async (db) => {
  const sk = await T.load(db);
  const mine = await sk.openSession({ contextId: 'sidepanel' });
  const ch = new MessageChannel();
  T.bridge.serveSkillfs(sk, ch.port1, { capability: 'agent' });
  return { sk, mine, agent: T.bridge.connectSkillfs(ch.port2) };
};`;

async function setupPage(t) {
  const page = await b.openPage();
  t.after(() => closePage(page));
  await page.addScriptTag({ content: SETUP });
  return page;
}

test('an agent port cannot reach a session it did not open by spelling the key "Session"', { timeout: TEST_MS }, async (t) => {
  const page = await setupPage(t);
  const out = await ev(page, async (db) => {
    const { mine, agent } = await sidePanelAndAgent(db);
    const own = await agent.openSession({ contextId: 'tab-1' });
    const res = await T.outcome(agent.transport.call('session.status', { session: own.id, Session: mine.id }));
    return { mine: mine.id, got: res.ok ? res.value[0].session : res.error };
  }, freshDB('ownership-case'));
  assert.notEqual(out.got, out.mine, 'the agent port read the side panel\'s session');
});

test('an agent port cannot push the side panel\'s session out by closing under another spelling', { timeout: TEST_MS }, async (t) => {
  const page = await setupPage(t);
  const out = await ev(page, async (db) => {
    const { mine, agent } = await sidePanelAndAgent(db);
    for (let i = 0; i < 70; i++) {
      const s = await agent.openSession({ contextId: `tab-${i}` });
      // The bridge forgets s; the module is asked to close "x" and keeps s.
      await T.outcome(agent.transport.call('session.close', { session: s.id, Session: 'x' }));
    }
    return T.outcome(mine.status());
  }, freshDB('ownership-evict'));
  assert.equal(out.ok, true, `the side panel's session was evicted: ${JSON.stringify(out.error)}`);
});

// The per-port limit bounds one port, and the module's pool (64, least
// recently used first) is shared by every port: agent ports together are
// held to half of it, and a port makes room only among its own sessions,
// so an agent that opens ports as often as it likes (chrome.runtime.connect)
// can neither push the side panel's session out nor close another tab's:
// once the agents' half is full, opening one more is refused.
test('agent ports together cannot push the side panel\'s session, or each other\'s, out of the pool', { timeout: TEST_MS }, async (t) => {
  const page = await setupPage(t);
  const out = await ev(page, async (db) => {
    const { sk, mine } = await sidePanelAndAgent(db);
    const first = [];
    const refused = [];
    for (let p = 0; p < 9; p++) {
      const ch = new MessageChannel();
      T.bridge.serveSkillfs(sk, ch.port1, { capability: 'agent' });
      const agent = T.bridge.connectSkillfs(ch.port2);
      for (let i = 0; i < 8; i++) {
        const o = await T.outcome(agent.openSession({ contextId: `tab-${p}-${i}` }));
        if (o.ok && p === 0) first.push(o.value);
        if (!o.ok) refused.push(o.error);
      }
    }
    const firstAlive = await Promise.all(first.map((s) => T.outcome(s.status()).then((o) => o.ok)));
    return { mine: await T.outcome(mine.status()), firstAlive, refused };
  }, freshDB('ownership-ports'));
  assert.equal(out.mine.ok, true, `the side panel's session was evicted: ${JSON.stringify(out.mine.error)}`);
  assert.deepEqual(out.firstAlive, Array(8).fill(true), 'another port closed the first port\'s sessions');
  assert.equal(out.refused.length, 9 * 8 - 32, 'opens beyond the agents\' 32 sessions');
  for (const e of out.refused) assert.deepEqual([e.code, e.reason], ['TooLarge', 'session-pool-full']);
});

// connectSkillfs's watchdog judges a host gone only when a ping stays
// unanswered: when its own timer runs late (a busy or throttled event
// loop; Chrome's background-tab timer throttling), the late tick pings
// again instead of failing the calls of a host that was answering. The
// watchdog's clock is the test's (node:test's mock timers): a stall of the
// client's event loop is its clock jumping past a tick. The host hears
// the pings and never answers them (nor the call).
test('a late watchdog tick pings the host before judging it gone', { timeout: TEST_MS }, async (t) => {
  const { MessageChannel } = await import('node:worker_threads');
  const { TEST_DIST } = await import('./helpers.mjs');
  const { connectSkillfs } = await import(`${TEST_DIST}/bridge.js`);
  t.mock.timers.enable({ apis: ['setInterval', 'Date'] });
  const { port1: host, port2 } = new MessageChannel();
  t.after(() => { host.close(); port2.close(); });
  // What the host hears, in order, as promises of its next messages.
  const heard = [];
  const waiting = [];
  host.on('message', (m) => (waiting.length ? waiting.shift()(m) : heard.push(m)));
  const nextHeard = () => (heard.length ? Promise.resolve(heard.shift()) : new Promise((r) => waiting.push(r)));

  const sk = connectSkillfs(port2, { livenessMs: 500 }); // a tick every 125 ms
  const p = sk.registry.list().then(() => 'resolved', (e) => `rejected: ${e.code}/${e.reason}: ${e.message}`);
  assert.equal((await nextHeard()).t, 'call');
  t.mock.timers.tick(125);
  assert.equal((await nextHeard()).t, 'ping', 'the first tick pings');
  // The client stalls 700 ms with that ping unanswered: its next tick is
  // late, past livenessMs after the ping.
  t.mock.timers.setTime(Date.now() + 700);
  t.mock.timers.tick(0);
  const got = await Promise.race([p, nextHeard().then((m) => `heard ${m.t}`)]);
  assert.equal(got, 'heard ping', 'the late tick judged the host gone without asking it again');
  // On time (mock timers date every tick due within one tick() at its end,
  // so one tick at a time), a ping unanswered past livenessMs is a host gone.
  for (let i = 0; i < 5; i++) t.mock.timers.tick(125);
  assert.match(await p, /^rejected: Internal\/host-gone: /);
});
