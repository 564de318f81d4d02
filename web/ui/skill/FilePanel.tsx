// One open file of a skill: text in the editor (loaded on first use) with
// Save and Revert, or, for bytes that are not text, what they are.
// Saving SKILL.md re-parses it in the module; a refused save leaves the
// stored skill as it was and marks its diagnostics at their lines.

import { useEffect, useRef, useState } from 'preact/hooks';
import { SkillfsError, type Diagnostic, type SkillMeta, type Skillfs } from '../../../js/bridge.ts';
import { formatSize, sentence } from '../say.ts';
import type { TextEditor } from './editor.ts';
import { asText, binaryMediaType } from './files.ts';
import { fixOf } from './fixes.ts';

type EditorModule = typeof import('./editor.ts');
let editorModule: Promise<EditorModule> | undefined;

/** The editor's bundle (skill-editor.js, beside the page), fetched once, when a text file is first opened. */
function loadEditor(): Promise<EditorModule> {
  editorModule ??= (import(new URL('skill-editor.js', document.baseURI).href) as Promise<EditorModule>).catch((e: unknown) => {
    editorModule = undefined;
    throw e;
  });
  return editorModule;
}

type Loaded = { kind: 'text'; text: string } | { kind: 'binary'; size: number; mediaType: string };

interface Props {
  sk: Skillfs;
  id: string;
  path: string;
  /** 1-based line to show when the file opens. */
  line?: number;
  /** The skill's digest: when it changes by another's edit, the file is read again unless it has unsaved changes. */
  digest: string;
  onSaved(m: SkillMeta): void;
  onDirty(dirty: boolean): void;
  /** A message for the view's status line. */
  say(text: string, error?: boolean): void;
}

