// A sync conflict shown where the facts live: one home says "Lives in Lisbon since
// 2021", another "Lives in Porto since 2024", and the merge kept both in home.md. The detail
// pane says so in a banner with the conflict card's choices, and the Facts view never lists
// both versions as current.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { DetailPane } from "./DetailPane";
import { CONFLICT_RECALL } from "../../lib/sync";
import { ToastProvider } from "../common/Toasts";
import { commands } from "../../lib/bindings";
import type { MemoryDetail, RemoteSync, SyncConflict } from "../../lib/bindings";
import { DOCS, WORKSPACES, detailOf, err, ok, remoteSync, syncConflict, workspaceSync } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    get: vi.fn(),
    update: vi.fn(),
    remove: vi.fn(),
    history: vi.fn(),
    openFolder: vi.fn(),
    setPinned: vi.fn(),
    memoryUsage: vi.fn(),
    setArchived: vi.fn(),
    replaceEntry: vi.fn(),
    undo: vi.fn(),
    syncResolve: vi.fn(),
    syncStatus: vi.fn(),
  },
}));

const api = vi.mocked(commands);

const LISBON = "- Lives in Lisbon since 2021\nWhy: said so in chat";
const PORTO = "- Lives in Porto since 2024\nWhy: moved for work";
const CAT = "- Has a cat called Xiaomi";

/** home.md as the merge left it (both versions), or after a choice (`entries` kept). */
function home(blocks: string[] = [LISBON, PORTO, CAT], hash = "h1"): MemoryDetail {
  const body = `${blocks.join("\n\n")}\n`;
  const entries = blocks.map((b, i) => {
    const [first, ...rest] = b.split("\n");
    const why = rest.find((l) => l.startsWith("Why:"))?.slice(4).trim() ?? null;
    return { id: `home.md:${i + 1}`, summary: first.replace(/^- /, ""), why };
  });
  return {
    ...detailOf({ ...DOCS[0], path: "home.md", name: "Where I live", description: "The user's home town", type: "user" }, hash),
    body,
    content: `---\nname: Where I live\ndescription: The user's home town\ntype: user\n---\n${body}`,
    entries,
  };
}

const CONFLICT: SyncConflict = syncConflict({
  id: "c-home",
  path: "home.md",
  choices: [
    { label: "Ana's version", texts: [LISBON] },
    { label: "laptop's version", texts: [PORTO] },
  ],
});

const withConflict = (c: SyncConflict = CONFLICT): RemoteSync => remoteSync({ workspaces: [workspaceSync({ conflicts: [c] })] });

beforeEach(() => {
  vi.clearAllMocks();
  api.get.mockResolvedValue(ok(home()));
  api.openFolder.mockResolvedValue(ok(null));
  api.memoryUsage.mockResolvedValue(ok([]));
  api.syncStatus.mockResolvedValue(ok(remoteSync()));
});

function renderPane(sync: RemoteSync | null, path = "home.md", workspace = "personal") {
  const noop = () => {};
  return render(
    <ToastProvider>
      <DetailPane
        target={{ mode: "existing", workspace, path }}
        workspaces={WORKSPACES}
        onDirtyChange={noop}
        onCreated={noop}
        onSaved={noop}
        onDeleted={noop}
        onClose={noop}
        onRecreate={noop}
        sync={sync}
      />
    </ToastProvider>,
  );
}

async function loaded() {
  await waitFor(() => expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("Where I live"));
}

