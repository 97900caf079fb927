import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { HistoryPanel } from "./HistoryPanel";
import { ToastProvider } from "../common/Toasts";
import { commands } from "../../lib/bindings";
import type { ChangeDiff, ChangeSummary, GroupInfo } from "../../lib/bindings";
import { DOCS, change, err, ok } from "../../test/fixtures";

const DOC = DOCS[0];

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    history: vi.fn(),
    list: vi.fn(),
    diff: vi.fn(),
    undo: vi.fn(),
    changeGroup: vi.fn(),
    undoGroup: vi.fn(),
  },
}));

const api = vi.mocked(commands);

const EXTRACT_A = change(8, "travel-prefs.md", { group: 3, source: "extract", op: "create", at: "2026-03-01T10:00:08Z" });
const EXTRACT_B = change(7, "tea.md", { group: 3, source: "extract", at: "2026-03-01T10:00:07Z" });
const SINGLE = change(6, "go-engineer.md", { op: "delete" });
const ITEMS: ChangeSummary[] = [change(9, "me.md"), EXTRACT_A, EXTRACT_B, SINGLE];

const GROUP: GroupInfo = {
  id: 3,
  workspace: "personal",
  kind: "extract",
  task: "t-1",
  label: "Extraction after chat “Trip planning”",
  at: "2026-03-01T10:00:06Z",
  undoes: null,
  undone_by: null,
  changes: [EXTRACT_B, EXTRACT_A],
};

const TEXT: Record<number, [string | null, string | null]> = {
  6: ["go\n", null],
  7: ["green tea\n", "oolong tea\n"],
  8: [null, "window seat\n"],
  9: ["a\n", "b\n"],
};

const onOpen = vi.fn();
const onUndone = vi.fn();

beforeEach(() => {
  onOpen.mockReset();
  onUndone.mockReset();
  api.history.mockResolvedValue(ok(ITEMS));
  api.diff.mockImplementation(async (id) => {
    const c = ITEMS.find((x) => x.id === id);
    if (!c) return err("not_found", `no change ${id}`);
    const [before, after] = TEXT[id];
    const d: ChangeDiff = { change: c, before, after, withheld: null, undoable: true };
    return ok(d);
  });
  api.changeGroup.mockResolvedValue(ok(GROUP));
  // The memories as they are now (go-engineer.md was deleted: its row shows the file).
  api.list.mockResolvedValue(
    ok([
      { ...DOC, path: "me.md", name: "About me" },
      { ...DOC, path: "travel-prefs.md", name: "Travel preferences" },
      { ...DOC, path: "tea.md", name: "Tea" },
    ]),
  );
});

function renderPanel() {
  return render(
    <ToastProvider>
      <HistoryPanel wide workspace="personal" path={null} onOpen={onOpen} onUndone={onUndone} />
    </ToastProvider>,
  );
}

const rowKinds = () =>
  within(screen.getByRole("listbox", { name: "Changes" }))
    .getAllByRole("option")
    .map((o) => o.getAttribute("data-testid"));

