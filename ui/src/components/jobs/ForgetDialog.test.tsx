import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ForgetDialog } from "./ForgetDialog";
import { commands } from "../../lib/bindings";
import type { ForgetEntry, ForgetPreview } from "../../lib/bindings";
import { err, ok, task } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    forgetPreview: vi.fn(),
    forget: vi.fn(),
    undoGroup: vi.fn(),
  },
}));

const api = vi.mocked(commands);

const entry = (id: string, summary: string, hash: string, confident = true): ForgetEntry => ({
  id,
  path: id.split(":")[0],
  name: id.startsWith("ci") ? "CI" : "Deploys",
  summary,
  text: summary,
  memory_type: "project",
  hash,
  mtime: "2026-03-01T10:00:00Z",
  confident,
});

const PREVIEW: ForgetPreview = {
  workspace: "personal",
  query: "staging",
  strategy: "model",
  selected: [entry("deploy.md:1", "Staging deploys need a ticket.", "h1"), entry("deploy.md:2", "Staging resets on Mondays.", "h1"), entry("ci.md", "CI runs on staging.", "h2")],
  candidates: 12,
  note: null,
};
const FORGOT = task("forget-1", { kind: "forget", session: null, result: { summary: "forgot 2 entries", files: ["deploy.md", "ci.md"], group: 11 } });

const onClose = vi.fn();
const onForgot = vi.fn();
const onUndone = vi.fn();

beforeEach(() => {
  for (const f of [onClose, onForgot, onUndone]) f.mockReset();
  api.forgetPreview.mockResolvedValue(ok(PREVIEW));
  api.forget.mockResolvedValue(ok(FORGOT));
});

function renderDialog() {
  return render(<ForgetDialog workspace="personal" workspaceLabel="Personal" onClose={onClose} onForgot={onForgot} onUndone={onUndone} />);
}

async function preview(query = "staging") {
  fireEvent.change(screen.getByTestId("forget-query"), { target: { value: query } });
  fireEvent.click(screen.getByTestId("forget-preview-button"));
  await waitFor(() => expect(api.forgetPreview).toHaveBeenCalledWith("personal", query));
}

const rows = () => screen.queryAllByTestId("forget-entry");
const box = (id: string) => within(rows().find((r) => r.getAttribute("data-id") === id)!).getByRole<HTMLInputElement>("checkbox");

