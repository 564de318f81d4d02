// Bulk management of the skills list: the bar over the list that selects
// every skill the search and filters give, says how many are selected,
// and enables, disables or deletes them, each in one registry call (one
// commit, one change) up to MAX_BATCH skills; more go in batches of
// MAX_BATCH, one call each (deleting, dependents in a batch before what
// they depend on: dependents.ts), with a progress bar and a Stop that
// takes effect between two batches, since each batch is all or nothing.
// Deleting asks first, naming how many and, when few, which, and the
// installed skills outside the selection that depend on them, which it
// then deletes too. The outcome
// is announced (a status, or an alert when it failed), and when it
// stopped partway it says how many were changed and that the others were
// not; focus stays on the control that acted, or, after a delete, moves
// to the row after the deleted ones.

import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import { MAX_BATCH, type SkillMeta, type Skillfs } from '../../js/bridge.ts';
import { dependentsOf, removalBatches } from './dependents.ts';
import { DependentsNote } from './Dependents.tsx';
import { codeOf, failed, names, plural } from './say.ts';
import { Dialog } from './skill/Dialog.tsx';

interface Props {
  sk: Skillfs;
  /** Every installed skill: what depends on the selected ones. */
  skills: SkillMeta[];
  /** The skills the search and filters give, in the list's order. */
  shown: SkillMeta[];
  /** The selected skills that are installed, in the list's order. */
  selected: SkillMeta[];
  /** How many of them the search and filters hide. */
  hidden: number;
  select(ids: string[], on: boolean): void;
  clear(): void;
  /** Called once the deleted skills are gone from the registry, with them. */
  onDeleted(ids: string[]): void;
}

/** What the last bulk action did; a failure has its error's code ("" when it has none). */
type Outcome = { text: string; ok: boolean; code: string };

type Action = 'enable' | 'disable' | 'delete';
const DONE: Record<Action, string> = { enable: 'Enabled', disable: 'Disabled', delete: 'Deleted' };
const DOING: Record<Action, string> = { enable: 'Enabling', disable: 'Disabling', delete: 'Deleting' };

/** An action under way: the skills its committed batches changed, of total. */
type Running = { action: Action; done: number; total: number };

/** ids in batches of MAX_BATCH, in their order. */
function chunks(ids: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += MAX_BATCH) out.push(ids.slice(i, i + MAX_BATCH));
  return out;
}

/**
 * change over batches, one after the other, each one commit, all or
 * nothing. Resolves with the ids of the batches that committed and, when
 * it ended before the last, why: a batch's error, or stop() was true
 * between two batches.
 */
async function inBatches(batches: string[][], change: (batch: string[]) => Promise<unknown>, progress: (done: number) => void, stop: () => boolean) {
  const done: string[] = [];
  for (const [i, batch] of batches.entries()) {
    if (i > 0 && stop()) return { done, stopped: true };
    try {
      await change(batch);
    } catch (error) {
      return { done, stopped: false, error };
    }
    done.push(...batch);
    progress(done.length);
  }
  return { done, stopped: false };
}

