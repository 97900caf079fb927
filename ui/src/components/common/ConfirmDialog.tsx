import { useRef } from "react";
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
  onConfirm: () => void;
  onCancel: () => void;
}

/** A small modal (not `window.confirm`, which webviews do not all implement). */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  cancelLabel = "Cancel",
  danger,
  busy,
  confirmTestId,
  onConfirm,
  onCancel,
}: Props) {
  const confirmRef = useRef<HTMLButtonElement>(null);

  return (
    <Modal labelledBy="modal-title" initialFocus={confirmRef} onClose={onCancel}>
        <h2 id="modal-title">{title}</h2>
        {children && <div className="modal-body">{children}</div>}
        <div className="modal-actions">
          <button type="button" onClick={onCancel} disabled={busy}>
            {cancelLabel}
          </button>
          <button
            type="button"
            ref={confirmRef}
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
