// axe-core's serious and critical violations on a page, for the tests of
// the panel and the demo page (axe-core is a dev dependency).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Serious and critical axe-core violations on page, each as "rule: help (targets)". */
export async function axeViolations(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await globalThis.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')
      .map((x) => `${x.id}: ${x.help} (${x.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  });
}
