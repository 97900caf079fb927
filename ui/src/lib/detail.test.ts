import { describe, expect, it } from "vitest";
import { EMPTY_DRAFT, defaultWorkspace, draftOf, fieldOf, nameClash, sameDraft, sharedNote, sharingText } from "./detail";
import { DOCS, WORKSPACES, detailOf } from "../test/fixtures";

describe("the detail pane's draft", () => {
  it("reads a memory into the form and tells an edit from the saved version", () => {
    const d = draftOf(detailOf(DOCS[0]));
    expect(d).toEqual({ name: "Response style", description: "Keep answers terse", type: "feedback", body: "Keep answers terse.\nWhy: because.\n" });
    expect(sameDraft(d, { ...d }, false)).toBe(true);
    expect(sameDraft(d, { ...d, name: "Other" }, false)).toBe(false);
    // A daily log compares its body only.
    expect(sameDraft(d, { ...d, name: "Other" }, true)).toBe(true);
    expect(sameDraft(d, { ...d, body: "x" }, true)).toBe(false);
    expect(draftOf({ ...detailOf(DOCS[5]), type: null }).type).toBe("");
    expect(EMPTY_DRAFT.type).toBe("user");
  });

  it("puts a new memory in the chosen workspace, else personal", () => {
    expect(defaultWorkspace("claude-proj", WORKSPACES)).toBe("claude-proj");
    expect(defaultWorkspace(null, WORKSPACES)).toBe("personal");
    expect(defaultWorkspace(null, [WORKSPACES[1]])).toBe("claude-proj");
    expect(defaultWorkspace(null, [])).toBe("personal");
  });

  it("knows which field an error is about, and says a shared write in a sentence", () => {
    expect(fieldOf({ code: "invalid_type", message: "x" })).toBe("type");
    expect(fieldOf({ code: "invalid_frontmatter", message: "frontmatter lacks name", field: "name" })).toBe("name");
    expect(fieldOf({ code: "invalid_path", message: "`a\u202e` holds a control character", field: "description" })).toBe("description");
    // The field is data: words in the message decide nothing.
    expect(fieldOf({ code: "invalid_frontmatter", message: "the description is too long" })).toBeNull();
    expect(fieldOf({ code: "conflict", message: "name" })).toBeNull();
    expect(sharedNote("it is tracked by git")).toBe("Shared through git: it is tracked by git.");
    expect(sharingText({ via: "qwen_team", folder: "/r/.qwen/team-memory", repo: "/r" })).toBe(
      "Shared through git: this is Qwen Code's team memory of /r, so a change reaches every collaborator once it is committed and pushed.",
    );
    expect(sharingText({ via: "team", remote: "/srv/team.git" })).toBe("Shared with your team through /srv/team.git: a change reaches every member at the next sync.");
  });

  it("puts a new memory's clash under its name (its file is named after it), or under the file typed", () => {
    const refused = { code: "conflict", field: "path" as const, message: "`response-style.md` already exists: edit it, or pick another path" };
    expect(fieldOf(refused, { path: "" })).toBe("name");
    expect(fieldOf(refused, { path: "style.md" })).toBe("path");
    // Editing an existing memory: a conflict is about the whole file.
    expect(fieldOf(refused)).toBeNull();
    expect(nameClash(refused, "")?.message).toBe(
      "This workspace already has a memory of that name (response-style.md): choose another name, or open that memory and edit it.",
    );
    expect(nameClash(refused, "style.md")?.message).toMatch(/^This workspace already has a file of that name \(response-style\.md\)/);
    expect(nameClash({ code: "conflict", message: "the file changed since you opened it" }, "")).toBeNull();
  });
});
