// A modal dialog (the native <dialog>, so focus stays inside and Escape
// cancels) with a form: a title, optional body, and a submit and a cancel
// button. The dialog is named by its title; showModal focuses the submit,
// or Cancel when the submit does more than was asked (cautious).

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

export function Dialog(p: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
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
