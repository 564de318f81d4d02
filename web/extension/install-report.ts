// How the side panel shows the outcome of an install from a source: one
// line per skill installed, refused (with its code and reason) or warned
// about, and the same in data- attributes of section for tests.

import { SkillfsError, type InstallReport } from '../../js/bridge.ts';

export function showReport(section: HTMLElement, out: HTMLElement, r: InstallReport) {
  out.textContent = [
    ...r.installed.map((s) => `Installed ${s.id}.`),
    ...r.refused.map((s) => `Refused ${s.name}: ${s.code} (${s.reason}): ${s.message}`),
    ...r.warnings.map((s) => `Warning for ${s.name}: ${s.message}`),
  ].join('\n');
  section.dataset.installed = r.installed.map((s) => s.id).join(' ');
  section.dataset.refused = r.refused.map((s) => `${s.name}:${s.code}`).join(' ');
  section.dataset.state = 'done';
}

export function showError(section: HTMLElement, out: HTMLElement, e: unknown) {
  out.textContent = e instanceof SkillfsError ? `${e.code}${e.reason ? ` (${e.reason})` : ''}: ${e.message}` : String(e);
  section.dataset.error = e instanceof SkillfsError ? e.code : 'Error';
  section.dataset.state = 'error';
}
