// What a discovery index or an MCP server offers, as the side panel shows
// it for a person to choose from: an index's entries each with a box,
// ticked unless installed from there already (registry.previewIndex),
// shared by "skills of the site you are on" and "install from an address";
// an MCP server's skills as the preview of an archive (registry.previewMcp).

import type { ImportPreview, IndexPreview, InstallReport, McpPreview, Refusal, Skillfs } from '../../js/bridge.ts';
import { allow, originsOfAll } from './host-access.ts';
import { editsReplaced } from '../ui/say.ts';
import type { Listed } from './install-report.ts';

/** "127.0.0.1:8080 publishes 3 skills": the index or server at url offers n. */
export const publishes = (url: string, n: number) => `${new URL(url).host} publishes ${n} skill${n === 1 ? '' : 's'}`;

/** One skill offered: installed ones cannot be ticked; note follows its description. */
interface Offered { name: string; description: string; installed: boolean; ticked: boolean; note: string }

function items(offered: Offered[]): HTMLLIElement[] {
  return offered.map((e) => {
    const li = document.createElement('li');
    li.dataset.name = e.name;
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = e.ticked;
    box.disabled = e.installed;
    const label = document.createElement('label');
    const name = document.createElement('code');
    name.textContent = e.name;
    label.append(box, ' ', name, ` — ${e.description}${e.note}`);
    li.append(label);
    return li;
  });
}

/** The entries of preview as list items, each with its box, as the
 * module found each against the installed skills (IndexEntry.status).
 * One installed from this entry is the skill installed, whatever its id:
 * left as it is, or, in another version now, updated in place (ticked
 * when the index's digest says it changed, unless the skill was changed
 * here since: updating replaces those changes, which the row says). One
 * whose name a skill from elsewhere has says that it installs beside that
 * one (as name-v2), not over it: the entry is another source. */
export function offerItems(preview: IndexPreview): HTMLLIElement[] {
  const note = (e: IndexPreview['entries'][number]) => e.status === 'installed' ? ' (installed)'
    : e.status === 'update' ? ` (installed as ${e.installed}: ${e.digest ? 'the index publishes a new version, which' : 'the index publishes no digest to tell whether it changed; installing it'} updates it in place${editsReplaced(e.edited)})`
    : e.status === 'conflict' ? ` (a skill named ${e.name} from elsewhere is installed: this one installs beside it, as a copy of its own)` : '';
  return items(preview.entries.map((e) => ({
    name: e.name, description: e.description, installed: e.status === 'installed',
    ticked: e.status === 'new' || e.status === 'conflict' || (e.status === 'update' && !!e.digest && !e.edited),
    note: `${note(e)}${e.digest ? '' : ' (unverified: the index has no digests)'}`,
  })));
}

/** What an MCP server offers, as the preview of an archive
 * (web/ui/Preview.tsx), so that each skill gets the same choices as an
 * archive's: one installed from elsewhere, or from this server in another
 * version, is a conflict (Update replaces it; the one from this server in
 * place, whatever its id); one installed from it byte for byte is
 * installed. The choices install with installFromMcp's choose. */
export const mcpPreview = (p: McpPreview): ImportPreview => ({
  dropped: [],
  installedSkills: {},
  skills: p.skills.map((s) => ({
    name: s.name, description: s.description, version: '', dir: s.uri.slice(0, -'/SKILL.md'.length), folder: '', size: 0, fileCount: s.fileCount,
    digest: s.digest, status: s.status === 'update' ? 'conflict' : s.status, installed: s.installed, diagnostics: [], dependencies: [],
  })),
});

/** The names of the entries ticked in list. */
export const ticked = (list: HTMLElement) =>
  [...list.querySelectorAll('li')].filter((li) => li.querySelector('input')?.checked).map((li) => li.dataset.name!);

/** Installs the entries names of the index reviewed, after asking for
 * the sites their artifacts are on (the index itself is not read again).
 * Call it from the user's click, first. */
export async function installTicked(sk: Skillfs, preview: IndexPreview, names: string[]): Promise<InstallReport> {
  await allow(originsOfAll(preview.entries.filter((e) => names.includes(e.name)).map((e) => e.url)));
  return sk.registry.installFromIndex(preview, { names });
}

/** What the index or server offers to install, for its install's report (showReport). */
export const listedOf = (p: IndexPreview | McpPreview): Listed =>
  'entries' in p ? { names: new Set(p.entries.map((e) => e.name)), noun: 'entry' } : { names: new Set(p.skills.map((s) => s.name)), noun: 'skill' };

/** The lines that say which skills the index or server left out, and why. */
export const skippedLines = (preview: { skipped: Refusal[] }) => preview.skipped.map((s) => `Skipped ${s.name}: ${s.message}`).join('\n');
