import { useMemoryUsage } from "../../lib/queries";
import { usageDetail, usageSentence } from "../../lib/usage";

interface Props {
  workspace: string;
  path: string;
}

/**
 * A memory's usage in one line under its title: "Recalled 14 times, last 2 days ago, ~3,087
 * tokens injected." (or "Never recalled yet."); the details on hover. Nothing while it is read
 * or when it cannot be.
 */
export function UsageLine({ workspace, path }: Props) {
  // Keyed by the memory: another memory's figures never show here while this one's are read. Read
  // again on the workspace's memory changes and after a write here (`memoryWritten`).
  const read = useMemoryUsage(workspace, path);
  if (read.isError || !read.data) return null;
  const usage = { usage: read.data.find((u) => u.path === path) ?? read.data[0] ?? null };
  return (
    <div className="detail-usage muted" data-testid="detail-usage" data-recalls={usage.usage?.recalls ?? 0} data-tokens={usage.usage?.tokens ?? 0} title={usageDetail(usage.usage)}>
      {usageSentence(usage.usage)}
    </div>
  );
}
