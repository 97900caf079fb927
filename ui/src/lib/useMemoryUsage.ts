// Usage per memory (`memory_usage`) for the memory list's usage sorts: every memory of the listed
// workspaces, read once per list refresh and only while a usage sort is chosen.

import { useEffect, useState } from "react";
import { commands } from "./bindings";
import type { MemoryUsage } from "./bindings";
import type { Result, UiError } from "./transport";
import { useCommand } from "./useCommand";
import { usageMap } from "./usage";

/**
 * Usage by `docKey(workspace, path)` for `workspaces` (none: nothing read, `null`); a workspace
 * whose read fails counts as unused. `reloadKey` reads again (the list as last loaded).
 */
export function useMemoryUsage(workspaces: readonly string[], reloadKey: unknown): ReadonlyMap<string, MemoryUsage> | null {
  const { run, cancel } = useCommand();
  const [usage, setUsage] = useState<{ key: string; map: ReadonlyMap<string, MemoryUsage> } | null>(null);
  const key = workspaces.join("\u0000");

  useEffect(() => {
    if (key === "") return;
    const ids = key.split("\u0000");
    // One answer for all of them, so a newer read drops the whole older one.
    const all: Promise<Result<{ workspace: string; usage: MemoryUsage[] }[], UiError>> = Promise.all(
      ids.map(async (workspace) => {
        try {
          const r = await commands.memoryUsage(workspace, null);
          return { workspace, usage: r.status === "ok" ? r.data : [] };
        } catch {
          return { workspace, usage: [] };
        }
      }),
    ).then((data) => ({ status: "ok", data }));
    void run(all, "usage").then((answer) => {
      if (answer?.ok) setUsage({ key, map: usageMap(answer.data) });
    });
    return () => cancel("usage");
  }, [run, cancel, key, reloadKey]);

  return usage && usage.key === key ? usage.map : null;
}
