// One skill, as the skills manager shows it: its details and diagnostics
// (each with its fix), its files as a tree with create, rename and delete,
// an editor for its text files, and its dependencies. Everything goes
// through the registry of the bridge, which refuses what it must (an
// invalid SKILL.md, an unknown tool) with a typed error shown where the
// user acted; changes made elsewhere arrive through onChange.

import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { SkillMeta, Skillfs, TreeEntry } from '../../../js/bridge.ts';
import { codeOf, formatSize, plural } from '../say.ts';
import { Dependencies } from './Dependencies.tsx';
import { Dialog } from './Dialog.tsx';
import { FilePanel, messageOf } from './FilePanel.tsx';
import { FileTree } from './FileTree.tsx';
import { buildTree, folderOf, type Node } from './files.ts';
import { fixOf } from './fixes.ts';
import './skill-view.css';

interface Props {
  sk: Skillfs;
  id: string;
  /** The installed skills, as the app lists them (Dependencies offers them). */
  skills: SkillMeta[] | undefined;
  onClose: () => void;
}

type Editing =
  | { kind: 'new-file'; folder: string }
  | { kind: 'new-folder'; folder: string }
  | { kind: 'rename'; node: Node }
  | { kind: 'delete'; node: Node }
  | { kind: 'discard'; path: string; then: () => void };

const SKILL_MD = 'SKILL.md';

