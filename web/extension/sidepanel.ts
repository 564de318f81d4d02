// The side panel (also usable as a tab: chrome-extension://ID/sidepanel.html).
// It does not run the module: it connects to the background service worker,
// the one host, which serves it with the "admin" capability because the
// port comes from one of the extension's own pages.
//
// Chrome stops an idle MV3 service worker (about 30 s without events, open
// ports or not), which disconnects the port. The panel then connects again
// on its next call: the worker starts, loads the module, and the skills are
// where they were, in the extension's IndexedDB.

import { h, render as renderView } from 'preact';
import { connectSkillfs, SkillfsError, type Skillfs, type SkillMeta } from '../../js/bridge.ts';
import { SkillView } from '../ui/skill/SkillView.tsx';
import { chrome, PORT_NAME } from './chrome.ts';
import { mountInstallFrom } from './install-from.ts';
import { mountSiteSkills } from './site-skills.ts';
import { mountUpdates } from './updates.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const installBtn = $<HTMLButtonElement>('install');
const refreshBtn = $<HTMLButtonElement>('refresh');
const bar = $<HTMLProgressElement>('progress');
const status = $<HTMLParagraphElement>('status');
const list = $<HTMLUListElement>('skills');
const home = $<HTMLDivElement>('home');
const skillView = $<HTMLDivElement>('skill-view');

let current: Skillfs | undefined;

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
  // Changes made elsewhere (another panel, a registry edit) arrive over the port.
  sk.onChange(() => void refresh());
  return sk;
}

/** The page's state, for people and for the extension test. */
function setStatus(text: string, state: 'busy' | 'ready' | 'error') {
  status.textContent = text;
  status.dataset.state = state;
  status.className = state === 'error' ? 'error' : '';
}

function describe(e: unknown): string {
  return e instanceof SkillfsError ? `${e.code}${e.reason ? ` (${e.reason})` : ''}: ${e.message}` : String(e);
}

function render(skills: SkillMeta[]) {
  list.replaceChildren(
    ...skills.map((s) => {
      const li = document.createElement('li');
      li.dataset.id = s.id;
      li.className = s.enabled ? '' : 'disabled';
      const name = document.createElement('code');
      name.textContent = s.id;
      const open = document.createElement('button');
      open.textContent = `Open ${s.id}`;
      open.addEventListener('click', () => openSkill(s.id));
      li.append(name, ` — ${s.description} `, open);
      return li;
    }),
  );
  list.dataset.count = String(skills.length);
}

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

async function refresh() {
  try {
    const skills = await retrying((sk) => sk.registry.list());
    render(skills);
    setStatus(`${skills.length} skill${skills.length === 1 ? '' : 's'} installed.`, 'ready');
  } catch (e) {
    setStatus(describe(e), 'error');
  }
}

async function installSamplePack() {
  installBtn.disabled = true;
  bar.hidden = false;
  setStatus('Installing the sample pack…', 'busy');
  try {
    const res = await fetch(chrome.runtime.getURL('sample-pack.zip'));
    if (!res.ok) throw new Error(`sample-pack.zip: HTTP ${res.status}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    // "replace": installing twice updates the skills instead of adding
    // renamed copies, so this is safe to repeat too.
    await retrying((sk) =>
      sk.registry.importZip(bytes, {
        source: 'sample-pack.zip',
        onConflict: 'replace',
        onProgress: (p) => (bar.value = p.bytesTotal ? p.bytesDone / p.bytesTotal : 0),
      }),
    );
    await refresh();
  } catch (e) {
    setStatus(describe(e), 'error');
  } finally {
    bar.hidden = true;
    installBtn.disabled = false;
  }
}

/** One skill's view in place of the list, until it is closed. */
function openSkill(id: string) {
  home.hidden = true;
  skillView.hidden = false;
  renderView(
    h(SkillView, {
      sk: skillfs(),
      id,
      onClose: () => {
        renderView(null, skillView);
        skillView.hidden = true;
        home.hidden = false;
        list.querySelector<HTMLElement>(`li[data-id="${CSS.escape(id)}"] button`)?.focus();
      },
    }),
    skillView,
  );
}

installBtn.addEventListener('click', () => void installSamplePack());
mountSiteSkills($('site-skills'), skillfs, () => void refresh());
mountInstallFrom($('install-from'), skillfs, () => void refresh());
mountUpdates($('updates-section'), skillfs, () => void refresh());
refreshBtn.addEventListener('click', () => void refresh());

void refresh().then(() => {
  installBtn.disabled = false;
  refreshBtn.disabled = false;
});
