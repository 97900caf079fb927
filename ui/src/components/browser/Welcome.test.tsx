import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { Welcome, WELCOMED_KEY, welcomed } from "./Welcome";
import { commands } from "../../lib/bindings";
import { MODEL_SETTINGS, SYNC_SETTINGS, WORKSPACES, ok, LOCAL_MODEL } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    getModelSettings: vi.fn(),
    localModel: vi.fn(),
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
  api.localModel.mockResolvedValue(ok(LOCAL_MODEL));
  localStorage.clear();
  for (const f of [onOpenWorkspace, onModelSaved, onClose]) f.mockReset();
  api.getModelSettings.mockResolvedValue(ok({ ...MODEL_SETTINGS, base_url: "", model: "", configured: false }));
  api.modelList.mockResolvedValue(ok([]));
  api.syncSettings.mockResolvedValue(ok(SYNC_SETTINGS));
});

const renderWelcome = (workspaces = WORKSPACES) =>
  render(<Welcome workspaces={workspaces} onOpenWorkspace={onOpenWorkspace} onModelSaved={onModelSaved} onClose={onClose} />);

describe("the welcome", () => {
  it("says what Mnemo is and explains the four memory types with an example each", async () => {
    api.localModel.mockResolvedValue(ok({ ...LOCAL_MODEL, installed: false }));
    renderWelcome();
    expect(screen.getByRole("heading", { name: "Welcome to Mnemo" })).toBeTruthy();
    const types = within(screen.getByTestId("welcome").querySelector("dl")!).getAllByRole("term").map((t) => t.textContent);
    expect(types).toEqual(["User", "Feedback", "Project", "Reference"]);
    expect(screen.getByTestId("welcome").textContent).toContain("for example “Keep answers short");
    await waitFor(() => expect(screen.getByTestId("welcome-model").textContent).toContain("skip this for now"));
    // The model that comes with Mnemo is offered, with its size.
    expect(screen.getByTestId("welcome-model").textContent).toContain(
      "Mnemo comes with one that runs on this computer (1.1 GB): install it below, or with `mnemo model install`",
    );
    expect(screen.getByRole("button", { name: "Install it (1.1 GB)" })).toBeTruthy();
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

  it("says the local model answers when it is the one in use", async () => {
    api.getModelSettings.mockResolvedValue(ok({ ...MODEL_SETTINGS, base_url: "", model: "", configured: true, local_in_use: true }));
    api.localModel.mockResolvedValue(ok({ ...LOCAL_MODEL, in_use: true }));
    renderWelcome();
    await waitFor(() =>
      expect(screen.getByTestId("welcome-model").textContent).toBe(
        "Chat and extraction use the model that comes with Mnemo (qwen2.5-coder-1.5b-instruct), which runs on this computer. Installed (1.1 GB); it starts when a message needs it.",
      ),
    );
  });
});
