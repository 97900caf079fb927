import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { Welcome, WELCOMED_KEY, welcomed } from "./Welcome";
import { commands } from "../../lib/bindings";
import { MODEL_SETTINGS, SYNC_SETTINGS, WORKSPACES, ok } from "../../test/fixtures";

vi.mock("../../lib/bindings", () => ({
  commands: {
    getModelSettings: vi.fn(),
    setModelSettings: vi.fn(),
    testModel: vi.fn(),
    modelList: vi.fn(),
    syncSettings: vi.fn(),
    setSyncSettings: vi.fn(),
    syncNow: vi.fn(),
  },
}));

const api = vi.mocked(commands);
const onOpenWorkspace = vi.fn();
const onModelSaved = vi.fn();
const onClose = vi.fn();

beforeEach(() => {
  localStorage.clear();
  for (const f of [onOpenWorkspace, onModelSaved, onClose]) f.mockReset();
  api.getModelSettings.mockResolvedValue(ok({ ...MODEL_SETTINGS, base_url: "", model: "" }));
  api.modelList.mockResolvedValue(ok([]));
  api.syncSettings.mockResolvedValue(ok(SYNC_SETTINGS));
});

const renderWelcome = (workspaces = WORKSPACES) =>
  render(<Welcome workspaces={workspaces} onOpenWorkspace={onOpenWorkspace} onModelSaved={onModelSaved} onClose={onClose} />);

describe("the welcome", () => {
  it("says what Mnemo is and explains the four memory types with an example each", async () => {
    renderWelcome();
    expect(screen.getByRole("heading", { name: "Welcome to Mnemo" })).toBeTruthy();
    const types = within(screen.getByTestId("welcome").querySelector("dl")!).getAllByRole("term").map((t) => t.textContent);
    expect(types).toEqual(["User", "Feedback", "Project", "Reference"]);
    expect(screen.getByTestId("welcome").textContent).toContain("for example “Keep answers short");
    await waitFor(() => expect(screen.getByTestId("welcome-model").textContent).toContain("skip this for now"));
  });

  it("lists the Claude Code and Qwen Code folders found, each to show", async () => {
    renderWelcome();
    const found = screen.getByTestId("welcome-found");
    expect(found.textContent).toContain("Claude Code · proj (1 memory)");
    expect(found.textContent).not.toContain("Personal");
    fireEvent.click(within(found).getByRole("button", { name: "Show" }));
    expect(onOpenWorkspace).toHaveBeenCalledWith("claude-proj");
  });

  it("says so when none is found", () => {
    renderWelcome(WORKSPACES.filter((w) => w.kind === "mnemo"));
    expect(screen.getByTestId("welcome-found-none").textContent).toContain("No Claude Code or Qwen Code memory folders were found");
  });

  it("opens the model settings, and passes on what was saved", async () => {
    api.setModelSettings.mockImplementation(async (s) => ok({ ...MODEL_SETTINGS, ...s, api_key: null }));
    renderWelcome();
    fireEvent.click(screen.getByTestId("welcome-connect"));
    const url = await screen.findByTestId<HTMLInputElement>("model-base-url");
    fireEvent.change(url, { target: { value: "http://127.0.0.1:11434/v1" } });
    fireEvent.change(screen.getByTestId("model-name"), { target: { value: "qwen3:8b" } });
    fireEvent.click(screen.getByTestId("model-save"));
    await waitFor(() => expect(onModelSaved).toHaveBeenCalledWith(expect.objectContaining({ model: "qwen3:8b" })));
    await waitFor(() => expect(screen.getByTestId("welcome-model").textContent).toContain("Chat and extraction use qwen3:8b"));
  });

  it("is remembered once closed", () => {
    renderWelcome();
    expect(welcomed()).toBe(false);
    fireEvent.click(screen.getByTestId("welcome-start"));
    expect(onClose).toHaveBeenCalled();
    expect(localStorage.getItem(WELCOMED_KEY)).toBe("1");
    expect(welcomed()).toBe(true);
  });
});
