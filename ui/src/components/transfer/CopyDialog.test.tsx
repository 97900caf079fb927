import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { CopyDialog } from "./CopyDialog";
import { commands } from "../../lib/bindings";
import type { Copied } from "../../lib/bindings";
import { WORKSPACES, err, ok } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: { copyMemory: vi.fn(), undoGroup: vi.fn() },
}));

const api = vi.mocked(commands);
const WS = [...WORKSPACES, { ...WORKSPACES[0], id: "work", label: "工作", shared: null }];
const label = (id: string) => WS.find((w) => w.id === id)?.label ?? id;
const onDone = vi.fn();
const onUndone = vi.fn();
const onOpen = vi.fn();
const onClose = vi.fn();
const SOURCE = { workspace: "personal", path: "旅行.md", name: "旅行偏好" };

const copied = (extra: Partial<Copied> = {}): Copied => ({
  from_workspace: "personal",
  from_path: "旅行.md",
  workspace: "work",
  path: "旅行.md",
  group: 7,
  removed_group: null,
  ...extra,
});

beforeEach(() => {
  for (const f of [onDone, onUndone, onOpen, onClose]) f.mockReset();
  for (const f of Object.values(api)) f.mockReset();
});

function renderDialog() {
  return render(<CopyDialog source={SOURCE} workspaces={WS} workspaceLabel={label} onDone={onDone} onUndone={onUndone} onOpen={onOpen} onClose={onClose} />);
}

function choose(to: string, move: boolean) {
  fireEvent.change(screen.getByTestId("copy-target"), { target: { value: to } });
  fireEvent.click(screen.getByTestId(move ? "copy-mode-move" : "copy-mode-copy"));
  fireEvent.click(screen.getByTestId("copy-start"));
}

describe("Copy / Move…", () => {
  it("offers the other workspaces only, and copies byte for byte with Undo", async () => {
    api.copyMemory.mockResolvedValue(ok(copied()));
    api.undoGroup.mockResolvedValue(ok({ undone: 7, group: 8, workspace: "work", paths: ["旅行.md"] }));
    renderDialog();
    expect(screen.getByRole("dialog", { name: "Copy or move “旅行偏好”" })).toBeTruthy();
    const options = within(screen.getByTestId("copy-target")).getAllByRole("option").map((o) => o.textContent);
    expect(options).toEqual(["proj (Claude Code)", "工作 (Mnemo)"]);
    expect(document.activeElement).toBe(screen.getByTestId("copy-target"));
    choose("work", false);
    await waitFor(() => expect(api.copyMemory).toHaveBeenCalledWith("personal", "旅行.md", "work", false));
    expect((await screen.findByTestId("copy-sentence")).textContent).toBe("Copied “旅行偏好” to 工作.");
    expect(onDone).toHaveBeenCalledWith(copied(), false);
    fireEvent.click(screen.getByTestId("copy-undo"));
    await waitFor(() => expect(api.undoGroup).toHaveBeenCalledWith(7));
    expect((await screen.findByTestId("copy-undone")).textContent).toBe("Undone: the copy in 工作 is taken back.");
    expect(onUndone).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId("copy-undo")).toBeNull();
  });

  it("moves: the detail pane is told, and Undo takes back both sides' groups", async () => {
    api.copyMemory.mockResolvedValue(ok(copied({ path: "旅行-2.md", removed_group: 9 })));
    api.undoGroup.mockImplementation(async (g: number) => ok({ undone: g, group: g + 10, workspace: g === 7 ? "work" : "personal", paths: ["x.md"] }));
    renderDialog();
    choose("work", true);
    await waitFor(() => expect(api.copyMemory).toHaveBeenCalledWith("personal", "旅行.md", "work", true));
    expect((await screen.findByTestId("copy-sentence")).textContent).toBe("Moved “旅行偏好” to 工作 as 旅行-2.md (旅行.md there holds another memory).");
    expect(onDone).toHaveBeenCalledWith(expect.objectContaining({ removed_group: 9 }), true);
    fireEvent.click(screen.getByTestId("copy-open"));
    expect(onOpen).toHaveBeenCalledWith("work", "旅行-2.md");
  });

  it("undoes a move's two groups", async () => {
    api.copyMemory.mockResolvedValue(ok(copied({ removed_group: 9 })));
    api.undoGroup.mockImplementation(async (g: number) => ok({ undone: g, group: g + 10, workspace: "personal", paths: ["旅行.md"] }));
    renderDialog();
    choose("work", true);
    fireEvent.click(await screen.findByTestId("copy-undo"));
    expect((await screen.findByTestId("copy-undone")).textContent).toBe("Undone: “旅行偏好” is back in Personal, and the copy in 工作 is taken back.");
    expect(api.undoGroup.mock.calls).toEqual([[7], [9]]);
  });

  it("says when the same memory was already there", async () => {
    api.copyMemory.mockResolvedValue(ok(copied({ group: null })));
    renderDialog();
    choose("work", false);
    expect((await screen.findByTestId("copy-sentence")).textContent).toBe("工作 already has the same “旅行偏好”: nothing was copied.");
    expect(screen.queryByTestId("copy-undo")).toBeNull();
  });

  it("explains a refusal in a sentence, never a code", async () => {
    api.copyMemory.mockResolvedValue(err("invalid_content", "`旅行.md` holds a secret (github_token): remove it before copying the memory anywhere"));
    renderDialog();
    choose("claude-proj", false);
    const shown = await screen.findByTestId("inline-error");
    expect(shown.textContent).toBe("“旅行.md” holds a secret (github_token): remove it before copying the memory anywhere.");
    expect(onDone).not.toHaveBeenCalled();
  });

  it("says so when there is no other workspace", () => {
    render(<CopyDialog source={SOURCE} workspaces={[WORKSPACES[0]]} workspaceLabel={label} onDone={onDone} onUndone={onUndone} onOpen={onOpen} onClose={onClose} />);
    expect(screen.getByTestId("copy-none").textContent).toMatch(/no other workspace/);
  });
});
