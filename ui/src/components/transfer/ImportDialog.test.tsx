import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ImportDialog } from "./ImportDialog";
import { commands } from "../../lib/bindings";
import type { TaskInfo } from "../../lib/bindings";
import { err, estimate, memoryPreview, ok, task } from "../../test/fixtures";

vi.mock("../../lib/bindings", () => ({
  commands: {
    importPreview: vi.fn(),
    importStart: vi.fn(),
    taskCancel: vi.fn(),
    task: vi.fn(),
    undoGroup: vi.fn(),
  },
}));

const api = vi.mocked(commands);
const labels: Record<string, string> = { personal: "Personal", work: "工作" };
const label = (id: string) => labels[id] ?? id;
const onUpdated = vi.fn();
const onUndone = vi.fn();
const onClose = vi.fn();

const PREVIEW = memoryPreview({
  source: "/home/u/导出/mem0.json",
  reasons: [
    { item: "item 4", reason: "already in the workspace" },
    { item: "item 6", reason: "it holds a secret (github_token)" },
  ],
  samples: [
    { path: "imported-mem0-user.md", type: "user", text: "喜欢靠窗的座位" },
    { path: "imported-mem0-feedback.md", type: "feedback", text: "Keep answers short" },
  ],
});
const CONVERSATIONS = memoryPreview({ format: "chatgpt", format_label: "ChatGPT export", memories: 0, files: 0, by_type: [], duplicates: 0, secrets: 0, conversations: estimate(), plan: "" });

const started = (extra: Partial<TaskInfo> = {}) =>
  task("import-1", { kind: "import", session: null, status: "queued", phase: "Writing 0 / 5 files", result: null, finished_at: null, ...extra });

beforeEach(() => {
  for (const f of [onUpdated, onUndone, onClose]) f.mockReset();
  for (const f of Object.values(api)) f.mockReset();
  api.importPreview.mockResolvedValue(ok(PREVIEW));
  api.importStart.mockResolvedValue(ok(started()));
});

function renderDialog(tasks: TaskInfo[] = []) {
  return render(<ImportDialog workspace="personal" workspaceLabel={label} tasks={tasks} onUpdated={onUpdated} onUndone={onUndone} onClose={onClose} />);
}

async function preview(path = "/home/u/导出/mem0.json") {
  fireEvent.change(screen.getByTestId("import-source"), { target: { value: path } });
  fireEvent.click(screen.getByTestId("import-preview-button"));
  return screen.findByTestId("import-preview");
}

