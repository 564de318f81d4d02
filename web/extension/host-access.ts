// Which sites the side panel may fetch from, asked for when the user
// clicks. The extension is granted http://127.0.0.1 and http://localhost at
// install (manifest host_permissions); any other http(s) site is an
// optional host permission, requested with chrome.permissions.request from
// the click that needs it, for the origins that download reaches and no
// more. Without it, a fetch from the extension is an ordinary cross-origin
// one, which most sites (GitHub's archives among them) do not answer.
// See web/extension/README.md, "Sites".

import { SkillfsError, type Origin } from '../../js/bridge.ts';
import { chrome } from './chrome.ts';

/** GitHub serves a repository's archive (…/archive/<ref>.zip, what
 * source.Locate makes of a repository's page) from github.com by a
 * redirect to codeload.github.com, and neither answers a cross-origin
 * request: a download from github.com needs both. One from www.github.com
 * (an address Locate leaves as it is) starts there and is redirected to
 * github.com; it is asked for even when Locate turns the page into
 * github.com's archive, as this cannot tell. So is a raw file's address
 * on raw.githubusercontent.com: Locate makes a SKILL.md's the archive of
 * its repository on github.com, and another file is fetched there. */
const REDIRECTS: Record<string, string[]> = {
  'github.com': ['https://github.com/*', 'https://codeload.github.com/*'],
  'www.github.com': ['https://www.github.com/*', 'https://github.com/*', 'https://codeload.github.com/*'],
  'raw.githubusercontent.com': ['https://raw.githubusercontent.com/*', 'https://github.com/*', 'https://codeload.github.com/*'],
};

/** The host permissions (match patterns, any port) a download from url
 * needs; none for what is not an http(s) URL, which the install refuses
 * on its own. */
export function originsOf(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return [];
  return (u.protocol === 'https:' && REDIRECTS[u.hostname]) || [`${u.protocol}//${u.hostname}/*`];
}

/** The host permissions downloads from every one of urls need, each once. */
export const originsOfAll = (urls: string[]) => [...new Set(urls.flatMap(originsOf))];

/** What checking the source of a skill installed from origin fetches:
 * the index, the MCP server or the URL. */
export const checkOrigins = (o: Origin) => originsOf((o.kind === 'index' ? o.index : o.kind === 'mcp' ? o.server : o.url) ?? '');

/** What updating it fetches, as far as its record knows: the check's, and
 * for an index the artifact installed (an entry moved to another site
 * since is refused by Chrome's fetch, FetchFailed). */
export const updateOrigins = (o: Origin) => [...new Set([...checkOrigins(o), ...(o.kind === 'index' ? originsOf(o.url ?? '') : [])])];

/** The sites in origins, as a person reads them: "github.com and codeload.github.com". */
export function sites(origins: string[]): string {
  const hosts = origins.map((o) => o.replace(/^\w+:\/\//, '').replace(/\/\*$/, ''));
  return hosts.length <= 1 ? hosts.join('') : `${hosts.slice(0, -1).join(', ')} and ${hosts.at(-1)}`;
}

/** Whether the extension may fetch from every one of origins now. */
export const reachable = (origins: string[]) => origins.length === 0 ? Promise.resolve(true) : chrome.permissions.contains({ origins });

/**
 * Asks Chrome for origins (one prompt for all; none when they are granted
 * already), from the user's click: call it before anything else the click
 * awaits, since Chrome shows the prompt only within a few seconds of a
 * click. Throws PermissionDenied when the user declines ("host-access-
 * declined") or Chrome will not ask ("host-access-unavailable"): then
 * nothing was fetched, and nothing may be installed.
 */
export async function allow(origins: string[]): Promise<void> {
  if (origins.length === 0) return;
  let granted: boolean;
  try {
    granted = await chrome.permissions.request({ origins });
  } catch (e) {
    throw new SkillfsError(`Chrome would not ask for access to ${sites(origins)} (${(e as Error)?.message ?? e}); nothing was downloaded or installed`,
      'PermissionDenied', 'host-access-unavailable', origins.join(' '));
  }
  if (!granted) {
    // The prompt named only the sites not granted already; so does the message.
    const missing: string[] = [];
    for (const o of origins) if (!await reachable([o])) missing.push(o);
    throw new SkillfsError(`the extension was not allowed to reach ${sites(missing)}, so nothing was downloaded or installed`,
      'PermissionDenied', 'host-access-declined', missing.join(' '));
  }
}
