// The extension's background service worker: the ONE host of skillfs.
//
// It runs the WebAssembly module (loadSkillfs) against the IndexedDB of the
// extension's own origin, and serves it over chrome.runtime ports to the
// side panel (capability "admin") and to content scripts ("agent"). A
// content script never runs the module itself: IndexedDB there belongs to
// the web page's origin, so skills would land in, or be read from, the
// page's storage.
//
// This is a CLASSIC service worker (manifest "background.service_worker"
// without "type": "module"), bundled by esbuild as an IIFE:
//  - wasm_exec.js (Go's runtime glue) is a classic script; a service worker
//    may call importScripts only while its script is first evaluated (later
//    calls throw for scripts not cached at install), so the first import
//    below (wasm-exec.ts) loads it, before any await. loadSkillfs then
//    finds globalThis.Go and does not load it again (its fallback,
//    import(), is not allowed in service workers at all).
//  - chrome.runtime.onConnect must be registered synchronously at top level
//    too, so a port that wakes the worker is not missed; the module loads
//    in the background and each port's early messages are held until it is
//    ready (see holdMessages).

import './wasm-exec.ts'; // first: importScripts('wasm_exec.js')
import { loadSkillfs, serveSkillfs, type ChromePort, type Skillfs } from '../../js/bridge.ts';
import { capabilityOf, contextScopeOf } from './capability.ts';
import { AGENT_TOOLS, chrome, PORT_NAME, type Port, type RegisteredContentScript } from './chrome.ts';
import { offscreenRunner } from './offscreen.ts';

let loading: Promise<Skillfs> | undefined;

/** The module, loaded once per service-worker lifetime. */
function skillfs(): Promise<Skillfs> {
  // Skills' modules run in Workers of the offscreen document: a service
  // worker has no Worker of its own.
  loading ??= loadSkillfs({ wasmURL: chrome.runtime.getURL('skillfs.wasm'), wasiRunner: offscreenRunner() }).then(async (sk) => {
    await sk.registry.registerTools(AGENT_TOOLS);
    return sk;
  }).catch((e: unknown) => {
    loading = undefined; // let the next port try again
    throw e;
  });
  return loading;
}

/**
 * A view of port that queues the messages which arrive before serveSkillfs
 * listens (Chrome drops a port message that finds no listener) and hands
 * them over when it does.
 */
function holdMessages(port: Port): ChromePort {
  const queue: unknown[] = [];
  let deliver: ((m: unknown) => void) | undefined;
  port.onMessage.addListener((m) => (deliver ? deliver(m) : queue.push(m)));
  return {
    postMessage: (m) => port.postMessage(m),
    onMessage: {
      addListener(fn) {
        deliver = fn;
        for (const m of queue.splice(0)) fn(m);
      },
    },
    onDisconnect: { addListener: (fn) => port.onDisconnect.addListener(() => fn()) },
    disconnect: () => port.disconnect(),
  };
}

chrome.runtime.onConnect.addListener((port) => {
  const capability = capabilityOf(port.sender, port.name, {
    id: chrome.runtime.id,
    extensionBase: chrome.runtime.getURL(''),
    portName: PORT_NAME,
  });
  // "none" is served too: every call is then refused with PermissionDenied,
  // which tells the other end more than a closed port.
  const held = holdMessages(port);
  let open = true;
  port.onDisconnect.addListener(() => (open = false));
  skillfs().then(
    (sk) => {
      // This extension lets its pages' agents run skills' modules.
      if (open) serveSkillfs(sk, held, { capability, contextScope: capability === 'agent' ? contextScopeOf(port.sender) : undefined, execute: true });
    },
    (e: unknown) => {
      console.error('skillfs: the module did not load:', e);
      // The client's pending calls reject with "the skillfs host disconnected".
      if (open) port.disconnect();
    },
  );
});

/**
 * The content script (content.ts), registered here rather than declared in
 * the manifest so that its matches can be every http(s) page: Chrome
 * injects it only where the extension has host access — 127.0.0.1 and
 * localhost from install, any other site once the user has allowed it
 * (host-access.ts). Registered once; Chrome keeps it across restarts.
 */
const CONTENT_SCRIPT: RegisteredContentScript = { id: 'agent', matches: ['http://*/*', 'https://*/*'], js: ['content.js'], runAt: 'document_idle' };

async function registerContentScript() {
  const [registered] = await chrome.scripting.getRegisteredContentScripts({ ids: [CONTENT_SCRIPT.id] });
  if (!registered) await chrome.scripting.registerContentScripts([CONTENT_SCRIPT]);
}
registerContentScript().catch((e: unknown) => console.error('skillfs: the content script was not registered:', e));

// Opening the side panel from the toolbar button.
chrome.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});

// Start loading right away, so the first port does not wait for it.
skillfs().catch(() => {});