export function FilePanel(p: Props) {
  const [file, setFile] = useState<Loaded>();
  const [loadError, setLoadError] = useState('');
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  const [refused, setRefused] = useState<Diagnostic[]>([]);
  const [generation, setGeneration] = useState(0); // bumps to reload from the store
  const [ready, setReady] = useState(false);
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<TextEditor | undefined>(undefined);
  const save = useRef<() => void>(() => {});
  const known = useRef(p.digest); // the version the editor holds

  useEffect(() => p.onDirty(dirty), [dirty]);

  // A change made elsewhere (another panel, an agent's host) shows here,
  // unless it would throw away what the user typed.
  useEffect(() => {
    if (p.digest === known.current) return;
    known.current = p.digest;
    if (!dirty) setGeneration((g) => g + 1);
  }, [p.digest]);

  useEffect(() => {
    let live = true;
    // The file shown stays until the new read replaces it (a Revert, a
    // change from elsewhere): "Reading…" in its place took the toolbar,
    // and the focus on Revert, with it. A panel is one path (keyed by it).
    setLoadError('');
    setDirty(false);
    setRefused([]);
    p.sk.registry.readFile(p.id, p.path).then(
      (bytes) => {
        if (!live) return;
        const text = asText(bytes);
        setFile(text === undefined ? { kind: 'binary', size: bytes.length, mediaType: binaryMediaType(p.path) } : { kind: 'text', text });
      },
      (e: unknown) => live && setLoadError(`${p.path} could not be read: ${messageOf(e)}`),
    );
    return () => {
      live = false;
    };
  }, [p.sk, p.id, p.path, generation]);

  useEffect(() => {
    if (file?.kind !== 'text' || !host.current) return;
    let live = true;
    const parent = host.current;
    setReady(false);
    loadEditor().then(
      (m) => {
        if (!live) return;
        editor.current = m.openEditor(parent, {
          text: file.text,
          path: p.path,
          label: `Contents of ${p.path}`,
          onDirty: setDirty,
          onSave: () => save.current(),
        });
        if (p.line) editor.current.goToLine(p.line);
        setReady(true);
      },
      (e: unknown) => live && setLoadError(`The editor did not load: ${messageOf(e)}`),
    );
    return () => {
      live = false;
      editor.current?.destroy();
      editor.current = undefined;
    };
  }, [file]);

  useEffect(() => {
    if (p.line) editor.current?.goToLine(p.line);
  }, [p.line]);

  save.current = async () => {
    const ed = editor.current;
    if (!ed || saving) return;
    setSaving(true);
    const text = ed.text();
    try {
      const m = await p.sk.registry.writeFile(p.id, p.path, text);
      setRefused([]);
      known.current = m.digest;
      ed.saved();
      ed.mark([]);
      p.onSaved(m);
      p.say(`Saved ${p.path}.`);
    } catch (e) {
      const diags = e instanceof SkillfsError ? e.diagnostics : [];
      setRefused(diags);
      ed.mark(diags.filter((d) => d.line).map((d) => ({ line: d.line!, severity: d.severity, message: d.message })));
      p.say(refusal(p.id, p.path, e, diags), true);
    } finally {
      setSaving(false);
    }
  };

  if (loadError) return <p class="error" role="alert">{loadError}</p>;
  if (!file) return <p>Reading {p.path}…</p>;
  if (file.kind === 'binary') {
    return (
      <p class="binary-file">
        Binary file: {formatSize(file.size)}, {file.mediaType}. It is not text, so it is not shown here.
      </p>
    );
  }
  return (
    <div class="text-file">
      <div class="editor-toolbar">
        {/* aria-disabled, not disabled: a disabled button drops the
            focus, and the one just used would leave it on the page's body. */}
        <button type="button" class="primary" aria-disabled={!dirty || saving} onClick={() => dirty && !saving && save.current()}>
          Save {p.path}
        </button>
        <button type="button" aria-disabled={!dirty || saving} onClick={() => {
          if (!dirty || saving) return;
          setGeneration((g) => g + 1);
          p.say(`Reverted ${p.path} to what is stored.`);
        }}>
          Revert {p.path}
        </button>
        {dirty && <span class="dirty">Unsaved changes</span>}
      </div>
      {refused.length > 0 && (
        <div class="refused" role="group" aria-label={`Why ${p.path} was not saved`}>
          <ul>
            {refused.map((d, i) => (
              <li key={i} class={d.severity}>
                <strong>{d.line ? `Line ${d.line}: ` : ''}</strong>
                {d.message} <span class="code">({d.code})</span>
                {fixOf(d) && <span class="fix"> {fixOf(d)}</span>}
                {d.line && ' '}
                {d.line && (
                  <button type="button" class="link" onClick={() => editor.current?.goToLine(d.line!)}>
                    Go to line {d.line}
                  </button>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
      {!ready && <p class="loading">Loading the editor…</p>}
      {/* CodeMirror's own DOM: Preact renders nothing inside. */}
      <div ref={host} class="editor-host" />
    </div>
  );
}

/** Why a save was refused, said once. A refused SKILL.md's message is
 * "<skill>: the saved SKILL.md is invalid: <its first error>", which
 * repeats what the sentence around it says: its first error, the
 * diagnostic the error's reason names, is given alone (all of them are
 * listed under the editor). Another refusal of the skill shown (a rename
 * by edit) is a sentence of its own, without the skill's id before it
 * ("…nothing stored changed: pdf: SKILL.md now names…"). */
function refusal(id: string, path: string, e: unknown, diags: Diagnostic[]): string {
  const first = e instanceof SkillfsError && e.code === 'InvalidManifest' ? diags.find((d) => d.severity === 'error' && d.code === e.reason) : undefined;
  const own = e instanceof SkillfsError && e.subject === id ? e.msg : undefined;
  const why = first ? `. ${sentence(first.message)}.` : own ? `. ${sentence(own)}.` : `: ${messageOf(e)}`;
  return `${path} was not saved, and nothing stored changed${why}`;
}

export function messageOf(e: unknown): string {
  if (e instanceof SkillfsError) return e.detail;
  return e instanceof Error ? e.message : String(e);
}
