import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ImportDialog } from "./ImportDialog";
import { commands } from "../../lib/bindings";
import type { ImportOptions, RestoreChoice, TaskInfo } from "../../lib/bindings";
import { err, estimate, memoryPreview, ok, task } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
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

// A whole-home export of four workspaces, in the export's (sorted) order: another tool's memory
// here, Mnemo's own here and not here yet, and another tool's memory this home does not have.
const HOME_EXPORT: Omit<RestoreChoice, "chosen" | "why_not">[] = [
  { workspace: "claude-web", files: 4, exists: true, other_tool: true, target: "/home/u/.claude/projects/-web/memory" },
  { workspace: "personal", files: 3, exists: true, other_tool: false, target: "/home/u/.local/share/mnemo/workspaces/personal/memory" },
  { workspace: "team-x", files: 2, exists: false, other_tool: false, target: "/home/u/.local/share/mnemo/workspaces/team-x/memory" },
  { workspace: "qwen-elsewhere", files: 1, exists: false, other_tool: true, target: null },
];
const NOT_HERE = "qwen-elsewhere is not in this home (another tool's memory or an added folder elsewhere): add it here first, then import it with --workspace qwen-elsewhere";

/** What the server previews for the home export with `options` (as `restore_choices` decides). */
function homePreview(options: ImportOptions | null) {
  const named = options?.workspaces ?? [];
  const restore: RestoreChoice[] = HOME_EXPORT.map((r) => {
    const impossible = !r.exists && r.other_tool;
    const chosen = !impossible && named.includes(r.workspace);
    return { ...r, chosen, why_not: impossible ? NOT_HERE : chosen ? null : "not chosen: restore it with --all-workspaces" };
  });
  const files = restore.filter((r) => r.chosen).reduce((n, r) => n + r.files, 0);
  return memoryPreview({
    source: "/home/u/mnemo-export.zip",
    format: "mnemo_export",
    format_label: "Mnemo export",
    workspace: files > 0 ? named.join(", ") : "no workspace yet: choose which to restore",
    items: 10,
    memories: files,
    files,
    by_type: files > 0 ? [{ type: "user", count: files }] : [],
    duplicates: 0,
    secrets: 0,
    plan: `plan:${named.join(",")}`,
    restore,
  });
}

