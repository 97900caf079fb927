import type { MemoryDetail } from "../../lib/bindings";

/** What happened on disk while the memory was open: changed (with the new version), or deleted. */
export type DiskState = { kind: "changed"; fresh: MemoryDetail } | { kind: "deleted" } | null;

interface Props {
  disk: DiskState;
  /** The file is gone and there were no edits to keep. */
  gone: boolean;
  /** "memory", "daily log" or "conversation record". */
  what: string;
  /** Take the version on disk (drop the edits). */
  onReload: (fresh: MemoryDetail) => void;
  /** Keep the edits, based on the version on disk: the next save overwrites it. */
  onKeepMine: (fresh: MemoryDetail) => void;
  /** Keep the edits of a deleted file as a new memory. */
  onRecreate: () => void;
  onClose: () => void;
}

/** The detail pane's banners when the file changed or went away on disk under the open memory. */
export function DiskBanners({ disk, gone, what, onReload, onKeepMine, onRecreate, onClose }: Props) {
  return (
    <>
      {disk?.kind === "changed" && (
        <div className="banner" role="alert" data-testid="disk-banner">
          <span>This memory changed on disk while you were editing.</span>
          <button type="button" onClick={() => onReload(disk.fresh)}>
            Reload
          </button>
          <button type="button" onClick={() => onKeepMine(disk.fresh)}>
            Keep mine
          </button>
        </div>
      )}
      {disk?.kind === "deleted" && (
        <div className="banner" role="alert" data-testid="disk-banner">
          <span>This memory was deleted on disk while you were editing.</span>
          <button type="button" onClick={onClose}>
            Discard
          </button>
          <button type="button" onClick={onRecreate}>
            Keep mine
          </button>
        </div>
      )}
      {gone && (
        <div className="banner" role="status">
          <span>This {what} no longer exists on disk.</span>
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      )}
    </>
  );
}
