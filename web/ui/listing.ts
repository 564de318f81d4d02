// What the skills list shows: the installed skills searched, filtered and
// sorted, and the counts each filter would give. Pure, so it is cheap at
// 1,000 skills (one pass each) and the same for every view.

import type { SkillMeta } from '../../js/bridge.ts';

export type State = 'all' | 'enabled' | 'disabled' | 'warnings';
export type Sort = 'name' | 'updated' | 'size';

export interface Query {
  text: string;
  state: State;
  /** A source (file name or address; "" for the skills imported with
   * none), or null for every source. */
  source: string | null;
  sort: Sort;
}

export const STATES: [State, string][] = [
  ['all', 'All'],
  ['enabled', 'Enabled'],
  ['disabled', 'Disabled'],
  ['warnings', 'Has warnings'],
];

export const SORTS: [Sort, string][] = [
  ['name', 'Name'],
  ['updated', 'Recently changed'],
  ['size', 'Largest'],
];

const inState = (s: SkillMeta, st: State) =>
  st === 'all' || (st === 'enabled' ? s.enabled : st === 'disabled' ? !s.enabled : s.diagnostics.length > 0);

/** Every search word is in the name or description (case-insensitive). */
function matcher(text: string): (s: SkillMeta) => boolean {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return () => true;
  return (s) => {
    const hay = `${s.name} ${s.id} ${s.description}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  };
}

export interface Listing {
  shown: SkillMeta[];
  /** How many skills each state filter gives with the search and source applied. */
  stateCounts: Record<State, number>;
  /** Every installed skill's source with how many skills it holds with the
   * search and state applied: 0 too, so that a search takes no option
   * away (nor narrows the select, which then jumped beside its label). */
  sources: [string, number][];
}

export function listing(skills: SkillMeta[], q: Query): Listing {
  const hit = matcher(q.text);
  const stateCounts: Record<State, number> = { all: 0, enabled: 0, disabled: 0, warnings: 0 };
  const bySource = new Map<string, number>();
  const shown: SkillMeta[] = [];
  for (const s of skills) {
    const src = s.source || '';
    if (!bySource.has(src)) bySource.set(src, 0);
    if (!hit(s)) continue;
    if (q.source === null || src === q.source) for (const [st] of STATES) if (inState(s, st)) stateCounts[st]++;
    if (inState(s, q.state)) bySource.set(src, (bySource.get(src) ?? 0) + 1);
    if (inState(s, q.state) && (q.source === null || src === q.source)) shown.push(s);
  }
  const by: Record<Sort, (a: SkillMeta, b: SkillMeta) => number> = {
    name: (a, b) => a.id.localeCompare(b.id, 'en'),
    updated: (a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id, 'en'),
    size: (a, b) => b.size - a.size || a.id.localeCompare(b.id, 'en'),
  };
  shown.sort(by[q.sort]);
  const sources = [...bySource].sort((a, b) => a[0].localeCompare(b[0], 'en'));
  return { shown, stateCounts, sources };
}
