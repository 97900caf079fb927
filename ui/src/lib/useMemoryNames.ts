// The names of a few memory files of one workspace, as the memory list reads them (their
// frontmatter `name`), for places that only know a path: a sync conflict names its memory so.

import { useEffect, useMemo, useState } from "react";
import { commands } from "./bindings";
import type { DocSummary } from "./bindings";
import { useCommand } from "./useCommand";

/** The names of `paths` among `docs` (only those found, with a name). */
export function namesOf(docs: readonly DocSummary[], workspace: string, paths: readonly string[]): Map<string, string> {
  const wanted = new Set(paths);
  const names = new Map<string, string>();
  for (const d of docs) if (d.workspace === workspace && wanted.has(d.path) && d.name.trim()) names.set(d.path, d.name);
  return names;
}

const NONE: ReadonlyMap<string, string> = new Map();

/**
 * The names of `paths` in `workspace`: read with the memory list once the paths are known, and
 * again when they change. Until then, or when the list cannot be read, none (callers show the path).
 */
export function useMemoryNames(workspace: string, paths: readonly string[]): ReadonlyMap<string, string> {
  const { run, cancel } = useCommand();
  const key = useMemo(() => [...new Set(paths)].sort().join("\n"), [paths]);
  // The last names read for this workspace stay while a new set of paths is read (no flicker).
  const [read, setRead] = useState<{ workspace: string; names: ReadonlyMap<string, string> } | null>(null);

  useEffect(() => {
    if (!key) return;
    const wanted = key.split("\n");
    void run(commands.list(workspace, null), "memory-names").then((answer) => {
      if (answer) setRead({ workspace, names: answer.ok ? namesOf(answer.data, workspace, wanted) : NONE });
    });
    return () => cancel("memory-names");
  }, [run, cancel, workspace, key]);

  return read && read.workspace === workspace ? read.names : NONE;
}
