import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import type { ReactNode } from "react";

export interface ToastInput {
  message: string;
  kind?: "info" | "error";
  action?: { label: string; run: () => void };
  /** Milliseconds before it goes away; default 4 s (7 s for errors). */
  timeout?: number;
}

interface Toast extends ToastInput {
  id: number;
}

type ToastFn = (t: ToastInput) => void;

const ToastContext = createContext<ToastFn>(() => {});

export function useToast(): ToastFn {
  return useContext(ToastContext);
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>());
  // Where the focus was before it came to a toast (Tab, or a click): when the toast goes — its
  // action done (Undo), or dismissed — the focus goes back there instead of to the page.
  const regionRef = useRef<HTMLDivElement>(null);
  const cameFrom = useRef<HTMLElement | null>(null);
  const giveBackFocus = useCallback(() => {
    const back = cameFrom.current;
    cameFrom.current = null;
    if (!regionRef.current?.contains(document.activeElement)) return;
    if (back && document.contains(back) && !regionRef.current.contains(back)) back.focus();
    else document.querySelector<HTMLElement>("input[type='search']")?.focus();
  }, []);

  const dismiss = useCallback((id: number) => {
    setToasts((ts) => ts.filter((t) => t.id !== id));
    const timer = timers.current.get(id);
    if (timer !== undefined) clearTimeout(timer);
    timers.current.delete(id);
  }, []);

  const push = useCallback<ToastFn>(
    (t) => {
      const id = nextId.current++;
      setToasts((ts) => [...ts.slice(-4), { ...t, id }]);
      const timeout = t.timeout ?? (t.kind === "error" ? 7000 : 4000);
      timers.current.set(
        id,
        setTimeout(() => dismiss(id), timeout),
      );
    },
    [dismiss],
  );

  useEffect(() => {
    const all = timers.current;
    return () => {
      for (const timer of all.values()) clearTimeout(timer);
      all.clear();
    };
  }, []);

  const value = useMemo(() => push, [push]);

  return (
    <ToastContext.Provider value={value}>
      {children}
      <div
        className="toasts"
        role="status"
        aria-live="polite"
        ref={regionRef}
        onFocus={(e) => {
          const from = e.relatedTarget as HTMLElement | null;
          if (from && from !== document.body && !e.currentTarget.contains(from)) cameFrom.current = from;
        }}
      >
        {toasts.map((t) => (
          <div key={t.id} className={`toast toast-${t.kind ?? "info"}`} data-testid="toast">
            <span className="toast-message">{t.message}</span>
            {t.action && (
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  giveBackFocus();
                  t.action?.run();
                  dismiss(t.id);
                }}
              >
                {t.action.label}
              </button>
            )}
            <button
              type="button"
              className="icon-button"
              aria-label="Dismiss"
              onClick={() => {
                giveBackFocus();
                dismiss(t.id);
              }}
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