export function BulkBar({ sk, skills: installed, shown, selected, hidden, select, clear, onDeleted }: Props) {
  const [running, setRunning] = useState<Running>();
  const [outcome, setOutcome] = useState<Outcome>();
  const [confirming, setConfirming] = useState(false);
  /** Stop was pressed: no batch after the one that runs. */
  const [stopping, setStopping] = useState(false);
  const stop = useRef(false);
  const all = useRef<HTMLInputElement>(null);
  const del = useRef<HTMLButtonElement>(null);
  const buttons: Record<Action, { current: HTMLButtonElement | null }> = { enable: useRef<HTMLButtonElement>(null), disable: useRef<HTMLButtonElement>(null), delete: del };
  const progressBox = useRef<HTMLSpanElement>(null);
  const n = selected.length;
  const shownSelected = n - hidden;
  const allShown = shown.length > 0 && shownSelected === shown.length;
  /** Nothing to act on, or an action running. */
  const off = running !== undefined || n === 0;
  useEffect(() => {
    if (all.current) all.current.indeterminate = shownSelected > 0 && !allShown;
  }, [shownSelected, allShown]);

  /** Carries out action on the selected skills (and, deleting, on also:
   * their dependents); the outcome says what was done, all of it or how much. */
  const act = async (action: Action, also: string[] = []) => {
    const skills = selected;
    const ids = [...skills.map((s) => s.id), ...also];
    const n = ids.length;
    const on = action === 'enable';
    // Deleting, dependents go in a batch before what they depend on: the
    // registry refuses a skill whose dependent is not deleted with it or before.
    const batches = action === 'delete' ? removalBatches(installed, ids, MAX_BATCH) : chunks(ids);
    const change = action === 'delete' ? (b: string[]) => sk.registry.removeMany(b) : (b: string[]) => sk.registry.setEnabledMany(b, on);
    stop.current = false;
    setStopping(false);
    setRunning({ action, done: 0, total: n });
    setOutcome(undefined);
    const r = await inBatches(batches, change, (done) => setRunning({ action, done, total: n }), () => stop.current);
    // Stop goes with the progress: the focus on it moves to the button that acted.
    if (progressBox.current?.contains(document.activeElement)) buttons[action].current?.focus();
    setRunning(undefined);
    const done = new Set(r.done);
    // Of the skills changed, those a switch already showed as asked.
    const already = action === 'delete' ? 0 : skills.filter((s) => done.has(s.id) && s.enabled === on).length;
    const what = action === 'delete' ? `${plural(done.size, 'skill')}: ${names(r.done)}` : plural(done.size - already, 'skill');
    const was = already ? `; ${already.toLocaleString('en')} already ${already === 1 ? 'was' : 'were'}` : '';
    const rest = n - done.size;
    const others = `the other ${rest.toLocaleString('en')} ${action === 'delete' ? `${rest === 1 ? 'is' : 'are'} still installed` : `${rest === 1 ? 'was' : 'were'} not changed`}`;
    if (r.error !== undefined) {
      const why = failed(`Could not ${action} ${plural(n, 'skill')}`, r.error);
      const first = done.size ? ` ${DONE[action]} ${what}${was} before that; ${others}.` : '';
      setOutcome({ text: why + first, ok: false, code: codeOf(r.error) });
    } else if (r.stopped) {
      setOutcome({ text: `Stopped as you asked: ${DONE[action].toLowerCase()} ${what}${was}; ${others}.`, ok: true, code: '' });
    } else {
      setOutcome({ text: `${DONE[action]} ${what}${was}.`, ok: true, code: '' });
    }
    if (action === 'delete' && done.size) onDeleted(r.done);
  };

  return (
    <div class="bulk" role="group" aria-label="Selection">
      <label class="bulk-all">
        <input
          ref={all}
          type="checkbox"
          checked={allShown}
          disabled={shown.length === 0}
          onChange={() => select(shown.map((s) => s.id), !allShown)}
        />{' '}
        Select all {shown.length.toLocaleString('en')}
      </label>
      <span class="bulk-count" role="status">
        {n === 0 ? 'None selected' : `${n.toLocaleString('en')} selected`}
        {hidden > 0 ? `, ${hidden.toLocaleString('en')} of them hidden by the search or filters` : ''}
      </span>
      {/* aria-disabled, not disabled: a button that acted keeps the focus while it works, and after. */}
      <span class="bulk-actions">
        <button type="button" ref={buttons.enable} aria-disabled={off} onClick={() => off || void act('enable')}>
          Enable<span class="vh"> selected</span>
        </button>
        <button type="button" ref={buttons.disable} aria-disabled={off} onClick={() => off || void act('disable')}>
          Disable<span class="vh"> selected</span>
        </button>
        <button type="button" class="danger" ref={del} aria-disabled={off} onClick={() => off || setConfirming(true)}>
          Delete selected…
        </button>
        <button type="button" class="link" aria-disabled={n === 0} onClick={clear}>
          Clear<span class="vh"> selection</span>
        </button>
      </span>
      {running && running.total > MAX_BATCH && (
        <span class="bulk-progress" ref={progressBox}>
          <progress max={running.total} value={running.done} aria-label={`${DOING[running.action]} ${plural(running.total, 'skill')}`} />
          <button type="button" aria-disabled={stopping} onClick={() => {
            stop.current = true;
            setStopping(true);
          }}>
            {stopping ? 'Stopping after this batch…' : (
              <>
                Stop<span class="vh"> after this batch</span>
              </>
            )}
          </button>
        </span>
      )}
      <p class="bulk-outcome" role="status">
        {running && running.total > MAX_BATCH
          ? `${DOING[running.action]} ${plural(running.total, 'skill')} in batches of ${MAX_BATCH.toLocaleString('en')}: ${running.done.toLocaleString('en')} done.`
          : outcome?.ok ? outcome.text : ''}
      </p>
      {outcome && !outcome.ok && (
        <p class="bulk-outcome error" role="alert" data-code={outcome.code}>
          {outcome.text}
        </p>
      )}
      {confirming && (
        <ConfirmDelete
          installed={installed}
          selected={selected}
          hidden={hidden}
          onCancel={() => {
            setConfirming(false);
            // Back on the button that asked, once the dialog is gone.
            requestAnimationFrame(() => del.current?.focus());
          }}
          onDelete={(also) => {
            // The deletion runs in the bar, where its progress and Stop are;
            // the focus waits on the button that asked.
            setConfirming(false);
            requestAnimationFrame(() => del.current?.focus());
            void act('delete', also);
          }}
        />
      )}
    </div>
  );
}

interface ConfirmProps {
  installed: SkillMeta[];
  selected: SkillMeta[];
  hidden: number;
  onCancel(): void;
  /** Deletes the selected skills and also, the dependents outside the selection. */
  onDelete(also: string[]): void;
}

/** "Delete selected…"'s question: what goes, and when installed skills
 * outside the selection depend on it, those too or nothing. */
function ConfirmDelete({ installed, selected, hidden, onCancel, onDelete }: ConfirmProps) {
  const deps = useMemo(() => dependentsOf(installed, selected.map((s) => s.id)), [installed, selected]);
  const note = useId();
  const ids = [...selected.map((s) => s.id), ...deps.all];
  const gone = new Set(ids);
  const n = selected.length;
  const files = installed.filter((s) => gone.has(s.id)).reduce((t, s) => t + s.fileCount, 0);
  return (
    <Dialog
      title={`Delete ${plural(n, 'skill')}?`}
      submit={deps.all.length ? `Delete ${plural(n, 'skill')} and ${plural(deps.all.length, 'dependent')}` : `Delete ${plural(n, 'skill')}`}
      danger
      cautious={deps.all.length > 0}
      describedBy={deps.all.length ? note : undefined}
      onCancel={onCancel}
      onSubmit={async () => onDelete(deps.all)}
    >
      <p class="bulk-names">{names(selected.map((s) => s.id))}</p>
      {deps.all.length > 0 && <DependentsNote deps={deps} it={n === 1 ? 'it' : 'them'} where=", outside the selection," goes={ids} id={note} />}
      <p>
        Their {plural(files, 'file')} are removed from this browser, and agents stop seeing them.
        {hidden > 0 ? ` ${hidden.toLocaleString('en')} of the selected ${hidden === 1 ? 'is' : 'are'} hidden by the search or filters.` : ''} Export them first to keep a copy.
      </p>
    </Dialog>
  );
}
