// The side panel's "install from an address": a discovery index, an MCP
// server with the skills extension, or the URL of one archive or SKILL.md (or
// of a repository or folder on GitHub, whose archive it is: source.Locate),
// typed or pasted by the user. An archive or SKILL.md is downloaded once
// and previewed as a local import is (web/ui/Preview.tsx: what it holds
// against what is installed, what cannot be installed, the same choices),
// then those bytes are installed with the choices made; an MCP server's
// skills are shown in the same preview, with the same choices per skill;
// an index lists its skills to tick, as "skills of the site you are on"
// does. What installs is what was reviewed (the index or listing is not
// read again). Nothing is installed before the user confirms, and nothing
// is fetched from a site the user has not allowed (host-access.ts).

import { h, render } from 'preact';
import { SkillfsError, type ImportPreview, type InstallReport, type McpPreview, type Refusal, type Skillfs, type UrlPreview } from '../../js/bridge.ts';
import { Preview, policies, type Choice, type PreviewProps } from '../ui/Preview.tsx';
import { allow, originsOf } from './host-access.ts';
import { installTicked, listedOf, mcpPreview, offerItems, publishes, skippedLines, ticked } from './index-offer.ts';
import { busyButtons, focusOutcome, showError, showReport, type Listed } from './install-report.ts';

const KINDS = [
  ['index', 'a discovery index (index.json)'],
  ['mcp', 'an MCP server with skills'],
  ['url', 'an archive, a SKILL.md, or a repository or folder on GitHub'],
] as const;

/** What a person calls the artifact at url: its file's name (as the URL
 * spells it), else its host. */
const fileName = (url: string) => {
  const u = new URL(url);
  return u.pathname.slice(u.pathname.lastIndexOf('/') + 1) || u.host;
};

/** What failed, naming the address once: a download's or a server's error
 * names the address it reached already ("… answered HTTP 404"). */
const couldNotInstall = (url: string, e: unknown) =>
  e instanceof SkillfsError && e.detail.includes(url) ? 'Could not install' : `Could not install from ${url}`;

/** Fills section with the form; sk gives the connection, installed is
 * called after an install. */
