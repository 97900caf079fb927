import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { InboxPanel } from "./InboxPanel";
import { ToastProvider } from "../common/Toasts";
import { commands } from "../../lib/bindings";
import { formatWhen } from "../../lib/format";
import { CONFLICT_RECALL } from "../../lib/sync";
import { err, ok, proposalOf, proposalPage, proposalSummary, remoteSync, reviewMode, syncConflict, workspaceSync } from "../../test/fixtures";

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
const onChanged = vi.fn();

beforeEach(() => {
  vi.clearAllMocks();
  api.reviewMode.mockResolvedValue(ok(reviewMode({ on: true, decided: true })));
  api.inbox.mockResolvedValue(ok(proposalPage([proposalSummary(7)])));
  api.proposal.mockImplementation(async (id) => ok(proposalOf(id)));
  api.syncStatus.mockResolvedValue(ok(remoteSync()));
  api.list.mockResolvedValue(ok([]));
  api.chatSessions.mockResolvedValue(ok([]));
  api.task.mockResolvedValue(err("not_found", "no task t-1"));
});

const onOpenMemory = vi.fn();

function renderInbox(focus: number | null = null, pendingNow: number | null = null) {
  const panel = (now: number | null) => (
    <ToastProvider>
      <InboxPanel workspace="personal" label="Personal" pendingNow={now} focus={focus} onChanged={onChanged} onOpenMemory={onOpenMemory} />
    </ToastProvider>
  );
  const view = render(panel(pendingNow));
  return { ...view, polled: (now: number) => view.rerender(panel(now)) };
}

async function openFirst() {
  fireEvent.click(await screen.findByTestId("proposal-open"));
  return screen.findAllByTestId("proposal-entry");
}

