// The native file chooser: in the desktop app, Import… and Export… offer "Choose…"
// beside the typed path. The dialog only hands back a path; the command that reads or writes is
// the same one a typed path goes to. In a browser (`mnemo serve`) a page cannot learn a path on
// the server's disk, so there the field stays typed only.
import { isDesktop } from "./transport";

/** What the chooser picks: a file to read, a folder to read, or a new file to write. */
export type PickKind = "file" | "folder" | "save";

/** The chooser exists here: the desktop app only. */
export const canPickPaths = (): boolean => isDesktop();

/** Opens the chooser at `current` (when it is a path); the path picked, or `null` when cancelled. */
export async function pickPath(kind: PickKind, current: string, filters?: { name: string; extensions: string[] }[]): Promise<string | null> {
  const dialog = await import("@tauri-apps/plugin-dialog");
  const defaultPath = current.trim() || undefined;
  if (kind === "save") return (await dialog.save({ defaultPath, filters })) ?? null;
  const picked = await dialog.open({ directory: kind === "folder", multiple: false, defaultPath, filters: kind === "file" ? filters : undefined });
  return typeof picked === "string" ? picked : null;
}

/** Words for a chooser that could not open. */
export const pickFailed = (e: unknown): string =>
  `The file chooser could not open (${e instanceof Error ? e.message : String(e)}). Type the full path instead.`;
