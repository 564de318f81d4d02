// Links to the page's sections, first in the Tab order and shown when
// focused: the skills list takes several Tab stops a row, so without them
// "Install from an address", Updates or the agent view lie hundreds of
// presses away (WCAG 2.4.1, bypass blocks). The sections are read from the
// page's headings, so a page's own (App's extras) are there too.

import { useLayoutEffect, useState } from 'preact/hooks';

/** The sections' headings shown now, in the page's order. */
const headings = () => [...document.querySelectorAll<HTMLElement>('.app-columns h2')].filter((h) => !h.closest('[hidden]'));

export function SkipLinks() {
  const [heads, setHeads] = useState<HTMLElement[]>([]);
  const read = () => {
    const now = headings();
    if (now.length !== heads.length || now.some((h, i) => h !== heads[i])) setHeads(now);
  };
  // After each of the app's renders (the list's heading comes with the
  // skills, the skill view hides them all), and when the keyboard comes in
  // from outside: a page's sections come and go too (a site's skills).
  useLayoutEffect(read);
  if (!heads.length) return null;
  return (
    <nav
      class="skip-links"
      aria-label="Skip to"
      onFocusIn={(e) => {
        if (!(e.currentTarget as HTMLElement).contains(e.relatedTarget as Node)) read();
      }}
    >
      <ul>
        {heads.map((h) => (
          <li key={h.textContent}>
            <a
              href={h.id ? `#${h.id}` : '#'}
              onClick={(e) => {
                e.preventDefault();
                // A heading takes the focus (not the Tab order): the next Tab goes on from it.
                if (h.tabIndex < 0 && !h.hasAttribute('tabindex')) h.tabIndex = -1;
                h.focus();
              }}
            >
              {h.textContent}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