describe("the inbox", () => {
  it("lists what waits, each proposal in a sentence with its local time, size and status", async () => {
    renderInbox();
    const card = await screen.findByTestId("proposal");
    expect(api.inbox).toHaveBeenCalledWith("personal", "pending", 0, 50);
    expect(within(card).getByTestId("proposal-origin").textContent).toBe("Extraction after your chat message “我下个月去东京，记得我只坐靠窗的座位”");
    expect(card.textContent).toContain(`${formatWhen("2026-03-01T10:00:00Z")} · 2 changes to travel.md`);
    expect(within(card).getByTestId("proposal-status").textContent).toBe("Waiting for you");
    expect(screen.getByTestId("inbox-count").textContent).toBe("1 proposal waits for your review.");
    expect(screen.getByTestId("inbox-filter-pending").textContent).toBe("Waiting (1)");
    expect(screen.getByTestId("inbox-review").textContent).toMatch(/^Review is on:/);
    // Nothing raw: no ids, codes or JSON.
    expect(card.textContent).not.toMatch(/[{}]|extract-1|s-1/);
  });

  it("shows an extraction's why and source when its data has them", async () => {
    api.chatSessions.mockResolvedValue(ok([{ id: "s-1", title: "Tokyo trip", messages: 4, updated_at: "2026-03-01T10:00:00Z", ignore_memory: false }]));
    renderInbox();
    await openFirst();
    const body = screen.getByTestId("proposal-body");
    await waitFor(() =>
      expect(within(body).getByTestId("proposal-source").textContent).toBe("What you said: “我下个月去东京，记得我只坐靠窗的座位”, in your chat “Tokyo trip”."),
    );
    expect(api.chatSessions).toHaveBeenCalledWith("personal");
    const why = within(body).getByTestId("proposal-why");
    expect(within(why).getAllByTestId("proposal-why-note").map((n) => n.textContent)).toEqual(["travel.md: “只坐靠窗的座位。”: 喜欢看风景。"]);
  });

  it("says no source it does not have: a chat gone, no message kept", async () => {
    api.inbox.mockResolvedValue(ok(proposalPage([proposalSummary(7, { origin: { session: "s-9", message: null, client: null, task: null } })])));
    api.proposal.mockImplementation(async (id) => ok(proposalOf(id, { origin: { session: "s-9", message: null, client: null, task: null } })));
    renderInbox();
    await openFirst();
    await waitFor(() => expect(api.chatSessions).toHaveBeenCalled());
    expect(screen.queryByTestId("proposal-source")).toBeNull();
  });

  it("reads 50 at a time and shows more on request", async () => {
    const page = (from: number, n: number) => Array.from({ length: n }, (_, i) => proposalSummary(10_000 - from - i));
    api.inbox.mockResolvedValueOnce(ok(proposalPage(page(0, 50), { total: 120, pending: 120 })));
    api.inbox.mockResolvedValueOnce(ok(proposalPage(page(50, 50), { total: 120, pending: 120 })));
    renderInbox();
    await waitFor(() => expect(screen.getAllByTestId("proposal")).toHaveLength(50));
    expect(screen.getByTestId("inbox-count").textContent).toBe("120 proposals wait for your review.");
    const more = screen.getByTestId("inbox-more");
    expect(more.textContent).toBe("Show 50 more");
    fireEvent.click(more);
    await waitFor(() => expect(screen.getAllByTestId("proposal")).toHaveLength(100));
    expect(api.inbox).toHaveBeenLastCalledWith("personal", "pending", 50, 50);
    expect(screen.getByTestId("inbox-more").textContent).toBe("Show 20 more");
  });

  it("opens a proposal to its changes, all ticked; Accept all saves it and offers Undo", async () => {
    api.inboxAccept.mockResolvedValue(ok({ proposal: proposalSummary(7, { status: "accepted", group: 42 }), group: 42, paths: ["travel.md"] }));
    api.undoGroup.mockResolvedValue(ok({ undone: 42, group: 43, workspace: "personal", paths: ["travel.md"] }));
    renderInbox();
    const entries = await openFirst();
    expect(api.proposal).toHaveBeenCalledWith(7);
    expect(entries.map((e) => e.getAttribute("data-op"))).toEqual(["edit", "add"]);
    expect(entries.map((e) => e.getAttribute("data-checked"))).toEqual(["true", "true"]);
    expect(entries[0].textContent).toContain("BeforePrefers morning flights.");
    expect(entries[0].textContent).toContain("AfterPrefers evening flights.");
    expect(entries[1].textContent).toContain("Added只坐靠窗的座位。");
    expect(screen.getByTestId("proposal-accept-selected").textContent).toBe("Accept selected (2 of 2)");
    expect(screen.getByText(/also marks these entries as forgotten/)).toBeTruthy();

    fireEvent.click(screen.getByTestId("proposal-accept-all"));
    await waitFor(() => expect(api.inboxAccept).toHaveBeenCalledWith(7, null));
    await waitFor(() => expect(screen.getByTestId("proposal-status").textContent).toBe("Accepted"));
    expect(onChanged).toHaveBeenCalled();
    const toast = await screen.findByTestId("toast");
    expect(toast.textContent).toContain("Saved 1 file");
    expect(screen.queryByTestId("proposal-accept-all")).toBeNull();
    fireEvent.click(within(toast).getByRole("button", { name: "Undo" }));
    await waitFor(() => expect(api.undoGroup).toHaveBeenCalledWith(42));
    await screen.findByText(/^Undone: those files are back/);
  });

  it("accepts only the ticked changes, N of M", async () => {
    api.inboxAccept.mockResolvedValue(
      ok({ proposal: proposalSummary(7, { status: "accepted", note: "accepted 1 of 2 changes" }), group: 5, paths: ["travel.md"] }),
    );
    renderInbox();
    await openFirst();
    fireEvent.click(screen.getAllByTestId("proposal-entry-check")[0]);
    expect(screen.getByTestId("proposal-accept-selected").textContent).toBe("Accept selected (1 of 2)");
    fireEvent.click(screen.getByTestId("proposal-accept-selected"));
    await waitFor(() => expect(api.inboxAccept).toHaveBeenCalledWith(7, { entries: ["travel.md#2"], edits: [] }));
    expect((await screen.findByTestId("proposal-note")).textContent).toBe("Accepted 1 of 2 changes.");
  });

  it("with nothing ticked, Accept selected waits", async () => {
    renderInbox();
    await openFirst();
    for (const box of screen.getAllByTestId("proposal-entry-check")) fireEvent.click(box);
    const button = screen.getByTestId<HTMLButtonElement>("proposal-accept-selected");
    expect(button.textContent).toBe("Accept selected (0 of 2)");
    expect(button.disabled).toBe(true);
  });

  it("edits a file, then accepts it with the whole text as edited", async () => {
    api.inboxAccept.mockResolvedValue(ok({ proposal: proposalSummary(7, { status: "accepted" }), group: 5, paths: ["travel.md"] }));
    renderInbox();
    await openFirst();
    fireEvent.click(screen.getByTestId("proposal-edit"));
    const text = await screen.findByTestId<HTMLTextAreaElement>("proposal-edit-text");
    await waitFor(() => expect(document.activeElement).toBe(text));
    expect(text.value).toBe(proposalOf(7).files[0].after);
    const edited = text.value.replace("只坐靠窗的座位。", "靠窗或靠过道都可以。");
    fireEvent.change(text, { target: { value: edited } });
    fireEvent.click(screen.getByTestId("proposal-accept-edited"));
    await waitFor(() => expect(api.inboxAccept).toHaveBeenCalledWith(7, { entries: null, edits: [{ path: "travel.md", content: edited }] }));
  });

  it("rejects, and with “don't learn this” says the entries will not come back", async () => {
    api.inboxReject.mockResolvedValue(
      ok(proposalSummary(7, { status: "rejected", note: "rejected, and 2 entries will not be learnt again", resolved_at: "2026-03-01T11:00:00Z" })),
    );
    renderInbox();
    await openFirst();
    fireEvent.click(screen.getByTestId("proposal-reject-forget"));
    await waitFor(() => expect(api.inboxReject).toHaveBeenCalledWith(7, true));
    await waitFor(() => expect(screen.getByTestId("proposal-status").textContent).toBe("Rejected"));
    expect(screen.getByTestId("proposal-note").textContent).toBe("Rejected, and 2 entries will not be learnt again.");
    expect((await screen.findByTestId("toast")).textContent).toContain("will not be proposed again");
    expect(screen.getByTestId("inbox-count").textContent).toBe("Nothing waits for your review.");
  });

  it("says in a sentence that a proposal collides with later edits, and offers Reject or editing", async () => {
    api.inboxAccept.mockResolvedValue(
      err("conflict", "proposal 7 cannot be applied as it is: travel.md: the entry was edited since. Nothing was written; reject it, or edit the files and accept again"),
    );
    api.inboxReject.mockResolvedValue(ok(proposalSummary(7, { status: "rejected" })));
    renderInbox();
    await openFirst();
    fireEvent.click(screen.getByTestId("proposal-accept-all"));
    const error = await screen.findByTestId("inline-error");
    expect(error.getAttribute("data-code")).toBe("conflict");
    expect(error.textContent).toMatch(/^The files changed since this was proposed, in a way that collides with it, so nothing was saved\. “travel\.md”: the entry was edited since\./);
    expect(error.textContent).not.toMatch(/proposal 7|conflict/);
    fireEvent.click(within(error).getByTestId("conflict-edit"));
    expect(await screen.findByTestId("proposal-edit-text")).toBeTruthy();
    fireEvent.click(within(screen.getByTestId("inline-error")).getByTestId("conflict-reject"));
    await waitFor(() => expect(api.inboxReject).toHaveBeenCalledWith(7, false));
  });

  it("lists decided proposals with what became of them", async () => {
    api.inbox.mockImplementation(async (_ws, status) =>
      ok(
        status === "pending"
          ? proposalPage([proposalSummary(9)])
          : proposalPage(
              [
                proposalSummary(9),
                proposalSummary(8, { status: "expired", note: "expired: nobody decided within 30 days, so nothing was written", resolved_at: "2026-03-02T10:00:00Z" }),
                proposalSummary(6, { status: "accepted", note: "accepted 1 of 2 changes, edited first", resolved_at: "2026-03-02T10:00:00Z" }),
              ],
              { pending: 1 },
            ),
      ),
    );
    renderInbox();
    await screen.findByTestId("proposal");
    fireEvent.click(screen.getByTestId("inbox-filter-decided"));
    await waitFor(() => expect(api.inbox).toHaveBeenLastCalledWith("personal", null, 0, 50));
    await waitFor(() => expect(screen.getAllByTestId("proposal").map((p) => p.getAttribute("data-id"))).toEqual(["8", "6"]));
    expect(screen.getAllByTestId("proposal-note").map((n) => n.textContent)).toEqual([
      "Expired: nobody decided within 30 days, so nothing was written.",
      "Accepted 1 of 2 changes, edited first.",
    ]);
    expect(screen.getAllByTestId("proposal-status").map((s) => s.textContent)).toEqual(["Expired", "Accepted"]);
    // A decided one opens to its changes, with nothing to decide.
    fireEvent.click(screen.getAllByTestId("proposal-open")[1]);
    await screen.findAllByTestId("proposal-entry");
    expect(screen.queryByTestId("proposal-entry-check")).toBeNull();
    expect(screen.queryByTestId("proposal-accept-all")).toBeNull();
  });

  it("closes with Escape (stopping an edit first), focus back on the proposal", async () => {
    renderInbox(7);
    await screen.findAllByTestId("proposal-entry");
    fireEvent.click(screen.getByTestId("proposal-edit"));
    const text = await screen.findByTestId("proposal-edit-text");
    fireEvent.keyDown(text, { key: "Escape" });
    await waitFor(() => expect(screen.queryByTestId("proposal-edit-text")).toBeNull());
    const head = screen.getByTestId("proposal-open");
    expect(document.activeElement).toBe(head);
    expect(head.getAttribute("aria-expanded")).toBe("true");
    fireEvent.keyDown(head, { key: "Escape" });
    await waitFor(() => expect(screen.queryByTestId("proposal-body")).toBeNull());
    expect(head.getAttribute("aria-expanded")).toBe("false");
  });

  it("offers to turn review on when it is off", async () => {
    api.reviewMode.mockResolvedValue(ok(reviewMode()));
    api.setReviewMode.mockResolvedValue(ok(reviewMode({ on: true, decided: true })));
    api.inbox.mockResolvedValue(ok(proposalPage()));
    renderInbox();
    // One sentence says the inbox is empty, not two.
    expect((await screen.findByTestId("inbox-empty")).textContent).toBe("Nothing waits for your review.");
    expect(screen.queryByTestId("inbox-count")).toBeNull();
    expect((await screen.findByTestId("inbox-review")).textContent).toMatch(/^Review is off:/);
    api.reviewMode.mockResolvedValue(ok(reviewMode({ on: true, decided: true })));
    fireEvent.click(screen.getByTestId("inbox-review-on"));
    await waitFor(() => expect(api.setReviewMode).toHaveBeenCalledWith("personal", true));
    await waitFor(() => expect(screen.getByTestId("inbox-review").getAttribute("data-on")).toBe("true"));
  });

  it("reads new proposals at once while nothing is open or decided here (a CLI's proposal too)", async () => {
    const { polled } = renderInbox(null, 1);
    await screen.findByTestId("proposal");
    api.inbox.mockResolvedValue(ok(proposalPage([proposalSummary(9), proposalSummary(8), proposalSummary(7)])));
    polled(3);
    await waitFor(() => expect(screen.getAllByTestId("proposal")).toHaveLength(3));
    expect(screen.queryByTestId("inbox-new")).toBeNull();
  });

  it("says when new proposals came in while one is open, and reads them on request", async () => {
    const { polled } = renderInbox(null, 1);
    await openFirst();
    expect(screen.queryByTestId("inbox-new")).toBeNull();
    api.inbox.mockResolvedValue(ok(proposalPage([proposalSummary(9), proposalSummary(8), proposalSummary(7)])));
    polled(3);
    expect((await screen.findByTestId("inbox-new")).textContent).toBe("2 new proposals came in. Show them");
    fireEvent.click(screen.getByTestId("inbox-new-show"));
    await waitFor(() => expect(screen.getAllByTestId("proposal")).toHaveLength(3));
    expect(screen.queryByTestId("inbox-new")).toBeNull();
  });

  it("shows a failed read in a sentence, with Retry", async () => {
    api.inbox.mockResolvedValueOnce(err("io", "the journal could not be read: disk I/O error (os error 5)"));
    renderInbox();
    const error = await screen.findByTestId("inline-error");
    expect(error.textContent).toMatch(/^The journal could not be read: disk I\/O error\./);
    fireEvent.click(screen.getByTestId("error-retry"));
    await screen.findByTestId("proposal");
  });
});

