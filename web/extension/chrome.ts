// The small part of the chrome.* extension API this example uses, typed
// here so the example type-checks with the repository's tsconfig (which
// loads no @types packages). At run time it is the browser's own `chrome`.

import type { ChromePort } from '../../js/bridge.ts';

/** What Chrome says about the other end of a runtime port. */
export interface MessageSender {
  /** The extension the sender belongs to. */
  id?: string;
  /** The URL of the page or frame that opened the port. */
  url?: string;
  /** The sender's origin (Chrome 80+). */
  origin?: string;
  /** Set when the sender is a tab (a content script, or an extension page open in a tab). */
  tab?: { id?: number; url?: string };
  frameId?: number;
  documentId?: string;
}

export interface Port extends ChromePort {
  name: string;
  sender?: MessageSender;
  onMessage: { addListener(fn: (message: unknown, port: Port) => void): void; removeListener(fn: (message: unknown, port: Port) => void): void };
  onDisconnect: { addListener(fn: (port: Port) => void): void };
}

export interface Chrome {
  runtime: {
    id: string;
    lastError?: { message?: string };
    getURL(path: string): string;
    connect(info?: { name?: string }): Port;
    onConnect: { addListener(fn: (port: Port) => void): void };
    sendMessage(message: unknown): Promise<unknown>;
    /** Return true to answer later through sendResponse. */
    onMessage: { addListener(fn: (message: unknown, sender: MessageSender, sendResponse: (r: unknown) => void) => boolean | void): void };
  };
  tabs: {
    /** Without the "tabs" permission, url is set only for sites the host permissions cover. */
    query(q: { active?: boolean; lastFocusedWindow?: boolean }): Promise<{ id?: number; url?: string }[]>;
    sendMessage<T>(tabId: number, message: unknown): Promise<T>;
    onActivated: { addListener(fn: () => void): void };
    onUpdated: { addListener(fn: (tabId: number, info: { status?: string }) => void): void };
  };
  /** Host permissions: host_permissions are granted at install; the
   * optional ones are asked for at a click (host-access.ts). */
  permissions: {
    /** Shows Chrome's prompt unless every origin is granted already; false when the user declines. */
    request(p: { origins: string[] }): Promise<boolean>;
    contains(p: { origins: string[] }): Promise<boolean>;
  };
  scripting: {
    getRegisteredContentScripts(filter?: { ids?: string[] }): Promise<RegisteredContentScript[]>;
    registerContentScripts(scripts: RegisteredContentScript[]): Promise<void>;
  };
  offscreen?: {
    createDocument(p: { url: string; reasons: string[]; justification: string }): Promise<void>;
  };
  sidePanel?: {
    setPanelBehavior(behavior: { openPanelOnActionClick: boolean }): Promise<void>;
  };
}

/** A content script registered at run time (chrome.scripting). */
export interface RegisteredContentScript {
  id: string;
  matches?: string[];
  js?: string[];
  runAt?: 'document_start' | 'document_end' | 'document_idle';
  persistAcrossSessions?: boolean;
}

export const chrome = (globalThis as unknown as { chrome: Chrome }).chrome;

/** The name every skillfs port of this extension carries. */
export const PORT_NAME = 'skillfs';

/** The tools the content script's agent has. The service worker registers
 * them, so that skills declaring tool dependencies (the sample pack's
 * web-research needs WebFetch) are checked against them on import,
 * and the side panel offers them as dependencies. */
export const AGENT_TOOLS = ['Read', 'Write', 'Bash', 'WebSearch', 'WebFetch'];
