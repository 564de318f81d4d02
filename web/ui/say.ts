// Errors for people: one sentence that says what failed (the action the
// user took, on what) and why, from the typed error's detail; the stable
// code stays available for tests and bug reports.

import { SkillfsError } from '../../js/bridge.ts';

/** "Could not delete pdf-tools: the skill is not installed." */
export function failed(action: string, e: unknown): string {
  const why = e instanceof SkillfsError ? e.detail : e instanceof Error ? e.message : String(e);
  const s = `${action}: ${why.trim().replace(/\.$/, '')}.`;
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A module's message as a sentence: capitalised, without its final stop. */
export const sentence = (m: string) => m.charAt(0).toUpperCase() + m.slice(1).replace(/\.$/, '');

/** n with its thousands grouped, as English writes it ("1,234"). One
 * formatter for every count: toLocaleString('en') makes a new one per
 * call, which was most of a keystroke's script in a list of 259 skills. */
const numbers = new Intl.NumberFormat('en');
export const count = (n: number) => numbers.format(n);

/** At most this many names in one sentence. */
const NAMES = 8;
/** "a, b, c" or, past eight, "a, b, … h and 12 more". */
export const names = (xs: string[]) => (xs.length <= NAMES ? xs.join(', ') : `${xs.slice(0, NAMES).join(', ')} and ${count(xs.length - NAMES)} more`);

/** The error's stable code ("InvalidArchive"), or "" when it has none. */
export function codeOf(e: unknown): string {
  return e instanceof SkillfsError ? e.code : '';
}

/** Of a skill a source offers whose installed copy from there was changed
 * here since (the module's IndexEntry.edited, McpOffer.edited), what
 * installing the source's version over it does: the note on its row,
 * after the update it is. */
export const editsReplaced = (edited: boolean) => (edited ? ', replacing the changes you made to it here' : '');

export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/** "1,234 bytes", "12.3 KB", "4.5 MB": decimal units, as the browser's
 * storage figures and the import's limits are given. One wording for the
 * list, a skill's details and its files, so that a size reads the same
 * wherever it is shown. */
export function formatSize(n: number): string {
  if (n < 10_000) return plural(n, 'byte');
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} KB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

/** Offers bytes as a file download (an <a download> click: no permission needed). */
export function download(name: string, bytes: Uint8Array, type = 'application/zip') {
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
