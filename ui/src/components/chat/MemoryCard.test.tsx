import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { MemoryCard } from "./MemoryCard";
import { memorySnapshot } from "../../lib/chat";
import { DOCS, MODEL_SETTINGS, memoryStats } from "../../test/fixtures";

// The card speaks the person's local time: run it where local and UTC differ (UTC+5:30), so a
// time shown in UTC, or a day counted in UTC, fails.
const tz = process.env.TZ;
beforeAll(() => {
  process.env.TZ = "Asia/Kolkata";
});
afterAll(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});

const clock = (iso: string) => new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" }).format(new Date(iso));

// Asked at 23:30 local time on 1 March.
const ASKED = Date.parse("2026-03-01T18:00:00Z");
// 01:30 on 1 March locally — still 28 February in UTC.
const EXTRACTED = "2026-02-28T20:00:00Z";
// 15:30 on 28 February locally.
const DREAMED = "2026-02-28T10:00:00Z";

function renderCard(extra: Parameters<typeof memoryStats>[0] = {}, ignored = false) {
  const stats = memoryStats({
    last_extract_at: EXTRACTED,
    last_extract_status: "completed",
    last_dream_at: DREAMED,
    last_dream_status: "updated",
    last_dream_undone_by: 12,
    ...extra,
  });
  render(<MemoryCard snapshot={memorySnapshot(stats, DOCS, MODEL_SETTINGS, ignored, ASKED)} workspaceLabel="Personal" />);
  return screen.getByTestId("memory-card");
}

