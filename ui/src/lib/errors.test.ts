import { describe, expect, it } from "vitest";
import { explain, plainMessage } from "./errors";

describe("errors in a person's words", () => {
  it("drops backticks, OS error numbers and command-line hints", () => {
    expect(plainMessage("`notes/a.md` changed after change 27: undo the later changes first (see `mnemo history notes/a.md`)")).toBe(
      "“notes/a.md” changed after change 27: undo the later changes first.",
    );
    expect(plainMessage("reading /x/y.md: No such file or directory (os error 2)")).toBe("Reading /x/y.md: No such file or directory.");
  });

  it("tells no model apart from a model that can't be reached, each with its next step", () => {
    const none = explain({ code: "model_not_configured", message: "chat needs a model: no base URL is configured" });
    expect(none.sentence).toBe("Chat needs a model, and none is set up yet. No base URL is configured.");
    expect(none.next).toBe("settings");
    const down = explain({ code: "model_unreachable", message: "can't reach the model: http://127.0.0.1:9/v1 is unreachable (connection refused)" });
    expect(down.sentence).toMatch(/^Mnemo can't reach the model server\. http:\/\/127\.0\.0\.1:9\/v1 is unreachable/);
    expect(down.next).toBe("retry");
  });

  it("never shows a code", () => {
    for (const code of ["conflict", "not_found", "invalid_frontmatter", "io"]) {
      expect(explain({ code, message: "" }).sentence).not.toContain(code);
    }
  });
});
