// The side panel (also usable as a tab: chrome-extension://ID/sidepanel.html):
// the skills manager of web/ui, plus the install-from-a-source sections
// only an extension page can offer (plain DOM, mounted into the app).
// It does not run the module: it connects to the background service
// worker, the one host, which serves it with the "admin" capability
// because the port comes from one of the extension's own pages.
//
// Chrome stops an idle MV3 service worker (about 30 s without events, open
// ports or not), which disconnects the port. The panel then connects again
// on its next call: the worker starts, loads the module, and the skills are
// where they were, in the extension's IndexedDB.

import { render } from 'preact';
import { connectSkillfs, SkillfsError, type Change, type Skillfs, type SkillMeta } from '../../js/bridge.ts';
import { App } from '../ui/App.tsx';
import './sources.css';
import { AGENT_TOOLS, chrome, PORT_NAME } from './chrome.ts';
import { mountInstallFrom } from './install-from.ts';
import { mountSiteSkills } from './site-skills.ts';
import { mountUpdates } from './updates.ts';

let current: Skillfs | undefined;
/** The app's change listeners, kept across connections. */
const listeners = new Set<(c: Change) => void>();

/** The connection to the host, made again when the last one dropped. */
function skillfs(): Skillfs {
  if (current) return current;
  const port = chrome.runtime.connect({ name: PORT_NAME });
  const sk = connectSkillfs(port);
  current = sk;
  document.body.dataset.connected = 'true';
  port.onDisconnect.addListener(() => {
    if (current !== sk) return;
    current = undefined;
    document.body.dataset.connected = 'false';
  });
  // Changes made elsewhere (another panel, an agent, a registry edit) arrive over the port.
  sk.onChange((c) => listeners.forEach((l) => l(c)));
  return sk;
}

/** Tells the app's listeners to read the list again. */
const changed = () => listeners.forEach((l) => l({ revision: 0, kind: 'import', ids: [] }));

/** The registry calls that read only, so are safe to repeat. */
const READS = new Set(['list', 'get', 'revision', 'tree', 'readFile', 'readText', 'exportZip', 'checkUpdates', 'previewIndex', 'previewFromUrl', 'previewNotes', 'registered']);

/**
 * f on the connection; once more on a fresh one when the first dropped
 * under it (the worker was stopped). Only for calls that are safe to repeat.
 */
async function retrying<T>(f: (sk: Skillfs) => Promise<T>): Promise<T> {
  const sk = skillfs();
  try {
    return await f(sk);
  } catch (e) {
    // postMessage on a port Chrome has closed throws before onDisconnect runs.
    const deadPort = e instanceof Error && !(e instanceof SkillfsError) && /disconnected port/i.test(e.message);
    if (current === sk && !deadPort) throw e;
    if (current === sk) current = undefined;
    return f(skillfs());
  }
}

/**
 * A call the worker's stop cut short, in words a person can act on: the
 * bridge's "the skillfs host disconnected" names a part they never see.
 * Whether a change was committed before the worker stopped is not known
 * here, so the list is read again (over a new connection) to show what is
 * stored. Not for a read, which changed nothing: while the worker cannot
 * answer, each failed read of the list would read it again, twice.
 */
function cutShort(e: unknown, change: boolean): unknown {
  if (!(e instanceof SkillfsError) || e.reason !== 'host-gone') return e;
  if (change) changed();
  const next = change ? 'the list now shows what is stored, so check it and try again if needed' : 'try again';
  return new SkillfsError(
    `the extension's background worker stopped before it answered (Chrome stops it when idle or updating); ${next}`,
    e.code, e.reason, e.subject,
  );
}

/**
 * The Skillfs the app uses: every call goes to the current connection
 * (reads retried once on a fresh one), and change listeners survive
 * reconnecting. A Proxy, because Skillfs's transport is the bridge's own.
 */
const live = new Proxy({} as Skillfs, {
  get(_, key: keyof Skillfs) {
    if (key === 'onChange') {
      return (l: (c: Change) => void) => {
        listeners.add(l);
        skillfs();
        return () => listeners.delete(l);
      };
    }
    if (key === 'registry') {
      return new Proxy({}, {
        get(_, m: string) {
          return (...args: unknown[]) => {
            type Reg = Record<string, (...a: unknown[]) => Promise<unknown>>;
            const call = (sk: Skillfs) => (sk.registry as unknown as Reg)[m](...args);
            return (READS.has(m) ? retrying(call) : call(skillfs())).catch((e: unknown) => {
              throw cutShort(e, !READS.has(m));
            });
          };
        },
      });
    }
    const v = skillfs()[key];
    return typeof v === 'function' ? v.bind(skillfs()) : v;
  },
});

/** The installed skills as the app last read them: those whose sites
 * "Check for updates" asks for, with no read of its own before Chrome's
 * prompt (it checks the skills installed when it has asked). */
let installed: SkillMeta[] = [];
const keepSkills = (skills: SkillMeta[]) => {
  installed = skills;
};

const sources = document.getElementById('sources')!;
// The sections use the app's connection too: reads retried, a stopped worker said in words.
mountSiteSkills(document.getElementById('site-skills')!, () => live, changed);
mountInstallFrom(document.getElementById('install-from')!, () => live, changed);
mountUpdates(document.getElementById('updates-section')!, () => live, () => installed, changed);

async function samplePack(): Promise<Uint8Array> {
  const res = await fetch(chrome.runtime.getURL('sample-pack.zip'));
  if (!res.ok) throw new Error(`the extension's sample-pack.zip answered HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

render(<App sk={live} tools={AGENT_TOOLS} contextId="sidepanel" samplePack={samplePack} extras={sources} onSkills={keepSkills} />, document.getElementById('app')!);
