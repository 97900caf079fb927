import type { DreamReport, ProposalSummary } from "../../lib/bindings";
import type { WhyNote } from "../../lib/proposalWhy";
import { explainingTask } from "../../lib/proposalWhy";
import { printable } from "../../lib/printable";
import { useChatSessions, useTask } from "../../lib/queries";

/**
 * The report of the dream a proposal came from, read once the proposal is open (`task`); `null`
 * until then, for a proposal of another job, and when the task is gone (nothing is said then).
 */
export function useDreamReport(summary: ProposalSummary, open: boolean): DreamReport | null {
  const read = useTask(explainingTask(summary), open);
  return read.error ? null : (read.data?.result?.dream ?? null);
}

/**
 * The title of the chat an extraction's proposal came from, read once the proposal is open;
 * `null` until then, for other proposals, and when the chat is gone (nothing is said then).
 */
export function useChatTitle(summary: ProposalSummary, open: boolean): string | null {
  const session = summary.kind === "extract" ? (summary.origin.session?.trim() ?? null) : null;
  const read = useChatSessions(summary.workspace, open && !!session);
  if (!session || read.error) return null;
  return read.data?.find((c) => c.id === session)?.title ?? null;
}

export type WhyHeading = 2 | 3;

interface Props {
  notes: readonly WhyNote[];
  /** The heading's level: one below the heading the proposal list sits under. */
  headingLevel: WhyHeading;
}

/** "Why": the dream's note for each file it rewrote or deleted (and any other note), in its words. */
export function ProposalWhyNotes({ notes, headingLevel }: Props) {
  if (notes.length === 0) return null;
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <section className="proposal-why" data-testid="proposal-why">
      <Heading className="proposal-why-title">Why</Heading>
      <ul className="proposal-why-notes">
        {notes.map((n, i) => (
          <li key={i} data-testid="proposal-why-note" data-path={n.path ?? undefined}>
            {n.path !== null && (
              <>
                <code>{printable(n.path)}</code>:{" "}
              </>
            )}
            {printable(n.text)}
          </li>
        ))}
      </ul>
    </section>
  );
}
