// The side panel's "install from an address": a discovery index, an MCP
// server with the skills extension, or the URL of one archive or SKILL.md,
// typed or pasted by the user and installed when they click Install.

import type { Skillfs } from '../../js/bridge.ts';
import { showError, showReport } from './install-report.ts';

const KINDS = [
  ['index', 'a discovery index (index.json)'],
  ['mcp', 'an MCP server with skills'],
  ['url', 'one archive or SKILL.md'],
] as const;

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
  const report = document.createElement('p');
  report.id = 'source-report';
  report.setAttribute('role', 'status');
  const title = document.createElement('h2');
  title.textContent = 'Install from an address';
  section.replaceChildren(title, address, ' ', kind, ' ', go, report);
  section.dataset.state = 'idle';

  go.addEventListener('click', async () => {
    const url = address.value.trim();
    if (!url) return;
    go.disabled = true;
    section.dataset.state = 'installing';
    try {
      const r = sk().registry;
      showReport(section, report, await (kind.value === 'mcp' ? r.installFromMcp(url) : kind.value === 'url' ? r.installFromUrl(url) : r.installFromIndex(url)));
      installed();
    } catch (e) {
      showError(section, report, e, `Could not install from ${url}`);
    } finally {
      go.disabled = false;
    }
  });
}
