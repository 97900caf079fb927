// The window's keyboard shortcuts: Ctrl/⌘+K (search) and Ctrl/⌘+, (Settings).

import { useEffect, useRef } from "react";

export interface Shortcuts {
  /** Ctrl/⌘+K. */
  search: () => void;
  /** Ctrl/⌘+, (also over a dialog: Settings opens on top, and Escape goes back to it). */
  settings: () => void;
}

/** Which shortcut a key press is (`null`: none of them). */
export function shortcutOf(e: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey">): keyof Shortcuts | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return null;
  if (e.key.toLowerCase() === "k") return "search";
  if (e.key === "," && !e.shiftKey) return "settings";
  return null;
}

export function useShortcuts(handlers: Shortcuts): void {
  const live = useRef(handlers);
  useEffect(() => {
    live.current = handlers;
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const which = shortcutOf(e);
      if (!which) return;
      e.preventDefault();
      live.current[which]();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
