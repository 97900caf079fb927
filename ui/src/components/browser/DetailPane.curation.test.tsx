// Curation in the detail pane: the Facts view — current facts with Replace…, replaced
// ones in their chain, oldest first —, the Replace dialog and its Undo, and Archive / Restore.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { clearMocks } from "@tauri-apps/api/mocks";
import { DetailPane } from "./DetailPane";
import { ToastProvider } from "../common/Toasts";
import { commands } from "../../lib/bindings";
import type { MemoryDetail } from "../../lib/bindings";
import { DOCS, WORKSPACES, detailOf, err, ok } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    get: vi.fn(),
    update: vi.fn(),
    remove: vi.fn(),
    history: vi.fn(),
    openFolder: vi.fn(),
    setPinned: vi.fn(),
    memoryUsage: vi.fn(),
    setArchived: vi.fn(),
    replaceEntry: vi.fn(),
    undo: vi.fn(),
  },
}));

const api = vi.mocked(commands);

type W = Window & { __TAURI_INTERNALS__?: unknown };

beforeEach(() => {
  delete (window as W).__TAURI_INTERNALS__;
  api.get.mockResolvedValue(ok(detailOf(DOCS[0])));
  api.openFolder.mockResolvedValue(ok(null));
  api.memoryUsage.mockResolvedValue(ok([]));
});

afterEach(() => {
  clearMocks();
  delete (window as W).__TAURI_INTERNALS__;
});

function renderPane(path = DOCS[0].path) {
  const noop = () => {};
  return render(
    <ToastProvider>
      <DetailPane
        target={{ mode: "existing", workspace: "personal", path }}
        workspaces={WORKSPACES}
        onDirtyChange={noop}
        onCreated={noop}
        onSaved={noop}
        onDeleted={noop}
        onClose={noop}
        onRecreate={noop}
      />
    </ToastProvider>,
  );
}

async function loaded() {
  await waitFor(() => expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe(DOCS[0].name));
}

/** home.md: Berlin replaced by Porto, Porto by Lisbon (each old fact just before its successor), and a cat. */
function home(hash = "h1", extra: Partial<MemoryDetail> = {}): MemoryDetail {
  const body =
    "- Lives in Berlin\n  Superseded: 2026-11-20 by \"Lives in Porto\"; moved\n\n" +
    "- Lives in Porto\n  Superseded: 2026-11-26 by \"Lives in Lisbon\"; extraction\n\n" +
    "- Lives in Lisbon\n  Why: said so in chat\n\n" +
    "- 养了一只猫，叫小米\n";
  return {
    ...detailOf({ ...DOCS[0], path: "home.md", name: "Home", description: "Where the user lives", type: "user" }, hash),
    body,
    content: `---\nname: Home\ndescription: Where the user lives\ntype: user\n---\n${body}`,
    entries: [
      { id: "home.md:1", summary: "Lives in Berlin", superseded: { at: "2026-11-20", by: "Lives in Porto", why: "moved" } },
      { id: "home.md:2", summary: "Lives in Porto", superseded: { at: "2026-11-26", by: "Lives in Lisbon", why: "extraction" } },
      { id: "home.md:3", summary: "Lives in Lisbon", why: "said so in chat" },
      { id: "home.md:4", summary: "养了一只猫，叫小米" },
    ],
    ...extra,
  };
}

async function openFacts() {
  renderPane("home.md");
  await loaded_("Home");
  fireEvent.click(screen.getByTestId("facts-toggle"));
  return screen.findByTestId("facts-view");
}

async function loaded_(name: string) {
  await waitFor(() => expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe(name));
}

