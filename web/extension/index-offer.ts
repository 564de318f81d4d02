// What a discovery index or an MCP server offers, as the side panel lists
// it for a person to tick (registry.previewIndex, registry.previewMcp):
// each skill with a box, ticked unless it is installed from there already;
// shared by "skills of the site you are on" and "install from an address".

import type { IndexPreview, McpOffer, McpPreview, Refusal, Skillfs, SkillMeta } from '../../js/bridge.ts';

/** "127.0.0.1:8080 publishes 3 skills": the index or server at url offers n. */
export const publishes = (url: string, n: number) => `${new URL(url).host} publishes ${n} skill${n === 1 ? '' : 's'}`;

/** One skill offered: installed ones cannot be ticked; note follows its description. */
interface Offered { name: string; description: string; installed: boolean; note: string; status?: string }

function items(offered: Offered[]): HTMLLIElement[] {
  return offered.map((e) => {
    const li = document.createElement('li');
    li.dataset.name = e.name;
    if (e.status) li.dataset.status = e.status;
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = !e.installed;
    box.disabled = e.installed;
    const label = document.createElement('label');
    const name = document.createElement('code');
    name.textContent = e.name;
    label.append(box, ' ', name, ` — ${e.description}${e.note}`);
    li.append(label);
    return li;
  });
}

/** The entries of preview as list items, each with its box. */
export async function offerItems(sk: Skillfs, preview: IndexPreview): Promise<HTMLLIElement[]> {
  const have = new Set((await sk.registry.list()).flatMap((m: SkillMeta) =>
    m.origin?.kind === 'index' && m.origin.index === preview.url ? [m.origin.entry] : []));
  return items(preview.entries.map((e) => ({
    name: e.name, description: e.description, installed: have.has(e.name),
    note: `${have.has(e.name) ? ' (installed)' : ''}${e.digest ? '' : ' (unverified: the index has no digests)'}`,
  })));
}

const MCP_NOTES: Record<McpOffer['status'], string> = {
  new: '',
  installed: ' (installed)',
  update: ' (a newer version of the one installed from here: installing updates it)',
  conflict: ' (another skill of this name is installed: this one is kept beside it)',
};

/** The skills an MCP server offers as list items, each with its box and
 * what it is against the installed skills. */
export const mcpOfferItems = (preview: McpPreview): HTMLLIElement[] =>
  items(preview.skills.map((s) => ({ name: s.name, description: s.description, installed: s.status === 'installed', note: MCP_NOTES[s.status], status: s.status })));

/** The names of the entries ticked in list. */
export const ticked = (list: HTMLElement) =>
  [...list.querySelectorAll('li')].filter((li) => li.querySelector('input')?.checked).map((li) => li.dataset.name!);

/** The lines that say which skills the index or server left out, and why. */
export const skippedLines = (preview: { skipped: Refusal[] }) => preview.skipped.map((s) => `Skipped ${s.name}: ${s.message}`).join('\n');
