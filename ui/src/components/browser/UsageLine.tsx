import { useEffect, useState } from "react";
import { commands } from "../../lib/bindings";
import type { MemoryUsage } from "../../lib/bindings";
import { useCommand } from "../../lib/useCommand";
import { usageDetail, usageSentence } from "../../lib/usage";

interface Props {
  workspace: string;
  path: string;
  /** Changes when the memory may have changed (read it again). */
  reloadKey: string | number;
}

/**
 * A memory's usage in one line under its title: "Recalled 14 times, last 2 days ago, ~3,087
 * tokens injected." (or "Never recalled yet."); the details on hover. Nothing while it is read
 * or when it cannot be.
 */
export function UsageLine({ workspace, path, reloadKey }: Props) {
  const { run, cancel } = useCommand();
  const [usage, setUsage] = useState<{ key: string; usage: MemoryUsage | null } | null>(null);
  const key = `${workspace}\u0000${path}`;

  useEffect(() => {
    void run(commands.memoryUsage(workspace, path), "usage").then((answer) => {
      if (!answer) return;
      setUsage(answer.ok ? { key, usage: answer.data.find((u) => u.path === path) ?? answer.data[0] ?? null } : null);
    });
    return () => cancel("usage");
  }, [run, cancel, workspace, path, key, reloadKey]);

  if (!usage || usage.key !== key) return null;
  return (
    <div className="detail-usage muted" data-testid="detail-usage" data-recalls={usage.usage?.recalls ?? 0} data-tokens={usage.usage?.tokens ?? 0} title={usageDetail(usage.usage)}>
      {usageSentence(usage.usage)}
    </div>
  );
}
