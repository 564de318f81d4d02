// Bulk management of the skills list: the bar over the list that selects
// every skill the search and filters give, says how many are selected,
// and enables, disables or deletes them, each in one registry call (one
// commit, one change). Deleting asks first, naming how many and, when
// few, which. The outcome is announced (a status, or an alert when it
// failed); focus stays on the control that acted, or, after a delete,
// moves to the row after the deleted ones.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { SkillMeta, Skillfs } from '../../js/bridge.ts';
import { codeOf, failed, names, plural } from './say.ts';
import { Dialog } from './skill/Dialog.tsx';

interface Props {
  sk: Skillfs;
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

export function BulkBar({ sk, shown, selected, hidden, select, clear, onDeleted }: Props) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const [confirming, setConfirming] = useState(false);
  const all = useRef<HTMLInputElement>(null);
  const del = useRef<HTMLButtonElement>(null);
  const n = selected.length;
  const shownSelected = n - hidden;
  const allShown = shown.length > 0 && shownSelected === shown.length;
  /** Nothing to act on, or an action running. */
  const off = busy || n === 0;
  useEffect(() => {
    if (all.current) all.current.indeterminate = shownSelected > 0 && !allShown;
  }, [shownSelected, allShown]);

  const setEnabled = async (on: boolean) => {
    const verb = on ? 'enable' : 'disable';
    const ids = selected.map((s) => s.id);
    const already = selected.filter((s) => s.enabled === on).length;
    setBusy(true);
    setOutcome(undefined);
    try {
      await sk.registry.setEnabledMany(ids, on);
      const done = `${on ? 'Enabled' : 'Disabled'} ${plural(n - already, 'skill')}`;
      setOutcome({ text: already ? `${done}; ${already} already ${already === 1 ? 'was' : 'were'}.` : `${done}.`, ok: true, code: '' });
    } catch (e) {
      setOutcome({ text: failed(`Could not ${verb} ${plural(n, 'skill')}`, e), ok: false, code: codeOf(e) });
    } finally {
      setBusy(false);
    }
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
        <button type="button" aria-disabled={off} onClick={() => off || void setEnabled(true)}>
          Enable<span class="vh"> selected</span>
        </button>
        <button type="button" aria-disabled={off} onClick={() => off || void setEnabled(false)}>
          Disable<span class="vh"> selected</span>
        </button>
        <button type="button" class="danger" ref={del} aria-disabled={off} onClick={() => off || setConfirming(true)}>
          Delete selected…
        </button>
        <button type="button" class="link" aria-disabled={n === 0} onClick={clear}>
          Clear<span class="vh"> selection</span>
        </button>
      </span>
      <p class="bulk-outcome" role="status">
        {outcome?.ok ? outcome.text : ''}
      </p>
      {outcome && !outcome.ok && (
        <p class="bulk-outcome error" role="alert" data-code={outcome.code}>
          {outcome.text}
        </p>
      )}
      {confirming && (
        <Dialog
          title={`Delete ${plural(n, 'skill')}?`}
          submit={`Delete ${plural(n, 'skill')}`}
          danger
          onCancel={() => {
            setConfirming(false);
            // Back on the button that asked, once the dialog is gone.
            requestAnimationFrame(() => del.current?.focus());
          }}
          onSubmit={async () => {
            const ids = selected.map((s) => s.id);
            setOutcome(undefined);
            try {
              await sk.registry.removeMany(ids);
            } catch (e) {
              throw new Error(failed(`Could not delete ${plural(n, 'skill')}`, e));
            }
            setConfirming(false);
            setOutcome({ text: `Deleted ${plural(n, 'skill')}: ${names(ids)}.`, ok: true, code: '' });
            onDeleted(ids);
          }}
        >
          <p class="bulk-names">{names(selected.map((s) => s.id))}</p>
          <p>
            Their {plural(selected.reduce((t, s) => t + s.fileCount, 0), 'file')} are removed from this browser, and agents stop seeing them.
            {hidden > 0 ? ` ${hidden.toLocaleString('en')} of them ${hidden === 1 ? 'is' : 'are'} hidden by the search or filters.` : ''} Export them first to keep a copy.
          </p>
        </Dialog>
      )}
    </div>
  );
}
