import { describe, expect, it } from "vitest";
import type { Semantic } from "./bindings";
import { embedText, modelName, preparedText, semanticSentence } from "./semantic";

const semantic = (extra: Partial<Semantic>): Semantic => ({ state: "ready", model: "m@0123456789ab", embedded: 10, total: 10, message: "", ...extra });

describe("semantic search in words", () => {
  it("names a model by its name and keeps only 8 characters of its hash", () => {
    expect(modelName("all-MiniLM-L6-v2@0123456789ab")).toEqual({ name: "all-MiniLM-L6-v2", fingerprint: "01234567" });
    expect(modelName("bge-small-en-v1.5")).toEqual({ name: "bge-small-en-v1.5", fingerprint: null });
    expect(modelName("odd@")).toEqual({ name: "odd", fingerprint: null });
  });

  it("says what search can do now", () => {
    expect(semanticSentence(semantic({}))).toBe("Search finds memories by their meaning as well as by their words.");
    expect(semanticSentence(semantic({ embedded: 3 }))).toBe(
      "Search finds 3 of 10 memories by their meaning so far; the others by their words until they are prepared.",
    );
    expect(semanticSentence(semantic({ state: "off", model: null, message: "search is lexical only: local embedding is turned off" }))).toBe(
      "Search finds memories by their words only: local embedding is turned off",
    );
    expect(semanticSentence(semantic({ state: "not_installed", message: "" }))).toBe("Search finds memories by their words only.");
  });

  it("says where an embed task is from its status and counts", () => {
    const running = { status: "running" as const, phase: "Embedding 3,210 / 10,000" };
    expect(embedText({ ...running, progress: { done: 3210, total: 10000 } })).toBe(
      `Preparing memories for search by meaning: ${(3210).toLocaleString()} of ${(10000).toLocaleString()} done`,
    );
    // Counts are data: a phase's digits alone say nothing.
    expect(embedText({ ...running, progress: null })).toBe("Preparing memories for search by meaning…");
    expect(embedText({ status: "queued", phase: "waiting", progress: null })).toBe("waiting");
    expect(preparedText(3, 10)).toBe("3 of 10 memories ready for search by meaning");
  });
});
