import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { RememberBox } from "./RememberBox";
import { commands } from "../../lib/bindings";
import type { RememberTask, TaskInfo } from "../../lib/bindings";
import { MODEL_SETTINGS, err, ok, proposalOf, rememberTask, task } from "../../test/fixtures";
import { inboxChanged } from "../../lib/useInbox";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    remember: vi.fn(),
    rememberTask: vi.fn(),
    taskCancel: vi.fn(),
    getModelSettings: vi.fn(),
    proposal: vi.fn(),
  },
}));

const api = vi.mocked(commands);

const QUEUED: RememberTask = rememberTask();
const RUNNING: RememberTask = { ...QUEUED, status: "running", updatedAt: "2026-03-01T10:00:01Z" };
const DONE: RememberTask = {
  ...QUEUED,
  status: "completed",
  updatedAt: "2026-03-01T10:00:04Z",
  result: { summary: "Saved the deploy day.", filesTouched: ["project/deploy.md", "user/me.md"], touchedTypes: ["project"], group: 4, proposal: null },
};
const listed = (status: TaskInfo["status"], extra: Partial<TaskInfo> = {}) =>
  task("remember-1", { kind: "remember", session: null, status, finished_at: null, ...extra });

const onQueued = vi.fn();
const onOpenMemory = vi.fn();
const onClose = vi.fn();

beforeEach(() => {
  for (const f of [onQueued, onOpenMemory, onClose]) f.mockReset();
  api.remember.mockResolvedValue(ok(QUEUED));
  api.rememberTask.mockResolvedValue(ok(QUEUED));
  api.getModelSettings.mockResolvedValue(ok({ ...MODEL_SETTINGS, base_url: "http://127.0.0.1:8080/v1", model: "qwen", configured: true }));
});

function renderBox(tasks: TaskInfo[] = []) {
  const props = { workspace: "personal", workspaceLabel: "Personal", onQueued, onOpenMemory, onClose };
  const view = render(<RememberBox {...props} tasks={tasks} />);
  return { ...view, setTasks: (t: TaskInfo[]) => view.rerender(<RememberBox {...props} tasks={t} />) };
}

const input = () => screen.getByTestId<HTMLTextAreaElement>("remember-input");
const submit = () => screen.getByTestId<HTMLButtonElement>("remember-submit");

