import { useMemo } from "react";
import type { MemoryUsage } from "../../lib/bindings";
import { formatTokens, neverRecalled, neverSentence, timesText, topRecalled, topTokens, usageSentence } from "../../lib/usage";
import { useMemoryList, useMemoryUsage } from "../../lib/queries";
import { InlineError } from "../common/InlineError";

interface Props {
  workspace: string;
  onOpenMemory: (workspace: string, path: string) => void;
}

/**
 * The Status view's usage of memories: the most recalled (top 5), the most expensive in tokens
 * injected (top 5), and those never recalled (how many, and the first 5); each opens the memory.
 */
export function UsageSection({ workspace, onOpenMemory }: Props) {
  const usageRead = useMemoryUsage(workspace, null);
  const usage = usageRead.data ?? null;
  const error = usageRead.error;
  // Names to show instead of files; a failed read leaves the files.
  const docs = useMemoryList(workspace).data;
  const names = useMemo(() => new Map(docs?.map((d) => [d.path, d.name])), [docs]);

  const recalled = useMemo(() => topRecalled(usage ?? []), [usage]);
  const costly = useMemo(() => topTokens(usage ?? []), [usage]);
  const never = useMemo(() => neverRecalled(usage ?? []), [usage]);

  const item = (u: MemoryUsage, figure: string) => (
    <li key={u.path} data-testid="usage-item" data-path={u.path}>
      <button type="button" className="link-button" title={`${u.path}\n${usageSentence(u)}`} onClick={() => onOpenMemory(workspace, u.path)}>
        {names.get(u.path) || u.path}
      </button>{" "}
      {figure && <span className="muted">{figure}</span>}
    </li>
  );

  return (
    <section className="status-section" aria-labelledby="usage-title" data-testid="usage-section">
      <header className="status-section-header">
        <h2 id="usage-title">Usage</h2>
        <span className="muted">How often chats recalled each memory, and the tokens it put into prompts (estimated)</span>
      </header>
      {error && <InlineError error={error} onRetry={() => void usageRead.refetch()} />}
      {!usage && !error && <div className="muted">Loading…</div>}
      {usage && usage.length === 0 && <p className="muted">No memories here yet.</p>}
      {usage && usage.length > 0 && (
        <div className="usage-columns">
          <div data-testid="usage-recalled">
            <h3>Most recalled</h3>
            {recalled.length === 0 ? (
              <p className="muted">No memory has been recalled yet: chats count them as they use them.</p>
            ) : (
              <ol className="usage-list">{recalled.map((u) => item(u, timesText(u.recalls)))}</ol>
            )}
          </div>
          <div data-testid="usage-tokens">
            <h3>Most expensive</h3>
            {costly.length === 0 ? (
              <p className="muted">No tokens injected yet.</p>
            ) : (
              <ol className="usage-list">{costly.map((u) => item(u, formatTokens(u.tokens)))}</ol>
            )}
          </div>
          <div data-testid="usage-never">
            <h3>Never recalled</h3>
            <p>{neverSentence(never.count)}</p>
            {never.first.length > 0 && (
              <ul className="usage-list">
                {never.first.map((u) => item(u, ""))}
                {never.count > never.first.length && (
                  <li className="muted">and {(never.count - never.first.length).toLocaleString("en-US")} more</li>
                )}
              </ul>
            )}
          </div>
        </div>
      )}
    </section>
  );
}
