// What depends on what among the installed skills, from the list the
// panel holds (SkillMeta.dependencies.skills), so that a delete says
// before the click what the registry would refuse (a skill another
// installed skill depends on is removed only with it, in one batch:
// Conflict, has-dependents). It costs time linear in the skills and their
// dependencies.

import type { SkillMeta } from '../../js/bridge.ts';

/**
 * The installed skills that depend on one of ids, directly or through
 * others, and are not in ids: those nearest first, each once. direct is
 * how many of them depend on one of ids themselves (the first direct).
 */
export function dependentsOf(skills: SkillMeta[], ids: Iterable<string>): { all: string[]; direct: number } {
  const on = new Map<string, string[]>();
  for (const s of skills) {
    for (const d of s.dependencies.skills) {
      const l = on.get(d);
      if (l) l.push(s.id);
      else on.set(d, [s.id]);
    }
  }
  const seen = new Set(ids);
  const all: string[] = [];
  const reach = (id: string) => {
    for (const by of on.get(id) ?? []) {
      if (seen.has(by)) continue;
      seen.add(by);
      all.push(by);
    }
  };
  for (const id of [...seen]) reach(id);
  const direct = all.length;
  // Breadth first: all[direct:] depend on those before them.
  for (let i = 0; i < all.length; i++) reach(all[i]);
  return { all, direct };
}
