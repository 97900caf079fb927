import { beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { ModelSettings } from "./ModelSettings";
import { commands } from "../../lib/bindings";
import { MODEL_SETTINGS, SYNC_SETTINGS, err, ok, LOCAL_MODEL } from "../../test/fixtures";

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
const onClose = vi.fn();
const onSaved = vi.fn();

const STORED = { ...MODEL_SETTINGS, has_key: true };

beforeEach(() => {
  api.localModel.mockResolvedValue(ok(LOCAL_MODEL));
  api.getModelSettings.mockResolvedValue(ok(STORED));
  api.setModelSettings.mockImplementation(async (s) => ok({ ...STORED, ...s, api_key: null }));
  api.modelList.mockResolvedValue(ok(["llama3.2", "qwen3:8b"]));
  api.syncSettings.mockResolvedValue(ok(SYNC_SETTINGS));
});

async function renderSettings() {
  render(<ModelSettings onClose={onClose} onSaved={onSaved} />);
  const url = await screen.findByTestId<HTMLInputElement>("model-base-url");
  await waitFor(() => expect(url.value).toBe(STORED.base_url));
}

const field = (id: string) => screen.getByTestId<HTMLInputElement>(id);

describe("model settings", () => {
  it("offers the server's own models for the typed address, and says when a name is not among them", async () => {
    await renderSettings();
    await waitFor(() => expect(screen.getByTestId("model-offered").textContent).toBe("The server offers 2 models: pick one in the Model field."));
    const options = [...document.querySelectorAll("#model-offered option")].map((o) => o.getAttribute("value"));
    expect(options).toEqual(["llama3.2", "qwen3:8b"]);
    expect(field("model-name").getAttribute("list")).toBe("model-offered");
    fireEvent.change(field("model-name"), { target: { value: "qwen3:8" } });
    expect(screen.getByTestId("model-offered").textContent).toContain("It does not list “qwen3:8”.");
    // Another address: asked again when the person leaves the field, with the values as typed.
    api.modelList.mockResolvedValue(err("model_unreachable", "can't reach the model: http://127.0.0.1:9/v1 unreachable"));
    fireEvent.change(field("model-base-url"), { target: { value: "http://127.0.0.1:9/v1" } });
    fireEvent.blur(field("model-base-url"));
    await waitFor(() => expect(api.modelList).toHaveBeenLastCalledWith(expect.objectContaining({ base_url: "http://127.0.0.1:9/v1" })));
    await waitFor(() => expect(screen.getByTestId("model-offered").textContent).toContain("Could not list this server's models"));
    expect(document.querySelectorAll("#model-offered option")).toHaveLength(0);
    expect(api.setModelSettings).not.toHaveBeenCalled();
  });

  it("shows the settings and saves them, keeping the stored key when the key field is left empty", async () => {
    await renderSettings();
    expect(field("model-name").value).toBe("qwen3:8b");
    expect(field("model-fast").value).toBe("");
    expect(field("model-context").value).toBe("32768");
    expect(field("model-timeout").value).toBe("120");
    expect(field("model-api-key").type).toBe("password");
    expect(field("model-api-key").placeholder).toContain("A key is stored");
    expect(screen.getByTestId<HTMLButtonElement>("model-save").disabled).toBe(true);

    fireEvent.change(field("model-name"), { target: { value: "llama3.2" } });
    fireEvent.change(field("model-fast"), { target: { value: "qwen3:1.7b" } });
    fireEvent.change(field("model-timeout"), { target: { value: "60" } });
    fireEvent.click(screen.getByTestId("model-save"));
    await waitFor(() =>
      expect(api.setModelSettings).toHaveBeenCalledWith({
        base_url: "http://127.0.0.1:11434/v1",
        model: "llama3.2",
        fast_model: "qwen3:1.7b",
        context_window: 32768,
        timeout_secs: 60,
        api_key: null,
        extraction: "auto",
        // The local/server choice was not touched: the stored one stays.
        local: null,
      }),
    );
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ model: "llama3.2" })));
    expect(screen.getByTestId("model-saved")).toBeTruthy();

    fireEvent.click(screen.getByTestId("model-close"));
    expect(onClose).toHaveBeenCalled();
  });

  it("offers the local model beside a server: choosing it hides the server's fields and saves the choice", async () => {
    await renderSettings();
    expect(screen.getByTestId("model-local-status").textContent).toBe(
      "qwen2.5-coder-1.5b-instruct. Installed (1.1 GB); it starts when a message needs it.",
    );
    const local = field("model-choice-local");
    expect(local.checked).toBe(false);
    fireEvent.click(local);
    expect(screen.queryByTestId("model-base-url")).toBeNull();
    fireEvent.click(screen.getByTestId("model-save"));
    await waitFor(() => expect(api.setModelSettings).toHaveBeenCalledWith(expect.objectContaining({ local: true })));
    // And back to the server: its fields return as they were.
    fireEvent.click(field("model-choice-server"));
    expect(field("model-base-url").value).toBe(STORED.base_url);
  });

  it("says what the local model still needs when it is not installed", async () => {
    api.localModel.mockResolvedValue(ok({ ...LOCAL_MODEL, installed: false }));
    await renderSettings();
    await waitFor(() =>
      expect(screen.getByTestId("model-local-status").textContent).toContain("Not installed yet (1.1 GB to fetch): install it here, or with `mnemo model install`"),
    );
  });

  it("sends a new key, or an empty one to remove the stored key", async () => {
    await renderSettings();
    fireEvent.change(field("model-api-key"), { target: { value: "sk-new" } });
    fireEvent.click(screen.getByTestId("model-save"));
    await waitFor(() => expect(api.setModelSettings).toHaveBeenLastCalledWith(expect.objectContaining({ api_key: "sk-new" })));
    await waitFor(() => expect(field("model-api-key").value).toBe(""));

    fireEvent.click(screen.getByTestId("model-remove-key"));
    expect(field("model-api-key").placeholder).toContain("removed");
    fireEvent.click(screen.getByTestId("model-save"));
    await waitFor(() => expect(api.setModelSettings).toHaveBeenLastCalledWith(expect.objectContaining({ api_key: "" })));
  });

  it("chooses how memories are written, saved with the other settings, and says the way the model gets now", async () => {
    api.getModelSettings.mockResolvedValue(
      ok({
        ...STORED,
        extraction: "auto",
        extraction_choice: {
          road: "planner",
          then_planner: false,
          why: "learned on 2026-11-27: the tool agent wrote nothing where the planner found 2 fact(s)",
        },
      }),
    );
    await renderSettings();
    // A labelled select: found by its label, so the label is tied to it.
    const select = screen.getByLabelText<HTMLSelectElement>("How memories are written");
    expect(select).toBe(screen.getByTestId("model-extraction"));
    expect(select.value).toBe("auto");
    expect([...select.options].map((o) => [o.value, o.textContent])).toEqual([
      ["auto", "Automatic (recommended)"],
      ["tools", "Tool agent"],
      ["planner", "Planner (one JSON answer; best for small local models)"],
    ]);
    const now = screen.getByTestId("model-extraction-now");
    expect(now.textContent).toBe("Now: the planner — learned on 2026-11-27: the tool agent wrote nothing where the planner found 2 fact(s)");
    expect(select.getAttribute("aria-describedby")).toBe(now.id);

    fireEvent.change(select, { target: { value: "planner" } });
    expect(screen.getByTestId<HTMLButtonElement>("model-save").disabled).toBe(false);
    fireEvent.click(screen.getByTestId("model-save"));
    await waitFor(() => expect(api.setModelSettings).toHaveBeenCalledWith(expect.objectContaining({ extraction: "planner", model: "qwen3:8b" })));
    await waitFor(() => expect(screen.getByTestId("model-saved")).toBeTruthy());
    expect(select.value).toBe("planner");
  });

  it("starts at Automatic when the server names no way, and says nothing of one without a model", async () => {
    api.getModelSettings.mockResolvedValue(ok({ ...STORED, extraction: null, extraction_choice: null }));
    await renderSettings();
    expect(field("model-extraction").value).toBe("auto");
    expect(screen.queryByTestId("model-extraction-now")).toBeNull();
    expect(field("model-extraction").getAttribute("aria-describedby")).toBeNull();
  });

  it("lists environment overrides", async () => {
    api.getModelSettings.mockResolvedValue(ok({ ...STORED, env_overrides: ["MNEMO_LLM_MODEL"] }));
    await renderSettings();
    expect(screen.getByTestId("model-env-overrides").textContent).toContain("MNEMO_LLM_MODEL overrides the model");
  });

  it("shows a rejected save inline", async () => {
    api.setModelSettings.mockResolvedValue(
      err("usage", "the base URL `localhost:11434` must start with http:// or https:// (e.g. http://127.0.0.1:11434/v1)"),
    );
    await renderSettings();
    fireEvent.change(field("model-base-url"), { target: { value: "localhost:11434" } });
    fireEvent.click(screen.getByTestId("model-save"));
    const error = await screen.findByTestId("inline-error");
    expect(error.textContent).toContain("must start with http://");
    expect(error.getAttribute("data-code")).toBe("usage");
    expect(onSaved).not.toHaveBeenCalled();

    // Numbers are checked before anything is sent.
    api.setModelSettings.mockClear();
    fireEvent.change(field("model-context"), { target: { value: "lots" } });
    fireEvent.click(screen.getByTestId("model-save"));
    expect((await screen.findByTestId("inline-error")).textContent).toContain("context window");
    expect(api.setModelSettings).not.toHaveBeenCalled();
  });

  it("tests the values as typed without saving them, and forgets the result when they change", async () => {
    api.testModel.mockResolvedValue(ok({ model: "llama3.2", reply: "ok", latency_ms: 42 }));
    await renderSettings();
    fireEvent.change(field("model-name"), { target: { value: "llama3.2" } });
    fireEvent.click(screen.getByTestId("model-test"));
    await waitFor(() =>
      expect(screen.getByTestId("model-test-result").textContent).toBe("Connected: llama3.2 answered in 42 ms. Not saved yet: press Save to keep it."),
    );
    expect(api.setModelSettings).not.toHaveBeenCalled();
    expect(api.testModel.mock.calls[0][0]).toMatchObject({ model: "llama3.2" });
    expect((screen.getByTestId("model-save") as HTMLButtonElement).disabled).toBe(false);
    fireEvent.change(field("model-name"), { target: { value: "llama3.3" } });
    expect(screen.queryByTestId("model-test-result")).toBeNull();
  });

  it("holds the model's settings and sync's in one dialog, and starts at sync when asked", async () => {
    await renderSettings();
    const dialog = screen.getByTestId("model-settings");
    expect(dialog.querySelector("h2")?.textContent).toBe("Settings");
    expect([...dialog.querySelectorAll("h3")].map((h) => h.textContent)).toEqual(["Model", "Sync"]);
    await screen.findByTestId("sync-remote");
    expect(document.activeElement).toBe(field("model-base-url"));
    cleanup();

    render(<ModelSettings focus="sync" onClose={onClose} onSaved={onSaved} />);
    const remote = await screen.findByTestId("sync-remote");
    await waitFor(() => expect(field("model-base-url").value).toBe(STORED.base_url));
    expect(document.activeElement).toBe(remote);
  });

  it("closes on Escape wherever focus is", async () => {
    await renderSettings();
    (document.activeElement as HTMLElement | null)?.blur();
    fireEvent.keyDown(document.body, { key: "Escape" });
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it("shows a failed connection test", async () => {
    api.testModel.mockResolvedValue(
      err("model_not_configured", "chat needs a model: cannot reach http://127.0.0.1:11434/v1 (connection refused)"),
    );
    await renderSettings();
    fireEvent.click(screen.getByTestId("model-test"));
    const result = await screen.findByText(/connection refused/);
    expect(result.getAttribute("data-testid")).toBe("model-test-result");
    expect(result.getAttribute("data-state")).toBe("failed");
    expect(api.setModelSettings).not.toHaveBeenCalled();
  });

  it("has one Save for the whole dialog: it saves the model's and sync's changes", async () => {
    api.setSyncSettings.mockImplementation(async (v) => ok({ ...SYNC_SETTINGS, ...v }));
    await renderSettings();
    await screen.findByTestId("sync-remote");
    const dialog = screen.getByTestId("model-settings");
    expect([...dialog.querySelectorAll("button")].filter((b) => b.textContent === "Save")).toHaveLength(1);
    fireEvent.change(field("model-name"), { target: { value: "llama3.2" } });
    fireEvent.change(field("sync-remote"), { target: { value: "git@git.example:me/memory.git" } });
    fireEvent.click(screen.getByTestId("model-save"));
    await waitFor(() => expect(api.setSyncSettings).toHaveBeenCalledWith(expect.objectContaining({ remote: "git@git.example:me/memory.git" })));
    expect(api.setModelSettings).toHaveBeenCalledWith(expect.objectContaining({ model: "llama3.2" }));
    await screen.findByTestId("model-saved");
    expect(screen.getByTestId<HTMLButtonElement>("model-save").disabled).toBe(true);
  });

  it("saves with Ctrl+S only the form that has the focus, and never says Saved when nothing was", async () => {
    api.setSyncSettings.mockImplementation(async (v) => ok({ ...SYNC_SETTINGS, ...v }));
    // The memory editor behind the dialog listens for Ctrl+S on the window: it must not hear it.
    const behind = vi.fn();
    window.addEventListener("keydown", behind);
    try {
      await renderSettings();
      const remote = await screen.findByTestId("sync-remote");
      // Nothing typed: nothing saved, nothing claimed.
      fireEvent.keyDown(field("model-base-url"), { key: "s", ctrlKey: true });
      expect(await screen.findByTestId("settings-unchanged")).toBeTruthy();
      expect(screen.queryByTestId("model-saved")).toBeNull();
      expect(api.setModelSettings).not.toHaveBeenCalled();

      // A URL typed in Sync, and a model typed too: Ctrl+S in the sync field saves sync only.
      fireEvent.change(field("model-name"), { target: { value: "llama3.2" } });
      fireEvent.change(remote, { target: { value: "git@git.example:me/memory.git" } });
      fireEvent.keyDown(remote, { key: "s", ctrlKey: true });
      await waitFor(() => expect(api.setSyncSettings).toHaveBeenCalledWith(expect.objectContaining({ remote: "git@git.example:me/memory.git" })));
      expect(api.setModelSettings).not.toHaveBeenCalled();
      // The model's change still waits: no "Saved" over it.
      expect(screen.queryByTestId("model-saved")).toBeNull();
      expect(screen.getByTestId<HTMLButtonElement>("model-save").disabled).toBe(false);

      // Ctrl+S in the model's form saves the model.
      fireEvent.keyDown(field("model-name"), { key: "s", ctrlKey: true });
      await waitFor(() => expect(api.setModelSettings).toHaveBeenCalledWith(expect.objectContaining({ model: "llama3.2" })));
      expect(await screen.findByTestId("model-saved")).toBeTruthy();
      expect(api.setSyncSettings).toHaveBeenCalledTimes(1);
      expect(behind).not.toHaveBeenCalled();
    } finally {
      window.removeEventListener("keydown", behind);
    }
  });
});
