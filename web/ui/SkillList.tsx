// The installed skills as a skills manager lists them: search over name
// and description, state and source filters with counts, sort, and one
// row per skill with its selection box, switch, export and delete, each
// named for assistive technology ("Select pdf-tools", "Enabled:
// pdf-tools", "Delete pdf-tools"). The selected skills are enabled,
// disabled or deleted together (Bulk.tsx). A delete asks first; a disable
// asks only when enabled skills depend on the skill, and an enable only
// when it depends on disabled ones, which the registry refuses alone, and
// offers to change those with it. Paged: PAGE rows at first,
// more on request, so 1,000 skills render as fast as 50.

import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { SkillMeta, Skillfs } from '../../js/bridge.ts';
import { BulkBar } from './Bulk.tsx';
import { listing, SORTS, STATES, type Query, type Sort, type State } from './listing.ts';
import { related } from './dependents.ts';
import { andRelated, DependentsNote, VERB, type Verb } from './Dependents.tsx';
import { codeOf, count, download, failed, formatSize, plural } from './say.ts';
import { Dialog } from './skill/Dialog.tsx';

const PAGE = 50;

interface Props {
  sk: Skillfs;
  skills: SkillMeta[];
  onOpen?: (id: string) => void;
}

/** The Source select's value of a source: "" is every source, so each
 * source, "" (imported with none) too, is the value "=" and its name. */
const sourceValue = (s: string | null) => (s === null ? '' : `=${s}`);
const sourceOf = (v: string) => (v === '' ? null : v.slice(1));

