// The demo page: boots skillfs in this page, installs the sample pack on the
// first visit, and shows both sides of the module — the registry a person
// manages and what an agent sees through a session.

import { loadSkillfs, SkillfsError, type Session, type Skillfs, type SkillMeta } from '../../js/bridge.ts';

const SEEDED = 'skillfs-demo-seeded';
const TOOLS = ['Read', 'Write', 'Bash', 'WebSearch', 'WebFetch'];

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

function errorBox(e: unknown): HTMLElement {
  if (!(e instanceof SkillfsError)) return el('div', { className: 'error' }, String(e));
  const box = el('div', { className: 'error' }, el('code', {}, e.code), e.reason ? ` (${e.reason})` : '', ': ', e.message);
  if (e.diagnostics.length) {
    box.append(el('ul', {}, ...e.diagnostics.map((d) => el('li', {}, `${d.severity} ${d.code}${d.field ? ` [${d.field}]` : ''}: ${d.message}`))));
  }
  return box;
}

class Demo {
  private session!: Session;

  constructor(private readonly sk: Skillfs) {}

  async start(): Promise<void> {
    // The tools this page's agent has: skills that declare tool
    // dependencies are checked against them on import and save.
    await this.sk.registry.registerTools(TOOLS);
    if (!localStorage.getItem(SEEDED)) {
      const zip = new Uint8Array(await (await fetch('sample-pack.zip')).arrayBuffer());
      await this.sk.registry.importZip(zip, { source: 'sample-pack.zip', onConflict: 'replace' });
      localStorage.setItem(SEEDED, '1');
    }
    this.session = await this.sk.openSession({
      contextId: 'demo',
      availableTools: TOOLS,
      baseTools: ['Read'],
    });
    this.sk.onChange(() => void this.refresh());
    this.wire();
    await this.refresh();
    document.body.dataset.ready = 'true'; // for the page's browser test
  }

  private async refresh(): Promise<void> {
    await this.session.refresh();
    const skills = await this.sk.registry.list();
    this.renderSkills(skills);
    await this.renderCatalog();
    const rev = await this.sk.registry.revision();
    $('status').textContent = `${skills.length} skill(s) installed, ${skills.filter((s) => s.enabled).length} enabled · revision ${rev}`;
  }

  private renderSkills(skills: SkillMeta[]): void {
    const body = $('skills').querySelector('tbody')!;
    body.replaceChildren(...skills.map((s) => {
      const toggle = el('input', { type: 'checkbox', checked: s.enabled, title: s.enabled ? 'disable' : 'enable' });
      toggle.dataset.id = s.id;
      toggle.addEventListener('change', () => this.act(() => this.sk.registry.setEnabled(s.id, toggle.checked)));
      const exp = el('button', { textContent: 'Export' });
      exp.addEventListener('click', () => this.act(async () => this.download(s.id, await this.sk.registry.exportZip(s.id))));
      const del = el('button', { textContent: 'Delete', className: 'danger' });
      del.addEventListener('click', () => this.act(() => this.sk.registry.remove(s.id)));
      const warnings = s.diagnostics.map((d) => el('div', { className: 'warn' }, `${d.code}: ${d.message}`));
      const row = el('tr', { className: s.enabled ? '' : 'disabled' },
        el('td', {}, el('strong', {}, s.name), s.version ? ` v${s.version}` : '', el('div', { className: 'desc' }, s.description), ...warnings),
        el('td', {}, String(s.fileCount)),
        el('td', {}, toggle),
        el('td', {}, exp, ' ', del));
      row.dataset.id = s.id;
      return row;
    }));
  }

  private async renderCatalog(): Promise<void> {
    const mode = ($('catalog-mode') as HTMLSelectElement).value as 'full' | 'names';
    const xml = await this.session.catalog({ mode });
    $('catalog').textContent = xml || '(no catalog: no skill is visible to the model)';
  }

