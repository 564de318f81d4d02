// axe-core's serious and critical violations on a page, for the tests of
// the panel, the skill view and the demo page (axe-core is a dev dependency).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Serious and critical axe-core violations on page, or only inside the
 * element selector names, each as "rule: help (targets)".
 * @param {import('playwright-core').Page} page
 * @param {string} [selector]
 */
export async function axeViolations(page, selector) {
  await page.evaluate(AXE);
  return page.evaluate(async (selector) => {
    const r = await globalThis.axe.run(selector ?? document, { resultTypes: ['violations'] });
    return r.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')
      .map((x) => `${x.id}: ${x.help} (${x.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  }, selector);
}
