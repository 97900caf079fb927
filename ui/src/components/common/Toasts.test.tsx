import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { ToastProvider, useToast } from "./Toasts";

function Page({ run }: { run: () => void }) {
  const toast = useToast();
  return (
    <>
      <button type="button" onClick={() => toast({ message: "Deleted “Tea”", action: { label: "Undo", run } })}>
        Delete
      </button>
      <input type="search" aria-label="Search" />
    </>
  );
}

describe("toasts and the focus", () => {
  it("gives the focus back to where it came from when a toast's action runs, never to the page", () => {
    const run = vi.fn();
    render(
      <ToastProvider>
        <Page run={run} />
      </ToastProvider>,
    );
    const opener = screen.getByRole("button", { name: "Delete" });
    fireEvent.click(opener);
    const undo = screen.getByRole("button", { name: "Undo" });
    // Tab from the page reaches the toast: focus comes from the opener.
    opener.focus();
    undo.focus();
    fireEvent.click(undo);
    expect(run).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId("toast")).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it("falls back to the search box when the focus came from nowhere (the page)", () => {
    render(
      <ToastProvider>
        <Page run={() => {}} />
      </ToastProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Delete" }));
    (document.activeElement as HTMLElement | null)?.blur();
    const dismiss = screen.getByRole("button", { name: "Dismiss" });
    dismiss.focus();
    fireEvent.click(dismiss);
    expect(document.activeElement).toBe(screen.getByRole("searchbox", { name: "Search" }));
  });
});