describe("the /memory card", () => {
  it("has a heading and lists memories by type, the switches and the model", () => {
    const card = renderCard();
    expect(card.querySelector("h3")?.textContent).toBe("Memory in this chat — Personal");
    expect([...card.querySelectorAll("dt")].map((d) => d.textContent)).toEqual([
      "Memories",
      "Saving from chats",
      "Conversation records",
      "Last extraction",
      "Dreaming on its own",
      "Last dream",
      "Model",
    ]);
    expect(screen.getByTestId("memory-card-memories").textContent).toBe("6 memories: 2 user, 1 feedback, 1 project, 1 reference, 1 not valid");
    // Which way writes, and why underneath (and on hover).
    const saving = screen.getByTestId("memory-card-auto-extract");
    expect(saving.firstChild?.textContent).toBe("On, after each turn · by the tool agent");
    expect(screen.getByTestId("memory-card-extraction-why").textContent).toBe(
      "not learned yet for this model: the tool agent first, the planner when it writes nothing",
    );
    expect(saving.getAttribute("title")).toContain("not learned yet");
    expect(screen.getByTestId("memory-card-records").textContent).toBe("Kept (0)");
    expect(screen.getByTestId("memory-card-auto-dream").textContent).toBe("Off (type /dream to run one now)");
    expect(screen.getByTestId("memory-card-model").textContent).toBe("qwen3:8b");
    expect(screen.queryByTestId("memory-card-ignored")).toBeNull();
  });

  it("gives the last extraction and dream in local time, in words, and says the dream was undone", () => {
    const card = renderCard();
    // Local days: 01:30 on the day it was asked is "today", though it was the day before in UTC.
    expect(screen.getByTestId("memory-card-last-extract").textContent).toBe(`today at ${clock(EXTRACTED)} · Completed`);
    expect(clock(EXTRACTED)).toMatch(/01:30|1:30/);
    // Undone, in words: the group's number would read like a change's.
    expect(screen.getByTestId("memory-card-last-dream").textContent).toBe(`yesterday at ${clock(DREAMED)} · Updated · undone since`);
    expect(screen.getByTestId("memory-card-last-dream-undone").textContent).toBe("· undone since");
    // Never the UTC wall time or an ISO stamp.
    expect(card.textContent).not.toMatch(/20:00|10:00|T\d\d:|Z\b/);
    const time = screen.getByTestId("memory-card-last-extract").querySelector("time");
    expect(time?.getAttribute("dateTime")).toBe(EXTRACTED);
    expect(time?.getAttribute("title")).toContain("2026");
  });

  it("says never for runs that have not happened, no undone line, and memory ignored for the chat", () => {
    renderCard({ last_extract_at: null, last_extract_status: null, last_dream_at: null, last_dream_status: null, last_dream_undone_by: null }, true);
    expect(screen.getByTestId("memory-card-last-extract").textContent).toBe("never");
    expect(screen.getByTestId("memory-card-last-dream").textContent).toBe("never");
    expect(screen.queryByTestId("memory-card-last-dream-undone")).toBeNull();
    expect(screen.getByTestId("memory-card-ignored").textContent).toContain("ignored for this chat");
    expect(screen.getByTestId("memory-card-auto-extract").textContent).toBe("Off for this chat");
    expect(screen.getByTestId("memory-card-records").textContent).toBe("Off for this chat");
  });

  it("says which way writes and why when the planner was learned, and counts the records", () => {
    renderCard({
      chats: 3,
      extraction: {
        road: "planner",
        then_planner: false,
        why: "learned on 2026-11-27: the tool agent wrote nothing where the planner found 2 fact(s)",
      },
    });
    const saving = screen.getByTestId("memory-card-auto-extract");
    expect(saving.getAttribute("data-state")).toBe("on");
    expect(saving.firstChild?.textContent).toBe("On, after each turn · by the planner");
    expect(screen.getByTestId("memory-card-extraction-why").textContent).toBe(
      "learned on 2026-11-27: the tool agent wrote nothing where the planner found 2 fact(s)",
    );
    expect(screen.getByTestId("memory-card-records").textContent).toBe("Kept (3)");
  });

  it("never claims saving is on without a model: records are still kept, when they are on", () => {
    const stats = memoryStats({ extraction: null, chats: 2 });
    const { rerender } = render(<MemoryCard snapshot={memorySnapshot(stats, DOCS, null, false, ASKED)} />);
    const saving = () => screen.getByTestId("memory-card-auto-extract");
    expect(saving().textContent).toBe("Needs a model — what you say is still kept as conversation records");
    expect(saving().getAttribute("data-state")).toBe("no-model");
    expect(saving().textContent).not.toContain("On, after each turn");
    expect(screen.queryByTestId("memory-card-extraction-why")).toBeNull();
    expect(screen.getByTestId("memory-card-records").textContent).toBe("Kept (2)");

    const off = memoryStats({ extraction: null, chat_records: false });
    rerender(<MemoryCard snapshot={memorySnapshot(off, DOCS, { model: "", fast_model: "" }, false, ASKED)} />);
    expect(saving().textContent).toBe("Needs a model (see Settings)");
    expect(screen.getByTestId("memory-card-records").textContent).toBe("Off for this workspace");

    // Extraction switched off says so, model or not.
    rerender(<MemoryCard snapshot={memorySnapshot({ ...off, auto_extract: false }, DOCS, null, false, ASKED)} />);
    expect(saving().textContent).toBe("Off for this workspace (recall still runs)");
  });

  it("names the model recall uses when it is another, and says when none is set", () => {
    const stats = memoryStats();
    const { rerender } = render(
      <MemoryCard snapshot={memorySnapshot(stats, [], { model: "qwen3:8b", fast_model: "qwen3:1.7b" }, false, ASKED)} />,
    );
    expect(screen.getByTestId("memory-card-model").textContent).toBe("qwen3:8b (recall uses qwen3:1.7b)");
    expect(screen.getByTestId("memory-card-memories").textContent).toBe("0 memories");
    rerender(<MemoryCard snapshot={memorySnapshot(stats, [], null, false, ASKED)} />);
    expect(screen.getByTestId("memory-card-model").textContent).toBe("none set");
  });
});
