// What the window remembers across reloads (localStorage): whether the chat pane is shown (wide
// windows) and the workspace last chosen. Storage may be unavailable (private mode):
// then each lasts for the session only.

/** localStorage key remembering whether the chat pane is shown. */
export const CHAT_OPEN_KEY = "mnemo.chatOpen";
/** localStorage key remembering the workspace chosen ("" for all workspaces). */
export const WORKSPACE_KEY = "mnemo.workspace";

export function readChatOpen(): boolean {
  try {
    return localStorage.getItem(CHAT_OPEN_KEY) !== "0";
  } catch {
    return true;
  }
}

export function saveChatOpen(open: boolean): void {
  try {
    localStorage.setItem(CHAT_OPEN_KEY, open ? "1" : "0");
  } catch {
    // Storage unavailable: the choice lasts for this session only.
  }
}

/** The workspace chosen last time (`null`: all workspaces, or none remembered). */
export function readWorkspace(): string | null {
  try {
    return localStorage.getItem(WORKSPACE_KEY) || null;
  } catch {
    return null;
  }
}

export function saveWorkspace(id: string | null): void {
  try {
    localStorage.setItem(WORKSPACE_KEY, id ?? "");
  } catch {
    // Storage unavailable: the choice lasts for this session only.
  }
}
