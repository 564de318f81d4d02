// Bulk management of the skills list: the bar over the list that selects
// every skill the search and filters give, says how many are selected,
// and enables, disables or deletes them, each in one registry call (one
// commit, one change) up to MAX_BATCH skills; more go in batches of
// MAX_BATCH, one call each (deleting or disabling, dependents in a batch
// before what they depend on, and enabling, after it: dependents.ts), with
// a progress bar and a Stop that takes effect between two batches, since
// each batch is all or nothing. Deleting asks first, naming how many and,
// when few, which, and the installed skills outside the selection that
// depend on them, which it then deletes too; disabling asks only when
// enabled skills outside the selection depend on them, and enabling only
// when they depend on disabled skills outside it (the registry refuses
// either alone), and then changes those too. The outcome
// is announced (a status, or an alert when it failed), and when it
// stopped partway it says how many were changed and that the others were
// not; focus stays on the control that acted, or, after a delete, moves
// to the row after the deleted ones.

import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import { MAX_BATCH, type SkillMeta, type Skillfs } from '../../js/bridge.ts';
import { related, removalBatches } from './dependents.ts';
import { andRelated, DependentsNote, DOING, DONE, VERB, type Verb } from './Dependents.tsx';
import { codeOf, count, failed, names, plural } from './say.ts';
import { Dialog, focusLost } from './skill/Dialog.tsx';

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


/** An action under way: the skills its committed batches changed, of total. */
type Running = { action: Verb; done: number; total: number };

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
  /** The question asked before a delete, or a disable or enable that must change other skills too. */
  const [confirming, setConfirming] = useState<Verb>();
  /** Stop was pressed: no batch after the one that runs. */
  const [stopping, setStopping] = useState(false);
  const stop = useRef(false);
  const all = useRef<HTMLInputElement>(null);
  const del = useRef<HTMLButtonElement>(null);
  const buttons: Record<Verb, { current: HTMLButtonElement | null }> = { enable: useRef<HTMLButtonElement>(null), disable: useRef<HTMLButtonElement>(null), delete: del };
  const progressBox = useRef<HTMLSpanElement>(null);
  const n = selected.length;
  const shownSelected = n - hidden;
  const allShown = shown.length > 0 && shownSelected === shown.length;
  /** Nothing to act on, or an action running. */
  const off = running !== undefined || n === 0;
  useEffect(() => {
    if (all.current) all.current.indeterminate = shownSelected > 0 && !allShown;
  }, [shownSelected, allShown]);

  /** Carries out action on the selected skills and on also (the skills
   * related to them that must change with them); the outcome says what was
   * done, all of it or how much. */
  const act = async (action: Verb, also: string[] = []) => {
    const skills = selected;
    const ids = [...skills.map((s) => s.id), ...also];
    const n = ids.length;
    const on = action === 'enable';
    // Dependents go in a batch before what they depend on, and enabling,
    // after: the registry refuses deleting or disabling a skill whose
    // dependent stays, and enabling one whose dependency is disabled.
    const batches = removalBatches(installed, ids, MAX_BATCH, on);
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
    const was = already ? `; ${count(already)} already ${already === 1 ? 'was' : 'were'}` : '';
    const rest = n - done.size;
    const others = `the other ${count(rest)} ${action === 'delete' ? `${rest === 1 ? 'is' : 'are'} still installed` : `${rest === 1 ? 'was' : 'were'} not changed`}`;
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
        Select all {count(shown.length)}
      </label>
      <span class="bulk-count" role="status">
        {n === 0 ? 'None selected' : `${count(n)} selected`}
        {hidden > 0 ? `, ${count(hidden)} of them hidden by the search or filters` : ''}
      </span>
      {/* aria-disabled, not disabled: a button that acted keeps the focus while it works, and after. */}
      <span class="bulk-actions">
        <button type="button" ref={buttons.enable} aria-disabled={off} onClick={() => off || (asks(installed, selected, 'enable') ? setConfirming('enable') : void act('enable'))}>
          Enable<span class="vh"> selected</span>
        </button>
        <button type="button" ref={buttons.disable} aria-disabled={off} onClick={() => off || (asks(installed, selected, 'disable') ? setConfirming('disable') : void act('disable'))}>
          Disable<span class="vh"> selected</span>
        </button>
        <button type="button" class="danger" ref={del} aria-disabled={off} onClick={() => off || setConfirming('delete')}>
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
          ? `${DOING[running.action]} ${plural(running.total, 'skill')} in batches of ${count(MAX_BATCH)}: ${count(running.done)} done.`
          : outcome?.ok ? outcome.text : ''}
      </p>
      {outcome && !outcome.ok && (
        <p class="bulk-outcome error" role="alert" data-code={outcome.code}>
          {outcome.text}
        </p>
      )}
      {confirming && (
        <ConfirmBulk
          verb={confirming}
          installed={installed}
          selected={selected}
          hidden={hidden}
          onCancel={() => {
            setConfirming(undefined);
            // Back on the button that asked, once the dialog is gone.
            requestAnimationFrame(() => buttons[confirming].current?.focus());
          }}
          onConfirm={(also) => {
            // The change runs in the bar, where its progress and Stop are;
            // the focus waits on the button that asked, unless a delete
            // done first has already moved it (its rows gone).
            setConfirming(undefined);
            requestAnimationFrame(() => focusLost() && buttons[confirming].current?.focus());
            void act(confirming, also);
          }}
        />
      )}
    </div>
  );
}

