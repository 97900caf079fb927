// Hand-written stand-in for the file tauri-specta generates from the Rust API.
// It will be overwritten by the generated bindings: keep the exported names and shapes identical,
// and import every API type and command from here (never call `invoke` directly elsewhere).

import { invoke as TAURI_INVOKE } from "@tauri-apps/api/core";

/** user commands */

export const commands = {
  async workspaces(): Promise<Result<WorkspaceInfo[], ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("workspaces") };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async addFolder(path: string): Promise<Result<WorkspaceInfo, ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("add_folder", { path }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async list(
    workspace: string | null,
    memoryType: MemoryType | null,
  ): Promise<Result<DocSummary[], ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("list", { workspace, memoryType }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async get(workspace: string, path: string): Promise<Result<MemoryDetail, ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("get", { workspace, path }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async create(workspace: string, memory: NewMemory): Promise<Result<WriteOutcome, ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("create", { workspace, memory }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async update(
    workspace: string,
    path: string,
    patch: Patch,
  ): Promise<Result<WriteOutcome, ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("update", { workspace, path, patch }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async remove(workspace: string, path: string): Promise<Result<WriteOutcome, ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("remove", { workspace, path }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async search(
    workspace: string | null,
    query: string,
    limit: number | null,
  ): Promise<Result<Hit[], ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("search", { workspace, query, limit }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async history(
    workspace: string | null,
    path: string | null,
    limit: number | null,
  ): Promise<Result<ChangeSummary[], ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("history", { workspace, path, limit }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async diff(id: number): Promise<Result<ChangeDiff, ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("diff", { id }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async undo(id: number): Promise<Result<WriteOutcome, ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("undo", { id }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async status(): Promise<Result<Status, ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("status") };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async getSettings(): Promise<Result<Settings, ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("get_settings") };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async setSettings(settings: Settings): Promise<Result<null, ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("set_settings", { settings }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
  async openFolder(workspace: string): Promise<Result<null, ApiError>> {
    try {
      return { status: "ok", data: await TAURI_INVOKE("open_folder", { workspace }) };
    } catch (e) {
      if (e instanceof Error) throw e;
      else return { status: "error", error: e as ApiError };
    }
  },
};

/** user-defined types */

export type MemoryType = "user" | "feedback" | "project" | "reference";
export type WorkspaceKind = "mnemo" | "claude" | "qwen" | "folder";
export type ChangeSource = "user" | "watcher" | "extract" | "dream" | "forget" | "remember";
export type ApiError = { code: string; message: string };
export type Counts = { topics: number; invalid: number; logs: number };
export type WorkspaceInfo = {
  id: string;
  kind: WorkspaceKind;
  label: string;
  memory_root: string;
  state_dir: string;
  lock_dir: string;
  counts: Counts;
};
export type ProblemOut = { code: string; message: string };
export type DocKind = "topic" | "log";
export type DocSummary = {
  workspace: string;
  path: string;
  kind: DocKind;
  type: MemoryType | null;
  name: string;
  description: string;
  /** RFC 3339 */
  mtime: string;
  valid: boolean;
  problem?: ProblemOut;
};
export type EntryOut = { id: string; summary: string; why?: string; how?: string };
export type MemoryDetail = DocSummary & {
  hash: string;
  content: string | null;
  body: string;
  entries: EntryOut[];
};
export type Hit = {
  workspace: string;
  path: string;
  score: number;
  name: string;
  type: MemoryType | null;
  description: string;
};
export type WriteOutcome = {
  workspace: string;
  path: string;
  change_id: number | null;
  hash: string | null;
};
export type ChangeSummary = {
  id: number;
  workspace: string;
  path: string;
  source: ChangeSource;
  at: string;
  /** create | modify | delete */
  op: string;
  undoes?: number;
};
export type ChangeDiff = { change: ChangeSummary; before: string | null; after: string | null };
export type NewMemory = {
  path: string | null;
  name: string;
  description: string;
  type: MemoryType;
  body: string;
};
export type Patch = {
  name: string | null;
  description: string | null;
  type: string | null;
  body: string | null;
  expected_hash: string | null;
};
export type Settings = { folders: { path: string }[] };
export type WorkspaceStatus = {
  id: string;
  kind: WorkspaceKind;
  counts: Counts;
  last_extract_at: string | null;
  last_dream_at: string | null;
  consolidation_locked_by: number | null;
};
export type Status = {
  home: string;
  workspaces: WorkspaceStatus[];
  index_bytes: number;
  warnings: string[];
};
export type MemoryChanged = { workspace: string; paths: string[]; source: ChangeSource };

/** tauri-specta globals */

export type Result<T, E> = { status: "ok"; data: T } | { status: "error"; error: E };
