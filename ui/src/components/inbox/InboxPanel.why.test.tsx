// Reviews show where deleted facts went: a dream in review mode is one proposal; its
// task's report says what was merged where and why each file changed. And the inbox's headings
// never skip a level (axe's heading-order), conflicts or not.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { InboxPanel } from "./InboxPanel";
import { ToastProvider } from "../common/Toasts";
import { commands } from "../../lib/bindings";
import { err, ok, proposalOf, proposalPage, remoteSync, reviewMode, syncConflict, workspaceSync } from "../../test/fixtures";
import { freezeProposal, freezeReport, freezeTask } from "../../test/dreamProposal";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    inbox: vi.fn(),
    proposal: vi.fn(),
    inboxAccept: vi.fn(),
    inboxReject: vi.fn(),
    undoGroup: vi.fn(),
    reviewMode: vi.fn(),
    setReviewMode: vi.fn(),
    syncStatus: vi.fn(),
    syncResolve: vi.fn(),
    list: vi.fn(),
    task: vi.fn(),
    chatSessions: vi.fn(),
  },
}));

const api = vi.mocked(commands);

beforeEach(() => {
  vi.clearAllMocks();
  const p = freezeProposal();
  api.reviewMode.mockResolvedValue(ok(reviewMode({ on: true, decided: true })));
  api.inbox.mockResolvedValue(ok(proposalPage([p])));
  api.proposal.mockResolvedValue(ok(p));
  api.task.mockResolvedValue(ok(freezeTask()));
  api.syncStatus.mockResolvedValue(ok(remoteSync()));
  api.list.mockResolvedValue(ok([]));
  api.chatSessions.mockResolvedValue(ok([]));
});

function renderInbox() {
  return render(
    <ToastProvider>
      <InboxPanel workspace="personal" label="Personal" onChanged={() => {}} />
    </ToastProvider>,
  );
}

async function openDream() {
  fireEvent.click(await screen.findByTestId("proposal-open"));
  await screen.findAllByTestId("proposal-file");
  return screen.getByTestId("proposal-body");
}

const file = (body: HTMLElement, path: string) => body.querySelector<HTMLElement>(`[data-testid="proposal-file"][data-path="${path}"]`)!;

