// The skills manager: the side panel's and the demo page's one app. It
// lists the installed skills (live: every committed change, from any tab
// or agent, arrives through onChange), imports archives, and shows what an
// agent sees. Pages add what only they have through `extras` (the side
// panel's install-from-a-source sections), moved into the app's column.

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { SkillMeta, Skillfs } from '../../js/bridge.ts';
import { AgentView } from './AgentView.tsx';
import { Importer } from './Importer.tsx';
import { SkillList } from './SkillList.tsx';
import { SkipLinks } from './SkipLinks.tsx';
import { SkillView } from './skill/SkillView.tsx';
import { count, failed, plural } from './say.ts';
import './app.css';

export interface AppProps {
  sk: Skillfs;
  /** The tools of the agent this page serves. */
  tools: string[];
  /** The session's context, for what the agent sees. */
  contextId: string;
  /** The sample pack's bytes: offered when no skill is installed. */
  samplePack: () => Promise<Uint8Array>;
  /** DOM the page keeps, shown under the import (plain DOM sections). */
  extras?: Node;
  /** Called with every list of the installed skills the app reads: a page
   * that needs it at a click (the side panel's updates) keeps it from here. */
  onSkills?: (skills: SkillMeta[]) => void;
}

type Status = { text: string; state: 'busy' | 'ready' | 'error' };

export function App({ sk, tools, contextId, samplePack, extras, onSkills }: AppProps) {
  const [skills, setSkills] = useState<SkillMeta[]>();
  const [revision, setRevision] = useState(0);
  const [status, setStatus] = useState<Status>({ text: 'Connecting…', state: 'busy' });
  const [installing, setInstalling] = useState(false);
  /** The skill open in the skill view, in place of the manager. */
  const [open, setOpen] = useState<string>();
  const extrasHost = useRef<HTMLDivElement>(null);
  const emptyTitle = useRef<HTMLHeadingElement>(null);
  const hadSkills = useRef(false);
  // The last skills deleted take the list, and the focus in it, away: it
  // goes to what is said in its place, not to the page's body.
  useEffect(() => {
    if (!skills) return;
    const lost = !document.activeElement || document.activeElement === document.body;
    if (skills.length === 0 && hadSkills.current && lost) emptyTitle.current?.focus();
    hadSkills.current = skills.length > 0;
  }, [skills]);
  // The latest onSkills, so that a new function each render reads no list again.
  const skillsSeen = useRef(onSkills);
  skillsSeen.current = onSkills;

  const refresh = useCallback(async () => {
    try {
      const [list, rev] = await Promise.all([sk.registry.list(), sk.registry.revision()]);
      setSkills(list);
      skillsSeen.current?.(list);
      setRevision(rev);
      const on = list.filter((s) => s.enabled).length;
      setStatus({ text: `${plural(list.length, 'skill')} installed, ${count(on)} enabled.`, state: 'ready' });
    } catch (e) {
      setStatus({ text: failed('Could not list the skills', e), state: 'error' });
    }
  }, [sk]);

  useEffect(() => {
    void refresh();
    return sk.onChange(() => void refresh());
  }, [sk, refresh]);

  useEffect(() => {
    if (extras && extrasHost.current) extrasHost.current.append(extras);
  }, [extras]);

  const installSample = async () => {
    setInstalling(true);
    setStatus({ text: 'Installing the sample pack…', state: 'busy' });
    try {
      // "replace": installing twice updates the skills instead of adding copies.
      await sk.registry.importZip(await samplePack(), { source: 'sample-pack.zip', onConflict: 'replace' });
      await refresh();
    } catch (e) {
      setStatus({ text: failed('Could not install the sample pack', e), state: 'error' });
    } finally {
      setInstalling(false);
    }
  };

  return (
    <div class="app">
      <SkipLinks />
      <header class="app-header">
        <h1>Skills</h1>
        <p id="status" role="status" data-state={status.state} class={status.state === 'error' ? 'error' : ''}>
          {status.text}
        </p>
        <button type="button" id="refresh" onClick={() => void refresh()}>
          Refresh
        </button>
      </header>
      {open && (
        <div id="skill-view">
          <SkillView
            sk={sk}
            id={open}
            skills={skills}
            onClose={() => {
              setOpen(undefined);
              // Back where the user was: the skill's name in the list; when
              // it was deleted meanwhile, the search (or, with no skill
              // left, Import…), not the page's body.
              requestAnimationFrame(() => [`li[data-id="${CSS.escape(open)}"] .skill-name`, '.list-tools .search', '.importer button.primary']
                .map((q) => document.querySelector<HTMLElement>(q)).find(Boolean)?.focus());
            }}
          />
        </div>
      )}
      <div class="app-columns" hidden={open !== undefined}>
        <main class="manager">
          <Importer sk={sk} />
          {skills?.length === 0 ? (
            <div class="empty">
              <h2 tabindex={-1} ref={emptyTitle}>No skills installed</h2>
              <p>Import a .zip, .skill or .tar.gz file above, or start with the sample pack: five small skills that show what skills can do.</p>
              <button type="button" id="install" class="primary" disabled={installing} onClick={() => void installSample()}>
                Install the sample pack
              </button>
            </div>
          ) : (
            skills && (
              <section aria-labelledby="installed-title">
                <h2 id="installed-title">Installed</h2>
                <SkillList sk={sk} skills={skills} onOpen={setOpen} />
              </section>
            )
          )}
          <div ref={extrasHost} class="extras" />
        </main>
        <AgentView sk={sk} tools={tools} contextId={contextId} revision={revision} />
      </div>
    </div>
  );
}
