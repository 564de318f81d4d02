// How the side panel shows the outcome of an install from a source: the
// skills installed (named, at most eight), and one line per skill refused
// (with its code and reason) or warned about, and the same in data-
// attributes of section for tests. An index may publish hundreds: the
// lines are capped too, so the panel stays a panel. A skill refused for
// want of another (Refusal.needs) says what there is to do about that one.

import { SkillfsError, type InstallReport, type Refusal } from '../../js/bridge.ts';
import { codeOf, failed, names, plural } from '../ui/say.ts';

/** At most this many refused or warning lines; the rest are counted. */
const LINES = 8;
const capped = (lines: string[], what: string) =>
  lines.length <= LINES ? lines : [...lines.slice(0, LINES), `… and ${plural(lines.length - LINES, what)} more.`];

/** What the source of an install lists that it can install, by name: an
 * index's entries or an MCP server's skills (as noun calls them). */
export interface Listed {
  names: ReadonlySet<string>;
  noun: 'entry' | 'skill';
}

/** Of r, refused for want of the skill r.needs, what there is to do about
 * that one: nothing when it was refused too for want of r (a cycle); see
 * why when it was refused too; select it when the source lists it (it
 * was not chosen); else get it elsewhere (an index's archive entry, of
 * another name, may hold it). refused are the refusals by what they
 * refuse (Refusal.id), not by the names their lines call them by: a
 * broken skill called by its folder is not the skill of that name. */
function needsLine(r: Refusal, refused: ReadonlyMap<string, Refusal>, listed?: Listed): string {
  const need = r.needs!;
  const other = refused.get(need);
  if (other?.needs === idOf(r)) return ` ${need} depends on ${r.name} in turn: neither can be installed before the other.`;
  if (other) return ` ${need} was refused too: see why in its line.`;
  if (!listed) return '';
  if (listed.names.has(need)) return ` This source offers ${need}: select it too, and install again.`;
  return listed.noun === 'skill'
    ? ` This source offers no skill named ${need}: install it from elsewhere first.`
    : ` This index lists no entry named ${need}: install it from elsewhere first (or from an archive entry that holds it).`;
}

/** The id of the skill s refuses, "" when unknown (Refusal.id). */
const idOf = (s: Refusal) => s.id ?? s.name;

/** listed, what the source lists, lets a refusal for want of a skill say
 * whether the source offers it. */
export function showReport(section: HTMLElement, out: HTMLElement, r: InstallReport, listed?: Listed) {
  const ids = r.installed.map((s) => s.id);
  const refused = new Map(r.refused.flatMap((s) => (idOf(s) ? [[idOf(s), s] as const] : [])));
  out.textContent = [
    ...(ids.length ? [`Installed ${plural(ids.length, 'skill')}: ${names(ids)}.`] : []),
    ...capped(r.refused.map((s) => `Refused ${s.name}: ${s.message} (${s.code}${s.reason ? `, ${s.reason}` : ''}).${s.needs ? needsLine(s, refused, listed) : ''}`), 'refused skill'),
    ...capped(r.warnings.map((s) => `Warning for ${s.name}: ${s.message}`), 'warning'),
  ].join('\n');
  section.dataset.installed = ids.join(' ');
  section.dataset.refused = r.refused.map((s) => `${s.name}:${s.code}`).join(' ');
  delete section.dataset.error;
  section.dataset.state = 'done';
}

/** action says what the user asked for ("Could not install from …"); the
 * sentence gives the reason once, then the stable code for bug reports. */
export function showError(section: HTMLElement, out: HTMLElement, e: unknown, action: string) {
  const code = codeOf(e);
  const reason = e instanceof SkillfsError && e.reason ? `, ${e.reason}` : '';
  out.textContent = `${failed(action, e)}${code ? ` (${code}${reason})` : ''}`;
  section.dataset.error = code || 'Error';
  section.dataset.state = 'error';
}

/**
 * A button that stays in the tab order while its action runs:
 * aria-disabled, not disabled, which drops the focus on the page's body
 * (a keyboard user then starts again at the top of the panel). run(f)
 * runs f unless one runs already, marking the buttons meanwhile.
 */
export function busyButtons(...buttons: HTMLButtonElement[]) {
  let busy = false;
  return async (f: () => Promise<void>) => {
    if (busy) return;
    busy = true;
    for (const b of buttons) b.setAttribute('aria-disabled', 'true');
    try {
      await f();
    } finally {
      busy = false;
      for (const b of buttons) b.removeAttribute('aria-disabled');
    }
  };
}

/** Focuses out, the outcome just written, when what had the focus went
 * with the action (a review closed, a row updated, a button hidden). */
export function focusOutcome(out: HTMLElement) {
  if (document.activeElement && document.activeElement !== document.body) return;
  out.tabIndex = -1;
  out.focus();
}
