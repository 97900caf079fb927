import { describe, expect, it } from "vitest";
import type { EntryOut, SyncConflict } from "./bindings";
import { conflictsFor, disagreeSentence, entryParts, inConflictLead, isVersion, splitByConflicts } from "./memoryConflicts";
import { CONFLICT_RECALL } from "./sync";
import { remoteSync, syncConflict, workspaceSync } from "../test/fixtures";

/** Two homes wrote where the user lives differently; the merge kept both in home.md. */
const LISBON = "- Lives in Lisbon since 2021\nWhy: said so in chat";
const PORTO = "- Lives in Porto since 2024\nWhy: moved for work";
const home: SyncConflict = syncConflict({
  id: "c-home",
  path: "home.md",
  choices: [
    { label: "Ana's version", texts: [LISBON] },
    { label: "laptop's version", texts: [PORTO] },
  ],
});

const ENTRIES: EntryOut[] = [
  { id: "home.md:1", summary: "Lives in Lisbon since 2021", why: "said so in chat" },
  { id: "home.md:2", summary: "Lives in Porto since 2024", why: "moved for work" },
  { id: "home.md:3", summary: "Has a cat called Xiaomi" },
];

describe("the conflicts of one memory", () => {
  it("are the open conflicts of its workspace and path", () => {
    const other = syncConflict({ id: "c-other", path: "prefs.md" });
    const s = remoteSync({
      workspaces: [workspaceSync({ conflicts: [home, other] }), workspaceSync({ workspace: "team", conflicts: [{ ...home, id: "c-team" }] })],
    });
    expect(conflictsFor(s, "personal", "home.md").map((c) => c.id)).toEqual(["c-home"]);
    expect(conflictsFor(s, "team", "home.md").map((c) => c.id)).toEqual(["c-team"]);
    expect(conflictsFor(s, "personal", "travel.md")).toEqual([]);
    expect(conflictsFor(null, "personal", "home.md")).toEqual([]);
  });

  it("reads a version's text as the store splits an entry", () => {
    expect(entryParts(LISBON)).toEqual({ summary: "Lives in Lisbon since 2021", why: "said so in chat", how: null });
    expect(entryParts("只坐靠窗的座位。\nHow to apply: 订票时选靠窗")).toEqual({ summary: "只坐靠窗的座位。", why: null, how: "订票时选靠窗" });
    expect(isVersion(ENTRIES[0], LISBON)).toBe(true);
    expect(isVersion(ENTRIES[0], PORTO)).toBe(false);
    // The same first line with another reason is another version.
    expect(isVersion(ENTRIES[0], "- Lives in Lisbon since 2021\nWhy: a guess")).toBe(false);
    expect(isVersion(ENTRIES[0], "")).toBe(false);
  });

  it("never lists both versions as current: they go with their conflict, the other facts stay current", () => {
    const split = splitByConflicts(ENTRIES, [home]);
    expect(split.current.map((e) => e.id)).toEqual(["home.md:3"]);
    expect(split.inConflict).toHaveLength(1);
    const [{ conflict, versions }] = split.inConflict;
    expect(conflict.id).toBe("c-home");
    expect(versions.map((v) => [v.index, v.label, v.entries.map((e) => e.id), v.deletes])).toEqual([
      [0, "Ana's version", ["home.md:1"], false],
      [1, "laptop's version", ["home.md:2"], false],
    ]);
  });

  it("keeps a deletion as a version without facts, and leaves out conflicts of a field or of versions no longer in the file", () => {
    const deleted = syncConflict({
      id: "c-del",
      path: "home.md",
      kind: "deleted_and_edited",
      choices: [
        { label: "keep Ana's edit", texts: [PORTO] },
        { label: "delete it, as laptop did", texts: [] },
      ],
    });
    const field = syncConflict({ id: "c-field", path: "home.md", kind: "field", field: "description", choices: [{ label: "Ana's description", texts: ["Where the user lives"] }, { label: "laptop's description", texts: ["Home town"] }] });
    const gone = syncConflict({ id: "c-gone", path: "home.md", choices: [{ label: "Ana's version", texts: ["Lives in Berlin"] }, { label: "Bo's version", texts: ["Lives in Paris"] }] });
    const split = splitByConflicts(ENTRIES, [deleted, field, gone]);
    expect(split.current.map((e) => e.id)).toEqual(["home.md:1", "home.md:3"]);
    expect(split.inConflict.map((g) => g.conflict.id)).toEqual(["c-del"]);
    expect(split.inConflict[0].versions[1]).toEqual({ index: 1, label: "delete it, as laptop did", entries: [], deletes: true });
  });

  it("says in a sentence that the machines disagree and what the file holds; what that means for recall is the one sentence", () => {
    expect(disagreeSentence(home)).toBe(
      "Your machines disagree about this memory: the same fact was changed differently on two of them. Both versions are in the file.",
    );
    expect(disagreeSentence({ ...home, kind: "deleted_and_edited" })).toMatch(/^Your machines disagree about this memory: one deleted a fact that another changed\. The changed fact stays in the file\.$/);
    expect(disagreeSentence({ ...home, kind: "field", field: "description" })).toBe("Your machines disagree about this memory's description: this machine's is kept.");
    // Three places once gave three rules ("recall reads both", "neither counts as current",
    // "what is here now stays"). The Facts lead says the one sentence, and no rule of its own.
    for (const n of [1, 2]) {
      expect(inConflictLead(n)).toContain(CONFLICT_RECALL);
      expect(inConflictLead(n)).not.toMatch(/counts as current|recall reads both/);
    }
    for (const c of [home, { ...home, kind: "deleted_and_edited" as const }, { ...home, kind: "field" as const }]) {
      expect(disagreeSentence(c)).not.toMatch(/recall|counts as current/);
    }
  });
});
