// What an agent sees through a session of this skillfs: the catalog
// exactly as the agent gets it, with what the budget did to it; the
// user's /skill: invocation with completion of the skills a user may
// invoke and their argument hints; and which skill the router picks for
// a request, and why, in words.

import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { SkillfsError, type Command, type RouteResult, type Session, type Skillfs } from '../../js/bridge.ts';
import { codeOf, count, failed, plural } from './say.ts';

type Mode = 'full' | 'names' | 'off';
const BUDGETS = [2000, 8000, 32000, 128000];
const DEFAULT_BUDGET = 8000;
/** The completions offered at once: a browser builds every option of a
 * datalist, so a registry of thousands offers the first of those that
 * hold what is typed, and typing more narrows them. */
export const MAX_SUGGESTIONS = 50;

interface Props {
  sk: Skillfs;
  /** The agent's tools: skills that need others are not offered to it. */
  tools: string[];
  contextId: string;
  /** The registry's revision; a change refreshes the session. */
  revision: number;
}

/** What the root of a catalog says about itself: shown="…" described="…" total="…". */
export function degradation(catalog: string): { shown: number; described: number; total: number } | undefined {
  const m = /^<available_skills shown="(\d+)" described="(\d+)" total="(\d+)"/.exec(catalog) ?? /^\[\s*\{"shown":(\d+),"described":(\d+),"total":(\d+)/.exec(catalog);
  return m ? { shown: Number(m[1]), described: Number(m[2]), total: Number(m[3]) } : undefined;
}

/** userOnly: the enabled skills visible to the session that only the
 * user may invoke (disable-model-invocation), which no catalog lists, so
 * that the count does not read as every enabled skill's. */
function catalogLabel(catalog: string, mode: Mode, budget: number, userOnly: number): string {
  if (mode === 'off') return 'Catalog off: the agent is told about no skill.';
  if (!catalog) return `No catalog: no enabled skill is visible to the agent${userOnly ? `; ${plural(userOnly, 'skill')} only you can invoke` : ''}.`;
  const chars = `${count([...catalog].length)} of ${count(budget)} characters`;
  const more = userOnly ? `; ${count(userOnly)} more only you can invoke` : '';
  const d = degradation(catalog);
  if (!d) return `Every visible skill with its full description (${chars})${more}.`;
  const names = d.shown === d.total ? `all ${plural(d.total, 'skill')}` : `${d.shown} of ${plural(d.total, 'skill')} (the rest are counted in a note)`;
  // With no message to route, the catalog describes every skill alike or
  // none (pkg/resolver's fit), which leaves budget unused: say why.
  const why = mode === 'names' ? 'names only, as asked'
    : d.described === 0 && d.shown === d.total ? "the first sentence of each would not fit, and no skill is favoured over the others"
    : 'shortened to fit the budget';
  return `The agent sees ${names}, ${d.described} with a description: ${why} (${chars})${more}.`;
}

export function AgentView({ sk, tools, contextId, revision }: Props) {
  const session = useRef<Promise<Session> | undefined>(undefined);
  const [mode, setMode] = useState<Mode>('full');
  const [budget, setBudget] = useState(DEFAULT_BUDGET);
  const [catalog, setCatalog] = useState<{ text: string; label: string } | { error: string }>();
  const [commands, setCommands] = useState<Command[]>([]);

  /** f on the session, opened again once when the host lost it (a
   * restarted extension worker keeps no sessions). */
  const withSession = useCallback(
    async <T,>(f: (s: Session) => Promise<T>): Promise<T> => {
      const open = () => (session.current = sk.openSession({ contextId, availableTools: tools, baseTools: ['Read'] }));
      let s = await (session.current ?? open());
      try {
        return await f(s);
      } catch (e) {
        // The session is gone (no-session), or the port under it (a
        // non-skillfs error, or Internal from a closed connection).
        const lost = !(e instanceof SkillfsError) || e.code === 'Internal' || e.reason === 'no-session';
        if (!lost) throw e;
        s = await open();
        return f(s);
      }
    },
    [sk, contextId, tools],
  );

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const [text, cmds] = await withSession(async (s) => {
          await s.refresh();
          return Promise.all([s.catalog({ mode, budget }), s.commands()]);
        });
        if (!live) return;
        setCatalog({ text, label: catalogLabel(text, mode, budget, cmds.filter((c) => c.disableModelInvocation).length) });
        setCommands(cmds);
      } catch (e) {
        if (live) setCatalog({ error: failed('Could not build the catalog', e) });
      }
    })();
    return () => {
      live = false;
    };
  }, [withSession, mode, budget, revision]);

  return (
    <section class="agent-view" aria-labelledby="agent-title">
      <h2 id="agent-title">What the agent sees</h2>
      <div class="catalog-tools">
        <label>
          Catalog{' '}
          <select id="catalog-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as Mode)}>
            <option value="full">descriptions, as the budget allows</option>
            <option value="names">names only</option>
            <option value="off">off</option>
          </select>
        </label>
        <label>
          Budget{' '}
          <select value={budget} onChange={(e) => setBudget(Number(e.currentTarget.value))}>
            {BUDGETS.map((b) => (
              <option key={b} value={b}>
                {count(b)} characters (~{count(b / 4)} tokens)
              </option>
            ))}
          </select>
        </label>
      </div>
      {catalog && 'error' in catalog ? (
        <p class="error" role="alert">
          {catalog.error}
        </p>
      ) : (
        <>
          <p class="catalog-label" id="catalog-label">
            {catalog?.label ?? 'Building the catalog…'}
          </p>
          <pre id="catalog" class="catalog" tabindex={0} aria-labelledby="catalog-label">
            {catalog?.text}
          </pre>
        </>
      )}
      <Invoke withSession={withSession} commands={commands} />
      <Route withSession={withSession} />
    </section>
  );
}

