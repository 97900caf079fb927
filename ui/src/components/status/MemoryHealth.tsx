import { useState } from "react";
import { commands } from "../../lib/bindings";
import type { MemoryStats, TaskInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { budget, formatBytes, healthItems } from "../../lib/stats";
import type { HealthItem } from "../../lib/stats";
import { useCommand } from "../../lib/useCommand";
import { BudgetBar } from "./Charts";
import { InlineError } from "../common/InlineError";
import { HealthCuration } from "./HealthCuration";
import { CONFLICT_RECALL, workspaceSync } from "../../lib/sync";
import { useSyncStatus } from "../../lib/useSyncStatus";
import { useMemoryNames } from "../../lib/useMemoryNames";
import { printable } from "../../lib/printable";

interface Props {
  stats: MemoryStats;
  /** The workspace's dream under way, if any (the Dream action shows it instead). */
  activeDream: TaskInfo | null;
  onOpenMemory: (workspace: string, path: string) => void;
  onDreamStarted: (task: TaskInfo) => void;
  onOpenDream: (id: string) => void;
  /** Memories were archived or restored here: read the figures again. */
  onChanged: () => void;
}

const KIND_TEXT: Record<HealthItem["kind"], string> = {
  invalid: "not a valid memory — open it to see the problem and fix it",
  duplicate: "holds entries a dream would merge",
  stale: "unchanged for 90 days and not recalled in 90 days",
};

/**
 * Memory health: MEMORY.md against its caps (lines, bytes), then each finding with its action —
 * invalid files to open and fix, likely duplicates to dream away, memories that may disagree to
 * compare, memories whose sync conflict waits for a choice (a page listing a conflict never
 * says nothing is contradictory); then pruning by use (`HealthCuration`): memories not recalled
 * in 90 days to archive, the most expensive to trim, the archived ones to restore.
 */
export function MemoryHealth({ stats, activeDream, onOpenMemory, onDreamStarted, onOpenDream, onChanged }: Props) {
  const { run } = useCommand();
  const [starting, setStarting] = useState(false);
  const [dreamError, setDreamError] = useState<UiError | null>(null);
  const lines = budget(stats.memory_md_lines, stats.memory_md_max_lines);
  const bytes = budget(stats.memory_md_bytes, stats.memory_md_max_bytes);
  const items = healthItems(stats);
  // Open sync conflicts: two machines disagree on these memories (the shared status, as the
  // Sync section below and the Inbox read it).
  const conflicts = workspaceSync(useSyncStatus(), stats.workspace)?.conflicts ?? [];
  const conflicted = [...new Set(conflicts.map((c) => c.path))];
  const names = useMemoryNames(stats.workspace, conflicted);

  const dream = async () => {
    setDreamError(null);
    if (activeDream) {
      onOpenDream(activeDream.id);
      return;
    }
    setStarting(true);
    const answer = await run(commands.dream(stats.workspace, null), "dream");
    if (!answer) return;
    setStarting(false);
    if (answer.ok) onDreamStarted(answer.data);
    else setDreamError(answer.error);
  };

  const group = (kind: HealthItem["kind"]) => items.filter((i) => i.kind === kind);
  const list = (kind: HealthItem["kind"]) => (
    <ul className="health-list">
      {group(kind).map((i) => (
        <li key={i.path} data-testid="health-item" data-kind={i.kind} data-path={i.path}>
          <code>{printable(i.path)}</code>{" "}
          <button
            type="button"
            className="link-button"
            data-testid="health-open"
            title={KIND_TEXT[i.kind]}
            onClick={() => onOpenMemory(stats.workspace, i.path)}
          >
            Open
          </button>
        </li>
      ))}
    </ul>
  );

  return (
    <section className="status-section" aria-labelledby="health-title" data-testid="memory-health">
      <header className="status-section-header">
        <h2 id="health-title">Memory health</h2>
      </header>
      <div className="budgets">
        <BudgetBar
          testId="budget-lines"
          label="MEMORY.md lines"
          fraction={lines.fraction}
          near={lines.near}
          text={`${lines.used} / ${lines.max} (${lines.percent} %)`}
        />
        <BudgetBar
          testId="budget-bytes"
          label="MEMORY.md size"
          fraction={bytes.fraction}
          near={bytes.near}
          text={`${formatBytes(bytes.used)} / ${formatBytes(bytes.max)} (${bytes.percent} %)`}
        />
      </div>
      {(lines.near || bytes.near) && (
        <p className="health-note">
          MEMORY.md is close to its cap: the newest memories may not be listed in it. A dream merges duplicates and
          prunes.
        </p>
      )}
      {items.length === 0 && stats.same_name.length === 0 && stats.same_subject.length === 0 && conflicted.length === 0 && (
        <p className="health-ok" data-testid="health-ok">
          No problems found: every file is valid, nothing looks duplicated, contradictory or stale.
        </p>
      )}
      {conflicted.length > 0 && (
        <div className="health-group" data-testid="health-conflicts" data-count={conflicted.length}>
          <h3>
            Sync conflicts <span className="muted">{conflicted.length}</span>
          </h3>
          <p className="muted">
            Two of your machines changed {conflicted.length === 1 ? "this memory" : "these memories"} differently. {CONFLICT_RECALL}{" "}
            Open one to choose.
          </p>
          <ul className="health-list">
            {conflicted.map((path) => (
              <li key={path} data-testid="health-conflict" data-path={path}>
                {names.get(path) ? <span>{printable(names.get(path) ?? "")} </span> : null}
                <code>{printable(path)}</code>{" "}
                <button
                  type="button"
                  className="link-button"
                  data-testid="health-conflict-open"
                  title="Open it to choose the version to keep"
                  onClick={() => onOpenMemory(stats.workspace, path)}
                >
                  Open
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {group("invalid").length > 0 && (
        <div className="health-group" data-testid="health-invalid">
          <h3>
            Invalid files <span className="muted">{group("invalid").length}</span>
          </h3>
          <p className="muted">Not valid memories (recall and dreams skip them). Open one to see its problem.</p>
          {list("invalid")}
        </div>
      )}
      {(stats.duplicates > 0 || group("duplicate").length > 0) && (
        <div className="health-group" data-testid="health-duplicates">
          <h3>
            Likely duplicates{" "}
            <span className="muted">
              {stats.duplicates} entr{stats.duplicates === 1 ? "y" : "ies"}
            </span>
          </h3>
          <div className="health-action">
            <span className="muted">A dream merges them into one copy each (undo it as one change).</span>
            <button type="button" data-testid="health-dream" onClick={() => void dream()} disabled={starting}>
              <span aria-hidden="true">✦</span> {starting ? "Starting…" : activeDream ? "Dreaming…" : "Dream"}
            </button>
          </div>
          {dreamError && <InlineError error={dreamError} />}
          {list("duplicate")}
        </div>
      )}
      {stats.same_name.length > 0 && (
        <PathGroups
          testId="health-same-name"
          title="Same name, may disagree"
          text="These memories share a name: one subject written down more than once, perhaps saying different things. Open them and keep the one that is right."
          groups={stats.same_name}
          onOpen={(p) => onOpenMemory(stats.workspace, p)}
        />
      )}
      {stats.same_subject.length > 0 && (
        <PathGroups
          testId="health-same-subject"
          title="About the same subject, may contradict"
          text="Their names are about one subject (“Pet” and “The user’s pet”): check that they agree, and merge or correct them if not."
          groups={stats.same_subject}
          onOpen={(p) => onOpenMemory(stats.workspace, p)}
        />
      )}
      <HealthCuration stats={stats} onOpenMemory={onOpenMemory} onChanged={onChanged} />
    </section>
  );
}

/** Groups of memories to compare, each path with its Open link. */
function PathGroups(props: {
  testId: string;
  title: string;
  text: string;
  groups: string[][];
  onOpen: (path: string) => void;
}) {
  return (
    <div className="health-group" data-testid={props.testId}>
      <h3>
        {props.title} <span className="muted">{props.groups.length}</span>
      </h3>
      <p className="muted">{props.text}</p>
      <ul className="health-list">
        {props.groups.map((paths) => (
          <li key={paths.join("|")} data-testid={`${props.testId}-group`}>
            {paths.map((p, i) => (
              <span key={p}>
                {i > 0 && " · "}
                <code>{printable(p)}</code>{" "}
                <button type="button" className="link-button" onClick={() => props.onOpen(p)}>
                  Open
                </button>
              </span>
            ))}
          </li>
        ))}
      </ul>
    </div>
  );
}