export function SkillView({ sk, id, skills, onClose }: Props) {
  const [meta, setMeta] = useState<SkillMeta>();
  const [entries, setEntries] = useState<TreeEntry[]>([]);
  const [gone, setGone] = useState('');
  const [status, setStatus] = useState<{ text: string; error: boolean }>({ text: '', error: false });
  const [selected, setSelected] = useState<string>();
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [open, setOpen] = useState<{ path: string; line?: number }>();
  const [editing, setEditing] = useState<Editing>();
  const [dirty, setDirty] = useState(false);
  /** The skill's name, focused once it is read: the list, which had the
   * focus, is hidden, and a keyboard user starts here, not at the top. */
  const title = useRef<HTMLHeadingElement>(null);
  const back = useRef<HTMLButtonElement>(null);
  const titled = useRef('');
  /** A rename, a new folder or a delete done from its dialog: the tree
   * item that had the focus was replaced or removed with the change, and
   * the focus goes to the tree's current item (what was renamed or made). */
  const focusTree = useRef(false);
  useLayoutEffect(() => {
    if (!focusTree.current || editing) return;
    focusTree.current = false;
    document.querySelector<HTMLElement>('.skill-files [role=treeitem][tabindex="0"]')?.focus();
  });

  /** then(), after the user agrees to lose the open file's unsaved changes, if it has any. */
  const leaving = (then: () => void) => {
    if (dirty && open) setEditing({ kind: 'discard', path: open.path, then });
    else then();
  };

  const say = useCallback((text: string, error = false) => setStatus({ text, error }), []);

  const reload = useCallback(async () => {
    try {
      const [m, t] = await Promise.all([sk.registry.get(id), sk.registry.tree(id)]);
      setMeta(m);
      setEntries(t);
      setGone('');
    } catch (e) {
      // Not installed: it was open, so it was deleted since, elsewhere.
      setGone(codeOf(e) === 'SkillNotFound'
        ? `${id} is no longer installed: it was deleted in another panel or tab, or by an agent.`
        : `${id} could not be read: ${messageOf(e)}`);
    }
  }, [sk, id]);

  useEffect(() => {
    if (gone) back.current?.focus(); // what had the focus went with the view
    else if (meta && titled.current !== id) {
      titled.current = id;
      title.current?.focus();
    }
  }, [gone, meta, id]);

  useEffect(() => {
    setMeta(undefined);
    setOpen(undefined);
    setSelected(undefined);
    void reload();
    return sk.onChange((c) => {
      if (c.ids.includes(id)) void reload();
    });
  }, [sk, id, reload]);

  const nodes = useMemo(() => buildTree(entries), [entries]);
  const byPath = useMemo(() => new Map(entries.map((e) => [e.path, e])), [entries]);
  const sel = selected !== undefined ? byPath.get(selected) : undefined;
  const selNode: Node | undefined = sel && { path: sel.path, name: sel.path.slice(sel.path.lastIndexOf('/') + 1), isDir: sel.isDir, size: sel.size, children: [] };

  const openFile = (path: string, line?: number) => {
    setSelected(path);
    if (open?.path === path) setOpen({ path, line });
    else leaving(() => {
      setDirty(false);
      setOpen({ path, line });
    });
    // Show it in the tree: open the folders on its way.
    setExpanded((x) => {
      const next = new Set(x);
      for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) next.add(path.slice(0, i));
      return next;
    });
  };

  const changed = async (m: SkillMeta, message: string) => {
    setMeta(m);
    setEntries(await sk.registry.tree(id));
    say(message);
  };

  /** The dialog's action: resolves when done, throws what the registry refused. */
  const submit = async (form: FormData) => {
    if (!editing) return;
    if (editing.kind === 'discard') {
      setEditing(undefined);
      setDirty(false);
      editing.then();
      return;
    }
    const path = String(form.get('path') ?? '').trim().replace(/^\/+|\/+$/g, '');
    try {
      switch (editing.kind) {
        case 'new-file': {
          const m = await sk.registry.writeFile(id, path, '');
          await changed(m, `Created ${path}.`);
          openFile(path);
          break;
        }
        case 'new-folder': {
          const m = await sk.registry.mkdir(id, path);
          await changed(m, `Created the folder ${path}.`);
          setSelected(path);
          setExpanded((x) => new Set(x).add(path));
          break;
        }
        case 'rename': {
          const from = editing.node.path;
          const m = await sk.registry.rename(id, from, path);
          await changed(m, `Renamed ${from} to ${path}.`);
          setSelected(path);
          if (open && (open.path === from || open.path.startsWith(`${from}/`))) openFile(path + open.path.slice(from.length));
          break;
        }
        case 'delete': {
          const gonePath = editing.node.path;
          const m = await sk.registry.removePath(id, gonePath);
          await changed(m, `Deleted ${gonePath}.`);
          setSelected(undefined);
          if (open && (open.path === gonePath || open.path.startsWith(`${gonePath}/`))) setOpen(undefined);
          break;
        }
      }
      focusTree.current = editing.kind !== 'new-file'; // a new file opens in the editor
      setEditing(undefined);
    } catch (e) {
      throw new Error(messageOf(e));
    }
  };

  if (gone) {
    return (
      <section class="skill-view" aria-label={id}>
        <button type="button" ref={back} onClick={onClose}>Back to the list</button>
        <p class="error" role="alert">{gone}</p>
      </section>
    );
  }
  if (!meta) return <p class="skill-view" role="status">Reading {id}…</p>;

  const folder = folderOf(selNode?.path, selNode?.isDir ?? false);
  return (
    <section class="skill-view" aria-labelledby="skill-view-title">
      <header class="skill-header">
        <button type="button" onClick={() => leaving(onClose)}>Back to the list</button>
        <h2 id="skill-view-title" tabindex={-1} ref={title}>{meta.id}</h2>
        {!meta.enabled && <span class="badge">disabled</span>}
      </header>
      <p class={status.error ? 'status error' : 'status'} role={status.error ? 'alert' : 'status'}>
        {status.text}
      </p>
      <div class="skill-columns">
        <div class="skill-about">
          <Details m={meta} />
          <Diagnostics m={meta} onShow={(line) => openFile(SKILL_MD, line)} />
          <Dependencies sk={sk} meta={meta} installed={skills} onChanged={(m, msg) => { setMeta(m); say(msg); }} />
        </div>
        <section class="skill-files" aria-labelledby="skill-files-title">
          <h3 id="skill-files-title">Files</h3>
          <div class="file-actions">
            <button type="button" onClick={() => leaving(() => setEditing({ kind: 'new-file', folder }))}>New file…</button>
            <button type="button" onClick={() => setEditing({ kind: 'new-folder', folder })}>New folder…</button>
            {selNode && selNode.path !== SKILL_MD && (
              <>
                <button type="button" onClick={() => leaving(() => setEditing({ kind: 'rename', node: selNode }))}>Rename {selNode.path}…</button>
                <button type="button" class="danger" onClick={() => leaving(() => setEditing({ kind: 'delete', node: selNode }))}>Delete {selNode.path}</button>
              </>
            )}
          </div>
          <FileTree
            nodes={nodes}
            label={`Files of ${meta.id}`}
            selected={selected}
            expanded={expanded}
            onSelect={(n) => setSelected(n.path)}
            onToggle={(path, on) =>
              setExpanded((x) => {
                const next = new Set(x);
                if (on) next.add(path);
                else next.delete(path);
                return next;
              })
            }
            onOpen={(n) => openFile(n.path)}
            onRename={(n) => n.path !== SKILL_MD && leaving(() => setEditing({ kind: 'rename', node: n }))}
            onDelete={(n) => n.path !== SKILL_MD && leaving(() => setEditing({ kind: 'delete', node: n }))}
          />
          {open && byPath.has(open.path) && (
            <section class="open-file" aria-labelledby="open-file-title">
              <h3 id="open-file-title">{open.path}</h3>
              <FilePanel key={open.path} sk={sk} id={id} path={open.path} line={open.line} digest={meta.digest} say={say}
                onDirty={setDirty} onSaved={(m) => { setMeta(m); void reload(); }} />
            </section>
          )}
        </section>
      </div>
      {editing && <EditDialog key={editing.kind} editing={editing} skill={meta.id} onSubmit={submit} onCancel={() => setEditing(undefined)} />}
    </section>
  );
}

