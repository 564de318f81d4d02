// The words of a delete, disable or enable confirmation for skills that
// others depend on, or, enabling, that depend on disabled ones: who they
// are (those directly related, named), that the skills cannot be changed
// alone (the registry refuses it), and the list of what changing them
// with those changes, at most LIST names and how many more.

import { useId } from 'preact/hooks';
import type { Related } from './dependents.ts';
import { count, names, plural } from './say.ts';

const LIST = 8;

export type Verb = 'delete' | 'disable' | 'enable';

interface Props {
  /** What is asked of the skills. */
  verb: Verb;
  /** related[verb]'s answer: the dependents (enabling, the dependencies), those directly related first. */
  deps: Related;
  /** "it" or "them": the skills asked to change. */
  it: 'it' | 'them';
  /** Where the related skills are, said after their names ("outside the selection"). */
  where?: string;
  /** Every skill the change with them changes. */
  goes: string[];
  /** The id of the sentence naming them (the dialog's description). */
  id: string;
}

/** A confirmation's submit after the skills asked about: " and 2
 * dependents" (enabling, " and 1 dependency"), or nothing. */
export const andRelated = (verb: Verb, n: number) => (n === 0 ? '' : ` and ${verb === 'enable' ? plural(n, 'dependency', 'dependencies') : plural(n, 'dependent')}`);

/** The verb's words, as a title, a progress and an outcome say them. */
export const VERB: Record<Verb, string> = { delete: 'Delete', disable: 'Disable', enable: 'Enable' };
export const DOING: Record<Verb, string> = { delete: 'Deleting', disable: 'Disabling', enable: 'Enabling' };
export const DONE: Record<Verb, string> = { delete: 'Deleted', disable: 'Disabled', enable: 'Enabled' };

export function DependentsNote({ verb, deps, it, where = '', goes, id }: Props) {
  const direct = deps.all.slice(0, deps.direct);
  const one = direct.length === 1;
  const further = deps.all.length - deps.direct;
  const they = it === 'it' ? 'it' : 'they';
  const rest = goes.length - LIST;
  const label = useId();
  return (
    <>
      {verb === 'enable' ? (
        <p class="dependents-note" id={id}>
          {it === 'it' ? 'It needs' : 'They need'} <strong>{names(direct)}</strong>
          {where && `, ${where}`}, which {one ? 'is' : 'are'} disabled
          {further > 0 ? `, and ${one ? 'that one needs' : 'those need'} ${plural(further, 'other disabled skill')}` : ''}, so {they} cannot be enabled alone.
        </p>
      ) : (
        <p class="dependents-note" id={id}>
          <strong>{names(direct)}</strong>
          {where && `, ${where},`} {one ? 'depends' : 'depend'} on {it}
          {further > 0 ? `, and ${plural(further, 'other skill')} on ${one ? 'that one' : 'those'}` : ''}, so {they} cannot be {verb}d alone.
        </p>
      )}
      <p id={label}>
        {DOING[verb]} {it} with {verb === 'enable' ? `what ${it === 'it' ? 'it needs' : 'they need'}` : `${it === 'it' ? 'its' : 'their'} dependents`} {verb}s {plural(goes.length, 'skill')}:
      </p>
      <ul class="dependents-goes" aria-labelledby={label}>
        {goes.slice(0, LIST).map((skill) => (
          <li key={skill}>{skill}</li>
        ))}
        {rest > 0 && <li>and {count(rest)} more</li>}
      </ul>
    </>
  );
}
