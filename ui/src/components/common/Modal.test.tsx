import { describe, expect, it, vi } from "vitest";
import { useState } from "react";
import { fireEvent, render, screen } from "@testing-library/react";
import { Modal } from "./Modal";

function Report({ onClose }: { onClose: () => void }) {
  return (
    <Modal labelledBy="t" onClose={onClose} fallbackFocus={() => document.getElementById("dream")}>
      <h2 id="t">Dream report</h2>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </Modal>
  );
}

function Page({ openFirst = false }: { openFirst?: boolean }) {
  const [open, setOpen] = useState(openFirst);
  return (
    <>
      <button type="button" id="dream" onClick={() => setOpen(true)}>
        Dream
      </button>
      {open && <Report onClose={() => setOpen(false)} />}
    </>
  );
}

describe("a dialog's frame", () => {
  it("gives the focus back to its opener", () => {
    render(<Page />);
    const opener = screen.getByRole("button", { name: "Dream" });
    opener.focus();
    fireEvent.click(opener);
    expect(document.activeElement?.textContent).toBe("Close");
    fireEvent.keyDown(document.body, { key: "Escape" });
    expect(document.activeElement).toBe(opener);
  });

  it("opened on its own (nothing had the focus), it gives the focus to its fallback, never to the page", () => {
    render(<Page openFirst />);
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Dream" }));
  });

  it("closes on a press outside without moving the focus to the page", () => {
    const onClose = vi.fn();
    render(<Report onClose={onClose} />);
    const backdrop = document.querySelector(".modal-backdrop")!;
    const press = new MouseEvent("mousedown", { bubbles: true, cancelable: true });
    backdrop.dispatchEvent(press);
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(press.defaultPrevented).toBe(true);
    // A press inside does nothing.
    fireEvent.mouseDown(screen.getByRole("heading", { name: "Dream report" }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
