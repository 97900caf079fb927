import type { RestoreChoice } from "../../lib/bindings";
import { printable } from "../../lib/printable";
import { asSentence, plural, restoreImpossible, restoreNote } from "../../lib/transfer";

interface Props {
  /** Each workspace of the export, as the last preview offered it. */
  choices: readonly RestoreChoice[];
  /** The ids ticked now (what the next preview names). */
  ticked: readonly string[];
  /** The boxes wait (an import is starting). */
  disabled: boolean;
  onTick: (workspace: string, on: boolean) => void;
}

/**
 * A whole-home Mnemo export's workspaces, one box each: a ticked one goes back into the workspace
 * of the same id (Mnemo's own that this home lacks are created). Nothing is ticked at first;
 * another tool's memory is ticked only on purpose (a warning says what that does), and one this
 * home does not have is shown with why it cannot be restored. While none is ticked the summary
 * below says so and Import waits (`cannotImport`).
 */
export function RestoreChoices({ choices, ticked, disabled, onTick }: Props) {
  return (
    <fieldset className="transfer-choice restore-choices" data-testid="import-restore">
      <legend>Workspaces in this export</legend>
      <p className="muted import-hint">
        Each ticked workspace goes back into the folder shown under it: the workspace of the same id here, or — when this home
        lacks it — made again (Mnemo&apos;s own under the home, another tool&apos;s project memory or an added folder where it lived).
      </p>
      <ul className="restore-list">
        {choices.map((r, i) => {
          const impossible = restoreImpossible(r);
          const on = !impossible && ticked.includes(r.workspace);
          const note = restoreNote(r);
          const id = `import-restore-${i}`;
          const why = impossible && r.why_not ? `${id}-why` : undefined;
          const warn = on && r.other_tool ? `${id}-warn` : undefined;
          return (
            <li
              key={r.workspace}
              className={`restore-item ${impossible ? "restore-impossible" : ""}`}
              data-testid="restore-choice"
              data-workspace={r.workspace}
              data-chosen={r.chosen}
            >
              <label htmlFor={id}>
                <input
                  type="checkbox"
                  id={id}
                  data-testid="restore-tick"
                  checked={on}
                  disabled={disabled || impossible}
                  aria-describedby={[why, warn].filter(Boolean).join(" ") || undefined}
                  onChange={(e) => onTick(r.workspace, e.target.checked)}
                />
                <span className="restore-name">{printable(r.workspace)}</span>{" "}
                <span className="muted">· {plural(r.files, "file")}</span>
                {note && (
                  <>
                    {" "}
                    <span className="restore-note">· {note}</span>
                  </>
                )}
              </label>
              {r.target && !impossible && (
                <p className="muted restore-target" data-testid="restore-target">
                  {r.exists ? "Into" : "Made at"} <code>{printable(r.target)}</code>
                </p>
              )}
              {why && (
                <p className="muted restore-why" id={why} data-testid="restore-why">
                  {printable(asSentence(r.why_not ?? ""))}
                </p>
              )}
              {warn && (
                <p className="problem restore-warn" id={warn} role="note" data-testid="restore-warn">
                  Its files will be written into that tool&apos;s memory, which it reads at the start of every session: keep it
                  ticked only if you trust this export.
                </p>
              )}
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