/** Every heading in document order skips no level going down (what axe's heading-order checks). */
function headingLevels(): number[] {
  return [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")].map((h) => Number(h.tagName[1]));
}
function skipsNoLevel(levels: number[]): boolean {
  return levels.every((l, i) => i === 0 || l <= levels[i - 1] + 1);
}

describe("a dream's proposal", () => {
  it("reads its task once opened and says beside the deleted file where its entries are kept", async () => {
    renderInbox();
    await screen.findByTestId("proposal");
    expect(api.task).not.toHaveBeenCalled();
    const body = await openDream();
    await waitFor(() => expect(api.task).toHaveBeenCalledWith("dream-7"));
    const deleted = file(body, "mobile-release-freeze.md");
    expect((await within(deleted).findByTestId("proposal-file-went")).textContent).toBe(
      "Nothing is lost: every entry it held is kept in freeze-window.md.",
    );
    // A removed entry says which copy it joined.
    const team = file(body, "team.md");
    const removed = within(team).getByTestId("proposal-entry");
    expect(removed.getAttribute("data-op")).toBe("remove");
    expect(within(removed).getByTestId("proposal-entry-went").textContent).toBe("Merged into its copy earlier in this file.");
    // A file that only changed order says nothing of where anything went.
    expect(within(file(body, "freeze-window.md")).queryByTestId("proposal-file-went")).toBeNull();
  });

  it("lists the dream's reason for each file under “Why”", async () => {
    renderInbox();
    const body = await openDream();
    const why = await within(body).findByTestId("proposal-why");
    expect(within(why).getByRole("heading", { name: "Why" })).toBeTruthy();
    expect(within(why).getAllByTestId("proposal-why-note").map((n) => n.textContent)).toEqual([
      "freeze-window.md: Entries put in A–Z order by their first line (no text changed).",
      "team.md: 1 entry repeated in it merged into one copy.",
      "mobile-release-freeze.md: Deleted: every entry it held is kept in freeze-window.md.",
    ]);
    // Above the files.
    expect(why.compareDocumentPosition(file(body, "freeze-window.md")) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it("says nothing extra, and no error, when its task is gone", async () => {
    api.task.mockResolvedValue(err("not_found", "no task dream-7"));
    renderInbox();
    const body = await openDream();
    await waitFor(() => expect(api.task).toHaveBeenCalledWith("dream-7"));
    expect(within(body).queryByTestId("proposal-why")).toBeNull();
    expect(within(body).queryByTestId("proposal-file-went")).toBeNull();
    expect(within(body).queryByTestId("proposal-entry-went")).toBeNull();
    expect(within(body).queryByTestId("inline-error")).toBeNull();
    // The proposal is as it always was: its files and decisions.
    expect(within(body).getByTestId("proposal-accept-all")).toBeTruthy();
  });

  it("says nothing extra when the task kept no report", async () => {
    api.task.mockResolvedValue(ok({ ...freezeTask(), result: null }));
    renderInbox();
    const body = await openDream();
    await waitFor(() => expect(api.task).toHaveBeenCalled());
    expect(within(body).queryByTestId("proposal-why")).toBeNull();
  });

  it("reads no task for a proposal of another job", async () => {
    api.inbox.mockResolvedValue(ok(proposalPage([proposalOf(7)])));
    api.proposal.mockResolvedValue(ok(proposalOf(7)));
    renderInbox();
    await openDream();
    expect(api.task).not.toHaveBeenCalled();
    // An extraction's "Why" is its entries' own reasons, never a dream's report.
    const why = screen.getByTestId("proposal-why");
    expect(why.textContent).not.toMatch(/merged|kept in/i);
    expect(within(why).getAllByTestId("proposal-why-note").map((n) => n.getAttribute("data-path"))).toEqual(["travel.md"]);
  });
});

describe("the inbox's headings", () => {
  it("skip no level with a dream's “Why” open and no sync conflict", async () => {
    renderInbox();
    const body = await openDream();
    await within(body).findByTestId("proposal-why");
    expect(within(body).getByRole("heading", { name: "Why" }).tagName).toBe("H2");
    expect(skipsNoLevel(headingLevels())).toBe(true);
  });

  it("skip no level with sync conflicts above the proposals (versions are h3 under the section's h2)", async () => {
    const home = syncConflict({
      id: "c-home",
      path: "home.md",
      choices: [
        { label: "Ana's version", texts: ["- Lives in Lisbon since 2021"] },
        { label: "laptop's version", texts: ["- Lives in Porto since 2024"] },
      ],
    });
    api.syncStatus.mockResolvedValue(ok(remoteSync({ workspaces: [workspaceSync({ conflicts: [home] })] })));
    renderInbox();
    const section = await screen.findByTestId("inbox-conflicts");
    expect(within(section).getAllByRole("heading", { level: 3 }).map((h) => h.textContent)).toEqual(["Ana's version", "Laptop's version"]);
    const body = await openDream();
    await within(body).findByTestId("proposal-why");
    expect(within(body).getByRole("heading", { name: "Why" }).tagName).toBe("H3");
    expect(headingLevels()).toEqual([1, 2, 3, 3, 2, 3]);
    expect(skipsNoLevel(headingLevels())).toBe(true);
  });
});

describe("the report's pieces", () => {
  it("come from the merges even when no note names the file", async () => {
    api.task.mockResolvedValue(ok(freezeTask(freezeReport({ notes: [] }))));
    renderInbox();
    const body = await openDream();
    const deleted = file(body, "mobile-release-freeze.md");
    expect((await within(deleted).findByTestId("proposal-file-went")).textContent).toContain("freeze-window.md");
    expect(within(body).queryByTestId("proposal-why")).toBeNull();
  });
});