describe("Forget…", () => {
  it("previews as a checklist, all checked, and forgets exactly the checked entries", async () => {
    renderDialog();
    expect(screen.getByRole("dialog", { name: "Forget — Personal" })).toBeTruthy();
    await preview();
    await waitFor(() => expect(rows()).toHaveLength(3));
    // Each row leads with the memory's name, the entry beneath it.
    expect(rows().map((r) => r.textContent)).toEqual([
      "DeploysStaging deploys need a ticket.project · in deploy.md",
      "DeploysStaging resets on Mondays.project · in deploy.md",
      "CICI runs on staging.project · in ci.md",
    ]);
    expect(rows().every((r) => within(r).getByRole<HTMLInputElement>("checkbox").checked)).toBe(true);
    expect(screen.getByTestId("forget-preview").textContent).toContain("Chosen by the model among 12 candidates");
    expect(screen.getByTestId("forget-confirm").textContent).toBe("Forget 3 entries");

    fireEvent.click(box("deploy.md:2"));
    expect(screen.getByTestId("forget-confirm").textContent).toBe("Forget 2 entries");
    fireEvent.click(screen.getByTestId("forget-confirm"));
    await waitFor(() =>
      expect(api.forget).toHaveBeenCalledWith("personal", [
        { id: "deploy.md:1", hash: "h1" },
        { id: "ci.md", hash: "h2" },
      ]),
    );
    const done = await screen.findByTestId("forget-done");
    expect(done.textContent).toContain("Forgot 2 entries from deploy.md, ci.md.");
    expect(done.textContent).toContain("Staging deploys need a ticket. (deploy.md:1)");
    expect(done.textContent).not.toContain("Mondays");
    expect(onForgot).toHaveBeenCalledWith(FORGOT);
  });

  it("leaves a pick the model was unsure of unticked, and says why", async () => {
    api.forgetPreview.mockResolvedValue(
      ok({ ...PREVIEW, selected: [entry("deploy.md:1", "Staging deploys need a ticket.", "h1"), entry("ci.md", "CI runs nightly.", "h2", false)] }),
    );
    renderDialog();
    await preview();
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(box("deploy.md:1").checked).toBe(true);
    expect(box("ci.md").checked).toBe(false);
    const unsure = within(rows()[1]).getByTestId("forget-unsure");
    expect(unsure.textContent).toContain("does not say “staging”");
    expect(within(rows()[0]).queryByTestId("forget-unsure")).toBeNull();
    expect(screen.getByTestId("forget-confirm").textContent).toBe("Forget 1 entry");
  });

  it("undoes the forget as one change group", async () => {
    api.undoGroup.mockResolvedValue(ok({ undone: 11, group: 12, workspace: "personal", paths: ["deploy.md", "ci.md"] }));
    renderDialog();
    await preview();
    fireEvent.click(await screen.findByTestId("forget-confirm"));
    fireEvent.click(await screen.findByTestId("forget-undo"));
    await waitFor(() => expect(api.undoGroup).toHaveBeenCalledWith(11));
    expect((await screen.findByTestId("forget-undone")).textContent).toBe("Undone: 2 files restored.");
    expect(onUndone).toHaveBeenCalled();
    expect(screen.queryByTestId("forget-undo")).toBeNull();
  });

  it("says when nothing matches, with nothing to forget", async () => {
    api.forgetPreview.mockResolvedValue(
      ok({ ...PREVIEW, selected: [], strategy: "heuristic", note: "the model could not choose; matched the words instead" }),
    );
    renderDialog();
    await preview("kubernetes");
    const empty = await screen.findByTestId("forget-empty");
    expect(empty.textContent).toContain("No memory has “staging” in its name, description or entries");
    expect(empty.textContent).toContain("matched the words instead");
    expect(screen.queryByTestId("forget-confirm")).toBeNull();
  });

  it("shows `conflict` in place and previews again", async () => {
    api.forget.mockResolvedValueOnce(err("conflict", "deploy.md changed since the preview: nothing was forgotten; preview again"));
    renderDialog();
    await preview();
    fireEvent.click(await screen.findByTestId("forget-confirm"));
    const error = await screen.findByTestId("inline-error");
    expect(error.getAttribute("data-code")).toBe("conflict");
    expect(error.textContent).toContain("deploy.md changed since the preview");
    expect(onForgot).not.toHaveBeenCalled();

    api.forgetPreview.mockResolvedValue(ok({ ...PREVIEW, selected: [entry("deploy.md:1", "Staging deploys need a ticket.", "h9")] }));
    fireEvent.click(screen.getByTestId("forget-repreview"));
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(screen.queryByTestId("inline-error")).toBeNull();
    fireEvent.click(screen.getByTestId("forget-confirm"));
    await waitFor(() => expect(api.forget).toHaveBeenLastCalledWith("personal", [{ id: "deploy.md:1", hash: "h9" }]));
    expect(await screen.findByTestId("forget-done")).toBeTruthy();
  });

  it("cannot forget with nothing checked", async () => {
    renderDialog();
    await preview();
    await waitFor(() => expect(rows()).toHaveLength(3));
    fireEvent.click(screen.getByRole("button", { name: "Uncheck all" }));
    expect(screen.getByTestId<HTMLButtonElement>("forget-confirm").disabled).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: "Check all" }));
    expect(screen.getByTestId("forget-confirm").textContent).toBe("Forget 3 entries");
    fireEvent.keyDown(screen.getByRole("dialog"), { key: "Escape" });
    expect(onClose).toHaveBeenCalled();
  });
});