describe("facts and the supersession chain", () => {
  beforeEach(() => {
    api.get.mockResolvedValue(ok(home()));
  });

  it("says in the editor view that replaced facts are kept, and shows them on request", async () => {
    renderPane("home.md");
    await loaded_("Home");
    const note = screen.getByTestId("replaced-note");
    expect(note.textContent).toContain("2 replaced facts are kept in this file, marked “Superseded:”; recall never uses them.");
    fireEvent.click(within(note).getByRole("button", { name: "Show the facts" }));
    expect(await screen.findByTestId("facts-view")).toBeTruthy();
    expect(screen.getByTestId("facts-toggle").getAttribute("aria-pressed")).toBe("true");
    expect(screen.queryByTestId("replaced-note")).toBeNull();
  });

  it("lists current facts, then the replaced ones struck through, oldest first, each with its sentence — in words, not colour", async () => {
    const view = await openFacts();
    const current = within(view).getByTestId("facts-current");
    expect(within(current).getByRole("heading").textContent).toContain("Current facts (2)");
    expect(within(current).getAllByTestId("fact").map((f) => f.getAttribute("data-id"))).toEqual(["home.md:3", "home.md:4"]);
    expect(within(current).getAllByTestId("fact")[0].textContent).toContain("Why: said so in chat");
    const replaced = within(view).getByTestId("facts-replaced");
    expect(within(replaced).getByRole("heading").textContent).toContain("Replaced facts (2)");
    const steps = within(replaced).getAllByTestId("replaced-fact");
    expect(steps.map((f) => f.getAttribute("data-id"))).toEqual(["home.md:1", "home.md:2"]);
    // Struck through (<del>) and tagged "Replaced" in text.
    expect(steps[0].querySelector("del")?.textContent).toBe("Lives in Berlin");
    expect(steps.every((f) => f.textContent?.startsWith("Replaced"))).toBe(true);
    expect(within(replaced).getAllByTestId("replaced-sentence").map((x) => x.textContent)).toEqual([
      "Replaced on 20 Nov 2026 by “Lives in Porto” — moved.",
      "Replaced on 26 Nov 2026 by “Lives in Lisbon” — rewritten by extraction.",
    ]);
    // The chain ends at the fact that stands now.
    expect(within(replaced).getByTestId("chain-now").textContent).toBe("NowLives in Lisbon");
    // Replace… only on current facts.
    expect(within(current).getAllByTestId("fact-replace")).toHaveLength(2);
    expect(within(replaced).queryByTestId("fact-replace")).toBeNull();
  });

  it("replaces a fact from a small dialog: the old text to start from, why it changed; then the memory is read again and Undo is offered", async () => {
    const outcome = { workspace: "personal", path: "home.md", change_id: 31, hash: "h2", shared: null };
    api.replaceEntry.mockResolvedValue(ok(outcome));
    api.undo.mockResolvedValue(ok({ ...outcome, change_id: 32, hash: "h1" }));
    const view = await openFacts();
    const lisbon = within(view).getAllByTestId("fact")[0];
    const button = within(lisbon).getByTestId("fact-replace");
    // A button, reachable by keyboard, described by the fact it replaces.
    expect(button.tagName).toBe("BUTTON");
    expect(document.getElementById(button.getAttribute("aria-describedby") ?? "")?.textContent).toBe("Lives in Lisbon");
    fireEvent.click(button);
    const dialog = await screen.findByTestId("replace-dialog");
    expect(within(dialog).getByTestId("replace-old").textContent).toBe("Lives in Lisbon");
    const text = within(dialog).getByTestId<HTMLTextAreaElement>("replace-text");
    expect(text.value).toBe("- Lives in Lisbon\n  Why: said so in chat");
    expect(document.activeElement).toBe(text);
    // Unchanged, it cannot be saved, and says why.
    expect(within(dialog).getByTestId<HTMLButtonElement>("replace-save").disabled).toBe(true);
    expect(dialog.textContent).toContain("This is the fact as it is now: change it, or cancel.");
    fireEvent.change(text, { target: { value: "- Lives in Madrid\n  Why: moved in November" } });
    fireEvent.change(within(dialog).getByTestId("replace-why"), { target: { value: "moved" } });
    const after = home("h2", {
      entries: [...home().entries.slice(0, 2), { id: "home.md:3", summary: "Lives in Lisbon", superseded: { at: "2026-11-27", by: "Lives in Madrid", why: "moved" } }, { id: "home.md:4", summary: "Lives in Madrid" }, { id: "home.md:5", summary: "养了一只猫，叫小米" }],
    });
    api.get.mockResolvedValue(ok(after));
    fireEvent.click(within(dialog).getByTestId("replace-save"));
    await waitFor(() => expect(api.replaceEntry).toHaveBeenCalledWith("personal", "home.md", "home.md:3", "- Lives in Madrid\n  Why: moved in November", "moved"));
    await waitFor(() => expect(screen.queryByTestId("replace-dialog")).toBeNull());
    // Read again: the chain now runs Berlin → Porto → Lisbon → Madrid.
    await waitFor(() => expect(screen.getAllByTestId("replaced-fact").map((f) => f.getAttribute("data-id"))).toEqual(["home.md:1", "home.md:2", "home.md:3"]));
    expect(screen.getByTestId("chain-now").textContent).toContain("Lives in Madrid");
    const toast = await screen.findByTestId("toast");
    expect(toast.textContent).toContain("Replaced. The old fact is kept as replaced");
    fireEvent.click(within(toast).getByRole("button", { name: "Undo" }));
    await waitFor(() => expect(api.undo).toHaveBeenCalledWith(31));
    expect(await screen.findByText("Undone: the fact is back as it was.")).toBeTruthy();
  });

  it("explains a refused replace in a sentence and offers to reload the memory", async () => {
    api.replaceEntry.mockResolvedValue(err("conflict", "`home.md:3` is not a current entry of `home.md` (it may be superseded already): reload it"));
    const view = await openFacts();
    fireEvent.click(within(view).getAllByTestId("fact-replace")[1]);
    const dialog = await screen.findByTestId("replace-dialog");
    fireEvent.change(within(dialog).getByTestId("replace-text"), { target: { value: "养了两只猫" } });
    fireEvent.click(within(dialog).getByTestId("replace-save"));
    const error = await within(dialog).findByTestId("inline-error");
    expect(error.getAttribute("data-code")).toBe("conflict");
    expect(error.textContent).toContain("This fact was already replaced, or the memory changed since you opened it. Nothing was saved");
    expect(error.textContent).not.toMatch(/`|home\.md:3/);
    api.get.mockResolvedValue(ok(home("h9")));
    fireEvent.click(within(error).getByTestId("replace-reload"));
    await waitFor(() => expect(screen.queryByTestId("replace-dialog")).toBeNull());
    await waitFor(() => expect(api.get).toHaveBeenCalledTimes(2));
  });

  it("waits for unsaved edits before a fact can be replaced", async () => {
    renderPane("home.md");
    await loaded_("Home");
    fireEvent.change(screen.getByTestId("detail-name"), { target: { value: "Home, edited" } });
    fireEvent.click(screen.getByTestId("facts-toggle"));
    const view = await screen.findByTestId("facts-view");
    expect(view.textContent).toContain("These are the facts as last saved.");
    expect(within(view).getAllByTestId<HTMLButtonElement>("fact-replace").every((b) => b.disabled)).toBe(true);
  });

  it("offers no Facts view for a daily log", async () => {
    api.get.mockResolvedValue(ok({ ...detailOf(DOCS[0]), kind: "log" as const, type: null, path: "logs/2026/03/2026-03-01.md" }));
    renderPane("logs/2026/03/2026-03-01.md");
    await waitFor(() => expect(screen.getByText("Daily log")).toBeTruthy());
    expect(screen.queryByTestId("facts-toggle")).toBeNull();
  });
});

describe("Archive", () => {
  const outcome = { workspace: "personal", path: DOCS[0].path, change_id: 12, hash: "h2", shared: null };

  it("archives from the header beside Pin, says what that means with Restore, and offers Undo", async () => {
    api.setArchived.mockResolvedValue(ok(outcome));
    api.undo.mockResolvedValue(ok({ ...outcome, change_id: 13 }));
    renderPane();
    await loaded();
    expect(screen.queryByTestId("detail-archived")).toBeNull();
    const button = screen.getByTestId("archive-button");
    expect(button.textContent).toBe("Archive");
    expect(button.getAttribute("aria-pressed")).toBe("false");
    // Beside the pin toggle.
    expect(screen.getByTestId("pin-button").nextElementSibling).toBe(button);
    api.get.mockResolvedValue(ok({ ...detailOf(DOCS[0], "h2"), archived: true }));
    fireEvent.click(button);
    await waitFor(() => expect(api.setArchived).toHaveBeenCalledWith("personal", DOCS[0].path, true));
    const note = await screen.findByTestId("detail-archived");
    expect(note.textContent).toContain("Archived: it is not recalled and not in MEMORY.md; it stays searchable.");
    expect(screen.getByTestId("archive-button").textContent).toBe("Restore");
    const toast = await screen.findByTestId("toast");
    expect(toast.textContent).toContain("Archived: it is no longer recalled or in MEMORY.md; it stays searchable.");
    fireEvent.click(within(toast).getByRole("button", { name: "Undo" }));
    await waitFor(() => expect(api.undo).toHaveBeenCalledWith(12));
    expect(await screen.findByText("Undone: it is back in recall and MEMORY.md.")).toBeTruthy();
  });

  it("restores an archived memory from its note", async () => {
    api.get.mockResolvedValue(ok({ ...detailOf(DOCS[0]), archived: true }));
    api.setArchived.mockResolvedValue(ok(outcome));
    renderPane();
    await loaded();
    api.get.mockResolvedValue(ok({ ...detailOf(DOCS[0], "h2"), archived: false }));
    fireEvent.click(within(await screen.findByTestId("detail-archived")).getByTestId("detail-restore"));
    await waitFor(() => expect(api.setArchived).toHaveBeenCalledWith("personal", DOCS[0].path, false));
    await waitFor(() => expect(screen.queryByTestId("detail-archived")).toBeNull());
    expect(await screen.findByText("Restored: it is recalled again and listed in MEMORY.md.")).toBeTruthy();
  });

  it("shows a refusal inline and waits for unsaved edits", async () => {
    api.setArchived.mockResolvedValue(err("locked", "another job holds the lock"));
    renderPane();
    await loaded();
    fireEvent.click(screen.getByTestId("archive-button"));
    expect((await screen.findByTestId("inline-error")).getAttribute("data-code")).toBe("locked");
    fireEvent.change(screen.getByTestId("detail-name"), { target: { value: "Edited" } });
    expect(screen.getByTestId<HTMLButtonElement>("archive-button").disabled).toBe(true);
  });
});
