// The preview of an archive's skills before anything is installed, with
// the choices a person makes (see Importer.tsx, which shows it for a local
// archive; the side panel shows it for an archive at an address and for an
// MCP server's skills, web/extension/install-from.ts): each
// skill to install or not, a choice per name conflict (Update, Keep both
// as name-v2, Skip) and one for all the skills already installed; a skill
// that cannot be installed is shown with why, and cannot be ticked. Of
// each kind (can be installed or not) the first ROWS rows are drawn, then
// how many more, drawn on request; the choices cover every skill, drawn or
// not.

import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { skillErrorLabel, type Diagnostic, type ImportPreview, type PreviewSkill, type SkillError } from '../../js/bridge.ts';
import { count, failed, plural, sentence } from './say.ts';

/** What to do with one skill of the archive. */
export type Choice = 'install' | 'update' | 'keep-both' | 'skip';

/** The skills of each kind get a row each up to this many, this many more
 * on request: an archive of 9,000 broken skills made 9,000 rows (each with
 * its diagnostics), one of 5,100 valid ones 5,100 rows with a control
 * each; tens of thousands of nodes. */
const ROWS = 20;

/** Update for a later version of a skill installed from the same source
 * (updates), Keep both for another skill of the same name. */
const defaultChoice = (s: PreviewSkill, updates: ReadonlySet<string>): Choice =>
  s.status === 'new' ? 'install' : s.status !== 'conflict' ? 'skip' : updates.has(s.name) ? 'update' : 'keep-both';

/** The choices as ImportOptions.choose: the skills to install, each kept
 * beside ("rename") or updating ("replace") the installed one of its name. */
export function policies(choices: Map<string, Choice>): Record<string, 'rename' | 'replace'> {
  const chosen: Record<string, 'rename' | 'replace'> = {};
  for (const [name, c] of choices) if (c !== 'skip') chosen[name] = c === 'update' ? 'replace' : 'rename';
  return chosen;
}

/** Whether the choices keep a skill installed byte for byte beside
 * itself, which an import installs only as a copy (ImportOptions.copy). */
export const copyOf = (preview: ImportPreview, choices: Map<string, Choice>) =>
  preview.skills.some((s) => s.status === 'installed' && choices.get(s.name) === 'keep-both');

/** The code of the note of a skill an import stores disabled, since it
 * would depend on a disabled skill. */
const DEPENDENCY_DISABLED = 'dependency-disabled';

export interface PreviewProps {
  name: string;
  preview: ImportPreview;
  busy: boolean;
  onInstall(choices: Map<string, Choice>): void;
  onCancel(): void;
  /** The conflicting skills that are a later version of the one installed
   * from the same source (an MCP server's update, a download fetched
   * again): Update is chosen for them at first. */
  updates?: ReadonlySet<string>;
  /** The note an import under choices would store each skill with, by
   * name (registry.previewNotes): whether it is installed disabled, since
   * it would depend on a disabled skill, follows each choice (an update
   * takes the installed skill's place for the skills depending on it, a
   * copy kept beside it does not). Shown in place of the preview's own,
   * which is for an import with no choice. */
  notesFor?(choices: Map<string, Choice>): Promise<Record<string, Diagnostic>>;
}

const NONE: ReadonlySet<string> = new Set();

