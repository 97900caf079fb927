import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { CONFLICT_MARK_TITLE, MemoryList } from "./MemoryList";
import { docKey } from "../../lib/format";
import { CONFLICT_RECALL } from "../../lib/sync";
import { DetailHeader } from "./DetailHeader";
import { groupDocs, hitRows } from "../../lib/rows";
import { DOCS, detailOf } from "../../test/fixtures";
import type { DocSummary } from "../../lib/bindings";

// A file another tool wrote: U+202E (RIGHT-TO-LEFT OVERRIDE) makes "invoice\u202Egpj.md" read as
// "invoicedm.jpg", and an ESC could paint what follows it.
const TRICK: DocSummary = {
  ...DOCS[0],
  path: "invoice\u202Egpj.md",
  name: "invoice\u202Egpj.md",
  description: "paid \u001b[31mtwice",
};
const noop = () => {};

function renderList(rows = groupDocs([TRICK]), highlight = "") {
  return render(
    <MemoryList
      rows={rows}
      cursorKey={null}
      openKey={null}
      showWorkspace
      workspaceLabel={(id) => (id === "personal" ? "Per\u2066sonal" : id)}
      collapsed={new Set()}
      empty="Nothing"
      onCursor={noop}
      onOpen={noop}
      onToggleGroup={noop}
      highlight={highlight}
    />,
  );
}

describe("names from disk, shown escaped", () => {
  it("shows a memory name holding U+202E as a visible escape, never as the override", () => {
    renderList();
    const row = screen.getByTestId("memory-row");
    expect(row.querySelector(".row-name")!.textContent).toBe("invoice\\u{202e}gpj.md");
    expect(row.querySelector(".row-desc")!.textContent).toBe("paid \\u{1b}[31mtwice");
    expect(row.querySelector(".row-ws")!.textContent).toBe("Per\\u{2066}sonal");
    expect(row.getAttribute("title")).toBe("invoice\\u{202e}gpj.md");
    for (const raw of ["\u202e", "\u001b", "\u2066"]) expect(row.textContent).not.toContain(raw);
    // The path itself is untouched where it is an address, not a label.
    expect(row.getAttribute("data-path")).toBe("invoice\u202Egpj.md");
  });

  it("escapes a search result's title too, with the search's words still marked", () => {
    const hit = { workspace: "personal", path: TRICK.path, score: 0.9, name: TRICK.name, type: TRICK.type, description: "", mtime: TRICK.mtime, matched: ["invoice"] };
    renderList(hitRows([hit], new Map()), "invoice");
    const name = screen.getByTestId("memory-row").querySelector(".row-name")!;
    expect(name.textContent).toBe("invoice\\u{202e}gpj.md");
    expect(name.querySelector("mark")!.textContent).toBe("invoice");
  });

  it("marks only the words search matched: never “the” or “user”, nothing for a match by meaning", () => {
    const base = { workspace: "personal", score: 0.5, type: "user" as const, mtime: TRICK.mtime };
    const hits = [
      { ...base, path: "dog.md", name: "Dog named Biscuit", description: "the user walks the beagle", matched: [] },
      { ...base, path: "pets.md", name: "Pets the user owns", description: "", matched: ["pets"] },
    ];
    renderList(hitRows(hits, new Map()), "which pet does the user own");
    const [dog, pets] = screen.getAllByTestId("memory-row");
    expect(dog.querySelectorAll("mark")).toHaveLength(0);
    expect([...pets.querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["Pets"]);
  });

  it("escapes the detail header's name and path", () => {
    const base = detailOf(TRICK);
    render(
      <DetailHeader
        isNew={false}
        title={base.name}
        wsLabel="Personal"
        base={base}
        readOnly
        dirty={false}
        saving={false}
        onOpenFolder={null}
        onPinned={noop}
        archiving={false}
        onArchive={noop}
        onCopy={null}
        onDelete={noop}
        onSave={noop}
        onCancel={noop}
      />,
    );
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("invoice\\u{202e}gpj.md");
    expect(screen.getByText("invoice\\u{202e}gpj.md", { selector: "code" })).toBeTruthy();
  });
});

describe("a memory with an open sync conflict", () => {
  it("has a mark on its row saying so, and what it means for recall; other rows none", () => {
    const docs = [DOCS[0], DOCS[1]];
    render(
      <MemoryList
        rows={groupDocs(docs)}
        cursorKey={null}
        openKey={null}
        showWorkspace={false}
        workspaceLabel={(id) => id}
        collapsed={new Set()}
        empty="Nothing"
        onCursor={noop}
        onOpen={noop}
        onToggleGroup={noop}
        conflicted={new Set([docKey(DOCS[1].workspace, DOCS[1].path)])}
      />,
    );
    const rows = screen.getAllByTestId("memory-row");
    const marked = rows.filter((r) => r.querySelector('[data-testid="conflict-mark"]'));
    expect(marked.map((r) => r.getAttribute("data-path"))).toEqual([DOCS[1].path]);
    const mark = screen.getByRole("img", { name: "Sync conflict" });
    expect(mark.getAttribute("title")).toBe(CONFLICT_MARK_TITLE);
    expect(CONFLICT_MARK_TITLE).toContain(CONFLICT_RECALL);
  });
});
