import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { ExportDialog } from "./ExportDialog";
import { commands } from "../../lib/bindings";
import { err, ok } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: { exportMemories: vi.fn() },
}));

const api = vi.mocked(commands);
const onClose = vi.fn();
// The clock is pinned (Date only: timers stay real for waitFor): 2026-03-04 15:30:00 local time.
const today = "2026-03-04-153000";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(2026, 2, 4, 15, 30, 0));
  onClose.mockReset();
  api.exportMemories.mockReset();
});

afterEach(() => {
  vi.useRealTimers();
});

function renderDialog(home: string | null = "/home/u/.local/share/mnemo") {
  return render(<ExportDialog workspace="personal" workspaceLabel="个人" home={home} onClose={onClose} />);
}

const dest = () => screen.getByTestId("export-dest") as HTMLInputElement;

describe("Export…", () => {
  it("exports this workspace to a dated zip in the person's folder, and says where", async () => {
    api.exportMemories.mockResolvedValue(ok({ path: `/home/u/mnemo-export-${today}.zip`, workspaces: ["personal"], files: 6, bytes: 4200, left_out: [] }));
    renderDialog();
    expect(screen.getByRole("dialog", { name: "Export memories" })).toBeTruthy();
    expect(dest().value).toBe(`/home/u/mnemo-export-${today}.zip`);
    expect(document.activeElement).toBe(dest());
    expect((screen.getByTestId("export-scope-workspace") as HTMLInputElement).checked).toBe(true);
    expect(screen.getByText("This workspace: 个人")).toBeTruthy();
    fireEvent.click(screen.getByTestId("export-start"));
    await waitFor(() => expect(api.exportMemories).toHaveBeenCalledWith("personal", `/home/u/mnemo-export-${today}.zip`));
    expect((await screen.findByTestId("export-sentence")).textContent).toBe(`Exported 6 files (4.2 KB) to /home/u/mnemo-export-${today}.zip.`);
  });

  it("exports the whole home with no workspace", async () => {
    api.exportMemories.mockResolvedValue(ok({ path: "/srv/all.zip", workspaces: ["personal", "work"], files: 9, bytes: 900, left_out: [] }));
    renderDialog();
    fireEvent.click(screen.getByTestId("export-scope-home"));
    fireEvent.change(dest(), { target: { value: "/srv/all.zip" } });
    fireEvent.click(screen.getByTestId("export-start"));
    await waitFor(() => expect(api.exportMemories).toHaveBeenCalledWith(null, "/srv/all.zip"));
    expect((await screen.findByTestId("export-done")).textContent).toContain("It holds 2 workspaces");
  });

  it("names a second export the same day afresh, so it does not collide with the first", () => {
    const first = renderDialog();
    expect(dest().value).toBe("/home/u/mnemo-export-2026-03-04-153000.zip");
    first.unmount();
    vi.setSystemTime(new Date(2026, 2, 4, 17, 5, 9));
    renderDialog();
    expect(dest().value).toBe("/home/u/mnemo-export-2026-03-04-170509.zip");
  });

  it("fills the destination once the home is known", () => {
    const view = renderDialog(null);
    expect(dest().value).toBe("");
    view.rerender(<ExportDialog workspace="personal" workspaceLabel="个人" home="/home/u/.local/share/mnemo" onClose={onClose} />);
    expect(dest().value).toBe(`/home/u/mnemo-export-${today}.zip`);
  });

  it("checks the path before asking, and explains a file that is already there", async () => {
    renderDialog();
    fireEvent.change(dest(), { target: { value: "out.zip" } });
    fireEvent.click(screen.getByTestId("export-start"));
    expect(screen.getByText("Write the full path of the zip to write, starting with /.")).toBeTruthy();
    fireEvent.change(dest(), { target: { value: "/home/u/out.tar" } });
    fireEvent.click(screen.getByTestId("export-start"));
    expect(screen.getByText("An export is a zip: end its name in .zip.")).toBeTruthy();
    expect(api.exportMemories).not.toHaveBeenCalled();

    api.exportMemories.mockResolvedValue(err("conflict", "/home/u/out.zip already exists: choose another name (an export never overwrites)"));
    fireEvent.change(dest(), { target: { value: "/home/u/out.zip" } });
    fireEvent.click(screen.getByTestId("export-start"));
    const shown = await screen.findByTestId("inline-error");
    expect(shown.textContent).toBe("/home/u/out.zip already exists: choose another name (an export never overwrites).");
    expect(shown.getAttribute("data-code")).toBe("conflict");
  });
});
