// Importing .zip, .skill and .tar.gz archives: an "Import…" button, a drop target
// that Enter or Space also opens, then the preview of the archive's skills
// and the choices made in it (Preview.tsx), then the import's real
// progress, and a result that says what was installed, skipped and left
// out, and why (past eight left out, every reason saved as a text file on
// request).

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ImportPreview, ImportResult, SkillError, Skillfs } from '../../js/bridge.ts';
import { copyOf, Preview, policies, type Choice } from './Preview.tsx';
import { codeOf, count, download, failed, names as list, plural, sentence } from './say.ts';

/** At most this many skills that cannot be installed get a line of the result each. */
const INVALID_LINES = 8;

/** Why a skill was left out, in a sentence. */
const why = (e: SkillError) => `${sentence(e.message)}.`;

/** Why each skill in invalid was left out, a line each, the first few. */
function leftOut(invalid: SkillError[]): string[] {
  if (!invalid.length) return [];
  const lines = [`Left out ${plural(invalid.length, 'skill')} that cannot be installed:`];
  for (const e of invalid.slice(0, INVALID_LINES)) lines.push(why(e));
  if (invalid.length > INVALID_LINES) lines.push(`and ${count(invalid.length - INVALID_LINES)} more.`);
  return lines;
}

/** The result in sentences. The skills the choices left out that are
 * installed byte for byte are in alreadyInstalled, not skipped (the
 * preview leaves them out unless asked: "as you chose" would tell of a
 * choice nobody made). */
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

export function Importer({ sk }: { sk: Skillfs }) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [pending, setPending] = useState<{ file: File; bytes: ArrayBuffer; preview: ImportPreview }>();
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<number>();
  /** The result; past INVALID_LINES skills left out, those skills, whose
   * every reason can be saved as a text file (a line each, not a node each). */
  const [result, setResult] = useState<{ ok: boolean; lines: string[]; code?: string; leftOut?: { file: string; invalid: SkillError[] } }>();

  const choose = () => input.current?.click();
  const importButton = useRef<HTMLButtonElement>(null);
  const resultBox = useRef<HTMLDivElement>(null);
  // A result is read where the focus is: the Install button that had it
  // goes with the preview (and Import… is disabled while the archive is
  // read), which left the focus on the page's body.
  useEffect(() => {
    if (result) resultBox.current?.focus();
  }, [result]);
  /** The files dropped with the one read, which were not read: one
   * archive is previewed at a time, and dropping six read the first alone
   * without a word. */
  const [unread, setUnread] = useState<{ read: string; others: string[] }>();
  const open = async (file: File, others: string[] = []) => {
    if (busy) return;
    setResult(undefined);
    setPending(undefined);
    setUnread(others.length ? { read: file.name, others } : undefined);
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
    try {
      const res = await sk.registry.importZip(bytes, {
        source: file.name,
        choose: policies(choices),
        preview: pending.preview,
        // "Keep both" for an identical skill installs a copy.
        copy: copyOf(pending.preview, choices),
        onProgress: (p) => setProgress(p.bytesTotal ? p.bytesDone / p.bytesTotal : 0),
      });
      setPending(undefined);
      setResult({ ok: true, lines: summary(file.name, res), leftOut: res.invalid.length > INVALID_LINES ? { file: file.name, invalid: res.invalid } : undefined });
    } catch (e) {
      setResult({ ok: false, lines: [failed(`Could not import ${file.name}`, e)], code: codeOf(e) });
    } finally {
      setBusy(false);
      setProgress(undefined);
    }
  };

  // The same element while only the progress changes: an import reports
  // progress hundreds of times, and drawing the preview (a row a skill)
  // again for each made importing 1,000 skills take 18 s, 2,000 75 s.
  const shownPreview = useMemo(
    () => pending && <Preview key={pending.file.name + pending.bytes.byteLength} name={pending.file.name} preview={pending.preview} busy={busy} onInstall={install} onCancel={() => {
      setPending(undefined);
      importButton.current?.focus();
    }}
      notesFor={(part, choose, copy) => sk.registry.previewNotes(part, choose, copy)} />,
    [pending, busy],
  );

  return (
    <section class="importer" aria-labelledby="import-title">
      <h2 id="import-title">Import</h2>
      <div
        class={over ? 'drop over' : 'drop'}
        role="button"
        tabindex={0}
        aria-label="Drop a .zip, .skill or .tar.gz file here, or press Enter to choose one"
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
          const [f, ...others] = e.dataTransfer?.files ?? [];
          if (f) void open(f, others.map((o) => o.name));
        }}
      >
        Drop a <code>.zip</code>, <code>.skill</code> or <code>.tar.gz</code> file here
      </div>
      <div class="import-row">
        <button type="button" class="primary" ref={importButton} disabled={busy} onClick={choose}>
          Import…
        </button>
        <span class="hint">You see what it holds before anything is installed.</span>
      </div>
      {unread && (
        <p class="hint" id="import-unread" role="status">
          One archive is read at a time: this is {unread.read}. Drop or choose the {plural(unread.others.length, 'other')} after it: {list(unread.others)}.
        </p>
      )}
      <input
        ref={input}
        id="file"
        type="file"
        // A release's tarball imports as a zip does (zipguard.ReadAny): a
        // chooser offering only .zip and .skill hid it.
        accept=".zip,.skill,.tar.gz,.tgz"
        hidden
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          if (f) void open(f);
        }}
      />
      {shownPreview}
      {progress !== undefined && <progress id="progress" aria-label="Import progress" max={1} value={progress} />}
      <div class="import-result" role="status">
        {result && (
          <div class={result.ok ? 'ok' : 'error'} data-code={result.code} tabindex={-1} ref={resultBox}>
            {result.lines.map((l) => (
              <p key={l}>{l}</p>
            ))}
          </div>
        )}
      </div>
      {result?.leftOut && (
        <button
          type="button"
          class="link"
          onClick={() => {
            const { file, invalid } = result.leftOut!;
            download(`${file.replace(/\.(zip|skill|tar\.gz|tgz)$/i, '')}-left-out.txt`, new TextEncoder().encode(invalid.map(why).join('\n') + '\n'), 'text/plain');
          }}
        >
          Save why the {plural(result.leftOut.invalid.length, 'skill was', 'skills were')} left out, as a text file
        </button>
      )}
    </section>
  );
}
