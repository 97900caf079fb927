import { describe, expect, it } from "vitest";
import { actorOf, changesById, countFiles, groupUndoneText, historyRows, undoNote, undoneText } from "./history";
import { change } from "../test/fixtures";

const summary = (rows: ReturnType<typeof historyRows>) =>
  rows.map((r) => (r.kind === "change" ? r.change.id : `g${r.group}[${r.changes.map((c) => c.id).join(",")}]`));

describe("historyRows", () => {
  it("keeps single changes as their own rows", () => {
    const rows = historyRows([change(3, "a.md"), change(2, "b.md"), change(1, "a.md", { group: undefined })]);
    expect(summary(rows)).toEqual([3, 2, 1]);
    expect(rows[0]).toMatchObject({ kind: "change", key: "c3" });
  });

  it("folds consecutive changes of one group into one row", () => {
    const rows = historyRows([
      change(9, "c.md"),
      change(8, "b.md", { group: 4, source: "extract", at: "2026-03-01T10:00:08Z" }),
      change(7, "a.md", { group: 4, source: "extract", op: "create" }),
      change(6, "b.md", { group: 4, source: "extract" }),
      change(5, "a.md"),
    ]);
    expect(summary(rows)).toEqual([9, "g4[8,7,6]", 5]);
    const g = rows[1];
    expect(g).toMatchObject({
      kind: "group",
      group: 4,
      workspace: "personal",
      label: "extract",
      at: "2026-03-01T10:00:08Z",
      paths: ["b.md", "a.md"],
    });
    expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
  });

  it("splits different groups, and a group interrupted by other changes", () => {
    const rows = historyRows([
      change(6, "a.md", { group: 2 }),
      change(5, "b.md", { group: 1 }),
      change(4, "c.md", { group: 1 }),
      change(3, "x.md"),
      change(2, "d.md", { group: 1 }),
    ]);
    expect(summary(rows)).toEqual(["g2[6]", "g1[5,4]", 3, "g1[2]"]);
    expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
  });

  it("labels a group undo as an undo", () => {
    const rows = historyRows([change(12, "a.md", { group: 7, undoes: 8 }), change(11, "b.md", { group: 7, undoes: 6 })]);
    expect(rows[0]).toMatchObject({ kind: "group", label: "undo" });
  });

  it("labels the undo of a group undo (Redo) as a redo, not as a second undo", () => {
    const rows = historyRows([
      change(20, "a.md", { group: 9, undoes: 12 }),
      change(19, "b.md", { group: 9, undoes: 11 }),
      change(12, "a.md", { group: 7, undoes: 8 }),
      change(11, "b.md", { group: 7, undoes: 6 }),
    ]);
    expect(rows.map((r) => (r.kind === "group" ? r.label : null))).toEqual(["redo", "undo"]);
  });

  it("is empty for no changes", () => {
    expect(historyRows([])).toEqual([]);
  });
});

describe("countFiles", () => {
  it("pluralises", () => {
    expect(countFiles(1)).toBe("1 file");
    expect(countFiles(2)).toBe("2 files");
  });
});

describe("who made a change", () => {
  it("tells the command line from the app, and an unknown source by its own name", () => {
    expect(actorOf("user").label).toBe("You");
    expect(actorOf("cli").label).toBe("You, at the command line");
    expect(actorOf("watcher").label).toBe("Outside editor");
    expect(actorOf("sync")).toEqual({ label: "Sync", icon: "⇅" });
    // A source this build does not know yet (a newer server): its own name.
    expect(actorOf("robot").label).toBe("robot");
  });
});

describe("undone and redone, in words", () => {
  const items = [
    change(13, "a.md", { undoes: 12 }),
    change(12, "a.md", { undoes: 9, undone_by: 13 }),
    change(9, "a.md", { undone_by: 12 }),
    change(8, "c.md", { group: 4, undoes: 5 }),
    change(7, "b.md", { group: 4, undoes: 3 }),
    change(6, "x.md", { group: 4, undoes: 2 }),
    change(5, "c.md", { undone_by: 8 }),
  ];
  const byId = changesById(items);

  it("names a single undo by its change, and a group's undo by how many changes went with it", () => {
    expect(undoneText(12, byId)).toBe("undone by change #12");
    expect(undoneText(8, byId)).toBe("undone with 2 other changes");
    // The undo is not listed (older than the page): its number, said to be a change.
    expect(undoneText(99, byId)).toBe("undone by change #99");
    expect(groupUndoneText(4)).toBe("undone by change group 4");
  });

  it("says a redo brings a change back, and an undo what it undid", () => {
    expect(undoNote(byId.get(13)!, byId)).toBe("redo of #9");
    expect(undoNote(byId.get(12)!, byId)).toBe("undoes #9");
    expect(undoNote(byId.get(9)!, byId)).toBeNull();
  });
});
