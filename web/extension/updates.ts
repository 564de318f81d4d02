// The side panel's updates: asks the source of every installed skill that
// has one whether it publishes something else now (by digest; nothing
// unchanged is downloaded), and updates a skill when the user clicks its
// Update button: one commit, and agents' sessions that see it go stale.

import type { Skillfs } from '../../js/bridge.ts';
import { showError } from './install-report.ts';

/** Fills section with the check button and, after a check, one line per
 * skill whose source changed it or dropped it. */
export function mountUpdates(section: HTMLElement, sk: () => Skillfs, updated: () => void) {
  const title = document.createElement('h2');
  title.textContent = 'Updates';
  const check = document.createElement('button');
  check.id = 'updates-check';
  check.textContent = 'Check for updates';
  const list = document.createElement('ul');
  list.id = 'updates';
  const report = document.createElement('p');
  report.id = 'updates-report';
  report.setAttribute('role', 'status');
  section.replaceChildren(title, check, list, report);

  const run = async (action: string, what: () => Promise<void>) => {
    check.disabled = true;
    section.dataset.state = 'busy';
    try {
      await what();
      section.dataset.state = 'done';
    } catch (e) {
      showError(section, report, e, action);
    } finally {
      check.disabled = false;
    }
  };

  const refresh = () => run('Could not check for updates', async () => {
    const ups = await sk().registry.checkUpdates();
    const shown = ups.filter((u) => u.status !== 'current');
    list.replaceChildren(...shown.map((u) => {
      const li = document.createElement('li');
      li.dataset.id = u.id;
      li.dataset.status = u.status;
      const name = document.createElement('code');
      name.textContent = u.id;
      li.append(name, ` — ${u.status === 'changed' ? 'a new version is published' : u.status === 'gone' ? 'no longer published' : u.message ?? u.status}`);
      if (u.status === 'changed') {
        const b = document.createElement('button');
        b.textContent = 'Update';
        b.dataset.update = u.id;
        b.addEventListener('click', () => void run(`Could not update ${u.id}`, async () => {
          const r = await sk().registry.update(u.id);
          report.textContent = r.status === 'updated' ? `Updated ${u.id}.` : `${u.id} is current.`;
          section.dataset.updated = u.id;
          li.remove();
          updated();
        }));
        li.append(' ', b);
      }
      return li;
    }));
    report.textContent = `${ups.length} skill${ups.length === 1 ? '' : 's'} with a source; ${shown.length} to look at.`;
    section.dataset.checked = String(ups.length);
  });
  check.addEventListener('click', () => void refresh());
}
