// The side panel's updates: asks the source of every installed skill that
// has one whether it publishes something else now (by digest; nothing
// unchanged is downloaded), and updates a skill when the user clicks its
// Update button: one commit, and agents' sessions that see it go stale.
// The sites the sources are on are asked for at the click, in one prompt,
// from the list the panel holds (a read first would be a round trip to the
// worker, which Chrome may have to start, and the click would no longer
// count by then: host-access.ts); what is checked is then what is
// installed now, read after the prompt: the panel's list misses what
// another tab changed while the panel's port was closed (a removed skill
// made the check fail whole, SkillNotFound). A source on a site the user
// did not allow (or was not asked about: a skill installed elsewhere
// since) is not contacted, and its skills are listed as not checked.

import { SkillfsError, type Skillfs, type SkillMeta } from '../../js/bridge.ts';
import { groupBy } from '../../js/group.ts';
import { allow, checkOrigins, reachable, sites, updateOrigins } from './host-access.ts';
import { busyButtons, focusOutcome, showError } from './install-report.ts';
import { names, plural } from '../ui/say.ts';

/** What a report adds for the skills an update installed with the ones
 * updated (UpdateResult.installed). */
const withNeeds = (installed: SkillMeta[] = []) =>
  installed.length ? `, and installed ${names(installed.map((m) => m.id))} from the same download, as a new dependency` : '';

/** Fills section with the check button and, after a check, one line per
 * skill whose source changed it or dropped it. installed gives the list of
 * the installed skills the panel holds, whose sites are asked for; updated
 * is called after an update. */