export function SkillList({ sk, skills, onOpen }: Props) {
  const [q, setQ] = useState<Query>({ text: '', state: 'all', source: null, sort: 'name' });
  const [limit, setLimit] = useState(PAGE);
  /** A row's question: before a delete, or a disable or enable that must change other skills too. */
  const [asking, setAsking] = useState<{ s: SkillMeta; verb: Verb }>();
  // A source whose last skill went (deleted here or in another tab) filters
  // no more: every source again, not that one's "(0)" and no row.
  const source = q.source !== null && skills.some((s) => (s.source || '') === q.source) ? q.source : null;
  const dropped = source !== q.source;
  useEffect(() => {
    if (dropped) setQ((cur) => ({ ...cur, source: null }));
  }, [dropped]);
  const l = useMemo(() => listing(skills, { ...q, source }), [skills, q, source]);
  const sel = useSelection(skills, l.shown, dropped);
  const set = (p: Partial<Query>) => {
    setQ({ ...q, source, ...p });
    setLimit(PAGE);
  };
  const rows = l.shown.slice(0, limit);
  /** The row that last had the focus, and where it stood: when a change
   * takes it out of the list shown (its switch turned off under
   * "Enabled", a delete from another tab), the focus goes to the row now
   * in its place, not to the page's body. */
  const focusedRow = useRef<{ id: string; at: number }>(undefined);
  useLayoutEffect(() => {
    const f = focusedRow.current;
    if (!f || rows.some((r) => r.id === f.id)) return;
    focusedRow.current = undefined;
    if (document.activeElement && document.activeElement !== document.body) return;
    const to = rows[Math.min(f.at, rows.length - 1)];
    (to ? document.querySelector<HTMLElement>(`#skills > li[data-id="${CSS.escape(to.id)}"] input.pick`) : document.querySelector<HTMLElement>('.list-tools .search'))?.focus();
  });
  /** After "Show N more": the index of the first row it drew, to focus. */
  const showFrom = useRef(-1);
  useLayoutEffect(() => {
    const at = showFrom.current;
    showFrom.current = -1;
    if (at >= 0 && rows[at]) document.querySelector<HTMLElement>(`#skills > li[data-id="${CSS.escape(rows[at].id)}"] input.pick`)?.focus();
  }, [limit]);
  return (
    <div class="skill-list">
      <div class="list-tools">
        <input
          type="search"
          class="search"
          placeholder="Search names and descriptions"
          aria-label="Search skills"
          value={q.text}
          onInput={(e) => set({ text: e.currentTarget.value })}
        />
        <div class="filters" role="radiogroup" aria-label="Show">
          {STATES.map(([st, label]) => (
            <label key={st} class={q.state === st ? 'chip on' : 'chip'}>
              <input type="radio" name="skill-state" checked={q.state === st} onChange={() => set({ state: st as State })} />
              {label} <span class="count">{l.stateCounts[st]}</span>
            </label>
          ))}
        </div>
        <div class="list-selects">
          <label>
            Source{' '}
            <select class="source" value={sourceValue(source)} onChange={(e) => set({ source: sourceOf(e.currentTarget.value) })}>
              <option value="">every source ({l.sources.reduce((n, [, c]) => n + c, 0)})</option>
              {l.sources.map(([s, n]) => (
                <option key={s} value={sourceValue(s)}>
                  {s || '(none)'} ({n})
                </option>
              ))}
            </select>
          </label>
          <label>
            Sort by{' '}
            <select value={q.sort} onChange={(e) => set({ sort: e.currentTarget.value as Sort })}>
              {SORTS.map(([v, label]) => (
                <option key={v} value={v}>
                  {label}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>
      <p class="list-count" role="status">
        {l.shown.length === skills.length ? plural(skills.length, 'skill') : `${count(l.shown.length)} of ${plural(skills.length, 'skill')}`}
        {rows.length < l.shown.length ? `, the first ${rows.length} shown` : ''}
      </p>
      {l.shown.length === 0 && skills.length > 0 && (
        <p class="no-match">
          No skill matches {[q.text.trim() && `“${q.text.trim()}”`, q.state !== 'all' && `the ${STATES.find(([st]) => st === q.state)![1].toLowerCase()} filter`, source !== null && `the source ${source || '(none)'}`].filter(Boolean).join(' with ')}.{' '}
          <button type="button" class="link" onClick={() => set({ text: '', state: 'all', source: null })}>
            Show every skill
          </button>
        </p>
      )}
      {skills.length > 0 && (
        <BulkBar sk={sk} skills={skills} shown={l.shown} selected={sel.selected} hidden={sel.hidden} select={sel.select} clear={sel.clear} onDeleted={sel.deleted} />
      )}
      <ul
        id="skills"
        class="skills"
        aria-label="Installed skills"
        data-count={skills.length}
        onKeyDown={sel.onKeyDown}
        onFocusIn={(e) => {
          const id = (e.target as HTMLElement).closest('li')?.dataset.id;
          if (id) focusedRow.current = { id, at: rows.findIndex((r) => r.id === id) };
        }}
      >
        {rows.map((s) => (
          <Row
            key={s.id}
            sk={sk}
            s={s}
            onOpen={onOpen}
            onDelete={(s) => setAsking({ s, verb: 'delete' })}
            onSwitch={(s, on) => {
              const verb = on ? 'enable' : 'disable';
              if (!related[verb](skills, [s.id]).all.length) return false;
              setAsking({ s, verb });
              return true;
            }}
            picked={sel.has(s.id)}
            onPick={sel.pick}
          />
        ))}
      </ul>
      {rows.length < l.shown.length && (
        <button type="button" class="more-rows" onClick={() => {
          // The focus goes to the first of the rows drawn, where reading
          // goes on: the last page takes this button away with the focus.
          showFrom.current = rows.length;
          setLimit(limit + PAGE);
        }}>
          Show {Math.min(PAGE, l.shown.length - rows.length)} more of {count(l.shown.length - rows.length)}
        </button>
      )}
      {asking && <AskDialog sk={sk} skills={skills} s={asking.s} verb={asking.verb} onClose={() => setAsking(undefined)} onDeleted={sel.deleted} />}
    </div>
  );
}

/**
 * The confirmation of one skill's delete, or of its disable or enable when
 * that must change other skills too (see dependents.ts). When it does, it
 * says so before the click and offers to change the skill with them, in
 * one registry call, or to cancel.
 */
function AskDialog({ sk, skills, s, verb, onClose, onDeleted }: { sk: Skillfs; skills: SkillMeta[]; s: SkillMeta; verb: Verb; onClose(): void; onDeleted(ids: string[]): void }) {
  const deps = useMemo(() => related[verb](skills, [s.id]), [verb, skills, s.id]);
  const note = useId();
  const goes = [s.id, ...deps.all];
  const gone = new Set(goes);
  const files = skills.filter((k) => gone.has(k.id)).reduce((t, k) => t + k.fileCount, 0);
  const them = deps.all.length > 0;
  return (
    <Dialog
      title={`${VERB[verb]} ${s.id}?`}
      submit={`${VERB[verb]} ${s.id}${andRelated(verb, deps.all.length)}`}
      danger={verb === 'delete'}
      cautious={them}
      describedBy={them ? note : undefined}
      onCancel={onClose}
      onSubmit={async () => {
        try {
          // The order within one batch does not matter; the registry
          // still refuses what this list did not know (another tab's).
          if (verb !== 'delete') await sk.registry.setEnabledMany(goes, verb === 'enable');
          else await (them ? sk.registry.removeMany(goes) : sk.registry.remove(s.id));
        } catch (e) {
          throw new Error(failed(`Could not ${verb} ${s.id}`, e));
        }
        // The row (and the button that asked) goes: focus the next, as a bulk delete does.
        if (verb === 'delete') onDeleted(goes);
        onClose();
      }}
    >
      {them && <DependentsNote verb={verb} deps={deps} it="it" goes={goes} id={note} />}
      <p>
        {verb === 'enable'
          ? `Agents see ${them ? 'them' : 'it'} again.`
          : verb === 'disable'
            ? `Agents stop seeing ${them ? 'them' : 'it'} until ${them ? 'they are' : 'it is'} enabled again; nothing is deleted.`
            : them
              ? `Their ${plural(files, 'file')} are removed from this browser, and agents stop seeing them. Export them first to keep a copy.`
              : `Its ${plural(s.fileCount, 'file')} (${formatSize(s.size)}) are removed from this browser, and agents stop seeing it. Export it first to keep a copy.`}
      </p>
    </Dialog>
  );
}

/**
 * The selected skills: ids kept across searches and filters (so a
 * selection can be built from several searches), dropped when their skill
 * goes. pick toggles one, or with Shift the range from the last one picked
 * alone, in the order shown; ArrowUp and ArrowDown on a row's box move to
 * the next row's, and with Shift select it too. sourceDropped: the source
 * filter went with its last skill, in this render.
 */
function useSelection(skills: SkillMeta[], shown: SkillMeta[], sourceDropped: boolean) {
  const [ids, setIds] = useState<ReadonlySet<string>>(new Set());
  const anchor = useRef('');
  /** After a delete: the row to focus once the deleted ones are gone. */
  const after = useRef<{ focus: string; gone: Set<string> }>(undefined);
  const shownRef = useRef(shown);
  shownRef.current = shown;

  const { selected, hidden } = useMemo(() => {
    const inShown = shown.filter((s) => ids.has(s.id));
    const shownIds = new Set(inShown.map((s) => s.id));
    const rest = skills.filter((s) => ids.has(s.id) && !shownIds.has(s.id));
    return { selected: [...inShown, ...rest], hidden: rest.length };
  }, [skills, shown, ids]);

  const select = useCallback((which: string[], on: boolean) => {
    setIds((cur) => {
      const next = new Set(cur);
      for (const id of which) on ? next.add(id) : next.delete(id);
      return next;
    });
  }, []);
  const pick = useCallback((id: string, on: boolean, range: boolean) => {
    const order = shownRef.current.map((s) => s.id);
    const [a, b] = [order.indexOf(anchor.current), order.indexOf(id)];
    if (range && a >= 0 && b >= 0) select(order.slice(Math.min(a, b), Math.max(a, b) + 1), on);
    else {
      select([id], on);
      anchor.current = id;
    }
  }, [select]);
  const onKeyDown = useCallback((e: KeyboardEvent) => {
    const box = e.target as HTMLInputElement;
    if ((e.key !== 'ArrowDown' && e.key !== 'ArrowUp') || !box.classList?.contains('pick')) return;
    const boxes = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLInputElement>('input.pick')];
    const next = boxes[boxes.indexOf(box) + (e.key === 'ArrowDown' ? 1 : -1)];
    if (!next) return;
    e.preventDefault();
    next.focus();
    if (e.shiftKey) select([next.closest('li')!.dataset.id!], true);
  }, [select]);

  // Forget what is no longer installed.
  useEffect(() => {
    const installed = new Set(skills.map((s) => s.id));
    setIds((cur) => ([...cur].every((id) => installed.has(id)) ? cur : new Set([...cur].filter((id) => installed.has(id)))));
  }, [skills]);
  // Once the deleted rows are gone, focus the row that followed them (or,
  // with none left after them, the one before; else "Select all").
  // A delete from a row's own button comes here too.
  useLayoutEffect(() => {
    const a = after.current;
    if (!a || skills.some((s) => a.gone.has(s.id))) return;
    after.current = undefined;
    // With no row left in view, "Select all" is disabled, and a disabled
    // box takes no focus: then the way back to every skill, or the search.
    // The last skills of the source filtered went: the source filter, which
    // says it shows every source again.
    const to = a.focus
      ? document.querySelector<HTMLElement>(`#skills > li[data-id="${CSS.escape(a.focus)}"] input.pick`)
      : [...(sourceDropped ? ['.list-selects select.source'] : []), '.bulk-all input:not(:disabled)', '.no-match button', '.list-tools .search'].map((q) => document.querySelector<HTMLElement>(q)).find(Boolean);
    to?.focus();
  }, [skills]);

  const deleted = useCallback((gone: string[]) => {
    const g = new Set(gone);
    const order = shownRef.current.map((s) => s.id);
    const first = order.findIndex((id) => g.has(id));
    const focus = first < 0 ? '' : (order.slice(first).find((id) => !g.has(id)) ?? order.slice(0, first).reverse().find((id) => !g.has(id)) ?? '');
    after.current = { focus, gone: g };
    select(gone, false);
  }, [select]);

  return { selected, hidden, has: (id: string) => ids.has(id), select, pick, clear: () => setIds(new Set()), deleted, onKeyDown };
}

/**
 * One ResizeObserver for every row's description: its one callback reads
 * the heights of all the rows that changed together, a single layout. An
 * observer per row runs its callbacks one by one, and each row's re-render
 * between them forced a layout of the whole list: a list of 250 shown
 * again took 250 layouts, seconds of frozen panel.
 */
const clampers = new Map<Element, () => void>();
let clampObserver: ResizeObserver | undefined;

/** Calls measure when el is first laid out and whenever its size changes; returns the unwatch. */
function watchClamp(el: Element, measure: () => void): () => void {
  clampObserver ??= new ResizeObserver((entries) => {
    for (const e of entries) clampers.get(e.target)?.();
  });
  clampers.set(el, measure);
  clampObserver.observe(el);
  return () => {
    clampers.delete(el);
    clampObserver?.unobserve(el);
  };
}

interface RowProps {
  sk: Skillfs;
  s: SkillMeta;
  onOpen?: (id: string) => void;
  onDelete: (s: SkillMeta) => void;
  /** Asks before enabling or disabling s (on), when that must change other skills too; whether it asked. */
  onSwitch: (s: SkillMeta, on: boolean) => boolean;
  picked: boolean;
  /** Selects or unselects the row; range: Shift was held (a range from the last one picked). */
  onPick: (id: string, on: boolean, range: boolean) => void;
}

function Row({ sk, s, onOpen, onDelete, onSwitch, picked, onPick }: RowProps) {
  const [error, setError] = useState<{ text: string; code: string }>();
  const [busy, setBusy] = useState(false);
  const [expanded, setExpanded] = useState(false);
  /** The switch's state while setEnabled runs (and until the list shows it). */
  const [want, setWant] = useState<boolean>();
  const [clamped, setClamped] = useState(false);
  const desc = useRef<HTMLParagraphElement>(null);
  // "more" only when two lines do not hold the description; measured when
  // the row is first laid out and again when the panel is resized.
  useLayoutEffect(() => {
    const p = desc.current;
    if (!p || expanded) return;
    return watchClamp(p, () => setClamped(p.scrollHeight > p.clientHeight + 1));
  }, [s.description, expanded]);
  useEffect(() => {
    setError(undefined);
    setWant(undefined);
  }, [s.updatedAt, s.enabled]);
  const act = async (what: string, f: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await f();
      return true;
    } catch (e) {
      setError({ text: failed(what, e), code: codeOf(e) });
      return false;
    } finally {
      setBusy(false);
    }
  };
  const warnings = s.diagnostics.length;
  const descId = `desc-${s.id}`;
  return (
    <li data-id={s.id} class={`skill-row${s.enabled ? '' : ' disabled'}${picked ? ' picked' : ''}`}>
      <div class="row-head">
        <input
          type="checkbox"
          class="pick"
          aria-label={`Select ${s.id}`}
          checked={picked}
          onClick={(e) => onPick(s.id, e.currentTarget.checked, e.shiftKey)}
        />
        {onOpen ? (
          <button type="button" class="skill-name" aria-describedby={descId} onClick={() => onOpen(s.id)}>
            <span class="vh">Open </span>
            {s.id}
          </button>
        ) : (
          <strong class="skill-name">{s.id}</strong>
        )}
        {s.version && <span class="badge">v{s.version}</span>}
        {warnings > 0 && <span class="badge warn">{plural(warnings, 'warning')}</span>}
        {!s.enabled && <span class="badge">disabled</span>}
      </div>
      <p id={descId} class={expanded ? 'desc' : 'desc clamp'} ref={desc}>
        {s.description}
      </p>
      {(clamped || expanded) && (
        <button type="button" class="link more" aria-expanded={expanded} aria-controls={descId} onClick={() => setExpanded(!expanded)}>
          {expanded ? 'less' : 'more'}
          <span class="vh"> about {s.id}</span>
        </button>
      )}
      <div class="row-foot">
        <span class="meta">
          {plural(s.fileCount, 'file')} · {formatSize(s.size)}
          {s.source ? ` · ${s.source}` : ''}
        </span>
        <span class="row-actions">
          <label class="switch">
            <input
              type="checkbox"
              role="switch"
              aria-label={`Enabled: ${s.id}`}
              checked={want ?? s.enabled}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                // The dialog changes it with the skills related to it, or
                // nothing: the switch stays as the list says meanwhile.
                if (onSwitch(s, on)) {
                  e.currentTarget.checked = !on;
                  return;
                }
                setWant(on);
                void act(`Could not ${on ? 'enable' : 'disable'} ${s.id}`, () => sk.registry.setEnabled(s.id, on)).then((ok) => ok || setWant(undefined));
              }}
            />
            <span class="track" aria-hidden="true" />
          </label>
          <button type="button" disabled={busy} onClick={() => void act(`Could not export ${s.id}`, async () => download(`${s.id}.zip`, await sk.registry.exportZip(s.id)))}>
            Export<span class="vh"> {s.id}</span>
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => onDelete(s)}>
            Delete<span class="vh"> {s.id}</span>
          </button>
        </span>
      </div>
      {error && (
        <p class="error" role="alert" data-code={error.code}>
          {error.text}
        </p>
      )}
    </li>
  );
}
