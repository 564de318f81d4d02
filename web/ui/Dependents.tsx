// The words of a delete or disable confirmation for skills others depend
// on: who depends on them (those that do directly, named), that they
// cannot be deleted or disabled alone (the registry refuses it), and the
// list of what deleting or disabling them with their dependents changes,
// at most LIST names and how many more.

import { useId } from 'preact/hooks';
import { names, plural } from './say.ts';

const LIST = 8;

interface Props {
  /** What is asked of the skills. */
  verb: 'delete' | 'disable';
  /** dependentsOf's answer: the dependents, those that depend directly first. */
  deps: { all: string[]; direct: number };
  /** "it" or "them": the skills asked to delete. */
  it: 'it' | 'them';
  /** Where the dependents are, said after their names (", outside the selection"). */
  where?: string;
  /** Every skill the delete (or disable) with dependents changes. */
  goes: string[];
  /** The id of the sentence naming the dependents (the dialog's description). */
  id: string;
}

export function DependentsNote({ verb, deps, it, where = '', goes, id }: Props) {
  const direct = deps.all.slice(0, deps.direct);
  const further = deps.all.length - deps.direct;
  const rest = goes.length - LIST;
  const label = useId();
  return (
    <>
      <p class="dependents-note" id={id}>
        <strong>{names(direct)}</strong>
        {where} {direct.length === 1 ? 'depends' : 'depend'} on {it}
        {further > 0 ? `, and ${plural(further, 'other skill')} on ${direct.length === 1 ? 'that one' : 'those'}` : ''}, so {it === 'it' ? 'it' : 'they'} cannot be {verb}d alone.
      </p>
      <p id={label}>
        {verb === 'delete' ? 'Deleting' : 'Disabling'} {it} with {it === 'it' ? 'its' : 'their'} dependents {verb}s {plural(goes.length, 'skill')}:
      </p>
      <ul class="dependents-goes" aria-labelledby={label}>
        {goes.slice(0, LIST).map((skill) => (
          <li key={skill}>{skill}</li>
        ))}
        {rest > 0 && <li>and {rest.toLocaleString('en')} more</li>}
      </ul>
    </>
  );
}
