import type { WorkspaceInfo } from "../../lib/bindings";
import { printable } from "../../lib/printable";

interface Props {
  workspaces: WorkspaceInfo[];
  onSelect: (id: string) => void;
  /** The view's title ("Status", "Inbox"). */
  title?: string;
  /** Why a workspace is needed, before "Choose one:". */
  why?: string;
  testId?: string;
}

/** A per-workspace view with "All workspaces" selected: pick one. */
export function WorkspaceChooser({ workspaces, onSelect, title = "Status", why = "Status is kept per workspace.", testId = "status-choose" }: Props) {
  return (
    <>
      <header className="pane-header">
        <h1>{title}</h1>
      </header>
      <div className="status-body">
        <p className="muted">{why} Choose one:</p>
        <ul className="status-chooser">
          {workspaces.map((w) => (
            <li key={w.id}>
              <button type="button" className="link-button" data-testid={testId} data-id={w.id} title={printable(w.origin)} onClick={() => onSelect(w.id)}>
                {printable(w.label)}
              </button>{" "}
              <span className="muted">{w.counts.topics} memories</span>
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}
