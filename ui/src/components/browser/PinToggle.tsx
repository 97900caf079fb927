import { useState } from "react";
import { commands } from "../../lib/bindings";
import type { MemoryDetail } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { useCommand } from "../../lib/useCommand";
import { readMemory } from "../../lib/queries";

interface Props {
  detail: MemoryDetail;
  /** Unsaved edits: pinning rewrites the file, so they must be saved or dropped first. */
  dirty: boolean;
  /** The memory as it is after the change (re-read), or the error to show. */
  onChanged: (fresh: MemoryDetail | null, error: UiError | null) => void;
}

/**
 * Pin / Unpin: a pinned memory is never changed or deleted by extraction or dream.
 * `set_pinned` adds or removes `pinned: true` in the frontmatter and changes nothing else.
 */
export function PinToggle({ detail, dirty, onChanged }: Props) {
  const { run } = useCommand();
  const [busy, setBusy] = useState(false);
  const pinned = detail.pinned;

  const toggle = async () => {
    setBusy(true);
    const answer = await run(commands.setPinned(detail.workspace, detail.path, !pinned), "pin");
    if (!answer) return;
    if (!answer.ok) {
      setBusy(false);
      onChanged(null, answer.error);
      return;
    }
    const fresh = await run(readMemory(detail.workspace, detail.path), "pin");
    if (!fresh) return;
    setBusy(false);
    // The write succeeded; if the re-read failed, the change event will catch up.
    onChanged(fresh.ok ? fresh.data : { ...detail, pinned: !pinned }, null);
  };

  return (
    <button
      type="button"
      data-testid="pin-button"
      aria-pressed={pinned}
      onClick={() => void toggle()}
      disabled={busy || dirty}
      title={
        dirty
          ? "Save or discard your edits first"
          : pinned
            ? "Let extraction and dream change this memory again"
            : "Keep extraction and dream from changing or deleting this memory"
      }
    >
      {busy ? (pinned ? "Unpinning…" : "Pinning…") : pinned ? "Unpin" : "Pin"}
    </button>
  );
}
