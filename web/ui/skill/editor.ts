// The text editor of the skill view: CodeMirror 6, with Markdown (and the
// YAML frontmatter inside it) and YAML highlighting and diagnostics at
// their lines. It is its own bundle (skill-editor.js), which the view
// imports when a text file is first opened, so the list and the details
// paint without it (see loadEditor in SkillView.tsx).
//
// CodeMirror needs no eval and no inline script, so it runs under the
// extension's CSP (script-src 'self'); its styles go into a <style>
// element of the document (style-mod), which that CSP does not restrict.

import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdownLanguage } from '@codemirror/lang-markdown';
import { yaml, yamlFrontmatter } from '@codemirror/lang-yaml';
import { defaultHighlightStyle, syntaxHighlighting, type LanguageSupport } from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic as CMDiagnostic } from '@codemirror/lint';
import { EditorState, type Extension } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';

/** A problem to mark at a 1-based line. */
export interface LineDiagnostic {
  line: number;
  severity: 'error' | 'warning';
  message: string;
}

export interface TextEditor {
  /** The text as edited. */
  text(): string;
  /** Takes the text as edited for the saved one, which onDirty compares with. */
  saved(): void;
  /** Marks diagnostics at their lines (replacing earlier ones); lines past the end mark the last. */
  mark(diags: LineDiagnostic[]): void;
  /** Moves the cursor to a 1-based line and focuses the editor. */
  goToLine(line: number): void;
  destroy(): void;
}

export interface EditorOptions {
  text: string;
  /** The file's path in its skill: picks the language. */
  path: string;
  /** The editor's accessible name. */
  label: string;
  /** Called on every change with whether the text differs from the saved one. */
  onDirty(dirty: boolean): void;
  /** Ctrl/Cmd-S. */
  onSave(): void;
}

/** Markdown with its frontmatter read as YAML; YAML; or none. The
 * Markdown language alone, without markdown()'s HTML and code-block
 * languages, which would add the HTML, CSS and JavaScript parsers. */
function languageOf(path: string): LanguageSupport | [] {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  if (ext === 'md' || ext === 'markdown') return yamlFrontmatter({ content: markdownLanguage });
  if (ext === 'yaml' || ext === 'yml') return yaml();
  return [];
}

export function openEditor(parent: HTMLElement, o: EditorOptions): TextEditor {
  let saved = o.text;
  const extensions: Extension[] = [
    lineNumbers(),
    history(),
    drawSelection(),
    highlightActiveLine(),
    lintGutter(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    languageOf(o.path),
    EditorView.lineWrapping,
    // Tab is left to move focus, so keyboard users are never trapped.
    keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => (o.onSave(), true) }, ...defaultKeymap, ...historyKeymap]),
    // tabindex says what contenteditable already is, keyboard-focusable,
    // so checkers see that a long file's scrolling area can be reached.
    EditorView.contentAttributes.of({ 'aria-label': o.label, tabindex: '0' }),
    EditorView.updateListener.of((u) => {
      if (u.docChanged) o.onDirty(u.state.doc.toString() !== saved);
    }),
  ];
  const view = new EditorView({ parent, state: EditorState.create({ doc: o.text, extensions }) });
  return {
    text: () => view.state.doc.toString(),
    saved() {
      saved = view.state.doc.toString();
      o.onDirty(false);
    },
    mark(diags) {
      const doc = view.state.doc;
      const cm: CMDiagnostic[] = diags.map((d) => {
        const line = doc.line(Math.min(Math.max(d.line, 1), doc.lines));
        return { from: line.from, to: line.to, severity: d.severity, message: d.message };
      });
      view.dispatch(setDiagnostics(view.state, cm));
    },
    goToLine(n) {
      const line = view.state.doc.line(Math.min(Math.max(n, 1), view.state.doc.lines));
      view.dispatch({ selection: { anchor: line.from }, scrollIntoView: true });
      view.focus();
    },
    destroy: () => view.destroy(),
  };
}