export function Preview({ name, preview, busy, onInstall, onCancel, updates = NONE, notesFor }: PreviewProps) {
  // Only the skills that can be installed have a choice (by name, unique among them).
  const skills = preview.skills.filter((s) => !s.error);
  const invalid = preview.skills.length - skills.length;
  const [choices, setChoices] = useState(() => new Map(skills.map((s) => [s.name, defaultChoice(s, updates)])));
  const [validRows, setValidRows] = useState(ROWS);
  const [invalidRows, setInvalidRows] = useState(ROWS);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const set = (n: string, c: Choice) => setChoices(new Map(choices).set(n, c));
  // The notes for the latest choices only: an answer to earlier ones that
  // comes late is dropped. Until the answer for the choices shown comes,
  // the preview is busy (aria-busy): its warnings may still change.
  const [notes, setNotes] = useState<{ for: Map<string, Choice> } & ({ by: Record<string, Diagnostic> } | { error: string })>();
  const asked = useRef(0);
  useEffect(() => {
    if (!notesFor) return;
    const n = ++asked.current;
    notesFor(choices).then(
      (by) => n === asked.current && setNotes({ for: choices, by }),
      (e: unknown) => n === asked.current && setNotes({ for: choices, error: failed('Could not tell which skills would be installed disabled', e) }),
    );
  }, [choices]);
  const diagnosticsOf = (s: PreviewSkill): Diagnostic[] => {
    if (!notesFor) return s.diagnostics;
    const note = notes && 'by' in notes ? notes.by[s.name] : undefined;
    return [...s.diagnostics.filter((d) => d.code !== DEPENDENCY_DISABLED), ...(note ? [note] : [])];
  };
  const chosen = [...choices.values()].filter((c) => c !== 'skip').length;
  // A download imported again holds hundreds of skills already installed:
  // one choice for all of them, rather than a select each.
  const known = skills.filter((s) => s.status !== 'new');
  const changed = known.filter((s) => s.status === 'conflict').length;
  const forAll = (c: Choice) => (s: PreviewSkill): Choice => (c === 'update' && s.status === 'installed' ? 'skip' : c);
  // Update is offered only when one changed: for unchanged skills alone it
  // is skip, and a select showing it would show no option at all.
  const bulk = ((changed ? ['update', 'keep-both', 'skip'] : ['keep-both', 'skip']) as Choice[])
    .find((c) => known.every((s) => choices.get(s.name) === forAll(c)(s))) ?? '';
  const setAll = (c: Choice) => {
    const next = new Map(choices);
    for (const s of known) next.set(s.name, forAll(c)(s));
    setChoices(next);
  };
  let good = 0;
  let bad = 0;
  const counts = [
    skills.length > known.length && `${count(skills.length - known.length)} new`,
    changed && `${count(changed)} installed in another version`,
    known.length > changed && `${count(known.length - changed)} already installed, unchanged`,
    invalid > 0 && `${count(invalid)} cannot be installed (shown with why)`,
  ].filter(Boolean);
  return (
    <div class="preview" role="group" aria-labelledby="preview-title" aria-busy={notesFor !== undefined && notes?.for !== choices}>
      <h3 id="preview-title" tabindex={-1} ref={heading}>
        {name} holds {plural(preview.skills.length, 'skill')}
      </h3>
      <p class="hint preview-counts">{counts.join(', ')}.</p>
      {known.length > 1 && (
        <label class="preview-all">
          For the {plural(known.length, 'skill')} already installed{' '}
          <select value={bulk} onChange={(e) => e.currentTarget.value && setAll(e.currentTarget.value as Choice)}>
            <option value="">choose for each below</option>
            {changed > 0 && <option value="update">Update {changed === known.length ? 'each' : `the ${count(changed)} that changed`}</option>}
            <option value="keep-both">Keep both (a -v2 copy each)</option>
            <option value="skip">Skip them all</option>
          </select>
        </label>
      )}
      {preview.dropped.length > 0 && <p class="hint">{plural(preview.dropped.length, 'entry', 'entries')} outside every skill folder will be left out.</p>}
      {notes && 'error' in notes && <p class="hint error">{notes.error}</p>}
      <ul class="preview-skills">
        {preview.skills.map((s) => {
          // Keyed by folder: a broken folder pdf/ and a skill named pdf
          // may both be there.
          if (s.error) return bad++ < invalidRows ? <Invalid key={s.dir} s={s} e={s.error} root={name} /> : null;
          if (good++ >= validRows) return null;
          const c = choices.get(s.name) ?? 'skip';
          const diagnostics = diagnosticsOf(s);
          const warnings = diagnostics.length;
          return (
            <li key={s.dir} data-name={s.name} class={c === 'skip' ? 'skipped' : ''}>
              {s.status === 'new' ? (
                <label class="preview-name">
                  <input type="checkbox" checked={c === 'install'} onChange={(e) => set(s.name, e.currentTarget.checked ? 'install' : 'skip')} /> <strong>{s.name}</strong>
                </label>
              ) : (
                <span class="preview-name">
                  <strong>{s.name}</strong>{' '}
                  <span class="badge">{s.status === 'installed' ? 'already installed' : updates.has(s.name) ? `an update of ${s.installed}` : `${s.installed} is installed`}</span>{' '}
                  <select aria-label={`What to do with ${s.name}`} value={c} onChange={(e) => set(s.name, e.currentTarget.value as Choice)}>
                    {s.status === 'conflict' && <option value="update">Update {s.installed}</option>}
                    <option value="keep-both">Keep both ({s.name}-v2)</option>
                    <option value="skip">Skip</option>
                  </select>
                </span>
              )}
              <p class="desc clamp">{s.description}</p>
              <p class="meta">
                {plural(s.fileCount, 'file')} · {s.dir}
              </p>
              {warnings > 0 && (
                <ul class="diagnostics" aria-label={`Warnings for ${s.name}`}>
                  {diagnostics.map((d, i) => (
                    <li key={i} class={d.severity}>
                      {d.severity}: {d.message}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
      <More hidden={skills.length - validRows} what="that can be installed" heading={heading} onMore={() => setValidRows(validRows + ROWS)} />
      <More hidden={invalid - invalidRows} what="that cannot be installed" heading={heading} onMore={() => setInvalidRows(invalidRows + ROWS)} />
      <div class="preview-actions">
        <button type="button" class="primary" disabled={busy || chosen === 0} onClick={() => onInstall(choices)}>
          Install {invalid ? `the ${plural(chosen, 'valid skill')}` : plural(chosen, 'skill')}
        </button>
        <button type="button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/** How many skills of one kind ("that can be installed") have no row yet,
 * and a button drawing ROWS more. The button that draws the last ones goes
 * with them: the focus goes to the preview's heading, not to the page. */
function More({ hidden, what, heading, onMore }: { hidden: number; what: string; heading: RefObject<HTMLHeadingElement | null>; onMore(): void }) {
  if (hidden <= 0) return null;
  const more = () => {
    onMore();
    if (hidden <= ROWS) heading.current?.focus();
  };
  return (
    <p class="hint preview-more">
      And {plural(hidden, 'more skill')} {what}.{' '}
      <button type="button" class="link" onClick={more}>
        Show {Math.min(ROWS, hidden)} more<span class="vh"> {what}</span>
      </button>
    </p>
  );
}

/** A skill of the archive that cannot be installed: why, and its
 * diagnostics; its box cannot be ticked. */
function Invalid({ s, e, root }: { s: PreviewSkill; e: SkillError; root: string }) {
  const label = skillErrorLabel(e, root);
  // The diagnostic the message already quotes is not said twice.
  const diags = e.diagnostics.filter((d) => !e.message.includes(d.message));
  return (
    <li data-name={s.name} data-dir={s.dir} class="invalid" data-code={e.code} data-reason={e.reason}>
      <label class="preview-name">
        <input type="checkbox" checked={false} disabled /> <strong>{label}</strong> <span class="badge error">cannot be installed</span>
      </label>
      <p class="reason">{sentence(e.message)}.</p>
      <p class="meta">
        {plural(s.fileCount, 'file')} · {s.dir}
      </p>
      {diags.length > 0 && (
        <ul class="diagnostics" aria-label={`Problems of ${label}`}>
          {diags.map((d, i) => (
            <li key={i} class={d.severity}>
              {d.severity}: {d.message}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
