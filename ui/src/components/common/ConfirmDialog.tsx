import { useId, useRef } from "react";
import type { ReactNode } from "react";
import { Modal } from "./Modal";

interface Props {
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  danger?: boolean;
  busy?: boolean;
  confirmTestId?: string;
  cancelTestId?: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * A small modal (not `window.confirm`, which webviews do not all implement). The safe choice —
 * Cancel, Keep editing — has the focus when it opens: Enter by reflex loses nothing.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  cancelLabel = "Cancel",
  danger,
  busy,
  confirmTestId,
  cancelTestId,
  onConfirm,
  onCancel,
}: Props) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();

  return (
    <Modal labelledBy={titleId} className="confirm-dialog" initialFocus={cancelRef} onClose={onCancel}>
      <h2 id={titleId}>{title}</h2>
      {children && <div className="modal-body">{children}</div>}
      <div className="modal-actions">
        <button type="button" ref={cancelRef} data-testid={cancelTestId} onClick={onCancel} disabled={busy}>
          {cancelLabel}
        </button>
        <button
          type="button"
          className={danger ? "danger" : "primary"}
          data-testid={confirmTestId}
          onClick={onConfirm}
          disabled={busy}
        >
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}

interface DiscardProps {
  /** What has the unsaved edits, in a sentence ("The open memory has edits that are not saved."). */
  children: ReactNode;
  title?: string;
  onDiscard: () => void;
  onKeepEditing: () => void;
}

/**
 * The one question before unsaved edits are dropped (the memory editor, the settings): Keep
 * editing has the focus, Escape keeps editing too.
 */
export function DiscardDialog({ children, title = "Discard your changes?", onDiscard, onKeepEditing }: DiscardProps) {
  return (
    <ConfirmDialog
      title={title}
      confirmLabel="Discard"
      cancelLabel="Keep editing"
      danger
      confirmTestId="discard-confirm"
      cancelTestId="discard-keep"
      onConfirm={onDiscard}
      onCancel={onKeepEditing}
    >
      {children}
    </ConfirmDialog>
  );
}
