import type { Copied, TaskInfo, WorkspaceInfo } from "../../lib/bindings";
import { CopyDialog } from "./CopyDialog";
import type { CopySource } from "./CopyDialog";
import { ExportDialog } from "./ExportDialog";
import { ImportDialog } from "./ImportDialog";

/** Which transfer dialog is open. */
export type TransferOpen = { kind: "import"; workspace: string } | { kind: "export"; workspace: string } | { kind: "copy"; source: CopySource };

interface Props {
  open: TransferOpen | null;
  onClose: () => void;
  workspaces: readonly WorkspaceInfo[];
  workspaceLabel: (id: string) => string;
  /** The Mnemo home, for the export's default destination. */
  home: string | null;
  /** The shared task list's tasks (an import's progress). */
  tasks: readonly TaskInfo[];
  onTaskUpdated: (task: TaskInfo) => void;
  /** Memories changed here (an undo, a copy): reload what shows them. */
  onChanged: () => void;
  /** The memory open in the detail pane was moved away: leave it. */
  onMoved: (copied: Copied) => void;
  onOpenMemory: (workspace: string, path: string) => void;
}

/** Import…, Export… and Copy / Move…, as the app opens them. */
export function TransferDialogs({ open, onClose, workspaces, workspaceLabel, home, tasks, onTaskUpdated, onChanged, onMoved, onOpenMemory }: Props) {
  if (!open) return null;
  switch (open.kind) {
    case "import":
      return (
        <ImportDialog
          key={`import-${open.workspace}`}
          workspace={open.workspace}
          workspaceLabel={workspaceLabel}
          tasks={tasks}
          onUpdated={onTaskUpdated}
          onUndone={onChanged}
          onClose={onClose}
        />
      );
    case "export":
      return <ExportDialog key={`export-${open.workspace}`} workspace={open.workspace} workspaceLabel={workspaceLabel(open.workspace)} home={home} onClose={onClose} />;
    case "copy":
      return (
        <CopyDialog
          key={`copy-${open.source.workspace}/${open.source.path}`}
          source={open.source}
          workspaces={workspaces}
          workspaceLabel={workspaceLabel}
          onDone={(copied, moved) => (moved ? onMoved(copied) : onChanged())}
          onUndone={onChanged}
          onOpen={onOpenMemory}
          onClose={onClose}
        />
      );
  }
}
