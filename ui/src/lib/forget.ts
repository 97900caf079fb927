// The Forget… dialog as a pure reducer: a query → its preview (exactly the entries
// that would go, all checked) → the checked ones forgotten as one task and one change group →
// what was forgotten, with undo. A file changed since the preview answers `conflict`: nothing was
// written, and the dialog offers to preview again.

import type { ForgetEntry, ForgetPick, ForgetPreview, GroupUndo, TaskInfo } from "./bindings";
import type { UiError } from "./transport";
import type { Answer } from "./useCommand";

export type ForgetStage = "query" | "previewing" | "preview" | "forgetting" | "done";

export interface ForgetState {
  stage: ForgetStage;
  query: string;
  preview: ForgetPreview | null;
  /** Ids of the checked entries. */
  checked: ReadonlySet<string>;
  /** The last failure (preview, forget, or undo). */
  error: UiError | null;
  /** The forget task, once done. */
  task: TaskInfo | null;
  /** The entries it removed (as previewed). */
  removed: readonly ForgetEntry[];
  undo: "idle" | "undoing" | "undone";
  /** What the undo restored. */
  restored: readonly string[];
}

export type ForgetAction =
  | { type: "query"; query: string }
  | { type: "previewing" }
  | { type: "previewed"; answer: Answer<ForgetPreview> }
  | { type: "toggle"; id: string }
  | { type: "all"; checked: boolean }
  | { type: "forgetting" }
  | { type: "forgot"; answer: Answer<TaskInfo> }
  | { type: "undoing" }
  | { type: "undone"; answer: Answer<GroupUndo> }
  /** Back to the query (keeping it), e.g. "Forget something else". */
  | { type: "restart" };

export const initialForget: ForgetState = {
  stage: "query",
  query: "",
  preview: null,
  checked: new Set(),
  error: null,
  task: null,
  removed: [],
  undo: "idle",
  restored: [],
};

export function forgetReducer(state: ForgetState, action: ForgetAction): ForgetState {
  switch (action.type) {
    case "query":
      return { ...state, query: action.query };
    case "previewing":
      return { ...state, stage: "previewing", error: null };
    case "previewed": {
      if (!action.answer.ok) return { ...state, stage: state.preview ? "preview" : "query", error: action.answer.error };
      const preview = action.answer.data;
      // Only confident picks start ticked: an entry the model chose without saying what was asked
      // waits for the person to tick it.
      const checked = new Set(preview.selected.filter((e) => e.confident).map((e) => e.id));
      return { ...state, stage: "preview", preview, checked, error: null };
    }
    case "toggle": {
      if (state.stage !== "preview") return state;
      const checked = new Set(state.checked);
      if (checked.has(action.id)) checked.delete(action.id);
      else checked.add(action.id);
      return { ...state, checked };
    }
    case "all":
      if (state.stage !== "preview" || !state.preview) return state;
      return { ...state, checked: new Set(action.checked ? state.preview.selected.map((e) => e.id) : []) };
    case "forgetting":
      return { ...state, stage: "forgetting", error: null };
    case "forgot":
      if (!action.answer.ok) return { ...state, stage: "preview", error: action.answer.error };
      return {
        ...state,
        stage: "done",
        task: action.answer.data,
        removed: (state.preview?.selected ?? []).filter((e) => state.checked.has(e.id)),
        error: null,
        undo: "idle",
        restored: [],
      };
    case "undoing":
      return { ...state, undo: "undoing", error: null };
    case "undone":
      if (!action.answer.ok) return { ...state, undo: "idle", error: action.answer.error };
      return { ...state, undo: "undone", restored: action.answer.data.paths };
    case "restart":
      return { ...initialForget, query: state.query };
  }
}

/** What `forget` is given: the checked entries' ids and their files' hashes from the preview. */
export function picks(preview: ForgetPreview | null, checked: ReadonlySet<string>): ForgetPick[] {
  return (preview?.selected ?? []).filter((e) => checked.has(e.id)).map((e) => ({ id: e.id, hash: e.hash }));
}

export function entriesText(n: number): string {
  return `${n} entr${n === 1 ? "y" : "ies"}`;
}

/** "Forget 1 entry", "Forget 3 entries". */
export function forgetLabel(n: number): string {
  return `Forget ${entriesText(n)}`;
}

/** How the preview chose, in words. */
export function strategyText(p: ForgetPreview): string {
  const among = `among ${p.candidates} candidate${p.candidates === 1 ? "" : "s"}`;
  return p.strategy === "model" ? `Chosen by the model ${among}` : `Entries containing the words, ${among}`;
}

/** The change group to undo, once done. */
export function forgetGroup(state: ForgetState): number | null {
  return state.task?.result?.group ?? null;
}
