// The demo page: runs skillfs in this page, installs the sample pack on the
// first visit, and shows the web/ui app — the skills manager a person uses
// and what an agent sees through a session — as the side panel does.

import { render } from 'preact';
import { loadSkillfs } from '../../js/bridge.ts';
import { App } from '../ui/App.tsx';
import { failed } from '../ui/say.ts';
import './demo.css';

const SEEDED = 'skillfs-demo-seeded';
const TOOLS = ['Read', 'Write', 'Bash', 'WebSearch', 'WebFetch'];

async function samplePack(): Promise<Uint8Array> {
  const res = await fetch('sample-pack.zip');
  if (!res.ok) throw new Error(`sample-pack.zip answered HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function main(): Promise<void> {
  const root = document.getElementById('app')!;
  try {
    const sk = await loadSkillfs({ wasmURL: 'skillfs.wasm', dbName: 'skillfs-demo' });
    // The tools this page's agent has: skills that declare tool
    // dependencies are checked against them on import and save.
    await sk.registry.registerTools(TOOLS);
    // Only the first visit: a person who deleted every skill gets the
    // empty state, which offers the pack again.
    if (!localStorage.getItem(SEEDED)) {
      await sk.registry.importZip(await samplePack(), { source: 'sample-pack.zip', onConflict: 'replace' });
      localStorage.setItem(SEEDED, '1');
    }
    render(<App sk={sk} tools={TOOLS} contextId="demo" samplePack={samplePack} />, root);
    document.body.dataset.ready = 'true'; // for the page's browser test
  } catch (e) {
    root.textContent = failed('skillfs did not start', e);
    root.setAttribute('role', 'alert');
  }
}

void main();
