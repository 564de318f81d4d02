// AbortSignal on calls, the media type of session reads and the code in
// SkillfsError's message, directly and over a port with the "agent"
// capability. test.wait (a test-build method) waits until its call is
// cancelled and counts it, so the tests see that the module was told.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BETA, BINARY, TEST_MS, b64, closePage, ev, freshDB, startBrowser, under, zip } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startBrowser>>} */
let b;
before(async () => {
  b = await startBrowser();
});
after(async () => {
  await b?.close();
});

const PACK = b64(zip(under('pack/beta/', BETA)));

for (const kind of ['direct', 'port']) {
  test(`${kind}: an aborted call rejects with the signal's reason and the module stops it`, { timeout: TEST_MS }, async (t) => {
    const page = await b.openPage();
    t.after(() => closePage(page));
    const out = await ev(page, async ([db, kind, pack]) => {
      const host = await T.load(db);
      await host.registry.importZip(T.fromB64(pack));
      let sk = host;
      if (kind === 'port') {
        const ch = new MessageChannel();
        T.bridge.serveSkillfs(host, ch.port1, { capability: 'agent' });
        sk = T.bridge.connectSkillfs(ch.port2);
      }
      const transport = sk.transport;
      const ctl = new AbortController();
      const waiting = T.outcome(transport.call('test.wait', {}, undefined, undefined, ctl.signal));
      await T.until(() => globalThis.skillfsTestWaiting >= 1); // the call is in the module
      ctl.abort();
      const aborted = await waiting;
      // The module counts the cancelled call once it has stopped it.
      await T.until(() => globalThis.skillfsTestCancelled >= 1);
      const s = await sk.openSession({ contextId: 'abort' });
      const pre = await T.outcome(s.catalog({ signal: AbortSignal.abort() }));
      const logo = await s.readFile('/skills/beta/assets/logo.png');
      const md = await s.readFile('/skills/beta/SKILL.md');
      const escape = await T.outcome(s.readFile('/skills/beta/../../etc/passwd'));
      return {
        aborted, cancelled: globalThis.skillfsTestCancelled, pre,
        logo: { mediaType: logo.mediaType, isText: logo.isText, bytes: Array.from(logo.bytes) },
        md: { mediaType: md.mediaType, isText: md.isText },
        escape,
      };
    }, [freshDB(`abort-${kind}`), kind, PACK]);
    assert.equal(out.aborted.ok, false);
    assert.equal(out.aborted.error.name, 'AbortError', JSON.stringify(out.aborted));
    assert.equal(out.cancelled, 1, 'the module was told and stopped the call');
    assert.equal(out.pre.ok, false);
    assert.equal(out.pre.error.name, 'AbortError');
    assert.deepEqual(out.logo, { mediaType: 'image/png', isText: false, bytes: Array.from(BINARY) });
    assert.deepEqual(out.md, { mediaType: 'text/markdown; charset=utf-8', isText: true });
    assert.equal(out.escape.error.code, 'PathRejected');
    assert.match(out.escape.error.message, /^PathRejected \(dot-dot\): /, 'the message keeps the code');
  });
}

for (const kind of ['direct', 'port']) {
  test(`${kind}: importZip and previewZip take a signal; an import aborted at its commit stores nothing`, { timeout: TEST_MS }, async (t) => {
    const page = await b.openPage();
    t.after(() => closePage(page));
    const out = await ev(page, async ([db, kind, pack]) => {
      const host = await T.load(db);
      let sk = host;
      if (kind === 'port') {
        const ch = new MessageChannel();
        T.bridge.serveSkillfs(host, ch.port1, { capability: 'admin' });
        sk = T.bridge.connectSkillfs(ch.port2);
      }
      const bytes = T.fromB64(pack);
      const ctl = new AbortController();
      const phases = [];
      const onProgress = (p) => {
        phases.push(p.phase);
        // The skill is new: its digest and records are computed while its
        // contents are written, in the commit begun after this.
        if (p.phase === 'commit') ctl.abort();
      };
      const aborted = await T.outcome(sk.registry.importZip(bytes.slice(), { onProgress, signal: ctl.signal }));
      const preview = await T.outcome(sk.registry.previewZip(bytes.slice(), { signal: AbortSignal.abort() }));
      // A second module instance's read waits for the import's transaction, whichever way it ends.
      const listed = (await (await T.load(db)).registry.list()).map((s) => s.id);
      const again = await sk.registry.importZip(bytes.slice());
      return { aborted, phases, preview, listed, again: again.skills.map((s) => s.id), after: (await sk.registry.list()).map((s) => s.id) };
    }, [freshDB(`abort-registry-${kind}`), kind, PACK]);
    assert.equal(out.aborted.ok, false, JSON.stringify(out.aborted));
    assert.equal(out.aborted.error.name, 'AbortError');
    assert.ok(out.phases.includes('commit') && !out.phases.includes('done'), out.phases.join());
    assert.equal(out.preview.ok, false);
    assert.equal(out.preview.error.name, 'AbortError');
    assert.deepEqual(out.listed, [], 'nothing was stored');
    assert.deepEqual(out.again, ['beta']);
    assert.deepEqual(out.after, ['beta']);
  });
}