describe("the Remember… box", () => {
  it("sends the fact with the context mode, then follows the task to its end and opens what it wrote", async () => {
    const { setTasks } = renderBox();
    expect(submit().disabled).toBe(true);
    fireEvent.change(input(), { target: { value: "Deploys go out on Tuesdays." } });
    fireEvent.click(screen.getByTestId("remember-clean"));
    fireEvent.click(submit());
    await waitFor(() => expect(api.remember).toHaveBeenCalledWith("personal", "Deploys go out on Tuesdays.", "clean", null));
    const view = await screen.findByTestId("remember-task");
    expect(view.getAttribute("data-status")).toBe("queued");
    expect(screen.getByTestId("remember-status").textContent).toContain("Waiting for its turn");
    expect(onQueued).toHaveBeenCalled();

    // The shared list says it runs: the box reads it at once and shows its tool calls.
    api.rememberTask.mockResolvedValue(ok(RUNNING));
    setTasks([listed("running", { phase: "model turn 1", tools: [{ name: "write_file", detail: "project/deploy.md", ok: null }] })]);
    await waitFor(() => expect(view.getAttribute("data-status")).toBe("running"));
    expect(api.rememberTask).toHaveBeenCalledWith("remember-1", null);
    expect(within(view).getByText("model turn 1")).toBeTruthy();
    expect(within(view).getByTestId("task-tools").textContent).toContain("write_file");

    api.rememberTask.mockResolvedValue(ok(DONE));
    setTasks([listed("completed")]);
    await waitFor(() => expect(view.getAttribute("data-status")).toBe("completed"));
    expect(screen.getByTestId("remember-summary").textContent).toBe("Saved the deploy day.");
    // The first file opens from an effect after the completed render: wait for it, exactly once.
    await waitFor(() => expect(onOpenMemory).toHaveBeenCalledTimes(1));
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "project/deploy.md");
    // Each file it wrote opens on request; the first opened only once by itself.
    fireEvent.click(screen.getAllByTestId("remember-file")[1]);
    expect(onOpenMemory).toHaveBeenLastCalledWith("personal", "user/me.md");
    setTasks([listed("completed", { updated_at: "2026-03-01T10:00:09Z" })]);
    expect(onOpenMemory).toHaveBeenCalledTimes(2);

    // And again, from an empty form.
    fireEvent.click(screen.getByTestId("remember-again"));
    expect(input().value).toBe("");
  });

  it("shows a failed task's code and message", async () => {
    const { setTasks } = renderBox();
    fireEvent.change(input(), { target: { value: "Something to keep" } });
    fireEvent.click(submit());
    await screen.findByTestId("remember-task");
    api.rememberTask.mockResolvedValue(
      ok({ ...QUEUED, status: "failed", error: { code: "remember_path_escape", message: "the agent named ../x.md, outside the memory folder" } }),
    );
    setTasks([listed("failed")]);
    const error = await screen.findByTestId("inline-error");
    expect(error.getAttribute("data-code")).toBe("remember_path_escape");
    expect(error.textContent).toContain("outside the memory folder");
    expect(screen.getByTestId("remember-status").textContent).toContain("Could not remember");
    expect(onOpenMemory).not.toHaveBeenCalled();
  });

  it("shows a refusal inline and keeps the text (no model, queue full)", async () => {
    api.remember.mockResolvedValue(err("managed_memory_unavailable", "remember needs a model: set one in Settings"));
    renderBox();
    fireEvent.change(input(), { target: { value: "Keep this" } });
    fireEvent.keyDown(input(), { key: "Enter", ctrlKey: true });
    const error = await screen.findByTestId("inline-error");
    expect(error.getAttribute("data-code")).toBe("managed_memory_unavailable");
    expect(input().value).toBe("Keep this");
    expect(submit().disabled).toBe(false);
    expect(screen.queryByTestId("remember-task")).toBeNull();
  });

  it("says before anything is typed that remembering needs a model, and offers to connect one", async () => {
    api.getModelSettings.mockResolvedValue(ok({ ...MODEL_SETTINGS, base_url: "", model: "", configured: false }));
    const onOpenSettings = vi.fn();
    render(
      <RememberBox workspace="personal" workspaceLabel="Personal" tasks={[]} onQueued={onQueued} onOpenMemory={onOpenMemory} onClose={onClose} onOpenSettings={onOpenSettings} />,
    );
    const note = await screen.findByTestId("remember-no-model");
    expect(note.textContent).toMatch(/Remembering needs a model/);
    fireEvent.change(input(), { target: { value: "Deploys go out on Tuesdays." } });
    expect(submit().disabled).toBe(true);
    fireEvent.keyDown(input(), { key: "Enter", ctrlKey: true });
    expect(api.remember).not.toHaveBeenCalled();
    fireEvent.click(within(note).getByTestId("remember-open-settings"));
    expect(onOpenSettings).toHaveBeenCalledTimes(1);
  });

  it("polls a task the list does not know about", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      renderBox();
      fireEvent.change(input(), { target: { value: "Keep this" } });
      fireEvent.click(submit());
      await screen.findByTestId("remember-task");
      api.rememberTask.mockResolvedValue(ok(DONE));
      // Each try moves the clock past a poll: under load a poll may land before the answer
      // changed, so one step of the clock is not always enough.
      await waitFor(
        async () => {
          await vi.advanceTimersByTimeAsync(1600);
          expect(screen.getByTestId("remember-task").getAttribute("data-status")).toBe("completed");
        },
        { timeout: 10_000 },
      );
      expect(onOpenMemory).toHaveBeenCalledWith("personal", "project/deploy.md");
    } finally {
      vi.useRealTimers();
    }
  });

  it("in review mode says what it would write waits in the Inbox, and opens no file", async () => {
    const onOpenInbox = vi.fn();
    const proposed: RememberTask = {
      ...DONE,
      result: { summary: "proposed changes to 1 file for review (proposal 3)", filesTouched: [], touchedTypes: [], group: null, proposal: 3 },
    };
    api.remember.mockResolvedValue(ok(proposed));
    api.rememberTask.mockResolvedValue(ok(proposed));
    api.proposal.mockResolvedValue(ok(proposalOf(3)));
    render(<RememberBox workspace="personal" workspaceLabel="Personal" tasks={[]} onQueued={onQueued} onOpenMemory={onOpenMemory} onClose={onClose} onOpenInbox={onOpenInbox} />);
    fireEvent.change(input(), { target: { value: "Keep this" } });
    fireEvent.click(submit());
    const said = await screen.findByTestId("remember-proposal");
    expect(said.textContent).toContain("It waits in the Inbox for your review: nothing is saved until you accept it.");
    await waitFor(() => expect(api.proposal).toHaveBeenCalledWith(3));
    expect(screen.queryByText(/Nothing new was written/)).toBeNull();
    fireEvent.click(screen.getByTestId("remember-inbox"));
    expect(onOpenInbox).toHaveBeenCalled();
    expect(onOpenMemory).not.toHaveBeenCalled();

    // Decided in the inbox (here, by another window): the box says so when it reads again.
    api.proposal.mockResolvedValue(ok(proposalOf(3, { status: "accepted", resolved_at: "2026-03-01T11:00:00Z" })));
    act(() => inboxChanged());
    await waitFor(() => expect(screen.getByTestId("remember-proposal").textContent).toContain("You accepted it in the Inbox: its changes are saved."));
    expect(screen.getByTestId("remember-inbox").textContent).toBe("See it in the Inbox");
  });

  it("closes with Escape or the close button", () => {
    renderBox();
    fireEvent.keyDown(input(), { key: "Escape" });
    fireEvent.click(screen.getByTestId("remember-close"));
    expect(onClose).toHaveBeenCalledTimes(2);
  });
});
