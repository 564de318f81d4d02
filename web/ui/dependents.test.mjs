// dependents.ts, the panel's reading of what depends on what, in Node:
// the dependents a delete names (nearest first, each once), those a
// disable names (the enabled ones), and the order of a delete in batches
// (dependents no later than what they depend on, a cycle never split,
// independent skills in the selection's order) and of an enable
// (dependencies first), on small graphs whose answer is written out and
// on a random one checked against those rules.
//
//   node --test web/ui/dependents.test.mjs

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const out = await build({ entryPoints: [join(dirname(fileURLToPath(import.meta.url)), 'dependents.ts')], bundle: true, format: 'esm', write: false, logLevel: 'silent' });
const { dependentsOf, disableDependents, enableNeeds, removalBatches } = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);

/** Skills from "id: dep dep" lines. */
const skills = (...lines) => lines.map((l) => {
  const [id, deps = ''] = l.split(':');
  return { id: id.trim(), dependencies: { skills: deps.split(' ').filter(Boolean), tools: [], mcp: [] } };
});

test('dependentsOf: those that depend directly first, then theirs, each once, never the skills asked about', () => {
  const all = skills('base:', 'a: base', 'b: base', 'c: a b', 'd: c', 'other:', 'loop: d base');
  assert.deepEqual(dependentsOf(all, ['base']), { all: ['a', 'b', 'loop', 'c', 'd'], direct: 3 });
  assert.deepEqual(dependentsOf(all, ['c']), { all: ['d', 'loop'], direct: 1 });
  assert.deepEqual(dependentsOf(all, ['a', 'c']), { all: ['d', 'loop'], direct: 1 }, 'c depends on a but is asked about');
  assert.deepEqual(dependentsOf(all, ['other']), { all: [], direct: 0 });
  // A cycle through the skill asked about does not bring it back.
  assert.deepEqual(dependentsOf(skills('x: y', 'y: x'), ['x']), { all: ['y'], direct: 1 });
});

test('removalBatches: without dependencies, the selection in its order, max at a time', () => {
  const all = skills('a:', 'b:', 'c:', 'd:', 'e:', 'f:', 'g:');
  assert.deepEqual(removalBatches(all, ['g', 'a', 'c', 'b', 'f', 'e', 'd'], 3), [['g', 'a', 'c'], ['b', 'f', 'e'], ['d']]);
});

test('removalBatches: a chain selected in the wrong order goes dependents first, across batches', () => {
  // a depends on b, b on c, ...: a must go no later than b, b than c.
  const all = skills('a: b', 'b: c', 'c: d', 'd: e', 'e:');
  assert.deepEqual(removalBatches(all, ['e', 'd', 'c', 'b', 'a'], 2), [['a', 'b'], ['c', 'd'], ['e']]);
});

test('removalBatches: a cycle is never split by a batch boundary; dependencies outside the selection and on oneself are ignored', () => {
  const all = skills('x:', 'y: kept', 'p: q p', 'q: p', 'kept:');
  // p and q would be split as x, y, p | q: they go together in the next batch.
  assert.deepEqual(removalBatches(all, ['x', 'y', 'p', 'q'], 3), [['x', 'y'], ['p', 'q']]);
  // A cycle larger than max is one batch (the registry refuses it with its limit).
  assert.deepEqual(removalBatches(skills('m: n', 'n: o', 'o: m'), ['m', 'n', 'o'], 2), [['m', 'n', 'o']]);
});

test('removalBatches on a random graph of 2,000 skills with cycles: every dependent no later than what it depends on, each skill once', () => {
  let seed = 7;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const all = Array.from({ length: 2_000 }, (_, i) => ({ id: `s${i}`, dependencies: { skills: Array.from({ length: rand(3) }, () => `s${rand(2_000)}`), tools: [], mcp: [] } }));
  const ids = all.map((s) => s.id).filter(() => rand(10) < 8);
  const batches = removalBatches(all, ids, 100);
  const at = new Map(batches.flatMap((b, k) => b.map((id) => [id, k])));
  assert.deepEqual([...at.keys()].sort(), [...ids].sort(), 'each selected skill once');
  for (const s of all) {
    if (!at.has(s.id)) continue;
    for (const d of s.dependencies.skills) if (at.has(d)) assert.ok(at.get(s.id) <= at.get(d), `${s.id} (batch ${at.get(s.id)}) depends on ${d} (batch ${at.get(d)})`);
  }
  assert.ok(batches.length > 10, `${batches.length} batches`);
});

test('disableDependents: only enabled dependents, and none reached through a disabled one', () => {
  const all = skills('base:', 'a: base', 'b: base', 'c: a', 'd: b').map((s) => ({ ...s, enabled: s.id !== 'b' }));
  assert.deepEqual(disableDependents(all, ['base']), { all: ['a', 'c'], direct: 1 });
  assert.deepEqual(disableDependents(all, ['b']), { all: ['d'], direct: 1 });
});

test('enableNeeds: the disabled skills depended on, through disabled ones only, nearest first; not those installed nowhere', () => {
  const all = skills('a: b ghost', 'b: c d', 'c:', 'd: e', 'e:', 'x: b').map((s) => ({ ...s, enabled: !['b', 'c', 'e', 'x'].includes(s.id) }));
  // d is enabled: the walk stops there (e stays disabled, as an older registry may have left it).
  assert.deepEqual(enableNeeds(all, ['a']), { all: ['b', 'c'], direct: 1 });
  assert.deepEqual(enableNeeds(all, ['x', 'b']), { all: ['c'], direct: 1 });
  assert.deepEqual(enableNeeds(all, ['c']), { all: [], direct: 0 });
});

test('removalBatches with dependenciesFirst (enabling): a chain goes dependencies first, across batches; independent skills keep their order', () => {
  const all = skills('a: b', 'b: c', 'c: d', 'd: e', 'e:', 'x:', 'y:');
  assert.deepEqual(removalBatches(all, ['a', 'b', 'c', 'd', 'e'], 2, true), [['e', 'd'], ['c', 'b'], ['a']]);
  assert.deepEqual(removalBatches(all, ['x', 'y', 'a', 'b'], 3, true), [['x', 'y', 'b'], ['a']]);
  assert.deepEqual(removalBatches(skills('p: q', 'q: p', 'r:'), ['r', 'p', 'q'], 2, true), [['r'], ['p', 'q']]);
});
