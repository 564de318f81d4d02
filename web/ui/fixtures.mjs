// Generated packs for the UI's browser tests: what real downloads do to a
// skills list (descriptions near the 1,024-character limit and beyond, as
// K-Dense's reach 1,929; 64-character names; a warning; many skills), made
// here so the tests that need them always run. The committed generated
// counterpart of the real repository downloads is
// internal/realrepos/testdata/generated+skills.zip.
import { zipSync } from 'fflate';

const enc = (s) => new TextEncoder().encode(s);
const WORDS = 'analyse chart convert dataset extract figure format genome inspect journal model notebook parse protein query render report sample sequence spectra statistics summarise table tokenize validate visualise'.split(' ');

/** A description of about n characters, deterministic for i. */
export function longDescription(i, n) {
  const out = [`Use when working with item ${i}.`];
  for (let k = 0; out.join(' ').length < n; k++) out.push(`It can ${WORDS[(i * 7 + k) % WORDS.length]} the ${WORDS[(i + k * 3) % WORDS.length]} files and more.`);
  return out.join(' ').slice(0, n).trimEnd().replace(/[^.]$/, '.');
}

const md = (name, description, extra = '') => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n${extra}---\n# ${name}\n\nSteps.\n`;

/** The 64-character name longPack gives its second skill. */
export const longName = (prefix = 'lab') => `${prefix}-001-`.padEnd(64, 'x');

/**
 * A download-like zip (one top folder, a README outside the skills) with n
 * skills named `${prefix}-NNN`: every fifth with a 1,900-character
 * description, one with a 64-character name, one with an unknown field (a
 * warning). With chain, every skill depends on the one before it, and the
 * first on the skill chain names; with run, only within runs of that many
 * skills, the first of each depending on chain's (2: pairs, each skill of
 * a pair depending on the other or on chain's alone).
 */
export function longPack(n, prefix = 'lab', chain = '', run = Infinity) {
  const files = { 'lab-skills-main/README.md': enc('# Lab skills\n') };
  let before = chain;
  for (let i = 0; i < n; i++) {
    let name = `${prefix}-${String(i).padStart(3, '0')}`;
    if (i === 1) name = longName(prefix);
    if (i % run === 0) before = chain;
    const d = longDescription(i, i % 5 === 0 ? 1900 : 60 + (i % 7) * 30);
    const extra = (i === 2 ? 'colour: blue\n' : '') + (chain ? `skill_dependencies: [${before}]\n` : '');
    files[`lab-skills-main/skills/${name}/SKILL.md`] = enc(md(name, d, extra));
    before = name;
  }
  return zipSync(files);
}
