// The model settings as the chat pane needs them: read when the pane opens, when Settings saved
// them (`modelKey` changes) and when the window comes back into focus — another program (the
// CLI, a script over HTTP) may have set a model meanwhile. `onConfigured`: a read found one.

import { useEffect, useState } from "react";
import { commands } from "../../lib/bindings";
import type { ModelSettings } from "../../lib/bindings";
import { isConfigured } from "../../lib/chat";
import type { CommandRunner } from "../../lib/useCommand";

export function useChatModel(modelKey: number, { run, cancel }: CommandRunner, onConfigured: () => void) {
  const [model, setModel] = useState<ModelSettings | null>(null);
  const [focusSeq, setFocusSeq] = useState(0);
  useEffect(() => {
    const onFocus = () => setFocusSeq((n) => n + 1);
    window.addEventListener("focus", onFocus);
    return () => window.removeEventListener("focus", onFocus);
  }, []);
  useEffect(() => {
    void run(commands.getModelSettings(), "model").then((answer) => {
      if (!answer?.ok) return;
      setModel(answer.data);
      if (isConfigured(answer.data)) onConfigured();
    });
    return () => cancel("model");
  }, [run, cancel, modelKey, focusSeq, onConfigured]);
  return [model, setModel] as const;
}
