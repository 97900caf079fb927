// The chat's sessions in one workspace: the list (a query, `lib/queries.ts`), the open session's
// messages (a pure reducer, `lib/chat.ts`, fed by the transcript read through the cache and the
// chat's events), and the commands that change them — open, new, rename, ignore memory, delete.
// The pane's parts (header, body, composer) read from here; a failure shows as `paneError`.

import { useCallback, useEffect, useReducer, useState } from "react";
import { commands } from "../../lib/bindings";
import type { SessionInfo } from "../../lib/bindings";
import { onChatEvent } from "../../lib/transport";
import type { UiError } from "../../lib/transport";
import { chatReducer, EMPTY_CHAT } from "../../lib/chat";
import type { ChatAction, ChatState } from "../../lib/chat";
import type { CommandRunner } from "../../lib/useCommand";
import { chatSessionDeleted, chatSessionSaved, readOnce, reads, useChatSessions } from "../../lib/queries";

export interface ChatSession {
  /** The workspace's sessions, newest first (`null`: loading). */
  sessions: SessionInfo[] | null;
  /** The open session's messages and the turn being answered. */
  chat: ChatState;
  dispatch: (action: ChatAction) => void;
  /** The open session's entry in the list (`null`: none, or not listed yet). */
  current: SessionInfo | null;
  /** A turn is being answered. */
  busy: boolean;
  /** The open session's messages are loading. */
  loading: boolean;
  paneError: UiError | null;
  setPaneError: (error: UiError | null) => void;
  /** Puts a session's newest info in the list. */
  replaceSession: (s: SessionInfo) => void;
  /** Reads the list again (after a turn: titles and order change). */
  refreshSessions: () => Promise<void>;
  /** Shows a session's saved messages (`null`: none open). */
  openSession: (id: string | null) => Promise<void>;
  /** Creates a session and opens it; `false` when it failed (the error is shown). */
  newChat: () => Promise<boolean>;
  rename: (title: string) => Promise<void>;
  setIgnoreMemory: (ignore: boolean) => Promise<void>;
  /** Deletes the open session and opens the next; `false` when the answer was dropped. */
  deleteCurrent: () => Promise<boolean>;
}

export function useChatSession(workspace: string, { run, cancel }: CommandRunner): ChatSession {
  const sessionsRead = useChatSessions(workspace);
  const [chat, dispatch] = useReducer(chatReducer, EMPTY_CHAT);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  // The list could not be read at first: the pane says so (until dismissed) over an empty list.
  const [dismissed, setDismissed] = useState(false);
  const listError = sessionsRead.data === undefined ? sessionsRead.error : null;
  const sessions = sessionsRead.data ?? (listError ? [] : null);
  const paneError = error ?? (dismissed ? null : listError);
  const setPaneError = useCallback((e: UiError | null) => {
    setError(e);
    if (e === null) setDismissed(true);
  }, []);

  const sessionId = chat.session;
  const current = sessions?.find((s) => s.id === sessionId) ?? null;

  const replaceSession = useCallback((s: SessionInfo) => chatSessionSaved(workspace, s), [workspace]);

  /** A newer call drops what an older one loads. */
  const openSession = useCallback(
    async (id: string | null) => {
      cancel("transcript");
      dispatch({ type: "reset", session: id });
      setPaneError(null);
      if (id === null) return;
      setLoading(true);
      const answer = await run(readOnce(reads.chatTranscript(workspace, id)), "transcript");
      if (!answer) return;
      if (answer.ok) {
        dispatch({ type: "loaded", session: id, lines: answer.data.messages, compactions: answer.data.compactions });
        replaceSession(answer.data.session);
      } else setPaneError(answer.error);
      setLoading(false);
    },
    [run, cancel, workspace, replaceSession, setPaneError],
  );

  // On failure the list stays as it was; the next action reports a lasting problem.
  const { refetch } = sessionsRead;
  const refreshSessions = useCallback(async () => {
    await refetch();
  }, [refetch]);

  // The workspace's sessions as first read (the list's own read, shared): the most recent opens.
  useEffect(() => {
    void run(readOnce(reads.chatSessions(workspace)), "sessions").then((answer) => {
      if (answer?.ok) void openSession(answer.data[0]?.id ?? null);
    });
    return () => cancel("sessions");
  }, [run, cancel, workspace, openSession]);

  // Replies streaming, recall, tool use and extraction for this workspace.
  useEffect(
    () =>
      onChatEvent((event) => {
        if (event.workspace === workspace) dispatch({ type: "event", event });
      }),
    [workspace],
  );

  const newChat = async () => {
    setPaneError(null);
    const answer = await run(commands.chatCreate(workspace, null));
    if (!answer) return false;
    if (!answer.ok) {
      setPaneError(answer.error);
      return false;
    }
    replaceSession(answer.data);
    void openSession(answer.data.id);
    return true;
  };

  const rename = async (title: string) => {
    if (!current || !title || title === current.title) return;
    const answer = await run(commands.chatUpdate(workspace, current.id, title, null));
    if (!answer) return;
    if (answer.ok) replaceSession(answer.data);
    else setPaneError(answer.error);
  };

  const setIgnoreMemory = async (ignore: boolean) => {
    if (!current) return;
    setPaneError(null);
    replaceSession({ ...current, ignore_memory: ignore });
    const answer = await run(commands.chatUpdate(workspace, current.id, null, ignore));
    if (!answer) return;
    if (answer.ok) replaceSession(answer.data);
    else {
      replaceSession(current);
      setPaneError(answer.error);
    }
  };

  const deleteCurrent = async () => {
    if (!current) return true;
    const answer = await run(commands.chatDelete(workspace, current.id));
    if (!answer) return false;
    if (answer.ok) {
      const rest = (sessions ?? []).filter((s) => s.id !== current.id);
      chatSessionDeleted(workspace, current.id);
      void openSession(rest[0]?.id ?? null);
    } else setPaneError(answer.error);
    return true;
  };

  return {
    sessions,
    chat,
    dispatch,
    current,
    busy: chat.pending !== null,
    loading,
    paneError,
    setPaneError,
    replaceSession,
    refreshSessions,
    openSession,
    newChat,
    rename,
    setIgnoreMemory,
    deleteCurrent,
  };
}