describe("the detail pane's sync conflict banner", () => {
  it("says the machines disagree, shows each version with whose it is, and offers the conflict card's choices", async () => {
    renderPane(withConflict());
    await loaded();
    const banner = screen.getByTestId("conflict-banner");
    expect(screen.getByTestId("conflict-banner-sentence").textContent).toBe(
      "Your machines disagree about this memory: the same fact was changed differently on two of them. Both versions are in the file.",
    );
    // What that means for recall: the one sentence, as the Facts view and the Inbox say it.
    expect(within(banner).getByTestId("conflict-recall").textContent).toBe(CONFLICT_RECALL);
    const versions = within(banner).getAllByTestId("conflict-banner-version");
    expect(versions.map((v) => v.querySelector(".sync-version-label")?.textContent)).toEqual(["Ana's version", "Laptop's version"]);
    expect(versions[0].textContent).toContain("Lives in Lisbon since 2021");
    expect(versions[1].textContent).toContain("Lives in Porto since 2024");
    // Its lines as lines: a line break is never shown as an escape.
    expect(versions[0].querySelector(".sync-text")?.textContent).toBe("- Lives in Lisbon since 2021\nWhy: said so in chat");
    expect(within(banner).getAllByTestId("conflict-banner-keep").map((b) => b.textContent)).toEqual(["Keep Ana's version", "Keep laptop's version"]);
    expect(within(banner).getByTestId("conflict-banner-keep-all").textContent).toBe("Keep both");
    // It sits at the top: before the Memory / History tabs.
    const tabs = screen.getByRole("tab", { name: /Memory/ });
    expect(banner.compareDocumentPosition(tabs) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it("shows nothing for a memory without a conflict, or the same path in another workspace, or when sync is not read", async () => {
    const { unmount } = renderPane(withConflict({ ...CONFLICT, path: "prefs.md" }));
    await loaded();
    expect(screen.queryByTestId("conflict-banner")).toBeNull();
    unmount();
    const other = remoteSync({ workspaces: [workspaceSync({ workspace: "claude-proj", conflicts: [CONFLICT] })] });
    const second = renderPane(other);
    await loaded();
    expect(screen.queryByTestId("conflict-banner")).toBeNull();
    second.unmount();
    renderPane(null);
    await loaded();
    expect(screen.queryByTestId("conflict-banner")).toBeNull();
  });

  it("keeps the version chosen, the way the conflict card does; the banner goes and the memory is read again", async () => {
    api.syncResolve.mockResolvedValue(ok(CONFLICT));
    renderPane(withConflict());
    await loaded();
    api.get.mockResolvedValue(ok(home([PORTO, CAT], "h2")));
    const keep = screen.getAllByTestId("conflict-banner-keep")[1];
    keep.focus();
    fireEvent.click(keep);
    await waitFor(() => expect(api.syncResolve).toHaveBeenCalledWith("c-home", 1));
    await waitFor(() => expect(screen.queryByTestId("conflict-banner")).toBeNull());
    expect((await screen.findByTestId("toast")).textContent).toContain("Chosen: Laptop's version. Your other machines get this choice with their next sync.");
    // The focus does not fall to nowhere with the button: it lands on the memory's heading.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId("detail-heading")));
    // The file as the choice left it: only Porto is a fact now.
    expect(api.get).toHaveBeenCalledTimes(2);
    fireEvent.click(screen.getByTestId("facts-toggle"));
    const view = await screen.findByTestId("facts-view");
    expect(within(view).queryByTestId("facts-conflict")).toBeNull();
    expect(within(within(view).getByTestId("facts-current")).getAllByTestId("fact").map((f) => f.textContent)).toEqual([
      expect.stringContaining("Lives in Porto since 2024"),
      expect.stringContaining("Has a cat called Xiaomi"),
    ]);
  });

  it("keeps both when asked, and says a failed choice inside the banner, which stays", async () => {
    api.syncResolve.mockResolvedValueOnce(err("not_found", "no open conflict c-home: it was settled on another machine"));
    renderPane(withConflict());
    await loaded();
    fireEvent.click(screen.getByTestId("conflict-banner-keep-all"));
    await waitFor(() => expect(api.syncResolve).toHaveBeenCalledWith("c-home", null));
    const error = await within(screen.getByTestId("conflict-banner")).findByTestId("inline-error");
    expect(error.textContent).not.toContain("not_found");
    expect(screen.getByTestId("conflict-banner")).toBeTruthy();
  });

  it("waits while there are unsaved edits: a choice rewrites the file", async () => {
    renderPane(withConflict());
    await loaded();
    fireEvent.change(screen.getByTestId("detail-name"), { target: { value: "Where I live now" } });
    const banner = screen.getByTestId("conflict-banner");
    expect(within(banner).getAllByRole("button").every((b) => (b as HTMLButtonElement).disabled)).toBe(true);
    expect(banner.textContent).toContain("Save or discard your edits first: choosing rewrites this memory.");
  });
});

describe("the Facts view of a memory in conflict", () => {
  async function openFacts(sync: RemoteSync) {
    renderPane(sync);
    await loaded();
    fireEvent.click(screen.getByTestId("facts-toggle"));
    return screen.findByTestId("facts-view");
  }

  it("lists the versions under “In conflict — choose one”, never as current facts", async () => {
    const view = await openFacts(withConflict());
    const group = within(view).getByTestId("facts-conflict");
    expect(within(group).getByRole("heading").textContent).toContain("In conflict — choose one");
    // The banner above and the Facts lead say what a conflict means for recall in the same
    // sentence; neither has a rule of its own ("neither counts as current").
    expect(group.querySelector(".facts-lead")?.textContent).toContain(CONFLICT_RECALL);
    expect(screen.getByTestId("conflict-recall").textContent).toBe(CONFLICT_RECALL);
    expect(document.body.textContent).not.toMatch(/counts as current|recall reads both|here now stays/);
    const versions = within(group).getAllByTestId("conflict-fact");
    expect(versions.map((v) => v.textContent)).toEqual([
      expect.stringMatching(/^Ana's versionLives in Lisbon since 2021Why: said so in chat/),
      expect.stringMatching(/^Laptop's versionLives in Porto since 2024Why: moved for work/),
    ]);
    const current = within(view).getByTestId("facts-current");
    expect(within(current).getByRole("heading").textContent).toContain("Current facts (1)");
    expect(within(current).getAllByTestId("fact").map((f) => f.getAttribute("data-id"))).toEqual(["home.md:3"]);
    // The group comes first: it waits for the person.
    expect(group.compareDocumentPosition(current) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it("offers the same choices there", async () => {
    api.syncResolve.mockResolvedValue(ok(CONFLICT));
    const view = await openFacts(withConflict());
    const group = within(view).getByTestId("facts-conflict");
    expect(within(group).getAllByTestId("fact-keep").map((b) => b.textContent)).toEqual(["Keep Ana's version", "Keep laptop's version"]);
    expect(within(group).getByTestId("fact-keep-all").textContent).toBe("Keep both");
    api.get.mockResolvedValue(ok(home([LISBON, CAT], "h2")));
    fireEvent.click(within(group).getAllByTestId("fact-keep")[0]);
    await waitFor(() => expect(api.syncResolve).toHaveBeenCalledWith("c-home", 0));
    await waitFor(() => expect(screen.queryByTestId("facts-conflict")).toBeNull());
    await waitFor(() =>
      expect(within(screen.getByTestId("facts-current")).getAllByTestId("fact").map((f) => f.getAttribute("data-id"))).toEqual(["home.md:1", "home.md:2"]),
    );
    expect(screen.getByTestId("facts-current").textContent).toContain("Lives in Lisbon since 2021");
    expect(screen.getByTestId("facts-current").textContent).not.toContain("Porto");
  });

  it("shows a deletion as a version with no fact, and leaves a field's conflict to the banner", async () => {
    const deleted = syncConflict({
      id: "c-del",
      path: "home.md",
      kind: "deleted_and_edited",
      choices: [
        { label: "keep Ana's edit", texts: [PORTO] },
        { label: "delete it, as laptop did", texts: [] },
      ],
    });
    const field = syncConflict({ id: "c-field", path: "home.md", kind: "field", field: "description", choices: [{ label: "Ana's description", texts: ["The user's home town"] }, { label: "laptop's description", texts: ["Home"] }] });
    const view = await openFacts(remoteSync({ workspaces: [workspaceSync({ conflicts: [deleted, field] })] }));
    const versions = within(within(view).getByTestId("facts-conflict")).getAllByTestId("conflict-fact");
    expect(versions[1].textContent).toContain("Deleted on that machine: choosing this removes the fact here and on your other machines.");
    expect(within(view).getAllByTestId("fact-conflict")).toHaveLength(1);
    expect(within(within(view).getByTestId("facts-current")).getAllByTestId("fact").map((f) => f.getAttribute("data-id"))).toEqual(["home.md:1", "home.md:3"]);
    // Both conflicts are in the banner.
    expect(screen.getAllByTestId("conflict-banner-item").map((b) => b.getAttribute("data-id"))).toEqual(["c-del", "c-field"]);
  });
});
