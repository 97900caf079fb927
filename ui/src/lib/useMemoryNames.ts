// The names of a few memory files of one workspace, as the memory list reads them (their
// frontmatter `name`), for places that only know a path: a sync conflict names its memory so.

import { useMemo } from "react";
import type { DocSummary } from "./bindings";
import { useMemoryList } from "./queries";

/** The names of `paths` among `docs` (only those found, with a name). */
export function namesOf(docs: readonly DocSummary[], workspace: string, paths: readonly string[]): Map<string, string> {
  const wanted = new Set(paths);
  const names = new Map<string, string>();
  for (const d of docs) if (d.workspace === workspace && wanted.has(d.path) && d.name.trim()) names.set(d.path, d.name);
  return names;
}

const NONE: ReadonlyMap<string, string> = new Map();

/**
 * The names of `paths` in `workspace`: from the shared memory list, read once some paths are
 * known. Until then, or when the list cannot be read, none (callers show the path).
 */
export function useMemoryNames(workspace: string, paths: readonly string[]): ReadonlyMap<string, string> {
  const key = useMemo(() => [...new Set(paths)].sort().join("\n"), [paths]);
  const list = useMemoryList(workspace, key !== "");
  const docs = list.isError ? undefined : list.data;
  return useMemo(() => (docs && key ? namesOf(docs, workspace, key.split("\n")) : NONE), [docs, workspace, key]);
}
