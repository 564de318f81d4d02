// What a discovery index offers, as the side panel lists it for a person
// to tick (registry.previewIndex): each entry with a box, ticked unless it
// is installed from that index already; shared by "skills of the site you
// are on" and "install from an address".

import type { IndexPreview, Skillfs, SkillMeta } from '../../js/bridge.ts';

/** "127.0.0.1:8080 publishes 3 skills": the index at url offers n. */
export const publishes = (url: string, n: number) => `${new URL(url).host} publishes ${n} skill${n === 1 ? '' : 's'}`;

/** The entries of preview as list items, each with its box. */
export async function offerItems(sk: Skillfs, preview: IndexPreview): Promise<HTMLLIElement[]> {
  const have = new Set((await sk.registry.list()).flatMap((m: SkillMeta) =>
    m.origin?.kind === 'index' && m.origin.index === preview.url ? [m.origin.entry] : []));
  return preview.entries.map((e) => {
    const li = document.createElement('li');
    li.dataset.name = e.name;
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = !have.has(e.name);
    box.disabled = have.has(e.name);
    const label = document.createElement('label');
    const name = document.createElement('code');
    name.textContent = e.name;
    label.append(box, ' ', name, ` — ${e.description}${have.has(e.name) ? ' (installed)' : ''}${e.digest ? '' : ' (unverified: the index has no digests)'}`);
    li.append(label);
    return li;
  });
}

/** The names of the entries ticked in list. */
export const ticked = (list: HTMLElement) =>
  [...list.querySelectorAll('li')].filter((li) => li.querySelector('input')?.checked).map((li) => li.dataset.name!);

/** The lines that say which entries the index left out, and why. */
export const skippedLines = (preview: IndexPreview) => preview.skipped.map((s) => `Skipped ${s.name}: ${s.message}`).join('\n');