const started = (extra: Partial<TaskInfo> = {}) =>
  task("import-1", { kind: "import", session: null, status: "queued", phase: "Writing 0 / 5 files", progress: { done: 0, total: 5 }, result: null, finished_at: null, ...extra });

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
    // Named for what it takes — the file or folder to import — never "Export file".
    expect(screen.getByLabelText("File or folder to import (its full path)")).toBe(screen.getByTestId("import-source"));
    expect(screen.getByTestId("import-dialog").textContent).not.toContain("Export file");
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
        tasks={[started({ status: "running", phase: "Writing 3 / 5 files", progress: { done: 3, total: 5 } })]}
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
    expect((await screen.findByTestId("import-undone")).textContent).toBe("2 files taken back: nothing of this import stays.");
    // An undone import never reads as a success: the headline says undone, the summary goes.
    expect(screen.getByTestId("import-outcome").textContent).toBe("Import undone");
    expect(screen.getByTestId("import-progress").getAttribute("data-outcome")).toBe("undone");
    expect(screen.queryByTestId("import-summary")).toBeNull();
    expect(onUndone).toHaveBeenCalled();
    await waitFor(() => expect(onUpdated).toHaveBeenCalledWith(reread));
    expect(screen.queryByTestId("import-undo")).toBeNull();
  });

  it("cancels an import under way", async () => {
    const running = started({ status: "running", phase: "Conversation 2 / 20", progress: { done: 2, total: 20 } });
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
    api.importStart.mockResolvedValue(ok(started({ phase: "Conversation 0 / 20", progress: { done: 0, total: 20 } })));
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
      err("several_workspaces", "this export holds 2 workspaces (personal, work): import it without --workspace, and each goes back to the workspace of the same id"),
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

  it("lists a whole-home export's workspaces, none ticked: Import waits until some are", async () => {
    api.importPreview.mockImplementation(async (_source, _workspace, options) => ok(homePreview(options)));
    api.importPreview.mockResolvedValueOnce(err("several_workspaces", "this export holds 4 workspaces (claude-web, personal, team-x, qwen-elsewhere) and not work"));
    renderDialog();
    fireEvent.change(screen.getByTestId("import-source"), { target: { value: "/home/u/mnemo-export.zip" } });
    fireEvent.click(screen.getByTestId("import-preview-button"));
    fireEvent.click(await screen.findByTestId("import-spread"));
    const list = await screen.findByRole("group", { name: "Workspaces in this export" });
    expect(api.importPreview).toHaveBeenLastCalledWith("/home/u/mnemo-export.zip", null, { type: "user" });

    const entries = within(list).getAllByTestId("restore-choice");
    expect(entries.map((e) => e.querySelector("label")!.textContent)).toEqual([
      "claude-web · 4 files · Another tool's memory — Claude Code or Qwen Code loads it into every session",
      "personal · 3 files",
      "team-x · 2 files · Mnemo, new here",
      "qwen-elsewhere · 1 file · Another tool's memory or an added folder, with no place on this computer",
    ]);
    // Real checkboxes named by their labels, none ticked; the one this home lacks says why, and waits.
    const boxes = within(list).getAllByRole("checkbox") as HTMLInputElement[];
    expect(boxes.map((b) => b.checked)).toEqual([false, false, false, false]);
    expect(boxes.map((b) => b.disabled)).toEqual([false, false, false, true]);
    expect(within(list).getByRole("checkbox", { name: /^personal/ })).toBe(boxes[1]);
    expect(within(entries[3]).getByTestId("restore-why").textContent).toBe(`${NOT_HERE[0].toUpperCase()}${NOT_HERE.slice(1)}.`);
    expect(boxes[3].getAttribute("aria-describedby")).toBe(within(entries[3]).getByTestId("restore-why").id);
    expect(within(list).queryByTestId("restore-warn")).toBeNull();
    // Each target is shown before anything is ticked: the person confirms where it goes.
    expect(entries.map((e) => within(e).queryByTestId("restore-target")?.textContent ?? null)).toEqual([
      "Into /home/u/.claude/projects/-web/memory",
      "Into /home/u/.local/share/mnemo/workspaces/personal/memory",
      "Made at /home/u/.local/share/mnemo/workspaces/team-x/memory",
      null,
    ]);

    expect(screen.getByTestId("import-target").textContent).toBe("No workspace yet");
    expect(screen.getByTestId("import-blocked").textContent).toBe("Tick the workspaces to restore.");
    expect((screen.getByTestId("import-start") as HTMLButtonElement).disabled).toBe(true);
  });

  it("a tick on the first preview (named on the dialog's workspace) restores workspace by workspace", async () => {
    api.importPreview.mockImplementation(async (_source, _workspace, options) => ok(homePreview(options)));
    // Named on personal: the list comes back with personal ticked.
    api.importPreview.mockResolvedValueOnce(ok(homePreview({ workspaces: ["personal"] })));
    renderDialog();
    fireEvent.change(screen.getByTestId("import-source"), { target: { value: "/home/u/mnemo-export.zip" } });
    fireEvent.click(screen.getByTestId("import-preview-button"));
    await screen.findByTestId("import-restore");
    fireEvent.click(screen.getByRole("checkbox", { name: /^team-x/ }));
    await waitFor(() =>
      expect(api.importPreview).toHaveBeenLastCalledWith(
        "/home/u/mnemo-export.zip",
        null,
        expect.objectContaining({ workspaces: ["personal", "team-x"] }),
      ),
    );
    expect(screen.getByRole("dialog", { name: "Import into each workspace of the export" })).toBeTruthy();
  });

  it("previews again with the ticked workspaces, and Import sends the same options and plan", async () => {
    api.importPreview.mockImplementation(async (_source, _workspace, options) => ok(homePreview(options)));
    api.importPreview.mockResolvedValueOnce(err("several_workspaces", "this export holds 4 workspaces (claude-web, personal, team-x, qwen-elsewhere) and not work"));
    renderDialog();
    fireEvent.change(screen.getByTestId("import-type"), { target: { value: "project" } });
    fireEvent.change(screen.getByTestId("import-source"), { target: { value: "/home/u/mnemo-export.zip" } });
    fireEvent.click(screen.getByTestId("import-preview-button"));
    fireEvent.click(await screen.findByTestId("import-spread"));
    await screen.findByTestId("import-restore");

    const box = (name: RegExp) => screen.getByRole("checkbox", { name }) as HTMLInputElement;
    fireEvent.click(box(/^team-x/));
    // The box shows the tick at once, and keeps the focus: the list stays while it reads.
    expect(box(/^team-x/).checked).toBe(true);
    await waitFor(() => expect(api.importPreview).toHaveBeenLastCalledWith("/home/u/mnemo-export.zip", null, { type: "project", workspaces: ["team-x"] }));
    await waitFor(() => expect(screen.getByTestId("import-target").textContent).toBe("team-x"));
    expect((screen.getByTestId("import-start") as HTMLButtonElement).disabled).toBe(false);
    expect(screen.queryByTestId("import-blocked")).toBeNull();

    // Another tool's memory: ticked on purpose, with a warning; named in the export's order.
    fireEvent.click(box(/^claude-web/));
    await waitFor(() =>
      expect(api.importPreview).toHaveBeenLastCalledWith("/home/u/mnemo-export.zip", null, { type: "project", workspaces: ["claude-web", "team-x"] }),
    );
    await waitFor(() => expect(screen.getByTestId("import-target").textContent).toBe("claude-web, team-x"));
    const warn = screen.getByTestId("restore-warn");
    expect(warn.textContent).toContain("written into that tool's memory, which it reads at the start of every session");
    expect(box(/^claude-web/).getAttribute("aria-describedby")).toBe(warn.id);
    expect([box(/^claude-web/), box(/^personal/), box(/^team-x/)].map((b) => b.checked)).toEqual([true, false, true]);

    fireEvent.click(screen.getByTestId("import-start"));
    await waitFor(() =>
      expect(api.importStart).toHaveBeenCalledWith("/home/u/mnemo-export.zip", null, { type: "project", workspaces: ["claude-web", "team-x"] }, "plan:claude-web,team-x"),
    );

  });

  it("waits again when every box is unticked", async () => {
    api.importPreview.mockImplementation(async (_source, _workspace, options) => ok(homePreview(options)));
    api.importPreview.mockResolvedValueOnce(err("several_workspaces", "this export holds 4 workspaces (claude-web, personal, team-x, qwen-elsewhere) and not work"));
    renderDialog();
    fireEvent.change(screen.getByTestId("import-source"), { target: { value: "/home/u/mnemo-export.zip" } });
    fireEvent.click(screen.getByTestId("import-preview-button"));
    fireEvent.click(await screen.findByTestId("import-spread"));
    await screen.findByTestId("import-restore");
    fireEvent.click(screen.getByRole("checkbox", { name: /^personal/ }));
    await waitFor(() => expect((screen.getByTestId("import-start") as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByRole("checkbox", { name: /^personal/ }));
    await waitFor(() => expect(api.importPreview).toHaveBeenLastCalledWith("/home/u/mnemo-export.zip", null, { type: "user" }));
    await waitFor(() => expect(screen.getByTestId("import-blocked").textContent).toBe("Tick the workspaces to restore."));
    expect((screen.getByTestId("import-start") as HTMLButtonElement).disabled).toBe(true);
    expect(api.importStart).not.toHaveBeenCalled();
  });

  it("shows names, reasons and paths from the source escaped", async () => {
    api.importPreview.mockResolvedValue(
      ok(
        memoryPreview({
          reasons: [{ item: "notes/invoice\u202Egpj.md", reason: "it holds a secret" }],
          samples: [{ path: "imported\u202Egpj.md", type: "user", text: "bell\u0007 rings" }],
        }),
      ),
    );
    renderDialog();
    const shown = await preview();
    expect(within(shown).getByTestId("import-reasons").textContent).toBe("notes/invoice\\u{202e}gpj.md: it holds a secret");
    expect(within(shown).getByTestId("import-samples").textContent).toContain("bell\\u{7} rings → imported\\u{202e}gpj.md");
    for (const raw of ["\u202e", "\u0007"]) expect(shown.textContent).not.toContain(raw);
  });

  it("says how a stopped conversation import ended, and runs it again to go on", async () => {
    api.importPreview.mockResolvedValue(ok(CONVERSATIONS));
    api.importStart.mockResolvedValue(ok(started({ phase: "Conversation 0 / 20", progress: { done: 0, total: 20 } })));
    const view = renderDialog();
    await preview();
    fireEvent.click(screen.getByTestId("import-start"));
    await screen.findByTestId("import-progress");
    const summary = "stopped after 3 conversations (the model timed out): wrote 2 memory files; run the import again to go on";
    const stopped = started({ status: "failed", reason: "error", phase: "Conversation 4 / 20", progress: { done: 4, total: 20 }, error: summary, result: { summary, files: ["a.md", "b.md"], group: 12 } });
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