export function mountUpdates(section: HTMLElement, sk: () => Skillfs, installed: () => SkillMeta[], updated: () => void) {
  const title = document.createElement('h2');
  title.textContent = 'Updates';
  const check = document.createElement('button');
  check.id = 'updates-check';
  check.textContent = 'Check for updates';
  const list = document.createElement('ul');
  list.id = 'updates';
  const all = document.createElement('button');
  all.id = 'updates-all';
  all.hidden = true;
  const report = document.createElement('p');
  report.id = 'updates-report';
  report.setAttribute('role', 'status');
  section.replaceChildren(title, check, list, all, report);

  // One action at a time; a row's Update and "Update all" take their
  // row or themselves away, and the focus goes to what they did.
  const busy = busyButtons(check, all);
  const run = (action: string, what: () => Promise<void>) => busy(async () => {
    section.dataset.state = 'busy';
    try {
      await what();
      section.dataset.state = 'done';
    } catch (e) {
      showError(section, report, e, action);
    }
    focusOutcome(report);
  });

  /** The skills installed now with a source, split by whether the
   * extension may reach it, after asking once for the sites of those in
   * the panel's list that it may not. */
  const askForSources = async (): Promise<{ sourced: number; allowed: SkillMeta[]; denied: SkillMeta[] }> => {
    try {
      await allow([...new Set(installed().flatMap((m) => (m.origin ? checkOrigins(m.origin) : [])))]);
    } catch (e) {
      // Declined: the sources already allowed are still checked.
      if (!(e instanceof SkillfsError && e.code === 'PermissionDenied')) throw e;
    }
    const sourced = (await sk().registry.list()).filter((m) => m.origin);
    const needs = new Map(sourced.map((m) => [m.id, checkOrigins(m.origin!)]));
    const may = new Map<string, boolean>();
    for (const origins of needs.values()) may.set(origins.join(' '), await reachable(origins));
    const allowed = sourced.filter((m) => may.get(needs.get(m.id)!.join(' ')));
    const denied = sourced.filter((m) => !may.get(needs.get(m.id)!.join(' ')));
    return { sourced: sourced.length, allowed, denied };
  };

  const refresh = () => run('Could not check for updates', async () => {
    const { sourced, allowed, denied } = await askForSources();
    const ups = allowed.length ? await sk().registry.checkUpdates({ ids: allowed.map((m) => m.id) }) : [];
    const shown = ups.filter((u) => u.status !== 'current');
    // Skills changed here since their install (the editor): an update
    // replaces those changes, which the row says, and "Update all" leaves
    // them to a click of their own.
    const edited = new Set(allowed.filter((m) => m.origin!.filesDigest && m.origin!.filesDigest !== m.digest).map((m) => m.id));
    // Several to update: all at once, each skill in its own commit, and a
    // repository's download fetched once for its skills (updateMany), not
    // once per Update clicked.
    const changed = shown.filter((u) => u.status === 'changed' && !edited.has(u.id));
    const offerAll = () => {
      all.hidden = changed.length < 2;
      all.textContent = `Update all ${changed.length}`;
    };
    const notChecked = denied.map((m) => {
      const li = document.createElement('li');
      li.dataset.id = m.id;
      li.dataset.status = 'no-access';
      const name = document.createElement('code');
      name.textContent = m.id;
      li.append(name, ` — not checked: the extension may not reach ${sites(checkOrigins(m.origin!))}`);
      return li;
    });
    // The skills of one source that could not be asked fail alike: one
    // line names them all (a repository's hundred), not a line each.
    const failures = groupBy(shown.filter((u) => u.status === 'error'), (u) => `${u.code}\n${u.message}`);
    const failed = [...failures.values()].map((us) => {
      const li = document.createElement('li');
      li.dataset.id = us.map((u) => u.id).join(' ');
      li.dataset.status = 'error';
      li.append(Object.assign(document.createElement('code'), { textContent: names(us.map((u) => u.id)) }), ` — ${us[0]!.message ?? us[0]!.code}`);
      return li;
    });
    list.replaceChildren(...notChecked, ...failed, ...shown.filter((u) => u.status !== 'error').map((u) => {
      const li = document.createElement('li');
      li.dataset.id = u.id;
      li.dataset.status = u.status;
      const name = document.createElement('code');
      name.textContent = u.id;
      li.append(name, ` — ${u.status === 'changed' ? 'a new version is published' : u.status === 'gone' ? 'no longer published' : 'not known: the source publishes no digest to compare'}`);
      // A skill of its download that the new version needs installs with it.
      if (u.status === 'changed' && u.needs?.length) li.append(`; it now depends on ${names(u.needs)}, from the same download, which updating installs too`);
      if (u.status === 'changed' && edited.has(u.id)) li.append('; you have changed this skill here, and updating replaces your changes');
      if (u.status === 'changed') {
        const b = document.createElement('button');
        b.textContent = edited.has(u.id) ? 'Update, replacing my changes' : 'Update';
        b.dataset.update = u.id;
        b.addEventListener('click', () => void run(`Could not update ${u.id}`, async () => {
          await allow(updateOrigins(u.origin));
          const r = await sk().registry.update(u.id);
          report.textContent = r.status === 'updated' ? `Updated ${u.id}${withNeeds(r.installed)}.` : `${u.id} is current.`;
          section.dataset.updated = u.id;
          li.remove();
          if (changed.includes(u)) changed.splice(changed.indexOf(u), 1);
          offerAll();
          updated();
        }));
        li.append(' ', b);
      }
      return li;
    }));
    offerAll();
    all.onclick = () => void run('Could not update', async () => {
      await allow([...new Set(changed.flatMap((u) => updateOrigins(u.origin)))]);
      const outs = await sk().registry.updateMany(changed.map((u) => u.id));
      // The rows by id, once: a search of the list per skill updated is
      // quadratic in a repository's thousands.
      const rows = new Map([...list.children].map((x) => [(x as HTMLElement).dataset.id, x as HTMLElement]));
      for (const out of outs) {
        const li = rows.get(out.id);
        if (!li) continue;
        if (out.status !== 'error') li.remove();
        else {
          li.dataset.status = 'error';
          li.replaceChildren(Object.assign(document.createElement('code'), { textContent: out.id }), ` — could not update: ${out.message ?? out.code}`);
        }
      }
      changed.length = 0;
      offerAll();
      const done = outs.filter((x) => x.status !== 'error').length;
      const bad = outs.length - done;
      report.textContent = `Updated ${plural(done, 'skill')}${withNeeds(outs.flatMap((x) => x.installed ?? []))}${bad ? `; ${plural(bad, 'skill')} could not be updated, as said beside each` : ''}.`;
      updated();
    });
    const unreached = [...new Set(denied.flatMap((m) => checkOrigins(m.origin!)))];
    // "0 skills with a source; 0 to look at." after importing hundreds of
    // skills from files read as if the check had failed.
    report.textContent = sourced === 0
      ? 'Nothing to check: no installed skill came from an address or a site, and a skill imported from a file has no source to ask for a new version.'
      : `${plural(sourced, 'skill')} with a source; ${shown.length} to look at${denied.length ? `; ${denied.length} not checked: the extension was not allowed to reach ${sites(unreached)}` : ''}.`;
    section.dataset.checked = String(ups.length);
    section.dataset.notChecked = String(denied.length);
  });
  check.addEventListener('click', () => void refresh());
}
