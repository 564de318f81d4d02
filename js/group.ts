// js/group.ts: items grouped by a key, in one pass (an array spread a
// step, as `[...(m.get(k) ?? []), x]`, copies each group once per item:
// 5,100 skills of one source took ~15-20 ms, 10,000 four times that).

/** items grouped by key, groups and items in the order met; an item whose
 * key is undefined is left out. */
export function groupBy<T>(items: Iterable<T>, key: (item: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === undefined) continue;
    const g = groups.get(k);
    if (g) g.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