function EditDialog(p: { editing: Editing; skill: string; onSubmit(f: FormData): Promise<void>; onCancel(): void }) {
  const e = p.editing;
  if (e.kind === 'discard') {
    return (
      <Dialog title={`Discard the changes to ${e.path}?`} submit="Discard" danger onSubmit={p.onSubmit} onCancel={p.onCancel}>
        <p>They are not saved. Save {e.path} first to keep them.</p>
      </Dialog>
    );
  }
  if (e.kind === 'delete') {
    const what = e.node.isDir ? 'the folder' : 'the file';
    return (
      <Dialog title={`Delete ${e.node.path}?`} submit="Delete" danger onSubmit={p.onSubmit} onCancel={p.onCancel}>
        <p>
          This removes {what} {e.node.path}
          {e.node.isDir ? ' and everything in it' : ''} from {p.skill}. It cannot be undone.
        </p>
      </Dialog>
    );
  }
  const [title, submit, value] =
    e.kind === 'rename'
      ? [`Rename ${e.node.path}`, 'Rename', e.node.path]
      : [e.kind === 'new-file' ? 'New file' : 'New folder', 'Create', e.folder ? `${e.folder}/` : ''];
  return (
    <Dialog title={title} submit={submit} onSubmit={p.onSubmit} onCancel={p.onCancel}>
      <label>
        {e.kind === 'rename' ? 'New path' : 'Path in the skill'}
        <input name="path" required autoFocus value={value} spellcheck={false} autocomplete="off" />
      </label>
    </Dialog>
  );
}

function Details({ m }: { m: SkillMeta }) {
  const invocation = [
    m.userInvocable ? `You can invoke it with /skill:${m.id}${m.argumentHint ? ` ${m.argumentHint}` : ''}.` : 'You cannot invoke it by name.',
    m.disableModelInvocation ? 'The model does not see it in its catalog.' : 'The model sees it in its catalog and may load it.',
  ].join(' ');
  const rows: [string, string][] = [
    ['Description', m.description],
    ['License', m.license || 'not given'],
    ['Compatibility', m.compatibility || 'not given'],
    ['Allowed tools', m.allowedTools.length ? m.allowedTools.join(', ') : 'not restricted'],
    ['Invocation', invocation],
    ['Source', m.origin ? `${m.source} (${m.origin.kind})` : m.source || 'unknown'],
    ['Version', m.version || 'not given'],
    ['Digest', m.digest],
    ['Size', `${formatSize(m.size)} in ${plural(m.fileCount, 'file')}`],
    ['State', m.enabled ? 'enabled' : 'disabled'],
  ];
  return (
    <section aria-labelledby="skill-details-title">
      <h3 id="skill-details-title">Details</h3>
      <dl class="skill-details">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd class={k === 'Digest' ? 'mono' : undefined}>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Diagnostics({ m, onShow }: { m: SkillMeta; onShow(line: number): void }) {
  return (
    <section aria-labelledby="skill-diags-title">
      <h3 id="skill-diags-title">Diagnostics</h3>
      {m.diagnostics.length === 0 ? (
        <p>None: SKILL.md is as the format wants it.</p>
      ) : (
        <ul class="diagnostics">
          {m.diagnostics.map((d, i) => (
            <li key={i} class={d.severity}>
              <span class="severity">{d.severity}</span> {d.message} <span class="code">({d.code})</span>
              {fixOf(d) && <span class="fix"> Fix: {fixOf(d)}</span>}
              {d.line && ' '}
              {d.line && (
                <button type="button" class="link" onClick={() => onShow(d.line!)}>
                  Show line {d.line} of SKILL.md
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