export function mountInstallFrom(section: HTMLElement, sk: () => Skillfs, installed: () => void) {
  const address = document.createElement('input');
  address.id = 'source-address';
  address.type = 'url';
  address.placeholder = 'https://…';
  address.setAttribute('aria-label', 'Address');
  const kind = document.createElement('select');
  kind.id = 'source-kind';
  kind.setAttribute('aria-label', 'What the address is');
  kind.append(...KINDS.map(([value, text]) => Object.assign(document.createElement('option'), { value, text })));
  const go = document.createElement('button');
  go.id = 'source-install';
  go.textContent = 'Install';
  // What the address holds, for the user to choose from, before anything is installed.
  const review = document.createElement('div');
  review.id = 'source-review';
  const report = document.createElement('p');
  report.id = 'source-report';
  report.setAttribute('role', 'status');
  const title = document.createElement('h2');
  title.textContent = 'Install from an address';
  section.replaceChildren(title, address, ' ', kind, ' ', go, review, report);
  section.dataset.state = 'idle';

  const closeReview = () => {
    render(null, review);
    review.replaceChildren();
  };
  const cancel = () => {
    closeReview();
    report.textContent = '';
    section.dataset.state = 'idle';
    go.focus(); // the Cancel that had the focus went with the review
  };
  /** Runs an install and shows its report (listed: what the source
   * offers), closing the review; whether it installed. */
  const install = async (url: string, run: () => Promise<InstallReport>, listed?: Listed): Promise<boolean> => {
    go.disabled = true;
    section.dataset.state = 'installing';
    try {
      showReport(section, report, await run(), listed);
      closeReview();
      installed();
      return true;
    } catch (e) {
      showError(section, report, e, couldNotInstall(url, e));
      return false;
    } finally {
      go.disabled = false;
      // The Install button that had the focus went with the review, or
      // was disabled while it ran.
      focusOutcome(report);
    }
  };
  const reviewing = (notes: string) => {
    report.textContent = notes;
    delete section.dataset.error;
    section.dataset.state = 'previewed';
  };

  // The skills of an archive or a server, against what is installed, with a
  // choice each (marks: which are updates, and of skills changed here);
  // what was previewed is what installs.
  const reviewChoices = (url: string, name: string, preview: ImportPreview, marks: Pick<PreviewProps, 'updates' | 'edited'>, notes: string,
    run: (choose: Record<string, 'rename' | 'replace'>) => Promise<InstallReport>, notesFor?: PreviewProps['notesFor'], listed?: Listed) => {
    const show = (busy: boolean) => render(h(Preview, {
      name, preview, busy, ...marks, notesFor, onCancel: cancel,
      onInstall: async (choices: Map<string, Choice>) => {
        show(true);
        if (!await install(url, () => run(policies(choices)), listed)) show(false);
      },
    }), review);
    show(false);
    reviewing(notes);
  };
  // A conflict with a skill installed from this very download is that
  // skill's update: one from the same folder, or the folder it moved from
  // (named whatever its id: one kept beside another of its name, as
  // name-v2), or the whole of it, as the preview says (PreviewSkill.update);
  // Update replaces it.
  const reviewUrl = (url: string, p: UrlPreview) => {
    const updates = new Set(p.skills.filter((s) => s.status === 'conflict' && s.update).map((s) => s.name));
    reviewChoices(url, fileName(url), p, { updates }, p.warnings.map((w) => `Warning: ${w.message}.`).join('\n'), (choose) => sk().registry.installFromPreview(p, { choose }),
      (part, choose) => sk().registry.previewNotes(part, choose));
  };

  // An index's skills to tick, as the site's are; run installs the names ticked.
  const reviewOffer = (url: string, items: HTMLLIElement[], skipped: Refusal[], run: (names: string[]) => Promise<InstallReport>, listed: Listed) => {
    const heading = document.createElement('h3');
    heading.textContent = publishes(url, items.length);
    const list = document.createElement('ul');
    list.replaceChildren(...items);
    const confirm = Object.assign(document.createElement('button'), { textContent: 'Install selected' });
    const back = Object.assign(document.createElement('button'), { textContent: 'Cancel' });
    const installing = busyButtons(confirm, back);
    confirm.addEventListener('click', () => void installing(async () => {
      const names = ticked(list);
      if (names.length) await install(url, () => run(names), listed);
    }));
    back.addEventListener('click', () => void installing(async () => cancel()));
    review.replaceChildren(heading, list, confirm, back);
    reviewing(skippedLines({ skipped }));
  };
  const reviewIndex = async (url: string) => {
    const p = await sk().registry.previewIndex(url);
    reviewOffer(url, offerItems(p), p.skipped, (names) => installTicked(sk(), p, names), listedOf(p));
  };
  const reviewMcp = async (url: string) => {
    const p = await sk().registry.previewMcp(url);
    const updates = p.skills.filter((s) => s.status === 'update');
    const names = (offers: McpPreview['skills']) => new Set(offers.map((s) => s.name));
    reviewChoices(url, new URL(url).host, mcpPreview(p), { updates: names(updates), edited: names(updates.filter((s) => s.edited)) }, skippedLines(p), (choose) => sk().registry.installFromMcp(p, { choose }), undefined,
      listedOf(p));
  };

  const previewing = busyButtons(go);
  go.addEventListener('click', () => void previewing(async () => {
    const url = address.value.trim();
    if (!url) return;
    closeReview();
    report.textContent = '';
    // Only an http(s) address, whole, is fetched: a name alone
    // ("skills.zip") was fetched from the extension's own files, and "pdf
    // tools" said to be a server that did not answer (CORS).
    if (originsOf(url).length === 0) {
      report.textContent = `${url} is not a web address: give the whole address, starting with https:// (or http://).`;
      section.dataset.error = 'address';
      section.dataset.state = 'error';
      address.setAttribute('aria-invalid', 'true');
      address.focus();
      return;
    }
    address.removeAttribute('aria-invalid');
    section.dataset.state = 'previewing';
    try {
      // The sites this address's download reaches, asked for first, while
      // Chrome still counts the click; declined, nothing is fetched.
      await allow(originsOf(url));
      if (kind.value === 'url') reviewUrl(url, await sk().registry.previewFromUrl(url));
      else if (kind.value === 'mcp') await reviewMcp(url);
      else await reviewIndex(url);
    } catch (e) {
      showError(section, report, e, couldNotInstall(url, e));
    }
  }));
}
