// The conflict card names its memory by its name: home A says "Lives in Lisbon since
// 2021", home B "Lives in Porto since 2024" in lives-in-lisbon.md, whose name is "Where I live".
import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { SyncConflictList } from "./SyncConflictList";
import { commands } from "../../lib/bindings";
import type { DocSummary } from "../../lib/bindings";
import { DOCS, err, ok, syncConflict } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    list: vi.fn(),
    syncResolve: vi.fn(),
    syncStatus: vi.fn(),
  },
}));

const api = vi.mocked(commands);

const HOME = syncConflict({
  id: "c-home",
  path: "lives-in-lisbon.md",
  choices: [
    { label: "Ana's version", texts: ["- Lives in Lisbon since 2021"] },
    { label: "laptop's version", texts: ["- Lives in Porto since 2024"] },
  ],
});
const NOTES = syncConflict({ id: "c-notes", path: "notes/travel-plans.md", kind: "deleted_and_edited", choices: [{ label: "keep Ana's edit", texts: ["Fly to Porto in May."] }, { label: "delete it, as laptop did", texts: [] }] });

const doc = (path: string, name: string, workspace = "personal"): DocSummary => ({ ...DOCS[0], workspace, path, name });

beforeEach(() => {
  vi.clearAllMocks();
  api.list.mockResolvedValue(ok([doc("lives-in-lisbon.md", "Where I live"), doc("prefs.md", "Editor preferences")]));
});

const sentences = () => screen.getAllByTestId("sync-conflict").map((c) => c.querySelector(".sync-conflict-what")?.textContent);

describe("a conflict card's name", () => {
  it("is the memory's name from the memory list, else its path — never a title made from the file name", async () => {
    render(<SyncConflictList workspace="personal" conflicts={[HOME, NOTES]} />);
    await waitFor(() => expect(sentences()[0]).toBe("Where I live: the same entry was edited on two machines; both versions are kept until you choose."));
    expect(sentences()[1]).toBe("notes/travel-plans.md: an entry was deleted on one machine and edited on another; the edit is kept until you choose.");
    expect(api.list).toHaveBeenCalledTimes(1);
    expect(api.list).toHaveBeenCalledWith("personal", null);
    expect(document.body.textContent).not.toContain("Lives in lisbon:");
    expect(document.body.textContent).not.toContain("Travel plans");
  });

  it("is the path while the list is read, and when it cannot be read", async () => {
    api.list.mockResolvedValue(err("io", "the index is busy"));
    render(<SyncConflictList workspace="personal" conflicts={[HOME]} />);
    expect(sentences()[0]).toMatch(/^lives-in-lisbon\.md: the same entry/);
    await waitFor(() => expect(api.list).toHaveBeenCalled());
    expect(sentences()[0]).toMatch(/^lives-in-lisbon\.md: the same entry/);
    // No error of its own: the name is a nicety.
    expect(screen.queryByTestId("inline-error")).toBeNull();
  });

  it("takes no name from another workspace's memory at the same path", async () => {
    api.list.mockResolvedValue(ok([doc("lives-in-lisbon.md", "Somebody else's home", "claude-proj")]));
    render(<SyncConflictList workspace="personal" conflicts={[HOME]} />);
    await waitFor(() => expect(api.list).toHaveBeenCalled());
    expect(sentences()[0]).toMatch(/^lives-in-lisbon\.md: /);
  });

  it("reads no list when no conflict is open", () => {
    render(<SyncConflictList workspace="personal" conflicts={[]} />);
    expect(api.list).not.toHaveBeenCalled();
  });

  it("opens the memory from its path, and keeps a version", async () => {
    const onOpen = vi.fn();
    api.syncResolve.mockResolvedValue(ok(HOME));
    render(<SyncConflictList workspace="personal" conflicts={[HOME]} onOpenMemory={onOpen} />);
    fireEvent.click(screen.getByTestId("sync-conflict-open"));
    expect(onOpen).toHaveBeenCalledWith("personal", "lives-in-lisbon.md");
    fireEvent.click(screen.getAllByTestId("sync-keep")[1]);
    await waitFor(() => expect(api.syncResolve).toHaveBeenCalledWith("c-home", 1));
  });
});

describe("a conflict card's headings", () => {
  it("are one level below the heading over the list: h4 under the Status view's h3, h3 under the Inbox's h2", async () => {
    const { unmount } = render(
      <>
        <h3>Conflicts</h3>
        <SyncConflictList workspace="personal" conflicts={[HOME]} />
      </>,
    );
    const card = screen.getByTestId("sync-conflict");
    expect(within(card).getAllByRole("heading", { level: 4 }).map((h) => h.textContent)).toEqual(["Ana's version", "Laptop's version"]);
    await waitFor(() => expect(api.list).toHaveBeenCalled());
    unmount();
    render(
      <>
        <h2>Sync conflicts waiting for you</h2>
        <SyncConflictList workspace="personal" conflicts={[HOME]} headingLevel={3} />
      </>,
    );
    const inInbox = screen.getByTestId("sync-conflict");
    expect(within(inInbox).queryAllByRole("heading", { level: 4 })).toHaveLength(0);
    expect(within(inInbox).getAllByRole("heading", { level: 3 }).map((h) => h.textContent)).toEqual(["Ana's version", "Laptop's version"]);
    await waitFor(() => expect(api.list).toHaveBeenCalledTimes(2));
  });
});
