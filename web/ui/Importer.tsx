// Importing .zip and .skill archives: an "Import…" button, a drop target
// that Enter or Space also opens, then a preview of the archive's skills
// with their diagnostics, each to install or not, with a choice per name
// conflict (Update, Keep both as name-v2, Skip) and an identical skill
// recognised as already installed, and one choice for all of those (a
// download imported again holds hundreds); a skill that cannot be
// installed (a broken SKILL.md) is shown with why, and cannot be ticked,
// so that the others install in one click; then the import's real
// progress, and a result that says what was installed, skipped and left
// out, and why.

import { useEffect, useRef, useState } from 'preact/hooks';
import { skillErrorLabel, type ImportPreview, type ImportResult, type PreviewSkill, type SkillError, type Skillfs } from '../../js/bridge.ts';
import { codeOf, failed, names as list, plural } from './say.ts';

/** What to do with one skill of the archive. */
type Choice = 'install' | 'update' | 'keep-both' | 'skip';

/** At most this many skills that cannot be installed get a line of the result each. */
const INVALID_LINES = 8;

/** A module's message as a sentence: capitalised, without its final stop. */
const sentence = (m: string) => m.charAt(0).toUpperCase() + m.slice(1).replace(/\.$/, '');

/** Why each skill in invalid was left out, a line each, the first few. */
function leftOut(invalid: SkillError[]): string[] {
  if (!invalid.length) return [];
  const lines = [`Left out ${plural(invalid.length, 'skill')} that cannot be installed:`];
  for (const e of invalid.slice(0, INVALID_LINES)) lines.push(`${sentence(e.message)}.`);
  if (invalid.length > INVALID_LINES) lines.push(`and ${(invalid.length - INVALID_LINES).toLocaleString('en')} more.`);
  return lines;
}

/** The result in sentences. */
export function summary(file: string, r: ImportResult): string[] {
  const out: string[] = [];
  const fresh = r.skills.filter((s) => !r.replaced.includes(s.id)).map((s) => s.id);
  if (fresh.length) out.push(`Installed ${plural(fresh.length, 'skill')} from ${file}: ${list(fresh)}.`);
  if (r.replaced.length) out.push(`Updated ${list(r.replaced)}.`);
  if (r.alreadyInstalled.length) out.push(`Already installed, unchanged: ${list(r.alreadyInstalled)}.`);
  if (r.skipped?.length) out.push(`Skipped, as you chose: ${list(r.skipped)}.`);
  if (!r.skills.length && !r.alreadyInstalled.length) out.push(`Nothing was installed from ${file}.`);
  const warned = Object.entries(r.diagnostics).filter(([, d]) => d.length);
  if (warned.length) out.push(`${plural(warned.length, 'skill has', 'skills have')} warnings: ${list(warned.map(([id, d]) => `${id} (${d.length})`))}.`);
  if (r.dropped.length) out.push(`Left out ${plural(r.dropped.length, 'entry', 'entries')} outside every skill folder or operating-system clutter: ${list(r.dropped)}.`);
  out.push(...leftOut(r.invalid));
  return out;
}

const defaultChoice = (s: PreviewSkill): Choice => (s.status === 'new' ? 'install' : s.status === 'conflict' ? 'keep-both' : 'skip');

export function Importer({ sk }: { sk: Skillfs }) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [pending, setPending] = useState<{ file: File; bytes: ArrayBuffer; preview: ImportPreview }>();
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<number>();
  const [result, setResult] = useState<{ ok: boolean; lines: string[]; code?: string }>();

  const choose = () => input.current?.click();
  const open = async (file: File) => {
    if (busy) return;
    setResult(undefined);
    setPending(undefined);
    setBusy(true);
    try {
      const bytes = await file.arrayBuffer();
      setPending({ file, bytes, preview: await sk.registry.previewZip(bytes) });
    } catch (e) {
      setResult({ ok: false, lines: [failed(`Could not import ${file.name}`, e)], code: codeOf(e) });
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };
  const install = async (choices: Map<string, Choice>) => {
    if (!pending) return;
    const { file, bytes } = pending;
    setBusy(true);
    setProgress(0);
    const chosen: Record<string, 'rename' | 'replace'> = {};
    for (const [name, c] of choices) if (c !== 'skip') chosen[name] = c === 'update' ? 'replace' : 'rename';
    // "Keep both" for an identical skill installs a copy.
    const copy = pending.preview.skills.some((s) => s.status === 'installed' && choices.get(s.name) === 'keep-both');
    try {
      const res = await sk.registry.importZip(bytes, {
        source: file.name,
        choose: chosen,
        copy,
        onProgress: (p) => setProgress(p.bytesTotal ? p.bytesDone / p.bytesTotal : 0),
      });
      setPending(undefined);
      setResult({ ok: true, lines: summary(file.name, res) });
    } catch (e) {
      setResult({ ok: false, lines: [failed(`Could not import ${file.name}`, e)], code: codeOf(e) });
    } finally {
      setBusy(false);
      setProgress(undefined);
    }
  };

  return (
    <section class="importer" aria-labelledby="import-title">
      <h2 id="import-title">Import</h2>
      <div
        class={over ? 'drop over' : 'drop'}
        role="button"
        tabindex={0}
        aria-label="Drop a .zip or .skill file here, or press Enter to choose one"
        onClick={choose}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            choose();
          }
        }}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          const f = e.dataTransfer?.files[0];
          if (f) void open(f);
        }}
      >
        Drop a <code>.zip</code> or <code>.skill</code> file here
      </div>
      <div class="import-row">
        <button type="button" class="primary" disabled={busy} onClick={choose}>
          Import…
        </button>
        <span class="hint">You see what it holds before anything is installed.</span>
      </div>
      <input
        ref={input}
        id="file"
        type="file"
        accept=".zip,.skill"
        hidden
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          if (f) void open(f);
        }}
      />
      {pending && <Preview key={pending.file.name + pending.bytes.byteLength} name={pending.file.name} preview={pending.preview} busy={busy} onInstall={install} onCancel={() => setPending(undefined)} />}
      {progress !== undefined && <progress id="progress" aria-label="Import progress" max={1} value={progress} />}
      <div class="import-result" role="status">
        {result && (
          <div class={result.ok ? 'ok' : 'error'} data-code={result.code}>
            {result.lines.map((l) => (
              <p key={l}>{l}</p>
            ))}
          </div>
        )}
      </div>
    </section>
  );
}

