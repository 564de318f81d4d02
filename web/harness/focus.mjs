// Where the keyboard focus is, for tests of what a keyboard or screen
// reader user meets: after an action, the focus must be on what they act
// on next, never lost to the page's body.
//
//   import { focusOn } from '../harness/focus.mjs';
//   await focusOn(page, '"Import…"', () => document.activeElement?.textContent === 'Import…');

import assert from 'node:assert/strict';

/** Waits until want(arg), run in page, says the focus is on what; else
 * fails saying where it is. The 30 s are a guard against a focus that
 * never comes, not a limit on how soon it comes: a stalled machine is
 * no wrong focus. */
export async function focusOn(page, what, want, arg) {
  try {
    await page.waitForFunction(want, arg, { timeout: 30_000, polling: 50 });
  } catch {
    const at = await page.evaluate(() => {
      const a = document.activeElement;
      return !a || a === document.body ? 'the page\'s body' : `${a.tagName.toLowerCase()} "${a.getAttribute('aria-label') ?? a.textContent.slice(0, 60)}"`;
    });
    assert.fail(`the focus should be on ${what}, and is on ${at}`);
  }
}