describe("Import…", () => {
  it("names the formats it reads, and focuses the path field", () => {
    renderDialog();
    expect(screen.getByRole("dialog", { name: "Import into Personal" })).toBeTruthy();
    expect(screen.getByTestId("import-formats").textContent).toContain("ChatGPT or Claude.ai conversations.json");
    expect(screen.getByTestId("import-formats").textContent).toContain("a Mnemo export .zip");
    expect(document.activeElement).toBe(screen.getByTestId("import-source"));
  });

  it("previews a memory import: format, target, what is written, what is left out and why, samples", async () => {
    renderDialog();
    fireEvent.change(screen.getByTestId("import-type"), { target: { value: "project" } });
    const shown = await preview();
    expect(api.importPreview).toHaveBeenCalledWith("/home/u/导出/mem0.json", "personal", { type: "project" });
    expect(screen.getByTestId("import-format").textContent).toBe("mem0 export");
    expect(screen.getByTestId("import-target").textContent).toBe("Personal");
    expect(screen.getByTestId("import-writes").textContent).toBe("5 memories in 2 new files (3 user · 2 feedback)");
    expect(screen.getByTestId("import-left-out").textContent).toBe("1 duplicate skipped · 1 item with a secret refused");
    expect(within(screen.getByTestId("import-reasons")).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "item 4: already in the workspace",
      "item 6: it holds a secret (github_token)",
    ]);
    expect(screen.getByTestId("import-samples").textContent).toContain("喜欢靠窗的座位");
    expect(shown.textContent).not.toMatch(/invalid_|by_type|null|undefined/);
    expect((screen.getByTestId("import-start") as HTMLButtonElement).disabled).toBe(false);
    // A change to what was previewed asks for a new preview.
    fireEvent.change(screen.getByTestId("import-type"), { target: { value: "user" } });
    expect(screen.queryByTestId("import-preview")).toBeNull();
  });

  it("asks for a full path without asking the server", () => {
    renderDialog();
    fireEvent.change(screen.getByTestId("import-source"), { target: { value: "Downloads/mem0.json" } });
    fireEvent.click(screen.getByTestId("import-preview-button"));
    expect(screen.getByTestId("import-formats").textContent).toBe("Write the full path of the export file or folder, starting with /.");
    expect(api.importPreview).not.toHaveBeenCalled();
  });

  it("imports with the preview's plan, follows the task's phase as a bar, then offers Undo import", async () => {
    const view = renderDialog();
    await preview();
    fireEvent.click(screen.getByTestId("import-start"));
    await waitFor(() => expect(api.importStart).toHaveBeenCalledWith("/home/u/导出/mem0.json", "personal", { type: "user" }, "p1"));
    expect(onUpdated).toHaveBeenCalledWith(started());
    expect((await screen.findByTestId("import-outcome")).textContent).toBe("Waiting for its turn…");

    // The shared task list moves on (task updates): the phase and its bar.
    view.rerender(
      <ImportDialog
        workspace="personal"
        workspaceLabel={label}
        tasks={[started({ status: "running", phase: "Writing 3 / 5 files" })]}
        onUpdated={onUpdated}
        onUndone={onUndone}
        onClose={onClose}
      />,
    );
    expect(screen.getByTestId("import-phase").textContent).toBe("Writing 3 / 5 files");
    const bar = screen.getByTestId("import-bar") as HTMLProgressElement;
    expect([bar.value, bar.max]).toEqual([3, 5]);
    expect(screen.getByTestId("import-cancel")).toBeTruthy();

    const done = started({ status: "completed", phase: null, result: { summary: "imported 5 memories into 2 files", files: ["a.md", "b.md"], group: 9 } });
    view.rerender(<ImportDialog workspace="personal" workspaceLabel={label} tasks={[done]} onUpdated={onUpdated} onUndone={onUndone} onClose={onClose} />);
    expect(screen.getByTestId("import-summary").textContent).toBe("Imported 5 memories into 2 files.");
    expect(screen.queryByTestId("import-bar")).toBeNull();

    api.undoGroup.mockResolvedValue(ok({ undone: 9, group: 10, workspace: "personal", paths: ["a.md", "b.md"] }));
    const reread = { ...done, result: { ...done.result!, undone_by: 10 } };
    api.task.mockResolvedValue(ok(reread));
    fireEvent.click(screen.getByTestId("import-undo"));
    await waitFor(() => expect(api.undoGroup).toHaveBeenCalledWith(9));
    expect((await screen.findByTestId("import-undone")).textContent).toBe("Import undone: 2 files taken back.");
    expect(onUndone).toHaveBeenCalled();
    await waitFor(() => expect(onUpdated).toHaveBeenCalledWith(reread));
    expect(screen.queryByTestId("import-undo")).toBeNull();
  });

  it("cancels an import under way", async () => {
    const running = started({ status: "running", phase: "Conversation 2 / 20" });
    api.taskCancel.mockResolvedValue(ok({ ...running, status: "failed", reason: "cancelled" }));
    renderDialog([running]);
    // Opened while the workspace's import runs: it shows that import.
    expect(screen.getByTestId("import-progress").getAttribute("data-status")).toBe("running");
    fireEvent.click(screen.getByTestId("import-cancel"));
    await waitFor(() => expect(api.taskCancel).toHaveBeenCalledWith("import-1"));
    await waitFor(() => expect(onUpdated).toHaveBeenCalledWith(expect.objectContaining({ reason: "cancelled" })));
  });

  it("estimates conversations: messages, model calls, tokens, the budget (which Import sends)", async () => {
    api.importPreview.mockResolvedValue(ok(CONVERSATIONS));
    api.importStart.mockResolvedValue(ok(started({ phase: "Conversation 0 / 20" })));
    renderDialog();
    await preview("/home/u/chatgpt/conversations.json");
    expect(screen.getByTestId("import-format").textContent).toBe("ChatGPT export");
    expect(screen.getByTestId("import-conversations").textContent).toBe("20 conversations (4 already learnt from), 1,340 messages to read");
    expect(screen.getByTestId("import-estimate").textContent).toContain("About 48 model calls and 182,000 tokens");
    const budget = screen.getByTestId("import-budget") as HTMLInputElement;
    expect(budget.value).toBe("227,500");
    expect(screen.getByText(/It stops before it would pass 227,500 tokens\./)).toBeTruthy();
    fireEvent.change(budget, { target: { value: "lots" } });
    expect((screen.getByTestId("import-start") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(budget, { target: { value: "100,000" } });
    expect(screen.getByText(/It stops before it would pass 100,000 tokens\./)).toBeTruthy();
    fireEvent.click(screen.getByTestId("import-start"));
    await waitFor(() =>
      expect(api.importStart).toHaveBeenCalledWith("/home/u/mem0.json", "personal", { type: "user", budget_tokens: 100000 }, null),
    );
  });

  it("says plainly that conversations need a model, and Import waits for one", async () => {
    api.importPreview.mockResolvedValue(ok({ ...CONVERSATIONS, conversations: estimate({ model_ready: false }) }));
    renderDialog();
    await preview();
    expect(screen.getByTestId("import-blocked").textContent).toContain(
      "Learning from past conversations needs a model, and none is set up yet: set one up in Settings, then preview again.",
    );
    expect(screen.getByTestId("import-settings").textContent).toBe("Open settings");
    expect((screen.getByTestId("import-start") as HTMLButtonElement).disabled).toBe(true);
    expect(screen.queryByTestId("import-budget")).toBeNull();
  });

  it("explains a damaged export, a start without a model, and a source changed since the preview, never with a code", async () => {
    api.importPreview.mockResolvedValueOnce(err("invalid_content", "/home/u/x.json is not a format Mnemo imports (line 1: expected value)"));
    renderDialog();
    fireEvent.change(screen.getByTestId("import-source"), { target: { value: "/home/u/x.json" } });
    fireEvent.click(screen.getByTestId("import-preview-button"));
    const first = await screen.findByTestId("inline-error");
    expect(first.textContent).toBe("/home/u/x.json is not a format Mnemo imports (line 1: expected value).");

    api.importStart.mockResolvedValueOnce(err("model_not_configured", "learning from past conversations needs a model: set one in Settings → Model; nothing was queued"));
    fireEvent.click(screen.getByTestId("import-preview-button"));
    fireEvent.click(await screen.findByTestId("import-start"));
    const noModel = await screen.findByTestId("inline-error");
    expect(noModel.textContent).toContain("Learning from past conversations needs a model, and none is set up yet. Nothing was queued");
    expect(within(noModel).getByTestId("error-settings")).toBeTruthy();

    api.importStart.mockResolvedValueOnce(err("conflict", "the source or the workspace changed since the preview: preview the import again"));
    fireEvent.click(screen.getByTestId("import-start"));
    await waitFor(() => expect(screen.getByTestId("inline-error").textContent).toContain("changed since the preview"));
    expect(screen.getByTestId("inline-error").textContent).not.toMatch(/conflict|model_not_configured/);
    fireEvent.click(screen.getByTestId("import-repreview"));
    await waitFor(() => expect(api.importPreview).toHaveBeenCalledTimes(3));
  });

  it("offers a Mnemo export of several workspaces back into each one", async () => {
    api.importPreview.mockResolvedValueOnce(
      err("usage", "this export holds 2 workspaces (personal, work): import it without --workspace, and each goes back to the workspace of the same id"),
    );
    api.importPreview.mockResolvedValueOnce(ok(memoryPreview({ format: "mnemo_export", format_label: "Mnemo export" })));
    renderDialog();
    await waitFor(() => expect(screen.getByTestId("import-source")).toBeTruthy());
    fireEvent.change(screen.getByTestId("import-source"), { target: { value: "/home/u/mnemo-export.zip" } });
    fireEvent.click(screen.getByTestId("import-preview-button"));
    fireEvent.click(await screen.findByTestId("import-spread"));
    await waitFor(() => expect(api.importPreview).toHaveBeenLastCalledWith("/home/u/mnemo-export.zip", null, { type: "user" }));
    expect((await screen.findByTestId("import-target")).textContent).toBe("Each workspace of the same id (as exported)");
    fireEvent.click(screen.getByTestId("import-start"));
    await waitFor(() => expect(api.importStart).toHaveBeenCalledWith("/home/u/mem0.json", null, { type: "user" }, "p1"));
  });

  it("says how a stopped conversation import ended, and runs it again to go on", async () => {
    api.importPreview.mockResolvedValue(ok(CONVERSATIONS));
    api.importStart.mockResolvedValue(ok(started({ phase: "Conversation 0 / 20" })));
    const view = renderDialog();
    await preview();
    fireEvent.click(screen.getByTestId("import-start"));
    await screen.findByTestId("import-progress");
    const summary = "stopped after 3 conversations (the model timed out): wrote 2 memory files; run the import again to go on";
    const stopped = started({ status: "failed", reason: "error", phase: "Conversation 4 / 20", error: summary, result: { summary, files: ["a.md", "b.md"], group: 12 } });
    view.rerender(<ImportDialog workspace="personal" workspaceLabel={label} tasks={[stopped]} onUpdated={onUpdated} onUndone={onUndone} onClose={onClose} />);
    expect(screen.getByTestId("import-failed").textContent).toBe(
      "Stopped after 3 conversations (the model timed out): wrote 2 memory files. Run it again to go on.",
    );
    expect(screen.getByTestId("import-outcome").textContent).toBe("Import stopped");
    // What it wrote so far can be undone too.
    expect(screen.getByTestId("import-undo")).toBeTruthy();
    fireEvent.click(screen.getByTestId("import-again"));
    await waitFor(() => expect(api.importStart).toHaveBeenCalledTimes(2));
  });
});
