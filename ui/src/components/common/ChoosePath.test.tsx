// The native file chooser beside a typed path: offered in the desktop app only; a
// picked path fills the field, a cancel changes nothing, a chooser that fails says so in words.
import { describe, expect, it, vi, beforeEach } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";

const desktop = vi.hoisted(() => ({ on: true }));
vi.mock("../../lib/transport", () => ({ isDesktop: () => desktop.on }));
const dialog = vi.hoisted(() => ({ open: vi.fn(), save: vi.fn() }));
vi.mock("@tauri-apps/plugin-dialog", () => dialog);

import { ChoosePath } from "./ChoosePath";

beforeEach(() => {
  desktop.on = true;
  dialog.open.mockReset();
  dialog.save.mockReset();
});

describe("ChoosePath", () => {
  it("is not offered in a browser, where a page cannot learn a path on the server's disk", () => {
    desktop.on = false;
    const { container } = render(<ChoosePath kinds={[{ kind: "file", label: "Choose file…" }]} current="" onPick={() => {}} />);
    expect(container.textContent).toBe("");
  });

  it("fills the field with the file or folder picked, opening where the typed path is", async () => {
    const onPick = vi.fn();
    dialog.open.mockResolvedValueOnce("/home/ana/Downloads/conversations.json").mockResolvedValueOnce("/home/ana/old-home");
    render(
      <ChoosePath
        kinds={[
          { kind: "file", label: "Choose file…" },
          { kind: "folder", label: "Choose folder…" },
        ]}
        current="/home/ana/Downloads"
        onPick={onPick}
      />,
    );
    fireEvent.click(screen.getByText("Choose file…"));
    await waitFor(() => expect(onPick).toHaveBeenCalledWith("/home/ana/Downloads/conversations.json"));
    expect(dialog.open).toHaveBeenLastCalledWith(expect.objectContaining({ directory: false, multiple: false, defaultPath: "/home/ana/Downloads" }));
    fireEvent.click(screen.getByText("Choose folder…"));
    await waitFor(() => expect(onPick).toHaveBeenCalledWith("/home/ana/old-home"));
    expect(dialog.open).toHaveBeenLastCalledWith(expect.objectContaining({ directory: true }));
  });

  it("saves as a zip where the person says; a cancel changes nothing", async () => {
    const onPick = vi.fn();
    dialog.save.mockResolvedValueOnce(null).mockResolvedValueOnce("/home/ana/mnemo.zip");
    render(<ChoosePath kinds={[{ kind: "save", label: "Choose where…" }]} current="" filters={[{ name: "Zip archive", extensions: ["zip"] }]} onPick={onPick} />);
    fireEvent.click(screen.getByText("Choose where…"));
    await waitFor(() => expect(dialog.save).toHaveBeenCalledTimes(1));
    expect(onPick).not.toHaveBeenCalled();
    fireEvent.click(screen.getByText("Choose where…"));
    await waitFor(() => expect(onPick).toHaveBeenCalledWith("/home/ana/mnemo.zip"));
    expect(dialog.save).toHaveBeenLastCalledWith({ defaultPath: undefined, filters: [{ name: "Zip archive", extensions: ["zip"] }] });
  });

  it("says in a sentence when the chooser cannot open, and what to do instead", async () => {
    dialog.open.mockRejectedValueOnce(new Error("dialog.open not allowed"));
    render(<ChoosePath kinds={[{ kind: "file", label: "Choose file…" }]} current="" onPick={() => {}} />);
    fireEvent.click(screen.getByText("Choose file…"));
    const said = await screen.findByTestId("choose-failed");
    expect(said.textContent).toBe("The file chooser could not open (dialog.open not allowed). Type the full path instead.");
  });
});
