// Shared browser-driving code for skillfs tests and benchmarks.
//   import { open } from '../harness/index.mjs';
//   const h = await open({ root: dir, readyExpression: 'window.ready' });
//   try { await h.page.evaluate(...) } finally { await h.close() }
export { serve, withTimeout, MIME } from './server.mjs';
export { launch, open, CHROMIUM_FLAGS, DEFAULT_CHROMIUM } from './browser.mjs';
