// A skill's dependencies: tools, MCP servers and skills, each a list with
// a picker offering what the host registered (or what is installed). The
// picker also takes a typed name: the registry decides, as it does for
// any caller (setDependencies), and its refusal is shown beside it.

import { useEffect, useId, useMemo, useState } from 'preact/hooks';
import { SkillfsError, type Dependencies as Deps, type SkillMeta, type Skillfs } from '../../../js/bridge.ts';
import { messageOf } from './FilePanel.tsx';

interface Props {
  sk: Skillfs;
  meta: SkillMeta;
  /** The installed skills, as the app lists them at every commit
   * (undefined before its first list): the skill picker offers them. */
  installed: SkillMeta[] | undefined;
  onChanged(m: SkillMeta, message: string): void;
}

interface Kind {
  key: keyof Deps;
  title: string;
  /** "tools", "MCP servers": within a sentence. */
  many: string;
  one: string;
  /** "a tool", "an MCP server" */
  a: string;
}

const KINDS: Kind[] = [
  { key: 'tools', title: 'Tools', many: 'tools', one: 'tool', a: 'a tool' },
  { key: 'mcp', title: 'MCP servers', many: 'MCP servers', one: 'MCP server', a: 'an MCP server' },
  { key: 'skills', title: 'Skills', many: 'skills', one: 'skill', a: 'a skill' },
];

export function Dependencies({ sk, meta, installed, onChanged }: Props) {
  // What the tool and MCP pickers offer; null when the host has not
  // registered any. Read again with every list the app reads (every
  // commit), as the skills offered follow it: one installed or deleted in
  // another panel (or by an agent) shows here, without a list of its own.
  const [registered, setRegistered] = useState<{ tools: string[] | null; mcp: string[] | null }>({ tools: null, mcp: null });
  useEffect(() => {
    let live = true;
    sk.registry.registered().then(
      (r) => live && setRegistered({ tools: r.tools, mcp: r.mcp }),
      () => {}, // the pickers stay empty; a typed name still goes to the registry
    );
    return () => {
      live = false;
    };
  }, [sk, meta.id, installed]);
  const offered = useMemo<Record<keyof Deps, string[] | null>>(
    () => ({ ...registered, skills: (installed ?? []).map((s) => s.id).filter((s) => s !== meta.id) }),
    [registered, installed, meta.id],
  );

  const set = async (kind: Kind, names: string[], message: string) => {
    const m = await sk.registry.setDependencies(meta.id, { ...meta.dependencies, [kind.key]: names });
    onChanged(m, message);
  };

  return (
    <section aria-labelledby="skill-deps-title">
      <h3 id="skill-deps-title">Dependencies</h3>
      {KINDS.map((k) => (
        <DependencyList key={k.key} kind={k} skill={meta.id} names={meta.dependencies[k.key]} offered={offered[k.key]} set={set} />
      ))}
    </section>
  );
}

function DependencyList(p: {
  kind: Kind;
  skill: string;
  names: string[];
  offered: string[] | null;
  set(kind: Kind, names: string[], message: string): Promise<void>;
}) {
  const id = useId();
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const { kind } = p;
  const run = async (names: string[], message: string) => {
    setError('');
    try {
      await p.set(kind, names, message);
      return true;
    } catch (e) {
      setError(refusal(e, p.skill, kind));
      return false;
    }
  };
  const choices = (p.offered ?? []).filter((n) => !p.names.includes(n));
  return (
    <div class="deps" role="group" aria-labelledby={`${id}-t`}>
      <h4 id={`${id}-t`}>{kind.title}</h4>
      {p.names.length === 0 ? (
        <p class="none">None.</p>
      ) : (
        <ul>
          {p.names.map((n) => (
            <li key={n}>
              <code>{n}</code>{' '}
              <button type="button" class="link" onClick={() => void run(p.names.filter((x) => x !== n), `${p.skill} no longer depends on the ${kind.one} ${n}.`)}>
                Remove {kind.one} {n}
              </button>
            </li>
          ))}
        </ul>
      )}
      {p.offered === null && <p class="note">The host has not registered its {kind.many}, so none can be checked or added.</p>}
      <form
        class="dep-add"
        onSubmit={async (e) => {
          e.preventDefault();
          const n = name.trim();
          if (n && (await run([...p.names, n], `${p.skill} now depends on the ${kind.one} ${n}.`))) setName('');
        }}
      >
        <label for={`${id}-in`}>Add {kind.a}</label>
        <input
          id={`${id}-in`}
          list={`${id}-list`}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          autocomplete="off"
          spellcheck={false}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-err` : undefined}
        />
        <datalist id={`${id}-list`}>
          {choices.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
        <button type="submit">Add {kind.one}</button>
      </form>
      {error && (
        <p id={`${id}-err`} class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** Why a name typed was refused, about that name: the registry's message
 * is about the id it refuses ("x: 'pdf' depends on it, but no skill with
 * this id is installed"), which read as if pdf depended on x already. */
function refusal(e: unknown, skill: string, kind: Kind): string {
  if (!(e instanceof SkillfsError)) return messageOf(e);
  switch (e.reason) {
    case 'unknown-skill':
      return `No skill ${e.subject} is installed, so ${skill} cannot depend on it.`;
    case 'self-dependency':
      return `${skill} cannot depend on itself.`;
    case 'unknown-tool':
    case 'unknown-mcp-server':
      return `The host has no ${kind.one} named ${e.subject}, so ${skill} cannot depend on it.`;
    default:
      return messageOf(e);
  }
}
