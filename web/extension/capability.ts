// Who may do what: the host decides a port's capability from what Chrome
// says about its sender (port.sender), never from anything the sender
// sends. Kept apart from background.ts so it can be tested on its own.

import type { Capability } from '../../js/bridge.ts';
import type { MessageSender } from './chrome.ts';

/**
 * The capability of a port opened to this extension.
 *
 * - "admin": one of the extension's own pages — the side panel, a popup, or
 *   sidepanel.html opened as a tab. Its URL is under extensionBase and, when
 *   it is in a tab, the tab is showing an extension page too (an extension
 *   page framed inside a web page is not trusted as admin; this extension
 *   declares no web_accessible_resources, so that cannot happen anyway).
 * - "agent": a content script of this extension, running in an http(s) web
 *   page: it has a tab, and its URL is the web page's. It may use sessions
 *   (catalog, activate, invoke, readFile, tools) and nothing else.
 * - "none": anything else — another extension, a port with another name,
 *   a sender without a URL, a content script in a non-web page.
 */
export function capabilityOf(
  sender: MessageSender | undefined,
  portName: string,
  self: { id: string; extensionBase: string; portName: string },
): Capability {
  if (!sender || portName !== self.portName || sender.id !== self.id) return 'none';
  const url = sender.url ?? '';
  const fromExtension = (u: string | undefined) => typeof u === 'string' && u.startsWith(self.extensionBase);
  if (fromExtension(url)) {
    if (!sender.tab) return 'admin';
    // Without the "tabs" permission Chrome may leave tab.url out; the
    // frame then decides: only a top-level extension page is admin.
    if (sender.tab.url === undefined ? sender.frameId === 0 : fromExtension(sender.tab.url)) return 'admin';
    return 'none';
  }
  if (sender.tab && /^https?:\/\//.test(url)) return 'agent';
  return 'none';
}

/**
 * Whose contexts an agent's sessions serve (serveSkillfs's contextScope):
 * the sender's origin, as Chrome reports it, so that a page of one site
 * can never pin a skill into, or read the pins of, another site's
 * contexts, whatever context id it names.
 */
export function contextScopeOf(sender: MessageSender | undefined): string {
  if (sender?.origin) return sender.origin;
  try {
    return new URL(sender?.url ?? '').origin;
  } catch {
    return 'null';
  }
}
