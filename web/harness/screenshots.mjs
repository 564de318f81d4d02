// Where the UI tests write their screenshots: .bin/screenshots, not the
// tracked docs/*.png, so that `make test` leaves a checkout clean.
// `make screenshots` copies them to docs/ when the README's pictures are
// to be renewed.

import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SCREENSHOTS = resolve(dirname(fileURLToPath(import.meta.url)), '../../.bin/screenshots');

/** The path to write the screenshot name (such as "demo.png") to. */
export function screenshotPath(name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return join(SCREENSHOTS, name);
}
