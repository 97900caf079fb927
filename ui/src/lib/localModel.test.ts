import { describe, expect, it } from "vitest";
import type { LocalModelInfo } from "./bindings";
import { localModelReady, localModelText } from "./localModel";

const base: LocalModelInfo = {
  name: "qwen2.5-coder-1.5b-instruct",
  size: "1.1 GB",
  installed: true,
  server_found: true,
  in_use: true,
  pid: null,
  log: "/home/a/.local/share/mnemo/local-model/server.log",
  missing: null,
};

describe("the local model in words", () => {
  it("says whether it is installed, found and running", () => {
    expect(localModelText(base)).toBe("Installed (1.1 GB); it starts when a message needs it.");
    expect(localModelText({ ...base, pid: 4242 })).toBe("Installed and running on this computer (1.1 GB).");
    expect(localModelText({ ...base, installed: false })).toContain("Not installed yet (1.1 GB to fetch): install it here, or with `mnemo model install`");
    expect(localModelText({ ...base, server_found: false, missing: "llama-server was not found: build it" })).toBe(
      "llama-server was not found: build it",
    );
    expect(localModelReady(base)).toBe(true);
    expect(localModelReady({ ...base, installed: false })).toBe(false);
  });
});
