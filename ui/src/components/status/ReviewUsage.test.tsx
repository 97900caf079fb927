// The Status view's review switch and its Usage section.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ReviewSwitch } from "./ReviewSwitch";
import { UsageSection } from "./UsageSection";
import { commands } from "../../lib/bindings";
import { DOCS, err, memoryUsage, ok, proposalPage, proposalSummary, reviewMode } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: { reviewMode: vi.fn(), setReviewMode: vi.fn(), inbox: vi.fn(), memoryUsage: vi.fn(), list: vi.fn() },
}));

const api = vi.mocked(commands);
const onOpenInbox = vi.fn();
const onOpenMemory = vi.fn();

beforeEach(() => {
  vi.clearAllMocks();
  api.reviewMode.mockResolvedValue(ok(reviewMode()));
  api.inbox.mockResolvedValue(ok(proposalPage()));
  api.list.mockResolvedValue(ok(DOCS));
});

describe("the review switch", () => {
  it("reads review mode, switches it and offers the inbox with what waits", async () => {
    api.setReviewMode.mockResolvedValue(ok(reviewMode({ on: true, decided: true })));
    render(
      <div>
        <ReviewSwitch workspace="personal" onOpenInbox={onOpenInbox} />
      </div>,
    );
    const box = screen.getByTestId<HTMLInputElement>("review-toggle");
    await waitFor(() => expect(box.disabled).toBe(false));
    expect(box.checked).toBe(false);
    expect(screen.getByText("Review automatic writes before they are saved")).toBeTruthy();
    expect(screen.queryByTestId("review-inbox")).toBeNull();

    api.reviewMode.mockResolvedValue(ok(reviewMode({ on: true, decided: true })));
    api.inbox.mockResolvedValue(ok(proposalPage([proposalSummary(1), proposalSummary(2)])));
    fireEvent.click(box);
    await waitFor(() => expect(api.setReviewMode).toHaveBeenCalledWith("personal", true));
    await waitFor(() => expect(box.checked).toBe(true));
    const link = await screen.findByTestId("review-inbox");
    await waitFor(() => expect(link.textContent).toBe("2 waiting — open the inbox"));
    fireEvent.click(link);
    expect(onOpenInbox).toHaveBeenCalled();
  });

  it("shows a failed switch in a sentence and keeps the setting", async () => {
    api.setReviewMode.mockResolvedValue(err("io", "cannot write settings.toml"));
    render(
      <div>
        <ReviewSwitch workspace="personal" />
      </div>,
    );
    const box = screen.getByTestId<HTMLInputElement>("review-toggle");
    await waitFor(() => expect(box.disabled).toBe(false));
    fireEvent.click(box);
    expect((await screen.findByTestId("inline-error")).textContent).toContain("Cannot write settings.toml.");
    expect(box.checked).toBe(false);
  });
});

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();

describe("usage", () => {
  it("lists the most recalled, the most expensive and the never recalled by name; each opens its memory", async () => {
    api.memoryUsage.mockResolvedValue(
      ok([
        memoryUsage("me.md", { recalls: 14, tokens: 3087, last_recalled: daysAgo(2) }),
        memoryUsage("proj.md", { recalls: 2, tokens: 12_400, last_recalled: daysAgo(1) }),
        memoryUsage("links.md"),
        memoryUsage("zeta.md"),
        memoryUsage("response-style.md"),
      ]),
    );
    render(<UsageSection workspace="personal" onOpenMemory={onOpenMemory} />);
    const recalled = await screen.findByTestId("usage-recalled");
    expect(api.memoryUsage).toHaveBeenCalledWith("personal", null);
    await waitFor(() => expect(within(recalled).getAllByTestId("usage-item").map((i) => i.textContent)).toEqual(["Alpha role 14 times", "Launch date 2 times"]));
    expect(within(screen.getByTestId("usage-tokens")).getAllByTestId("usage-item").map((i) => i.textContent)).toEqual([
      "Launch date ~12,000 tokens",
      "Alpha role ~3,100 tokens",
    ]);
    const never = screen.getByTestId("usage-never");
    expect(never.textContent).toContain("3 memories have never been recalled.");
    expect(within(never).getAllByTestId("usage-item").map((i) => i.getAttribute("data-path"))).toEqual(["links.md", "response-style.md", "zeta.md"]);
    fireEvent.click(within(recalled).getByRole("button", { name: "Alpha role" }));
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "me.md");
  });

  it("says so when nothing was recalled yet, and shows files when names cannot be read", async () => {
    api.memoryUsage.mockResolvedValue(ok([memoryUsage("笔记.md")]));
    api.list.mockResolvedValue(err("io", "cannot read"));
    render(<UsageSection workspace="personal" onOpenMemory={onOpenMemory} />);
    expect((await screen.findByTestId("usage-recalled")).textContent).toContain("No memory has been recalled yet");
    expect(screen.getByTestId("usage-tokens").textContent).toContain("No tokens injected yet.");
    expect(within(screen.getByTestId("usage-never")).getByTestId("usage-item").textContent).toBe("笔记.md ");
  });

  it("shows a failed read in a sentence", async () => {
    api.memoryUsage.mockResolvedValue(err("not_found", "no workspace `gone`"));
    render(<UsageSection workspace="gone" onOpenMemory={onOpenMemory} />);
    expect((await screen.findByTestId("inline-error")).textContent).toBe("No workspace “gone”.");
  });
});