/** Whether enabling or disabling the selected skills must ask first: it
 * would change skills outside the selection too. */
const asks = (installed: SkillMeta[], selected: SkillMeta[], verb: 'enable' | 'disable') => related[verb](installed, selected.map((s) => s.id)).all.length > 0;

interface ConfirmProps {
  verb: Verb;
  installed: SkillMeta[];
  selected: SkillMeta[];
  hidden: number;
  onCancel(): void;
  /** Changes the selected skills and also, the related skills outside the selection. */
  onConfirm(also: string[]): void;
}

/** "Delete selected…"'s question, or "Disable selected"'s or "Enable
 * selected"'s when skills outside the selection must change with it: what
 * changes, and when skills outside the selection are related to it (see
 * dependents.ts), those too or nothing. */
function ConfirmBulk({ verb, installed, selected, hidden, onCancel, onConfirm }: ConfirmProps) {
  const deps = useMemo(() => related[verb](installed, selected.map((s) => s.id)), [verb, installed, selected]);
  const note = useId();
  const ids = [...selected.map((s) => s.id), ...deps.all];
  const gone = new Set(ids);
  const n = selected.length;
  const files = installed.filter((s) => gone.has(s.id)).reduce((t, s) => t + s.fileCount, 0);
  const more = hidden > 0 ? ` ${count(hidden)} of the selected ${hidden === 1 ? 'is' : 'are'} hidden by the search or filters.` : '';
  return (
    <Dialog
      title={`${VERB[verb]} ${plural(n, 'skill')}?`}
      submit={`${VERB[verb]} ${plural(n, 'skill')}${andRelated(verb, deps.all.length)}`}
      danger={verb === 'delete'}
      cautious={deps.all.length > 0}
      describedBy={deps.all.length ? note : undefined}
      onCancel={onCancel}
      onSubmit={async () => onConfirm(deps.all)}
    >
      <p class="bulk-names">{names(selected.map((s) => s.id))}</p>
      {deps.all.length > 0 && <DependentsNote verb={verb} deps={deps} it={n === 1 ? 'it' : 'them'} where="outside the selection" goes={ids} id={note} />}
      {verb === 'delete' ? (
        <p>
          Their {plural(files, 'file')} are removed from this browser, and agents stop seeing them.
          {more} Export them first to keep a copy.
        </p>
      ) : (
        <p>
          {verb === 'disable' ? 'Agents stop seeing them until they are enabled again; nothing is deleted.' : 'Agents see them again.'}
          {more}
        </p>
      )}
    </Dialog>
  );
}
