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

  it("inside Settings never sends the person to Settings: the fields are above", () => {
    const none = explain({ code: "model_not_configured", message: "no model is configured: set a base URL and model in Settings (or MNEMO_LLM_BASE_URL and MNEMO_LLM_MODEL)" }, "settings");
    expect(none).toEqual({ sentence: "No model is set up yet: enter the server's base URL and a model above, then try again.", next: "none" });
    const key = explain({ code: "model_not_configured", message: "the model server refused the API key (HTTP 401): check the key in Settings" }, "settings");
    expect(key.sentence).toBe("The model server refused the API key (HTTP 401): check the key above.");
    const missing = explain({ code: "model_unreachable", message: "model `qwen9` was not found on the server: check the model name in Settings" }, "settings");
    expect(missing.sentence).toMatch(/check the model name above\.$/);
    const refused = explain({ code: "remote_refused", message: "the sync remote is not a git repository" }, "settings");
    expect(refused.sentence).toMatch(/^The sync remote refused Mnemo, or it isn't a memory repository Mnemo can use: check the address above\. /);
    expect(refused.next).toBe("none");
    for (const e of [none, key, missing, refused]) expect(e.sentence).not.toMatch(/\bSettings\b/);
    // Outside Settings the same errors still say where to go.
    expect(explain({ code: "remote_refused", message: "x" }).sentence).toMatch(/in Settings/);
  });

  it("says a frontmatter field's problem in a sentence with what to do, never “name” must not be empty.", () => {
    const empty = explain({ code: "invalid_frontmatter", message: "`name` must not be empty" });
    expect(empty.sentence).toBe("The name must not be empty: write one, then save again.");
    expect(explain({ code: "invalid_frontmatter", message: "`description` must be a single line" }).sentence).toBe(
      "The description must be one line: take out its line breaks, then save again.",
    );
    expect(empty.sentence).not.toMatch(/[“”"`]/);
    // Other messages as before.
    expect(explain({ code: "invalid_frontmatter", message: "missing name in frontmatter" }).sentence).not.toMatch(/save again/);
  });

  it("never shows a code", () => {
    for (const code of ["conflict", "not_found", "invalid_frontmatter", "io", "remote_unreachable", "remote_refused"]) {
      expect(explain({ code, message: "" }).sentence).not.toContain(code);
    }
  });

  it("explains a proposal that collides with the files as they are now, and nothing chosen", () => {
    const conflict = explain(
      {
        code: "conflict",
        message:
          "proposal 3 cannot be applied as it is: travel.md: the entry was edited since it was proposed. Nothing was written; reject it, or edit the files and accept again",
      },
      "proposal",
    );
    expect(conflict.sentence).toBe(
      "The files changed since this was proposed, in a way that collides with it, so nothing was saved. “travel.md”: the entry was edited since it was proposed. Reject it, or edit it and accept again.",
    );
    expect(conflict.next).toBe("none");
    expect(explain({ code: "conflict", message: "proposal 3 is already accepted (accepted 1 of 2 changes)" }, "proposal").sentence).toBe(
      "This proposal is already accepted (accepted 1 of 2 changes). Nothing else to do here.",
    );
    expect(explain({ code: "usage", message: "choose at least one change of proposal 3 to accept, or reject it" }, "proposal").sentence).toBe(
      "Tick at least one change to accept, or reject the proposal.",
    );
    expect(explain({ code: "invalid_content", message: "`travel.md` holds what looks like a secret (AWS access key)" }, "proposal").sentence).toBe(
      "“travel.md” holds what looks like a secret (AWS access key). Nothing was saved: take it out of the text, then accept again.",
    );
    // Elsewhere a conflict reads as before.
    expect(explain({ code: "conflict", message: "the file changed on disk" }).sentence).toBe("The file changed on disk.");
  });

  it("explains why a fact could not be replaced, saying nothing was saved and what to do", () => {
    const conflict = explain({ code: "conflict", message: "`home.md:1` is not a current entry of `home.md` (it may be superseded already): reload it" }, "replace");
    expect(conflict.sentence).toBe(
      "This fact was already replaced, or the memory changed since you opened it. Nothing was saved: reload the memory and try again.",
    );
    expect(conflict.next).toBe("none");
    expect(explain({ code: "usage", message: "the new fact is empty: write what replaces it" }, "replace").sentence).toBe("Write the new fact: it can't be empty.");
    expect(explain({ code: "invalid_content", message: "looks like a secret: github_token (line 1)" }, "replace").sentence).toBe(
      "Looks like a secret: github_token (line 1). Nothing was saved: take it out of the new fact, then save again.",
    );
    expect(explain({ code: "invalid_arguments", message: "`x` is not an entry of `home.md`: entry ids are `home.md` or `home.md:N` (see `mnemo show home.md`)" }, "replace").sentence).toBe(
      "Mnemo can't find this fact in the memory any more. Nothing was saved: reload the memory and try again.",
    );
    // Other codes read as anywhere else; no backticks or command-line hints.
    const locked = explain({ code: "locked", message: "another job holds the lock" }, "replace");
    expect(locked.next).toBe("retry");
    expect(locked.sentence).not.toMatch(/`/);
  });

  it("explains an import's errors in sentences: no model (to Settings), changed since the preview, a path, a damaged export", () => {
    const model = explain(
      {
        code: "model_not_configured",
        message:
          "learning from past conversations needs a model: set one in Settings → Model (or MNEMO_LLM_BASE_URL and MNEMO_LLM_MODEL); nothing was queued",
      },
      "import",
    );
    expect(model.sentence).toBe(
      "Learning from past conversations needs a model, and none is set up yet. Nothing was queued: set one up in Settings, then import again.",
    );
    expect(model.next).toBe("settings");
    expect(explain({ code: "conflict", message: "the source or the workspace changed since the preview: preview the import again" }, "import").sentence).toBe(
      "The export or the workspace changed since the preview. Nothing was written: preview again.",
    );
    expect(explain({ code: "not_found", message: "cannot read /home/u/导出.json: No such file or directory (os error 2)" }, "import").sentence).toBe(
      "Cannot read /home/u/导出.json: No such file or directory. Check the path: it must be the full path of the export file or folder.",
    );
    expect(explain({ code: "usage", message: "give the full path of the export (`exports/a.json` is relative)" }, "import").sentence).toBe(
      "Give the full path of the export (“exports/a.json” is relative).",
    );
    const several = explain(
      {
        code: "several_workspaces",
        message: "this export holds 2 workspaces (personal, work): import it without --workspace, and each goes back to the workspace of the same id",
      },
      "import",
    );
    expect(several.sentence).toBe(
      "This export holds 2 workspaces (personal, work): they can't all go into one. Import it into each workspace of the same id instead.",
    );
    expect(several.sentence).not.toMatch(/--/);
    expect(explain({ code: "several_workspaces", message: "reworded by a later version" }, "import").sentence).toBe(
      "This export holds several workspaces: they can't all go into one. Import it into each workspace of the same id instead.",
    );
    expect(explain({ code: "usage", message: "this export holds 2 workspaces (a, b)" }, "import").sentence).not.toMatch(/can't all go into one/);
    const damaged = explain({ code: "invalid_content", message: "/tmp/x.json is not a format Mnemo imports (line 3: expected value)" }, "import");
    expect(damaged.sentence).toBe("/tmp/x.json is not a format Mnemo imports (line 3: expected value).");
    expect(damaged.sentence).not.toMatch(/invalid_content/);
  });
});
