// How to fix a diagnostic, in one sentence, by its stable code
// (pkg/skill's codes; the message says what is wrong, this says what to do).

import type { Diagnostic } from '../../../js/bridge.ts';

const FIXES: Record<string, string> = {
  'frontmatter-missing': "Start SKILL.md with a line '---', the YAML fields, and another '---'.",
  'frontmatter-unclosed': "Add a line '---' after the last field of the frontmatter.",
  'yaml-invalid': 'Fix the YAML at this line: quote values that hold ": " or "#", and indent with spaces, not tabs.',
  'yaml-unquoted-colon': 'Put the value in quotes.',
  'frontmatter-not-mapping': 'Write the frontmatter as "key: value" lines.',
  'name-missing': 'Add a line "name: <the folder name>".',
  'name-mismatch': "Make the name the skill's folder name.",
  'name-not-lowercase': 'Write the name in lowercase.',
  'name-invalid-chars': 'Use only lowercase letters, digits and single hyphens in the name.',
  'name-edge-hyphen': 'Remove the hyphen at the start or end of the name.',
  'name-consecutive-hyphens': 'Replace the double hyphen in the name by one.',
  'name-too-long': 'Shorten the name to 64 characters at most.',
  'description-missing': 'Add a line "description: what the skill does and when to use it".',
  'description-too-long': 'Shorten the description to 1,024 characters; move details into the body.',
  'compatibility-too-long': 'Shorten compatibility to 500 characters.',
  'unknown-field': 'Remove the field, or move it under metadata.',
  'duplicate-key': 'Keep one of the two keys.',
  'wrong-type': 'Give the field a value of the type the message names.',
  'invalid-value': 'Use one of the values the message names.',
  'not-utf8': 'Save the file as UTF-8.',
  'skill-yaml-conflict': 'Make skill.yaml agree with SKILL.md, or remove the field from skill.yaml.',
  'skill-yaml-invalid': 'Fix skill.yaml, or remove it.',
  renamed: 'Nothing to do: the skill was installed under another id because its name was taken.',
};

export function fixOf(d: Diagnostic): string | undefined {
  return FIXES[d.code];
}
