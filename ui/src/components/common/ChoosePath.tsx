import { useState } from "react";
import { canPickPaths, pickFailed, pickPath, type PickKind } from "../../lib/pickPath";

type Props = {
  /** Which choosers to offer, each with its button's words. */
  kinds: readonly { kind: PickKind; label: string }[];
  /** The path typed so far (where the chooser opens). */
  current: string;
  /** A path was picked. */
  onPick: (path: string) => void;
  filters?: { name: string; extensions: string[] }[];
  disabled?: boolean;
};

/** "Choose file…" buttons beside a path field — desktop app only; nothing in a browser. */
export function ChoosePath({ kinds, current, onPick, filters, disabled }: Props) {
  const [failed, setFailed] = useState<string | null>(null);
  if (!canPickPaths()) return null;
  const choose = async (kind: PickKind) => {
    setFailed(null);
    try {
      const path = await pickPath(kind, current, filters);
      if (path) onPick(path);
    } catch (e) {
      setFailed(pickFailed(e));
    }
  };
  return (
    <div className="choose-path">
      {kinds.map(({ kind, label }) => (
        <button key={kind} type="button" data-testid={`choose-${kind}`} disabled={disabled} onClick={() => void choose(kind)}>
          {label}
        </button>
      ))}
      {failed && (
        <span className="muted" role="alert" data-testid="choose-failed">
          {failed}
        </span>
      )}
    </div>
  );
}