type WithSession = <T>(f: (s: Session) => Promise<T>) => Promise<T>;

function Invoke({ withSession, commands }: { withSession: WithSession; commands: Command[] }) {
  const [text, setText] = useState('/skill:');
  const [out, setOut] = useState<{ text: string } | { error: string; code: string }>();
  const typed = /^\/(?:skill:)?([^\s]+)/.exec(text)?.[1];
  const cmd = commands.find((c) => c.name === typed || c.id === typed);
  const q = text.trim().toLowerCase();
  const suggestions = useMemo(() => {
    const out: Command[] = [];
    for (const c of commands) {
      if (out.length === MAX_SUGGESTIONS) break;
      if (c.invocation.toLowerCase().includes(q) || q.includes(c.invocation.toLowerCase())) out.push(c);
    }
    return out;
  }, [commands, q]);
  return (
    <form
      id="invoke-form"
      class="invoke"
      onSubmit={async (e) => {
        e.preventDefault();
        setOut(undefined);
        try {
          const b = await withSession((s) => s.invoke(text));
          setOut({ text: b.content });
        } catch (err) {
          setOut({ error: failed(`Could not run ${text.trim()}`, err), code: codeOf(err) });
        }
      }}
    >
      <label for="invoke">
        Run a skill as the user would type it (<code>/skill:name arguments</code>)
      </label>
      <div class="row">
        <input id="invoke" list="commands" autocomplete="off" spellcheck={false} value={text} onInput={(e) => setText(e.currentTarget.value)} aria-describedby="invoke-hint" />
        <button type="submit">Run</button>
      </div>
      <datalist id="commands">
        {suggestions.map((c) => (
          <option key={c.id} value={`${c.invocation} `}>
            {c.argumentHint ? `${c.argumentHint} — ` : ''}
            {c.description}
          </option>
        ))}
      </datalist>
      <p id="invoke-hint" class="hint">
        {cmd
          ? `${cmd.invocation} ${cmd.argumentHint || '(no argument hint; what follows the name is passed on as ARGUMENTS)'}${cmd.disableModelInvocation ? ' · only you can run it, the agent cannot' : ''}`
          : `${plural(commands.length, 'skill')} you can run; type to complete.`}
      </p>
      {out &&
        ('text' in out ? (
          <pre id="invoke-result" class="catalog" tabindex={0} aria-label="What the agent receives">
            {out.text}
          </pre>
        ) : (
          <p id="invoke-result" class="error" role="alert" data-code={out.code}>
            {out.error}
          </p>
        ))}
    </form>
  );
}

function planSentence(r: RouteResult): string {
  const p = r.plan;
  const then = p.fallbacks.length ? ` If it fails: ${p.fallbacks.join(', then ')}.` : '';
  switch (p.decision) {
    case 'forced':
      return `You named ${p.primary}, so it runs.${then}`;
    case 'clear':
      return `${p.primary} fits best, clearly ahead of the others.${then}`;
    case 'close':
      return `Too close to call between ${(p.close ?? []).join(' and ')}; an agent would ask you.${then}`;
    case 'below':
      return `No skill fits well enough to pick one.${then}`;
    default:
      return `No skill matches this request.${then}`;
  }
}

function Route({ withSession }: { withSession: WithSession }) {
  const [text, setText] = useState('');
  const [out, setOut] = useState<RouteResult | { error: string }>();
  return (
    <form
      id="route-form"
      class="route"
      onSubmit={async (e) => {
        e.preventDefault();
        setOut(undefined);
        try {
          setOut(await withSession((s) => s.route(text)));
        } catch (err) {
          setOut({ error: failed('Could not route the request', err) });
        }
      }}
    >
      <label for="route">Ask something, and see which skill the agent would pick</label>
      <div class="row">
        <input id="route" value={text} placeholder="fill in this PDF form" onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit">Route</button>
      </div>
      {out && (
        <div id="route-result" role="status">
          {'error' in out ? (
            <p class="error">{out.error}</p>
          ) : (
            <>
              <p class="plan">{planSentence(out)}</p>
              <ol class="candidates">
                {out.candidates.slice(0, 5).map((c) => (
                  <li key={c.id}>
                    <strong>{c.id}</strong> scores {Math.round(c.score * 100)} of 100. {c.why.join(' ')}
                  </li>
                ))}
              </ol>
            </>
          )}
        </div>
      )}
    </form>
  );
}
