// The real skill repository downloads that tests and benchmarks run against
// (the node side of internal/realrepos; keep the two in step). They are
// public repositories that never enter our commits: a folder of
// OWNER+NAME.zip files named by SKILLFS_REAL_REPOS, or /work/data when that
// exists. When they are absent, tests skip with `skipReason` so the output
// says so; each such test has a generated counterpart that always runs.
//
//   import { realRepos } from '../harness/realrepos.mjs';
//   const { repos, skipReason } = realRepos();
//   test('real downloads', { skip: skipReason }, async () => { for (const r of repos) ... });
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ENV_VAR = 'SKILLFS_REAL_REPOS';
export const DEFAULT_DIR = '/work/data';

// How many skills each download holds (counted when they were made): 263.
export const KNOWN_SKILLS = Object.freeze({
  'anthropics+skills': 18,
  'obra+superpowers': 14,
  'trailofbits+skills': 80,
  'K-Dense-AI+claude-scientific-skills': 134,
  'vercel-labs+agent-skills': 7,
  'openai+skills': 10,
});

// The folder of downloads and whether it exists.
export function realReposDir() {
  const dir = resolve(process.env[ENV_VAR] || DEFAULT_DIR);
  return { dir, ok: existsSync(dir) && statSync(dir).isDirectory() };
}

// { dir, repos: [{ name, path, skills }] sorted by name, skipReason }:
// skipReason is false when there are downloads, else a sentence saying why
// there are none (also printed, so a skipped run is never silent).
export function realRepos() {
  const { dir, ok } = realReposDir();
  const repos = ok
    ? readdirSync(dir)
        .filter((n) => n.endsWith('.zip'))
        .sort()
        .map((n) => {
          const name = n.slice(0, -'.zip'.length);
          return { name, path: join(dir, n), skills: KNOWN_SKILLS[name] ?? 0 };
        })
    : [];
  let skipReason = false;
  if (repos.length === 0) {
    skipReason = `SKIPPED: no real repository downloads in ${dir} (set ${ENV_VAR} to a folder of OWNER+NAME.zip files)`;
    console.log(skipReason);
  }
  return { dir, repos, skipReason };
}
