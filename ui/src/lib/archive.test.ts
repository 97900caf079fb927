import { describe, expect, it } from "vitest";
import {
  ARCHIVED_NOTE,
  archiveAllText,
  archiveAllTitle,
  archiveLabel,
  archiveTitle,
  archiveUndoneToast,
  archivedToast,
  partlyArchived,
  restoredToast,
} from "./archive";

describe("archive sentences", () => {
  it("says what archiving does in the detail pane: out of recall and MEMORY.md, still searchable", () => {
    expect(ARCHIVED_NOTE).toBe("Archived: it is not recalled and not in MEMORY.md; it stays searchable.");
  });

  it("labels the toggle by what it will do, and waits for unsaved edits", () => {
    expect(archiveLabel(false, false)).toBe("Archive");
    expect(archiveLabel(true, false)).toBe("Restore");
    expect(archiveLabel(false, true)).toBe("Archiving…");
    expect(archiveLabel(true, true)).toBe("Restoring…");
    expect(archiveTitle(false, true)).toBe("Save or discard your edits first");
    expect(archiveTitle(false, false)).toMatch(/out of recall and MEMORY\.md/);
    expect(archiveTitle(true, false)).toMatch(/^Bring it back/);
  });

  it("words the toasts for one memory, several, or the open one", () => {
    expect(archivedToast()).toBe("Archived: it is no longer recalled or in MEMORY.md; it stays searchable.");
    expect(archivedToast(["旧笔记"])).toBe("Archived “旧笔记”: it is no longer recalled or in MEMORY.md; it stays searchable.");
    expect(archivedToast(["a.md", "b.md", "c.md"])).toBe("Archived 3 memories: they are no longer recalled or in MEMORY.md; they stay searchable.");
    expect(restoredToast()).toBe("Restored: it is recalled again and listed in MEMORY.md.");
    expect(restoredToast(["old.md"])).toBe("Restored “old.md”: it is recalled again and listed in MEMORY.md.");
    expect(archiveUndoneToast(true)).toBe("Undone: it is archived again.");
    expect(archiveUndoneToast(false)).toBe("Undone: it is back in recall and MEMORY.md.");
  });

  it("asks before archiving many, and says how far it got when one fails", () => {
    expect(archiveAllTitle(1)).toBe("Archive 1 memory?");
    expect(archiveAllTitle(1200)).toBe("Archive 1,200 memories?");
    expect(archiveAllText(1)).toMatch(/^It will no longer be recalled/);
    expect(archiveAllText(4)).toMatch(/^They will no longer be recalled/);
    expect(partlyArchived(2, 5)).toBe("Archived 2 of 5; the next one could not be archived:");
  });
});
