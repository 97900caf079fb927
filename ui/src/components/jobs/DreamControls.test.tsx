import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { DreamControls } from "./DreamControls";
import { commands } from "../../lib/bindings";
import type { TaskInfo } from "../../lib/bindings";
import { err, ok, task } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    dream: vi.fn(),
    autoDream: vi.fn(),
    setAutoDream: vi.fn(),
  },
}));

const api = vi.mocked(commands);

const QUEUED = task("d1", { kind: "dream", session: null, status: "queued", started_at: null, finished_at: null });

const onStarted = vi.fn();
const onShow = vi.fn();

beforeEach(() => {
  onStarted.mockReset();
  onShow.mockReset();
  api.autoDream.mockResolvedValue(ok(true));
});

function renderControls(active: TaskInfo | null = null) {
  return render(<DreamControls workspace="personal" active={active} onStarted={onStarted} onShow={onShow} />);
}

const toggle = () => screen.getByTestId<HTMLInputElement>("auto-dream-toggle");

describe("Dream button", () => {
  it("starts a dream of the workspace", async () => {
    api.dream.mockResolvedValue(ok(QUEUED));
    renderControls();
    fireEvent.click(screen.getByRole("button", { name: "Dream" }));
    await waitFor(() => expect(onStarted).toHaveBeenCalledWith(QUEUED));
    expect(api.dream).toHaveBeenCalledWith("personal", null);
  });

  it("shows `locked` inline when another process is consolidating", async () => {
    api.dream.mockResolvedValue(err("locked", "personal is being consolidated by process 4242; try again when it finishes"));
    renderControls();
    fireEvent.click(screen.getByRole("button", { name: "Dream" }));
    const error = await screen.findByTestId("inline-error");
    expect(error.getAttribute("data-code")).toBe("locked");
    expect(error.textContent).toContain("process 4242");
    expect(onStarted).not.toHaveBeenCalled();
    expect(screen.getByRole<HTMLButtonElement>("button", { name: "Dream" }).disabled).toBe(false);
  });

  it("while the workspace dreams, shows that dream instead of starting another", () => {
    renderControls({ ...QUEUED, status: "running" });
    const button = screen.getByTestId("dream-button");
    expect(button.textContent).toBe("✦ Dreaming…");
    fireEvent.click(button);
    expect(onShow).toHaveBeenCalledWith("d1");
    expect(api.dream).not.toHaveBeenCalled();
  });
});

describe("auto-dream switch", () => {
  it("reads the workspace's setting and changes it", async () => {
    api.autoDream.mockResolvedValue(ok(false));
    api.setAutoDream.mockResolvedValue(ok(true));
    renderControls();
    expect(toggle().disabled).toBe(true);
    await waitFor(() => expect(toggle().disabled).toBe(false));
    expect(api.autoDream).toHaveBeenCalledWith("personal");
    expect(toggle().checked).toBe(false);
    fireEvent.click(toggle());
    await waitFor(() => expect(toggle().checked).toBe(true));
    expect(api.setAutoDream).toHaveBeenCalledWith("personal", true);
  });

  it("shows a failed change inline and keeps the old setting", async () => {
    api.setAutoDream.mockResolvedValue(err("io", "cannot write settings.toml"));
    renderControls();
    await waitFor(() => expect(toggle().checked).toBe(true));
    fireEvent.click(toggle());
    expect((await screen.findByTestId("inline-error")).textContent).toContain("Cannot write settings.toml.");
    expect(toggle().checked).toBe(true);
    expect(toggle().disabled).toBe(false);
  });
});
