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

  it("says a sync remote out of reach is worth a retry, and that local changes wait", () => {
    const off = explain({
      code: "remote_unreachable",
      message: "fetching from the sync remote failed (fatal: unable to access 'https://git.example/me/memory.git/': Could not resolve host: git.example): local changes wait; sync again later",
    });
    expect(off.sentence).toBe(
      "The sync remote can't be reached right now. Your changes wait here and go out with the next sync. " +
        "Fetching from the sync remote failed (fatal: unable to access 'https://git.example/me/memory.git/': Could not resolve host: git.example).",
    );
    expect(off.next).toBe("retry");
    const slow = explain({ code: "remote_unreachable", message: "the sync remote took more than 30 s: local changes wait; sync again when the network is back" });
    expect(slow.sentence).toMatch(/with the next sync\. The sync remote took more than 30 s\.$/);
  });

  it("sends a refusing sync remote to Settings, without the command-line hint", () => {
    const refused = explain({
      code: "remote_refused",
      message: "the sync remote is not a git repository Mnemo can use (fatal: '/srv/none' does not appear to be a git repository): check the URL with `mnemo sync remote set URL`",
    });
    expect(refused.next).toBe("settings");
    expect(refused.sentence).toMatch(/^The sync remote refused Mnemo, or it isn't a memory repository Mnemo can use: check the address in Settings\. /);
    expect(refused.sentence).toMatch(/\(fatal: '\/srv\/none' does not appear to be a git repository\): check the URL\.$/);
    expect(refused.sentence).not.toMatch(/mnemo sync|`/);
  });

  it("never shows a code", () => {
    for (const code of ["conflict", "not_found", "invalid_frontmatter", "io", "remote_unreachable", "remote_refused"]) {
      expect(explain({ code, message: "" }).sentence).not.toContain(code);
    }
  });
});
