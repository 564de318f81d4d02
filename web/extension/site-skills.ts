// The side panel's "skills of the site you are on": when the page in the
// active tab publishes an Agent Skills discovery index, the panel says so
// and lists its skills for the user to review. Nothing installs until the
// user clicks Install, here, in an extension page: the content script (the
// agent) only reports the index it noticed, and agents stay read-only. It
// runs only on sites the extension may reach, so the site's index can be
// read; the artifacts' sites are asked for at Install (host-access.ts).

import type { IndexPreview, Skillfs } from '../../js/bridge.ts';
import { chrome } from './chrome.ts';
import { installTicked, listedOf, offerItems, publishes, skippedLines, ticked } from './index-offer.ts';
import { busyButtons, showError, showReport } from './install-report.ts';

/** The well-known paths a site publishes its index at (v0.2.0, then v0.1.0). */
export const INDEX_PATHS = ['/.well-known/agent-skills/index.json', '/.well-known/skills/index.json'];

/** The message a content script sends when its page publishes an index,
 * and the one the panel sends a tab to ask. */
export interface SiteIndexMessage {
  t: 'site-index';
  url: string | null;
}

/** The index url the content script of the active tab reported, if it is
 * one of that tab's site's well-known indexes. */
async function activeSiteIndex(): Promise<string | null> {
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (tab?.id === undefined || !tab.url) return null;
  let reply: SiteIndexMessage | undefined;
  try {
    reply = await chrome.tabs.sendMessage(tab.id, { t: 'site-index?' });
  } catch {
    return null; // no content script in that tab
  }
  if (!reply?.url) return null;
  // Only the tab's own site's well-known index: what a page says is a claim.
  const url = new URL(reply.url);
  return url.origin === new URL(tab.url).origin && INDEX_PATHS.includes(url.pathname) && !url.search ? url.href : null;
}

/**
 * Fills section with the skills the active tab's site publishes, keeps it
 * current as tabs change, and installs the ones the user picks. sk gives
 * the connection; installed is called after an install.
 */
export function mountSiteSkills(section: HTMLElement, sk: () => Skillfs, installed: () => void) {
  const title = document.createElement('h2');
  const list = document.createElement('ul');
  const install = document.createElement('button');
  install.id = 'site-install';
  install.textContent = 'Install selected';
  const report = document.createElement('p');
  report.id = 'site-report';
  report.setAttribute('role', 'status');
  section.replaceChildren(title, list, install, report);
  let current: string | null = null;
  // What was offered: the install reads this index, not the site's by then.
  let offered: IndexPreview | null = null;

  const check = async () => {
    const url = await activeSiteIndex().catch(() => null);
    if (url === current && !section.hidden) return;
    current = url;
    offered = null;
    section.hidden = true;
    section.dataset.state = 'none';
    if (!url) return;
    try {
      const preview = await sk().registry.previewIndex(url);
      if (url !== current) return; // another tab's index is being read by now
      offered = preview;
      title.textContent = publishes(url, preview.entries.length);
      list.replaceChildren(...offerItems(preview));
      section.dataset.count = String(preview.entries.length);
      report.textContent = skippedLines(preview);
      section.dataset.state = 'offered';
      section.hidden = false;
    } catch (e) {
      showError(section, report, e, `Could not read the skills ${new URL(url).host} publishes`);
      section.hidden = false;
    }
  };

  const installing = busyButtons(install);
  install.addEventListener('click', () => void installing(async () => {
    if (!current || !offered) return;
    const names = ticked(list);
    if (names.length === 0) return;
    section.dataset.state = 'installing';
    try {
      showReport(section, report, await installTicked(sk(), offered, names), listedOf(offered));
      installed();
    } catch (e) {
      showError(section, report, e, `Could not install from ${new URL(current).host}`);
    }
  }));

  chrome.tabs.onActivated.addListener(() => void check());
  chrome.tabs.onUpdated.addListener((_id, info) => {
    if (info.status === 'complete') void check();
  });
  // A content script that finishes noticing an index says so.
  chrome.runtime.onMessage.addListener((m) => {
    if ((m as SiteIndexMessage)?.t === 'site-index') void check();
  });
  void check();
}