describe("sync conflicts in the inbox", () => {
  const two = remoteSync({
    workspaces: [
      workspaceSync({ conflicts: [syncConflict(), syncConflict({ id: "k2", path: "旅行.md", kind: "deleted_and_edited", choices: [{ label: "deleted on laptop", texts: [] }, { label: "Ana's version", texts: ["只坐靠窗的座位。"] }] })] }),
      workspaceSync({ workspace: "claude-proj", label: "proj", conflicts: [syncConflict({ id: "other" })] }),
    ],
  });

  it("lists the workspace's open conflicts above the proposals, each with its versions and choices", async () => {
    api.syncStatus.mockResolvedValue(ok(two));
    renderInbox();
    const section = await screen.findByTestId("inbox-conflicts");
    expect(within(section).getByRole("heading", { name: "Sync conflicts waiting for you" })).toBeTruthy();
    expect(section.getAttribute("data-count")).toBe("2");
    // What a conflict means for recall, in the one sentence the banner and Facts say too.
    expect(section.textContent).toContain(CONFLICT_RECALL);
    expect(section.textContent).not.toContain("what is here now stays");
    // Only this workspace's.
    expect(within(section).getAllByTestId("sync-conflict").map((c) => c.getAttribute("data-id"))).toEqual(["k1", "k2"]);
    expect(within(section).getAllByTestId("sync-keep").map((b) => b.textContent)).toContain("Keep Ana's version");
    // Above the proposals.
    const card = await screen.findByTestId("proposal");
    expect(section.compareDocumentPosition(card) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Proposals" })).toBeTruthy();
    fireEvent.click(within(section).getAllByTestId("sync-conflict-open")[1]);
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "旅行.md");
  });

  it("keeps a version, then reads the status again; the conflict leaves the inbox", async () => {
    api.syncStatus.mockResolvedValue(ok(two));
    api.syncResolve.mockResolvedValue(ok(syncConflict()));
    renderInbox();
    const section = await screen.findByTestId("inbox-conflicts");
    const first = within(section).getAllByTestId("sync-conflict")[0];
    api.syncStatus.mockResolvedValue(ok(remoteSync({ workspaces: [workspaceSync({ conflicts: [] })] })));
    fireEvent.click(within(first).getAllByTestId("sync-keep")[0]);
    await waitFor(() => expect(api.syncResolve).toHaveBeenCalledWith("k1", 0));
    await waitFor(() => expect(screen.queryByTestId("inbox-conflicts")).toBeNull());
    expect((await screen.findByTestId("toast")).textContent).toContain("Chosen: Ana's version. Your other machines get this choice with their next sync.");
    expect(onChanged).toHaveBeenCalled();
  });

  it("says only the conflicts wait when no proposal does", async () => {
    api.syncStatus.mockResolvedValue(ok(two));
    api.inbox.mockResolvedValue(ok(proposalPage([])));
    renderInbox();
    await screen.findByTestId("inbox-conflicts");
    // What waits counts the conflicts, as the sidebar and the Inbox button do.
    expect((await screen.findByTestId("inbox-count")).textContent).toBe("2 sync conflicts wait for your choice.");
    expect(screen.getByTestId("inbox-filter-pending").textContent).toBe("Waiting (2)");
    expect(screen.getByTestId("inbox-empty").textContent).toBe("No proposal waits for your review.");
  });

  it("shows no conflicts section when none is open or sync is not set up, and says plainly no proposal waits", async () => {
    api.syncStatus.mockResolvedValue(ok(remoteSync({ remote: null })));
    api.inbox.mockResolvedValue(ok(proposalPage([])));
    renderInbox();
    expect((await screen.findByTestId("inbox-empty")).textContent).toBe("Nothing waits for your review.");
    expect(screen.queryByTestId("inbox-count")).toBeNull();
    expect(screen.queryByTestId("inbox-conflicts")).toBeNull();
    expect(screen.queryByRole("heading", { name: "Proposals" })).toBeNull();
  });
});
