// The model settings as the chat pane needs them: the shared answer (Settings' save shows at
// once), read again when the window comes back into focus — another program (the CLI, a script
// over HTTP) may have set a model meanwhile. `onConfigured`: a read found one.

import { useEffect } from "react";
import type { ModelSettings } from "../../lib/bindings";
import { isConfigured } from "../../lib/chat";
import { keys, queryClient, useModelSettings } from "../../lib/queries";

export function useChatModel(onConfigured: () => void): ModelSettings | null {
  const read = useModelSettings();
  useEffect(() => {
    const onFocus = () => void queryClient.invalidateQueries({ queryKey: keys.modelSettings() });
    window.addEventListener("focus", onFocus);
    return () => window.removeEventListener("focus", onFocus);
  }, []);
  const model = read.data ?? null;
  const readAt = read.dataUpdatedAt;
  useEffect(() => {
    if (model && isConfigured(model)) onConfigured();
  }, [model, readAt, onConfigured]);
  return model;
}
