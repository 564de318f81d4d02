// How the side panel shows the outcome of an install from a source: the
// skills installed (named, at most eight), and one line per skill refused
// (with its code and reason) or warned about, and the same in data-
// attributes of section for tests. An index may publish hundreds: the
// lines are capped too, so the panel stays a panel.

import { SkillfsError, type InstallReport } from '../../js/bridge.ts';
import { codeOf, failed, names, plural } from '../ui/say.ts';

/** At most this many refused or warning lines; the rest are counted. */
const LINES = 8;
const capped = (lines: string[], what: string) =>
  lines.length <= LINES ? lines : [...lines.slice(0, LINES), `… and ${plural(lines.length - LINES, what)} more.`];

export function showReport(section: HTMLElement, out: HTMLElement, r: InstallReport) {
  const ids = r.installed.map((s) => s.id);
  out.textContent = [
    ...(ids.length ? [`Installed ${plural(ids.length, 'skill')}: ${names(ids)}.`] : []),
    ...capped(r.refused.map((s) => `Refused ${s.name}: ${s.message} (${s.code}${s.reason ? `, ${s.reason}` : ''}).`), 'refused skill'),
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
