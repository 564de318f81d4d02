// A modal dialog (the native <dialog>, so focus stays inside and Escape
// cancels) with a form: a title, optional body, and a submit and a cancel
// button. The dialog is named by its title; showModal focuses the submit,
// or Cancel when the submit does more than was asked (cautious). When it
// goes, the focus goes back to what opened it (see the effect).

import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

interface Props {
  title: string;
  submit: string;
  /** Resolves when done; a rejection's message is shown in the dialog. */
  onSubmit(form: FormData): Promise<void>;
  onCancel(): void;
  danger?: boolean;
  /** Focus Cancel, not the submit, when the dialog opens: the submit does
   * more than was asked (deletes the skills that depend on it too). */
  cautious?: boolean;
  /** The id of what describes the dialog, read with its name when it opens. */
  describedBy?: string;
  children?: ComponentChildren;
}

/** Whether nothing has the focus (the page's body has it): a dialog gone,
 * or the control that had it. A focus moved a frame later must not take it
 * from where something else has put it meanwhile. */
export const focusLost = () => !document.activeElement || document.activeElement === document.body;

export function Dialog(p: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const d = ref.current;
    // What had the focus when the dialog opened (the effect runs before
    // showModal moves it). The app removes a dialog rather than close it,
    // and the browser gives the focus back only on a close: without this,
    // a Cancel or an Escape left it on the page's body, and a keyboard
    // user at the top of the panel. A caller that moves the focus itself
    // (a row deleted, a file opened) has done so by the next frame.
    const opener = document.activeElement;
    if (d && !d.open) d.showModal();
    return () => {
      d?.close();
      requestAnimationFrame(() => {
        if (focusLost() && opener instanceof HTMLElement && opener.isConnected) opener.focus();
      });
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class="skill-dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={p.describedBy}
      onCancel={(e) => {
        e.preventDefault();
        p.onCancel();
      }}
    >
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError('');
          try {
            await p.onSubmit(new FormData(e.currentTarget));
          } catch (err) {
            setError(err instanceof Error ? err.message : String(err));
            setBusy(false);
          }
        }}
      >
        <h3 id={`${id}-title`}>{p.title}</h3>
        {p.children}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div class="dialog-buttons">
          <button type="submit" class={p.danger ? 'danger' : 'primary'} disabled={busy}>
            {p.submit}
          </button>
          <button type="button" autofocus={p.cautious} onClick={p.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