  private wire(): void {
    const drop = $('drop');
    const input = $<HTMLInputElement>('file');
    input.addEventListener('change', () => input.files?.[0] && void this.importFile(input.files[0]));
    drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      const f = e.dataTransfer?.files[0];
      if (f) void this.importFile(f);
    });
    $('catalog-mode').addEventListener('change', () => void this.renderCatalog());
    $('invoke-form').addEventListener('submit', (e) => {
      e.preventDefault();
      void this.invoke($<HTMLInputElement>('invoke').value);
    });
    $('route-form').addEventListener('submit', (e) => {
      e.preventDefault();
      void this.route($<HTMLInputElement>('route').value);
    });
  }

  private async importFile(file: File): Promise<void> {
    const out = $('import-result');
    const bar = $<HTMLProgressElement>('progress');
    out.replaceChildren();
    bar.hidden = false;
    bar.value = 0;
    try {
      const policy = ($('conflict') as HTMLSelectElement).value as 'rename' | 'copy' | 'replace' | 'fail';
      const res = await this.sk.registry.importZip(new Uint8Array(await file.arrayBuffer()), {
        source: file.name,
        onConflict: policy === 'copy' ? 'rename' : policy,
        copy: policy === 'copy',
        onProgress: (p) => { bar.value = p.bytesTotal ? p.bytesDone / p.bytesTotal : 0; },
      });
      bar.value = 1;
      const same = res.alreadyInstalled.length ? ` Already installed, unchanged: ${res.alreadyInstalled.join(', ')}.` : '';
      out.replaceChildren(el('div', { className: 'ok' }, res.skills.length
        ? `Installed ${res.skills.map((s) => s.id).join(', ')} from ${file.name}.${same}`
        : `Nothing new in ${file.name}.${same}`));
    } catch (e) {
      out.replaceChildren(errorBox(e));
    } finally {
      bar.hidden = true;
      $<HTMLInputElement>('file').value = '';
    }
  }

  private async invoke(text: string): Promise<void> {
    const out = $('invoke-result');
    try {
      const block = await this.session.invoke(text);
      out.textContent = block.content;
    } catch (e) {
      out.replaceChildren(errorBox(e));
    }
  }

  private async route(query: string): Promise<void> {
    const out = $('route-result');
    try {
      const r = await this.session.route(query);
      const rows = r.candidates.map((c) => el('tr', {},
        el('td', {}, c.id), el('td', { className: 'score' }, c.score.toFixed(3)),
        el('td', { className: 'score' }, `intent ${c.breakdown.intent.toFixed(2)} · trigger ${c.breakdown.trigger.toFixed(2)} · cost ${c.breakdown.cost.toFixed(2)}`),
        el('td', {}, c.why.join(' '))));
      const plan = r.plan.primary
        ? `Plan: ${r.plan.primary}, then ${r.plan.fallbacks.join(' → ')}`
        : r.plan.decision === 'close'
          ? `Too close to call between ${(r.plan.close ?? []).join(', ')}: ${r.plan.fallbacks.join(' → ')}`
          : `No skill is confident enough: ${r.plan.fallbacks.join(' → ')}`;
      out.replaceChildren(el('p', {}, plan), el('table', {}, el('tbody', {}, ...rows)));
    } catch (e) {
      out.replaceChildren(errorBox(e));
    }
  }

  private async act(fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      $('import-result').replaceChildren(errorBox(e));
    }
  }

  private download(id: string, bytes: Uint8Array): void {
    const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: 'application/zip' }));
    el('a', { href: url, download: `${id}.zip` }).click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

async function main(): Promise<void> {
  try {
    const sk = await loadSkillfs({ wasmURL: 'skillfs.wasm', dbName: 'skillfs-demo' });
    await new Demo(sk).start();
  } catch (e) {
    $('status').replaceChildren(errorBox(e));
  }
}

void main();
