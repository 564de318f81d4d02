// What depends on what among the installed skills, from the list the
// panel holds (SkillMeta.dependencies.skills), so that a delete, a disable
// or an enable says before the click what the registry would refuse (a
// skill another installed skill depends on is removed only with it, and
// one an enabled skill depends on is disabled only with it: Conflict,
// has-dependents; a skill is enabled only with its disabled dependencies:
// dependency-disabled; each in one batch), a delete or disable in batches
// goes dependents first, and an enable dependencies first. Each costs time
// linear in the skills and their dependencies.

import type { SkillMeta } from '../../js/bridge.ts';

/**
 * The installed skills that depend on one of ids, directly or through
 * others, and are not in ids: those nearest first, each once. direct is
 * how many of them depend on one of ids themselves (the first direct).
 */
export function dependentsOf(skills: SkillMeta[], ids: Iterable<string>): Related {
  const on = new Map<string, string[]>();
  for (const s of skills) {
    for (const d of s.dependencies.skills) {
      const l = on.get(d);
      if (l) l.push(s.id);
      else on.set(d, [s.id]);
    }
  }
  return nearestFirst(ids, (id) => on.get(id) ?? []);
}

/** The skills a disable of ids must disable too: dependentsOf among the
 * enabled skills, since a disabled dependent does not hold a disable (nor
 * does a skill that depends on ids only through a disabled one). */
export function disableDependents(skills: SkillMeta[], ids: Iterable<string>): Related {
  return dependentsOf(skills.filter((s) => s.enabled), ids);
}

/** The skills an enable of ids must enable too: the disabled skills they
 * depend on, directly or through other disabled ones, not in ids, nearest
 * first (direct: those one of ids depends on). A dependency not installed
 * is not among them: nothing enables it, and the registry names it. */
export function enableNeeds(skills: SkillMeta[], ids: Iterable<string>): Related {
  const byId = new Map(skills.map((s) => [s.id, s]));
  return nearestFirst(ids, (id) => (byId.get(id)?.dependencies.skills ?? []).filter((d) => byId.get(d)?.enabled === false));
}

/** For each change the panel asks about, the skills it must make too. */
export const related = { delete: dependentsOf, disable: disableDependents, enable: enableNeeds };

/** The skills next reaches from ids, breadth first, not in ids, each once;
 * direct: how many ids reach themselves (the first direct). */
function nearestFirst(ids: Iterable<string>, next: (id: string) => string[]): Related {
  const seen = new Set(ids);
  const all: string[] = [];
  const reach = (id: string) => {
    for (const n of next(id)) {
      if (seen.has(n)) continue;
      seen.add(n);
      all.push(n);
    }
  };
  for (const id of [...seen]) reach(id);
  const direct = all.length;
  // Breadth first: all[direct:] are reached from those before them.
  for (let i = 0; i < all.length; i++) reach(all[i]);
  return { all, direct };
}

/** What a change of some skills must change too: those nearest first; the
 * first direct are those the skills themselves depend on, or that depend on them. */
export type Related = { all: string[]; direct: number };

/**
 * ids in batches of at most max for removal (or disabling), one after the
 * other: a skill goes in a batch no earlier than any skill of ids that
 * depends on it, so no batch is refused for a dependent that a later batch
 * deletes; with dependenciesFirst (for enabling), no later than any skill
 * of ids it depends on. The skills of a dependency cycle go in one batch
 * (one over max when a cycle is, which the registry refuses with its
 * limit). Independent skills keep the order of ids.
 */
export function removalBatches(skills: SkillMeta[], ids: string[], max: number, dependenciesFirst = false): string[][] {
  const at = new Map(ids.map((id, i) => [id, i]));
  /** For each of ids, the indexes in ids of the skills that must wait for
   * it: those it depends on (or, dependenciesFirst, its dependents). */
  const needs: number[][] = ids.map(() => []);
  for (const s of skills) {
    const i = at.get(s.id);
    if (i === undefined) continue;
    for (const d of s.dependencies.skills) {
      const j = at.get(d);
      if (j === undefined || j === i) continue;
      if (dependenciesFirst) needs[j].push(i);
      else needs[i].push(j);
    }
  }
  const comp = components(needs);
  const count = comp.reduce((m, c) => Math.max(m, c + 1), 0);
  const members: number[][] = Array.from({ length: count }, () => []);
  for (let i = 0; i < ids.length; i++) members[comp[i]].push(i);
  // Kahn's order over the cycles: a cycle is ready once every cycle that
  // must go before it (with a skill depending on it, or dependenciesFirst,
  // one it depends on) is placed; the ready ones in the order of ids.
  const waiting = new Array<number>(count).fill(0);
  for (let i = 0; i < ids.length; i++) for (const j of needs[i]) if (comp[j] !== comp[i]) waiting[comp[j]]++;
  const queue: number[] = [];
  for (let i = 0; i < ids.length; i++) if (members[comp[i]][0] === i && waiting[comp[i]] === 0) queue.push(comp[i]);
  const batches: string[][] = [];
  let batch: string[] = [];
  for (let q = 0; q < queue.length; q++) {
    const c = queue[q];
    if (batch.length && batch.length + members[c].length > max) {
      batches.push(batch);
      batch = [];
    }
    for (const i of members[c]) {
      batch.push(ids[i]);
      for (const j of needs[i]) if (comp[j] !== c && --waiting[comp[j]] === 0) queue.push(comp[j]);
    }
  }
  if (batch.length) batches.push(batch);
  return batches;
}

/** The strongly connected components of the graph next (Tarjan's, without
 * recursion: a chain of thousands of skills is thousands deep): each
 * node's component number. */
function components(next: number[][]): number[] {
  const n = next.length;
  const index = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const comp = new Array<number>(n).fill(-1);
  const stack: number[] = [];
  /** The depth-first walk: a node and how many of its edges it has followed. */
  const walk: [number, number][] = [];
  let counter = 0;
  let comps = 0;
  const visit = (v: number) => {
    index[v] = low[v] = counter++;
    stack.push(v);
    walk.push([v, 0]);
  };
  for (let root = 0; root < n; root++) {
    if (index[root] >= 0) continue;
    visit(root);
    while (walk.length) {
      const top = walk[walk.length - 1];
      const v = top[0];
      if (top[1] < next[v].length) {
        const w = next[v][top[1]++];
        if (index[w] < 0) visit(w);
        else if (comp[w] < 0) low[v] = Math.min(low[v], index[w]);
        continue;
      }
      walk.pop();
      if (walk.length) {
        const u = walk[walk.length - 1][0];
        low[u] = Math.min(low[u], low[v]);
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack.pop()!;
          comp[w] = comps;
        } while (w !== v);
        comps++;
      }
    }
  }
  return comp;
}