interface PreviewProps {
  name: string;
  preview: ImportPreview;
  busy: boolean;
  onInstall(choices: Map<string, Choice>): void;
  onCancel(): void;
}

function Preview({ name, preview, busy, onInstall, onCancel }: PreviewProps) {
  // Only the skills that can be installed have a choice (by name, unique among them).
  const skills = preview.skills.filter((s) => !s.error);
  const invalid = preview.skills.length - skills.length;
  const [choices, setChoices] = useState(() => new Map(skills.map((s) => [s.name, defaultChoice(s)])));
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const set = (n: string, c: Choice) => setChoices(new Map(choices).set(n, c));
  const count = [...choices.values()].filter((c) => c !== 'skip').length;
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
  const counts = [
    skills.length > known.length && `${(skills.length - known.length).toLocaleString('en')} new`,
    changed && `${changed.toLocaleString('en')} installed in another version`,
    known.length > changed && `${(known.length - changed).toLocaleString('en')} already installed, unchanged`,
    invalid > 0 && `${invalid.toLocaleString('en')} cannot be installed (shown with why)`,
  ].filter(Boolean);
  return (
    <div class="preview" role="group" aria-labelledby="preview-title">
      <h3 id="preview-title" tabindex={-1} ref={heading}>
        {name} holds {plural(preview.skills.length, 'skill')}
      </h3>
      <p class="hint preview-counts">{counts.join(', ')}.</p>
      {known.length > 1 && (
        <label class="preview-all">
          For the {plural(known.length, 'skill')} already installed{' '}
          <select value={bulk} onChange={(e) => e.currentTarget.value && setAll(e.currentTarget.value as Choice)}>
            <option value="">choose for each below</option>
            {changed > 0 && <option value="update">Update {changed === known.length ? 'each' : `the ${changed.toLocaleString('en')} that changed`}</option>}
            <option value="keep-both">Keep both (a -v2 copy each)</option>
            <option value="skip">Skip them all</option>
          </select>
        </label>
      )}
      {preview.dropped.length > 0 && <p class="hint">{plural(preview.dropped.length, 'entry', 'entries')} outside every skill folder will be left out.</p>}
      <ul class="preview-skills">
        {preview.skills.map((s) => {
          // Keyed by folder: a broken folder pdf/ and a skill named pdf
          // may both be there.
          if (s.error) return <Invalid key={s.dir} s={s} e={s.error} root={name} />;
          const c = choices.get(s.name) ?? 'skip';
          const warnings = s.diagnostics.length;
          return (
            <li key={s.dir} data-name={s.name} class={c === 'skip' ? 'skipped' : ''}>
              {s.status === 'new' ? (
                <label class="preview-name">
                  <input type="checkbox" checked={c === 'install'} onChange={(e) => set(s.name, e.currentTarget.checked ? 'install' : 'skip')} /> <strong>{s.name}</strong>
                </label>
              ) : (
                <span class="preview-name">
                  <strong>{s.name}</strong>{' '}
                  <span class="badge">{s.status === 'installed' ? 'already installed' : `${s.installed} is installed`}</span>{' '}
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
                  {s.diagnostics.map((d, i) => (
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
      <div class="preview-actions">
        <button type="button" class="primary" disabled={busy || count === 0} onClick={() => onInstall(choices)}>
          Install {invalid ? `the ${plural(count, 'valid skill')}` : plural(count, 'skill')}
        </button>
        <button type="button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
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
