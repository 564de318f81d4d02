// The preview of an archive's skills before anything is installed, with
// the choices a person makes (see Importer.tsx, which shows it for a local
// archive; the side panel shows it for an archive at an address and for an
// MCP server's skills, web/extension/install-from.ts): each
// skill to install or not, a choice per name conflict (Update, or Replace
// when it is not a later version from the same source; Keep both as
// name-v2; Skip) and one for all the skills already installed; a skill
// that cannot be installed is shown with why, and cannot be ticked. Of
// each kind (can be installed or not) the first ROWS rows are drawn, then
// how many more, drawn on request; the choices cover every skill, drawn or
// not.

import type { RefObject } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { previewPart, skillErrorLabel, type Diagnostic, type ImportPreview, type PreviewSkill, type SkillError } from '../../js/bridge.ts';
import { count, editsReplaced, failed, plural, sentence } from './say.ts';

/** What to do with one skill of the archive. */
export type Choice = 'install' | 'update' | 'keep-both' | 'skip';

/** The skills of each kind get a row each up to this many, this many more
 * on request: an archive of 9,000 broken skills made 9,000 rows (each with
 * its diagnostics), one of 5,100 valid ones 5,100 rows with a control
 * each; tens of thousands of nodes. */
const ROWS = 20;

/** Update for a later version of a skill installed from the same source
 * (updates), unless it was changed here since (edited), as an index
 * entry's is left unticked: replacing someone's changes is theirs to
 * choose. Keep both for another skill of the same name. */
const defaultChoice = (s: PreviewSkill, updates: ReadonlySet<string>, edited: ReadonlySet<string>): Choice =>
  s.status === 'new' ? 'install' : s.status !== 'conflict' ? 'skip' : !updates.has(s.name) ? 'keep-both' : edited.has(s.name) ? 'skip' : 'update';

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

/** The choices one select makes for every skill already installed. */
const BULK = ['update', 'keep-both', 'skip'] as const;
type Bulk = (typeof BULK)[number];
/** What a choice for all makes of one of them: Update leaves a skill installed byte for byte as it is. */
const forAll = (c: Bulk, s: PreviewSkill): Choice => (c === 'update' && s.status === 'installed' ? 'skip' : c);

/** The choice for each skill that can be installed, changed in place, with
 * the counts the preview shows kept as each changes: of thousands of
 * skills, a change of one choice costs what it changes, not a copy of
 * every choice and three passes over them. */
class Choices {
  readonly of = new Map<string, Choice>();
  /** Not skipped. */
  chosen = 0;
  /** Installed byte for byte and kept beside itself (ImportOptions.copy). */
  copies = 0;
  /** Of the skills already installed, how many have what each choice for all of them gives. */
  readonly matching: Record<Bulk, number> = { update: 0, 'keep-both': 0, skip: 0 };

  /** Whether it changed anything. */
  set(s: PreviewSkill, c: Choice): boolean {
    const was = this.of.get(s.name);
    if (was === c) return false;
    if (was) this.tally(s, was, -1);
    this.of.set(s.name, c);
    this.tally(s, c, 1);
    return true;
  }

  private tally(s: PreviewSkill, c: Choice, by: number) {
    if (c !== 'skip') this.chosen += by;
    if (s.status === 'installed' && c === 'keep-both') this.copies += by;
    if (s.status !== 'new') for (const b of BULK) if (forAll(b, s) === c) this.matching[b] += by;
  }
}

/** What the preview shows that no choice changes, found once: the skills
 * that can be installed, those already installed (in some version), and
 * where in the archive each kind is, to draw the first rows of each
 * without a pass over the rest. */
function arrange(preview: ImportPreview) {
  const skills: PreviewSkill[] = [];
  const validAt: number[] = [];
  const invalidAt: number[] = [];
  preview.skills.forEach((s, i) => {
    if (s.error) invalidAt.push(i);
    else {
      validAt.push(i);
      skills.push(s);
    }
  });
  const known = skills.filter((s) => s.status !== 'new');
  return { skills, validAt, invalidAt, known, changed: known.filter((s) => s.status === 'conflict').length };
}

/** The indexes of a and b (each ascending) in one ascending list. */
function merged(a: number[], b: number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && a[i] < b[j]) ? a[i++] : b[j++]);
  return out;
}