describe("history with change groups", () => {
  it("leads each row with the memory's name, the file kept for one that no longer exists", async () => {
    renderPanel();
    await waitFor(() => expect(screen.getAllByTestId("history-item")[0].querySelector(".history-name")?.textContent).toBe("About me"));
    expect(api.list).toHaveBeenCalledWith("personal", null);
    expect(screen.getByTestId("history-group").querySelector(".history-name")?.textContent).toBe("Travel preferences, Tea");
    expect(screen.getAllByTestId("history-item")[1].querySelector(".history-name")?.textContent).toBe("go-engineer.md");
  });

  it("titles a deleted memory by the name it had and a record by its day, each shown escaped", async () => {
    const PET = change(12, "user/pet.md", { op: "delete" });
    const RECORD = change(11, "chats/2026/11/2026-11-20-s1.md", { op: "delete" });
    const LOG = change(10, "logs/2026/11/2026-11-21.md", { op: "modify" });
    const TRICK = change(13, "trick.md", { op: "delete" });
    const items = [TRICK, PET, RECORD, LOG];
    api.history.mockResolvedValue(ok(items));
    const before: Record<number, string> = {
      12: "---\nname: \"The user's pet\"\ndescription: A cat\ntype: user\n---\nA cat called Xiaomi.\n",
      13: "---\nname: evil\u202Egpj.md\ntype: user\n---\nx\n",
    };
    api.diff.mockImplementation(async (id) => {
      const c = items.find((x) => x.id === id)!;
      return ok({ change: c, before: before[id] ?? "text\n", after: null, withheld: null, undoable: true });
    });
    renderPanel();
    const name = (id: number) => screen.getAllByTestId("history-item").find((r) => r.getAttribute("data-id") === String(id))?.querySelector(".history-name")?.textContent;
    await waitFor(() => expect(name(12)).toBe("The user's pet"));
    expect(name(13)).toBe("evil\\u{202e}gpj.md");
    const day = (d: number) => new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric" }).format(new Date(2026, 10, d));
    expect(name(11)).toBe(`Conversation record, ${day(20)}`);
    expect(name(10)).toBe(`Daily log, ${day(21)}`);
    // Records are not read: their title comes from their path.
    expect(api.diff).not.toHaveBeenCalledWith(11);
    for (const raw of ["\u202e"]) expect(document.body.textContent).not.toContain(raw);
  });

  it("shows a change group as one row, opening to its files with their diffs", async () => {
    renderPanel();
    await waitFor(() => expect(rowKinds()).toEqual(["history-item", "history-group", "history-item"]));
    const group = screen.getByTestId("history-group");
    expect(group.getAttribute("data-group")).toBe("3");
    // Who made it is the chip's ("Extraction"), never the raw source word ("extract").
    expect(group.querySelector(".history-op")?.textContent).toBe("2 files changed together");
    expect(group.querySelector(".source-chip")?.textContent).toBe("Extraction");
    expect(group.textContent).toContain("travel-prefs.md, tea.md");

    fireEvent.click(group);
    expect(group.getAttribute("aria-selected")).toBe("true");
    const detail = await screen.findByTestId("group-detail");
    await waitFor(() => expect(api.changeGroup).toHaveBeenCalledWith(3));
    expect(within(detail).getByText(GROUP.label)).toBeTruthy();
    const files = await within(detail).findAllByTestId("group-file");
    expect(files.map((f) => f.getAttribute("data-path"))).toEqual(["tea.md", "travel-prefs.md"]);
    await waitFor(() => expect(within(files[0]).getByText("oolong tea")).toBeTruthy());
    expect(within(files[1]).getByText("window seat")).toBeTruthy();
    expect(api.diff).toHaveBeenCalledWith(7);
    expect(api.diff).toHaveBeenCalledWith(8);

    fireEvent.click(within(files[1]).getByRole("button", { name: "Open memory" }));
    expect(onOpen).toHaveBeenCalledWith("personal", "travel-prefs.md");
  });

  it("undoes a group", async () => {
    api.undoGroup.mockResolvedValue(ok({ undone: 3, group: 4, workspace: "personal", paths: ["tea.md", "travel-prefs.md"] }));
    renderPanel();
    fireEvent.click(await screen.findByTestId("history-group"));
    const detail = await screen.findByTestId("group-detail");
    fireEvent.click(await within(detail).findByRole("button", { name: "Undo group" }));
    await waitFor(() => expect(api.undoGroup).toHaveBeenCalledWith(3));
    await waitFor(() => expect(onUndone).toHaveBeenCalledTimes(1));
    expect(await screen.findByText("Undone: 2 files restored")).toBeTruthy();
    // The list reloads.
    await waitFor(() => expect(api.history).toHaveBeenCalledTimes(2));
  });

  it("is one Tab stop: ↑/↓ move through the changes and show each", async () => {
    renderPanel();
    await waitFor(() => expect(rowKinds()).toHaveLength(3));
    const options = () => within(screen.getByRole("listbox", { name: "Changes" })).getAllByRole("option");
    expect(options().filter((o) => o.tabIndex === 0)).toHaveLength(1);
    const first = options()[0];
    first.focus();
    fireEvent.keyDown(first, { key: "ArrowDown" });
    // The group row: focused, selected, its files shown.
    expect(document.activeElement).toBe(options()[1]);
    expect(options()[1].getAttribute("aria-selected")).toBe("true");
    expect(await screen.findByTestId("group-detail")).toBeTruthy();
    expect(options().filter((o) => o.tabIndex === 0)).toEqual([options()[1]]);
    fireEvent.keyDown(options()[1], { key: "End" });
    expect(document.activeElement).toBe(options()[2]);
    expect(await screen.findByText("go")).toBeTruthy();
  });

  it("gives the focus to Redo once a group is undone, never to the page", async () => {
    api.undoGroup.mockImplementation(async () => {
      api.changeGroup.mockResolvedValue(ok({ ...GROUP, undone_by: 4 }));
      return ok({ undone: 3, group: 4, workspace: "personal", paths: ["tea.md", "travel-prefs.md"] });
    });
    renderPanel();
    fireEvent.click(await screen.findByTestId("history-group"));
    const detail = await screen.findByTestId("group-detail");
    const undo = await within(detail).findByRole("button", { name: "Undo group" });
    undo.focus();
    fireEvent.click(undo);
    const redo = await screen.findByTestId("redo-group-button");
    await waitFor(() => expect(document.activeElement).toBe(redo));
    expect(screen.getByTestId("group-undone").textContent).toBe(" · undone by change group 4");
  });

  it("says where the undo of a sync's changes goes, before and after", async () => {
    api.changeGroup.mockResolvedValue(ok({ ...GROUP, kind: "sync", task: null, label: "Sync: changes by ben" }));
    const note = "These changes came from another machine through sync. Undoing them here reaches it too.";
    api.undoGroup.mockResolvedValue(ok({ undone: 3, group: 4, workspace: "personal", paths: ["tea.md"], note }));
    renderPanel();
    fireEvent.click(await screen.findByTestId("history-group"));
    const detail = await screen.findByTestId("group-detail");
    expect((await within(detail).findByTestId("sync-undo-note")).textContent).toContain("the next sync carries it");
    fireEvent.click(await within(detail).findByRole("button", { name: "Undo group" }));
    expect(await screen.findByText(`Undone: 1 file restored. ${note}`)).toBeTruthy();
  });

  it("shows a conflict inline and changes nothing", async () => {
    api.undoGroup.mockResolvedValue(err("conflict", "tea.md changed since the group; nothing was undone"));
    renderPanel();
    fireEvent.click(await screen.findByTestId("history-group"));
    const detail = await screen.findByTestId("group-detail");
    fireEvent.click(await within(detail).findByRole("button", { name: "Undo group" }));
    const error = await within(detail).findByTestId("inline-error");
    expect(error.getAttribute("data-code")).toBe("conflict");
    expect(error.textContent).toContain("tea.md changed since the group");
    expect(onUndone).not.toHaveBeenCalled();
    expect(within(detail).getByRole<HTMLButtonElement>("button", { name: "Undo group" }).disabled).toBe(false);
  });

  it("keeps single changes as they were: diff and undo", async () => {
    api.undo.mockResolvedValue(ok({ workspace: "personal", path: "go-engineer.md", hash: "h2", change_id: 10, shared: null }));
    renderPanel();
    const item = await screen.findByText((_, el) => el?.getAttribute("data-testid") === "history-item" && el.getAttribute("data-id") === "6");
    expect(item.textContent).toContain("#6");
    expect(item.textContent).toContain("deleted");
    fireEvent.click(item);
    expect(await screen.findByText("go")).toBeTruthy();
    expect(screen.queryByTestId("group-detail")).toBeNull();
    fireEvent.click(screen.getByTestId("undo-button"));
    await waitFor(() => expect(api.undo).toHaveBeenCalledWith(6));
    await waitFor(() => expect(onUndone).toHaveBeenCalledTimes(1));
    expect(api.undoGroup).not.toHaveBeenCalled();
  });

  it("shows an undone change as undone, offers Redo, and names who made each change", async () => {
    const undone = change(9, "me.md", { undone_by: 12 });
    api.history.mockResolvedValue(ok([change(12, "me.md", { undoes: 9 }), undone, { ...SINGLE, source: "watcher" }]));
    api.diff.mockResolvedValue(ok({ change: undone, before: "a\n", after: "b\n", withheld: null, undoable: true }));
    api.undo.mockResolvedValue(ok({ workspace: "personal", path: "me.md", hash: "h3", change_id: 13, shared: null }));
    renderPanel();
    const item = await screen.findByText((_, el) => el?.getAttribute("data-testid") === "history-item" && el.getAttribute("data-id") === "9");
    // A single undo names its change as a change, in words.
    expect(item.textContent).toContain("undone by change #12");
    expect(item.className).toContain("undone");
    const outside = screen.getAllByTestId("history-item").find((e) => e.getAttribute("data-id") === "6");
    expect(outside?.textContent).toContain("Outside editor");
    fireEvent.click(item);
    fireEvent.click(await screen.findByTestId("redo-button"));
    expect(screen.queryByTestId("undo-button")).toBeNull();
    await waitFor(() => expect(api.undo).toHaveBeenCalledWith(12));
    expect(await screen.findByText("Change brought back")).toBeTruthy();
  });

  it("says why a change's text is missing and offers no undo it cannot do", async () => {
    const withheld =
      "The text before this change is not shown: it held what looks like a secret (github_token (line 7)), and Mnemo never keeps secrets.";
    api.diff.mockResolvedValue(ok({ change: ITEMS[0], before: null, after: "b\n", withheld, undoable: false }));
    renderPanel();
    const item = await screen.findByText((_, el) => el?.getAttribute("data-testid") === "history-item" && el.getAttribute("data-id") === "9");
    fireEvent.click(item);
    expect((await screen.findByTestId("withheld-note")).textContent).toBe(withheld);
    expect((screen.getByTestId("undo-button") as HTMLButtonElement).disabled).toBe(true);
  });

  it("in one memory's history, names the group's op and kind", async () => {
    api.history.mockResolvedValue(ok([EXTRACT_B]));
    render(
      <ToastProvider>
        <HistoryPanel workspace="personal" path="tea.md" />
      </ToastProvider>,
    );
    const group = await screen.findByTestId("history-group");
    expect(group.querySelector(".history-op")?.textContent).toBe("modified · with its group");
    expect(group.querySelector(".source-chip")?.textContent).toBe("Extraction");
    expect(group.querySelector(".history-path")).toBeNull();
  });
});
