import { describe, expect, it } from "vitest";
import { choiceHint, countRecords, EXTRACTION_OPTIONS, extractionSetting, recordsText, savingFromChats } from "./extraction";
import { memoryStats } from "../test/fixtures";

const PLANNER = { road: "planner" as const, then_planner: false, why: "learned on 2026-11-27: the tool agent wrote nothing where the planner found 2 fact(s)" };
const LEARNING = { road: "tools" as const, then_planner: true, why: "not learned yet for this model: the tool agent first, the planner when it writes nothing" };

describe("how memories are written", () => {
  it("offers the three settings, Automatic first, and reads an absent or unknown one as Automatic", () => {
    expect(EXTRACTION_OPTIONS.map((o) => o.value)).toEqual(["auto", "tools", "planner"]);
    expect(EXTRACTION_OPTIONS[0].label).toBe("Automatic (recommended)");
    expect(extractionSetting("planner")).toBe("planner");
    expect(extractionSetting(" tools ")).toBe("tools");
    expect(extractionSetting(null)).toBe("auto");
    expect(extractionSetting(undefined)).toBe("auto");
    expect(extractionSetting("sideways")).toBe("auto");
  });

  it("says the way the model gets now, and why", () => {
    expect(choiceHint(PLANNER)).toBe("Now: the planner — learned on 2026-11-27: the tool agent wrote nothing where the planner found 2 fact(s)");
    expect(choiceHint(LEARNING)).toBe(
      "Now: the tool agent — not learned yet for this model: the tool agent first, the planner when it writes nothing",
    );
  });
});

describe("saving from chats", () => {
  it("names the way that writes when extraction is on", () => {
    expect(savingFromChats(memoryStats({ extraction: PLANNER }), false, "qwen3:8b")).toEqual({
      state: "on",
      text: "On, after each turn · by the planner",
      why: PLANNER.why,
    });
    expect(savingFromChats(memoryStats({ extraction: LEARNING }), false, "qwen3:8b").text).toBe("On, after each turn · by the tool agent");
  });

  it("never claims it is on without a model", () => {
    const none = memoryStats({ extraction: null });
    expect(savingFromChats(none, false, "")).toEqual({
      state: "no-model",
      text: "Needs a model — what you say is still kept as conversation records",
      why: null,
    });
    expect(savingFromChats({ ...none, chat_records: false }, false, "  ").text).toBe("Needs a model (see Settings)");
    // A model named but no way reported (an older server): on, without the way.
    expect(savingFromChats(none, false, "qwen3:8b")).toEqual({ state: "on", text: "On, after each turn", why: null });
  });

  it("says when it is off for the chat or the workspace, model or not", () => {
    expect(savingFromChats(memoryStats({ extraction: null }), true, "").text).toBe("Off for this chat");
    expect(savingFromChats(memoryStats({ auto_extract: false, extraction: null }), false, "").text).toBe("Off for this workspace (recall still runs)");
  });

  it("counts conversation records, or says they are off", () => {
    expect(recordsText(memoryStats({ chats: 4 }), false)).toBe("Kept (4)");
    expect(recordsText(memoryStats({ chats: 4, chat_records: false }), false)).toBe("Off for this workspace");
    expect(recordsText(memoryStats({ chats: 4 }), true)).toBe("Off for this chat");
    expect(countRecords(1)).toBe("1 conversation record");
    expect(countRecords(3)).toBe("3 conversation records");
  });
});