export interface PreviewProps {
  name: string;
  preview: ImportPreview;
  busy: boolean;
  onInstall(choices: Map<string, Choice>): void;
  onCancel(): void;
  /** The conflicting skills that are a later version of the one installed
   * from the same source (an MCP server's update, a download fetched
   * again): Update is chosen for them at first, unless edited. */
  updates?: ReadonlySet<string>;
  /** Of those, the ones whose installed skill was changed here since it
   * was installed (McpOffer.edited): their row says that updating
   * replaces those changes, and Skip is chosen at first. */
  edited?: ReadonlySet<string>;
  /** The note an import under choose and copy would store each skill of
   * part with, by name (registry.previewNotes): whether it is installed
   * disabled, since it would depend on a disabled skill, follows each
   * choice (an update takes the installed skill's place for the skills
   * depending on it, a copy kept beside it does not). part is the
   * preview, or the part of it a change of one choice can change
   * (previewPart). Shown in place of the preview's own, which is for an
   * import with no choice. */
  notesFor?(part: ImportPreview, choose: Record<string, 'rename' | 'replace'>, copy: boolean): Promise<Record<string, Diagnostic>>;
}

const NONE: ReadonlySet<string> = new Set();

export function Preview({ name, preview, busy, onInstall, onCancel, updates = NONE, edited = NONE, notesFor }: PreviewProps) {
  // Only the skills that can be installed have a choice (by name, unique among them).
  const { skills, validAt, invalidAt, known, changed } = useMemo(() => arrange(preview), [preview]);
  const invalid = invalidAt.length;
  const [choices] = useState(() => {
    const c = new Choices();
    for (const s of skills) c.set(s, defaultChoice(s, updates, edited));
    return c;
  });
  const [, redraw] = useState(0);
  const [validRows, setValidRows] = useState(ROWS);
  const [invalidRows, setInvalidRows] = useState(ROWS);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  // The notes, by name, each from the latest answer for the choices of
  // its part: an answer to earlier ones that comes late is dropped. Until
  // every answer asked for has come, the preview is busy (aria-busy): its
  // warnings may still change. The error stays while any skill's latest
  // ask failed (stale): an answer for another part leaves its notes stale.
  const [notes] = useState(() => new Map<string, Diagnostic>());
  const [notesError, setNotesError] = useState('');
  const [asking, setAsking] = useState(0);
  const asked = useRef({ last: 0, at: new Map<string, number>(), stale: new Set<string>() });
  const ask = (part: ImportPreview) => {
    if (!notesFor) return;
    const n = ++asked.current.last;
    const { at, stale } = asked.current;
    for (const s of part.skills) at.set(s.name, n);
    const choose = policies(new Map(part.skills.map((s) => [s.name, choices.of.get(s.name) ?? 'skip'])));
    setAsking((a) => a + 1);
    notesFor(part, choose, choices.copies > 0)
      .then(
        (by) => {
          for (const s of part.skills) {
            if (at.get(s.name) !== n) continue;
            stale.delete(s.name);
            if (by[s.name]) notes.set(s.name, by[s.name]);
            else notes.delete(s.name);
          }
          if (stale.size === 0) setNotesError('');
        },
        (e: unknown) => {
          const latest = part.skills.filter((s) => at.get(s.name) === n);
          for (const s of latest) stale.add(s.name);
          if (latest.length > 0) setNotesError(failed('Could not tell which skills would be installed disabled', e));
        },
      )
      .finally(() => setAsking((a) => a - 1));
  };
  useEffect(() => ask(preview), []);
  const diagnosticsOf = (s: PreviewSkill): Diagnostic[] => {
    if (!notesFor) return s.diagnostics;
    const note = notes.get(s.name);
    return [...s.diagnostics.filter((d) => d.code !== DEPENDENCY_DISABLED), ...(note ? [note] : [])];
  };
  // One choice asks for the notes of the skills it can change, and a copy
  // kept or no longer (ImportOptions.copy is the import's) for all.
  const set = (s: PreviewSkill, c: Choice) => {
    const copied = choices.copies > 0;
    if (!choices.set(s, c)) return;
    redraw((v) => v + 1);
    const part = copied !== choices.copies > 0 ? preview : previewPart(preview, s.name);
    if (part) ask(part);
  };
  // A download imported again holds hundreds of skills already installed:
  // one choice for all of them, rather than a select each.
  const setAll = (c: Bulk) => {
    for (const s of known) choices.set(s, forAll(c, s));
    redraw((v) => v + 1);
    ask(preview);
  };
  // Update is offered only when one changed: for unchanged skills alone it
  // is skip, and a select showing it would show no option at all.
  const bulk = (changed ? BULK : BULK.slice(1)).find((b) => choices.matching[b] === known.length) ?? '';
  // "Update" only for a later version from the installed skill's own
  // source: another publisher's skill of its name (OpenAI's skill-creator
  // over Anthropic's) replaces it, and is no update of it.
  const verb = (s: PreviewSkill) => (updates.has(s.name) ? 'Update' : 'Replace');
  const allVerb = useMemo(() => (known.every((s) => s.status !== 'conflict' || updates.has(s.name)) ? 'Update' : 'Replace'), [known, updates]);
  const { chosen } = choices;
  const counts = [
    skills.length > known.length && `${count(skills.length - known.length)} new`,
    // Not "installed in another version": a skill of another publisher may
    // share the name (OpenAI's skill-creator and Anthropic's).
    changed && (changed === 1 ? '1 differs from the installed skill of its name' : `${count(changed)} differ from the installed skills of their names`),
    known.length > changed && `${count(known.length - changed)} already installed, unchanged`,
    invalid > 0 && `${count(invalid)} cannot be installed (shown with why)`,
  ].filter(Boolean);
  return (
    // Busy from the first render: the first ask goes out only after it
    // (an effect), and a preview shown not busy meanwhile read as settled
    // with no warnings (a test on a loaded machine did).
    <div class="preview" role="group" aria-labelledby="preview-title" aria-busy={notesFor !== undefined && (asking > 0 || asked.current.last === 0)}>
      <h3 id="preview-title" tabindex={-1} ref={heading}>
        {name} holds {plural(preview.skills.length, 'skill')}
      </h3>
      <p class="hint preview-counts">{counts.join(', ')}.</p>
      {known.length > 1 && (
        <label class="preview-all">
          For the {plural(known.length, 'skill')} already installed{' '}
          <select value={bulk} onChange={(e) => e.currentTarget.value && setAll(e.currentTarget.value as Bulk)}>
            <option value="">choose for each below</option>
            {changed > 0 && <option value="update">{allVerb} {changed === known.length ? 'each' : `the ${count(changed)} that changed`}</option>}
            <option value="keep-both">Keep both (a -v2 copy each)</option>
            <option value="skip">Skip them all</option>
          </select>
        </label>
      )}
      {preview.dropped.length > 0 && <p class="hint">{plural(preview.dropped.length, 'entry', 'entries')} outside every skill folder will be left out.</p>}
      {notesError && <p class="hint error">{notesError}</p>}
      <ul class="preview-skills">
        {merged(validAt.slice(0, validRows), invalidAt.slice(0, invalidRows)).map((i) => {
          const s = preview.skills[i];
          // Keyed by folder: a broken folder pdf/ and a skill named pdf
          // may both be there.
          if (s.error) return <Invalid key={s.dir} s={s} e={s.error} root={name} />;
          const c = choices.of.get(s.name) ?? 'skip';
          const diagnostics = diagnosticsOf(s);
          const warnings = diagnostics.length;
          return (
            <li key={s.dir} data-name={s.name} class={c === 'skip' ? 'skipped' : ''}>
              {s.status === 'new' ? (
                <label class="preview-name">
                  <input type="checkbox" checked={c === 'install'} onChange={(e) => set(s, e.currentTarget.checked ? 'install' : 'skip')} /> <strong>{s.name}</strong>
                </label>
              ) : (
                <span class="preview-name">
                  <strong>{s.name}</strong>{' '}
                  <span class="badge">{s.status === 'installed' ? 'already installed' : updates.has(s.name) ? `an update of ${s.installed}${editsReplaced(edited.has(s.name))}` : `${s.installed} is installed`}</span>{' '}
                  <select aria-label={`What to do with ${s.name}`} value={c} onChange={(e) => set(s, e.currentTarget.value as Choice)}>
                    {s.status === 'conflict' && <option value="update">{verb(s)} {s.installed}</option>}
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
        <button type="button" class="primary" disabled={busy || chosen === 0} onClick={() => onInstall(choices.of)}>
          {/* "the 3 valid skills": the others are left out; not "the 0 valid skills" */}
          Install {invalid && chosen ? `the ${plural(chosen, 'valid skill')}` : plural(chosen, 'skill')}
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
