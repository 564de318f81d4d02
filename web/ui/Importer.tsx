// Importing .zip and .skill archives: an "Import…" button, a drop target
// that Enter or Space also opens, the import's real progress, and a result
// that says what was installed, what was already there and what was left
// out of the archive and why.

import { useRef, useState } from 'preact/hooks';
import type { ConflictPolicy, ImportResult, Skillfs } from '../../js/bridge.ts';
import { codeOf, failed, plural } from './say.ts';

type Policy = 'rename' | 'replace' | 'copy';

const POLICIES: [Policy, string][] = [
  ['rename', 'Keep both (name-v2), unless identical'],
  ['replace', 'Update the installed skill'],
  ['copy', 'Keep both, even if identical'],
];

/** At most this many names in one sentence of the result. */
const NAMES = 8;
const list = (xs: string[]) => (xs.length <= NAMES ? xs.join(', ') : `${xs.slice(0, NAMES).join(', ')} and ${xs.length - NAMES} more`);

/** The result in sentences. */
export function summary(file: string, r: ImportResult): string[] {
  const out: string[] = [];
  const fresh = r.skills.filter((s) => !r.replaced.includes(s.id)).map((s) => s.id);
  if (fresh.length) out.push(`Installed ${plural(fresh.length, 'skill')} from ${file}: ${list(fresh)}.`);
  if (r.replaced.length) out.push(`Updated ${list(r.replaced)}.`);
  if (r.alreadyInstalled.length) out.push(`Already installed, unchanged: ${list(r.alreadyInstalled)}.`);
  if (!r.skills.length && !r.alreadyInstalled.length) out.push(`Nothing was installed from ${file}.`);
  const warned = Object.entries(r.diagnostics).filter(([, d]) => d.length);
  if (warned.length) out.push(`${plural(warned.length, 'skill has', 'skills have')} warnings: ${list(warned.map(([id, d]) => `${id} (${d.length})`))}.`);
  if (r.dropped.length) out.push(`Left out ${plural(r.dropped.length, 'entry', 'entries')} outside every skill folder or operating-system clutter: ${list(r.dropped)}.`);
  return out;
}

export function Importer({ sk }: { sk: Skillfs }) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [policy, setPolicy] = useState<Policy>('rename');
  const [progress, setProgress] = useState<number>();
  const [result, setResult] = useState<{ ok: boolean; lines: string[]; code?: string }>();

  const choose = () => input.current?.click();
  const importFile = async (file: File) => {
    if (progress !== undefined) return;
    setResult(undefined);
    setProgress(0);
    try {
      const res = await sk.registry.importZip(await file.arrayBuffer(), {
        source: file.name,
        onConflict: (policy === 'copy' ? 'rename' : policy) as ConflictPolicy,
        copy: policy === 'copy',
        onProgress: (p) => setProgress(p.bytesTotal ? p.bytesDone / p.bytesTotal : 0),
      });
      setResult({ ok: true, lines: summary(file.name, res) });
    } catch (e) {
      setResult({ ok: false, lines: [failed(`Could not import ${file.name}`, e)], code: codeOf(e) });
    } finally {
      setProgress(undefined);
      if (input.current) input.current.value = '';
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
          if (f) void importFile(f);
        }}
      >
        Drop a <code>.zip</code> or <code>.skill</code> file here
      </div>
      <div class="import-row">
        <button type="button" class="primary" onClick={choose} disabled={progress !== undefined}>
          Import…
        </button>
        <input
          ref={input}
          id="file"
          type="file"
          accept=".zip,.skill"
          hidden
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            if (f) void importFile(f);
          }}
        />
        <label>
          If a skill of that name exists{' '}
          <select value={policy} onChange={(e) => setPolicy(e.currentTarget.value as Policy)}>
            {POLICIES.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
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
