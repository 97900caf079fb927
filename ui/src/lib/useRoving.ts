// A group of controls that is one Tab stop, with the arrow keys inside (WAI-ARIA's "roving
// tabindex"): toolbars, tab lists, the history list (Tab reaches the editor in a few
// presses instead of twenty). The group's remembered item keeps `tabindex="0"`, every other
// `-1`; arrows, Home and End move the focus; Tab leaves the group.

import { useEffect, useRef } from "react";
import type { RefObject } from "react";

export interface RovingOptions {
  /** The controls of the group, as a selector inside the container. */
  items: string;
  /** Which arrows move: ←/→ (toolbars, tabs), ↑/↓ (lists). */
  orientation: "horizontal" | "vertical";
  /** The item that takes the Tab stop when none was focused yet (e.g. `[aria-selected="true"]`). */
  preferred?: string;
  /** Selection follows focus: moving with the arrows activates the item too (tabs, the history list). */
  activate?: boolean;
}

function usable(el: HTMLElement): boolean {
  return !(el as HTMLButtonElement).disabled && el.getAttribute("aria-hidden") !== "true";
}

/** The group's items in order, the disabled ones left out. */
export function rovingItems(container: HTMLElement, selector: string): HTMLElement[] {
  return [...container.querySelectorAll<HTMLElement>(selector)].filter(usable);
}

/** Where an arrow key takes the focus from `at` among `n` items (wrapping), or `null` for another key. */
export function rovingTarget(key: string, at: number, n: number, orientation: "horizontal" | "vertical"): number | null {
  if (n === 0) return null;
  const next = orientation === "horizontal" ? "ArrowRight" : "ArrowDown";
  const prev = orientation === "horizontal" ? "ArrowLeft" : "ArrowUp";
  if (key === next) return at < 0 ? 0 : (at + 1) % n;
  if (key === prev) return at < 0 ? n - 1 : (at - 1 + n) % n;
  if (key === "Home") return 0;
  if (key === "End") return n - 1;
  return null;
}

/** Makes the controls matching `items` inside `ref` one Tab stop with arrow keys. */
export function useRoving(ref: RefObject<HTMLElement | null>, { items, orientation, preferred, activate = false }: RovingOptions) {
  const current = useRef<HTMLElement | null>(null);

  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const sync = () => {
      const all = rovingItems(box, items);
      if (all.length === 0) return;
      let stop = current.current && all.includes(current.current) ? current.current : null;
      if (!stop && document.activeElement instanceof HTMLElement && all.includes(document.activeElement)) stop = document.activeElement;
      if (!stop && preferred) stop = all.find((el) => el.matches(preferred)) ?? null;
      stop ??= all[0];
      for (const el of box.querySelectorAll<HTMLElement>(items)) {
        const want = el === stop ? "0" : "-1";
        if (el.getAttribute("tabindex") !== want) el.setAttribute("tabindex", want);
      }
    };
    const onFocus = (e: FocusEvent) => {
      const el = e.target as HTMLElement;
      if (el.matches?.(items) && box.contains(el)) {
        current.current = el;
        sync();
      }
    };
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement;
      if (e.altKey || e.ctrlKey || e.metaKey || !el.matches?.(items)) return;
      const all = rovingItems(box, items);
      const to = rovingTarget(e.key, all.indexOf(el), all.length, orientation);
      if (to === null) return;
      e.preventDefault();
      const target = all[to];
      current.current = target;
      sync();
      target.focus();
      if (activate) target.click();
    };
    sync();
    // Controls come and go (a button appears once its state is read, a row once the list is).
    const watch = new MutationObserver(sync);
    watch.observe(box, { childList: true, subtree: true, attributes: true, attributeFilter: ["disabled", "aria-selected", "aria-pressed"] });
    box.addEventListener("focusin", onFocus);
    box.addEventListener("keydown", onKey);
    return () => {
      watch.disconnect();
      box.removeEventListener("focusin", onFocus);
      box.removeEventListener("keydown", onKey);
    };
  }, [ref, items, orientation, preferred, activate]);
}
