// Whether the window is narrow (below 1,200 px): the chat is then a modal drawer over the app
// instead of a fourth column. The same width as the stylesheet's `max-width: 1199px`.

import { useEffect, useState } from "react";

export const NARROW_QUERY = "(max-width: 1199px)";

function query(): MediaQueryList | null {
  return typeof window !== "undefined" && typeof window.matchMedia === "function" ? window.matchMedia(NARROW_QUERY) : null;
}

/** True below 1,200 px; follows the window as it is resized. */
export function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => query()?.matches ?? false);
  useEffect(() => {
    const q = query();
    if (!q) return;
    const on = () => setNarrow(q.matches);
    on();
    q.addEventListener("change", on);
    return () => q.removeEventListener("change", on);
  }, []);
  return narrow;
}
