import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { ReviewOffer } from "./ReviewOffer";
import { ToastProvider } from "../common/Toasts";
import { commands } from "../../lib/bindings";
import { err, ok, reviewMode } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()), commands: { reviewMode: vi.fn(), setReviewMode: vi.fn() } }));

const api = vi.mocked(commands);

beforeEach(() => {
  vi.clearAllMocks();
  api.reviewMode.mockResolvedValue(ok(reviewMode({ offer: true })));
});

function renderOffer(workspace = "claude-proj") {
  return render(
    <ToastProvider>
      <ReviewOffer workspace={workspace} label="proj" />
    </ToastProvider>,
  );
}

describe("the offer of review mode", () => {
  it("asks once, politely, where another tool writes; Turn on review turns it on and says so", async () => {
    api.setReviewMode.mockResolvedValue(ok(reviewMode({ on: true, decided: true })));
    renderOffer();
    const offer = await screen.findByTestId("review-offer");
    expect(offer.textContent).toContain("Review what assistants write here before it is saved?");
    expect(api.reviewMode).toHaveBeenCalledWith("claude-proj");
    fireEvent.click(screen.getByTestId("review-offer-on"));
    await waitFor(() => expect(api.setReviewMode).toHaveBeenCalledWith("claude-proj", true));
    await waitFor(() => expect(screen.queryByTestId("review-offer")).toBeNull());
    expect((await screen.findByTestId("toast")).textContent).toContain("Review is on for proj");
  });

  it("Not now decides it off, so it is never asked again", async () => {
    api.setReviewMode.mockResolvedValue(ok(reviewMode({ decided: true })));
    renderOffer();
    fireEvent.click(await screen.findByTestId("review-offer-later"));
    await waitFor(() => expect(api.setReviewMode).toHaveBeenCalledWith("claude-proj", false));
    await waitFor(() => expect(screen.queryByTestId("review-offer")).toBeNull());
  });

  it("is not shown where nothing is to be offered, or when the mode cannot be read", async () => {
    api.reviewMode.mockResolvedValue(ok(reviewMode({ decided: true })));
    const { unmount } = renderOffer("personal");
    await waitFor(() => expect(api.reviewMode).toHaveBeenCalled());
    expect(screen.queryByTestId("review-offer")).toBeNull();
    unmount();
    api.reviewMode.mockResolvedValue(err("not_found", "no workspace x"));
    renderOffer("x");
    await waitFor(() => expect(api.reviewMode).toHaveBeenCalledWith("x"));
    expect(screen.queryByTestId("review-offer")).toBeNull();
  });

  it("keeps asking when the answer could not be saved, and says why", async () => {
    api.setReviewMode.mockResolvedValue(err("io", "settings.toml could not be written: read-only file system"));
    renderOffer();
    fireEvent.click(await screen.findByTestId("review-offer-on"));
    expect((await screen.findByTestId("inline-error")).textContent).toMatch(/could not be written: read-only file system\.$/);
    expect(screen.getByTestId("review-offer")).toBeTruthy();
  });
});
