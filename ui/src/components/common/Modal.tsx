import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { ReactNode, RefObject } from "react";

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [contenteditable="true"], [tabindex]:not([tabindex="-1"])';

/** Open modals (dialogs and the narrow window's chat drawer), innermost last: Escape closes only the top one. */
const stack: symbol[] = [];

/** Told whenever a modal opens or closes (whether one is covered by another changes). */
const stackListeners = new Set<() => void>();

function stackChanged(): void {
  for (const l of [...stackListeners]) l();
}

interface Behaviour {
  /** Escape, or a click outside. */
  onClose: () => void;
  /** Where focus goes when it opens (else the first focusable element). */
  initialFocus?: RefObject<HTMLElement | null>;
  /**
   * Where focus goes when it closes and the element that had focus before it opened is gone, or
   * was nothing (the page itself: a report that opened on its own).
   */
  fallbackFocus?: () => HTMLElement | null;
  /** The behaviour holds only while true (the chat is a modal drawer only in narrow windows). */
  active?: boolean;
}

/**
 * What makes `ref` modal while `active`: Escape (wherever focus is) closes the top one; Tab and
 * Shift+Tab stay inside; focus goes in when it opens and back to where it was when it closes.
 * Returns whether another modal is open over this one (the chat drawer then drops its own dimming,
 * so the dialog's backdrop covers the drawer like the rest of the app).
 */
export function useModal(ref: RefObject<HTMLElement | null>, { onClose, initialFocus, fallbackFocus, active = true }: Behaviour): boolean {
  const [covered, setCovered] = useState(false);
  const close = useRef(onClose);
  const fallback = useRef(fallbackFocus);
  useLayoutEffect(() => {
    close.current = onClose;
    fallback.current = fallbackFocus;
  }, [onClose, fallbackFocus]);

  useEffect(() => {
    if (!active) return;
    const id = Symbol("modal");
    stack.push(id);
    const onStack = () => setCovered(stack.includes(id) && stack[stack.length - 1] !== id);
    stackListeners.add(onStack);
    stackChanged();
    const before = document.activeElement as HTMLElement | null;
    const first = initialFocus?.current ?? ref.current?.querySelector<HTMLElement>(FOCUSABLE) ?? ref.current;
    first?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (stack[stack.length - 1] !== id) return;
      if (e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        close.current();
        return;
      }
      if (e.key !== "Tab" || !ref.current) return;
      const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
      if (items.length === 0) {
        e.preventDefault();
        return;
      }
      const at = items.indexOf(document.activeElement as HTMLElement);
      if (e.shiftKey && (at <= 0 || !ref.current.contains(document.activeElement))) {
        e.preventDefault();
        items[items.length - 1].focus();
      } else if (!e.shiftKey && (at === items.length - 1 || at === -1)) {
        e.preventDefault();
        items[0].focus();
      }
    };
    document.addEventListener("keydown", onKey, true);
    return () => {
      document.removeEventListener("keydown", onKey, true);
      stack.splice(stack.indexOf(id), 1);
      stackListeners.delete(onStack);
      setCovered(false);
      stackChanged();
      if (before && before !== document.body && document.contains(before)) before.focus();
      else fallback.current?.()?.focus();
    };
    // Opened once per activation; `initialFocus` is read at open only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active]);
  return covered;
}

interface Props {
  /** Id of the heading that names the dialog. */
  labelledBy: string;
  className?: string;
  testId?: string;
  /** Extra attributes tests and styles read (`data-*`). */
  data?: Record<string, string>;
  /** Where focus goes when it opens (else the first focusable element). */
  initialFocus?: RefObject<HTMLElement | null>;
  /** Where focus goes when it closes if what had it before is gone (see `useModal`). */
  fallbackFocus?: () => HTMLElement | null;
  /** Escape, a click outside, or the dialog's own close button. */
  onClose: () => void;
  children: ReactNode;
}

/**
 * Every dialog's frame: Escape (wherever focus is) and a click outside close it; Tab and
 * Shift+Tab stay inside; focus returns to where it was when the dialog closes.
 */
export function Modal({ labelledBy, className, testId, data, initialFocus, fallbackFocus, onClose, children }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  useModal(ref, { onClose, initialFocus, fallbackFocus });

  return (
    <div
      className="modal-backdrop"
      onMouseDown={(e) => {
        if (e.target !== e.currentTarget) return;
        // No focus moves to the page: a question this raises ("Discard your changes?") keeps it.
        e.preventDefault();
        onClose();
      }}
    >
      <div
        ref={ref}
        className={`modal ${className ?? ""}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={labelledBy}
        data-testid={testId}
        tabIndex={-1}
        {...Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [`data-${k}`, v]))}
      >
        {children}
      </div>
    </div>
  );
}
