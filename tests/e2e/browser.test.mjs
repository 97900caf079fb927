// The web UI in Debian's Chromium (Playwright, headless) against `mnemo serve` on a fixture
// home: list, CJK search, open, edit + save, invalid frontmatter rejected inline, delete, undo,
// and an outside edit appearing live. Screenshots go to tests/e2e/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeHome, startServer, topic, artifacts, waitFor, launchChromium } from "./fixture.mjs";

let fixture, server, browser, page;
const row = (path) => page.locator(`[data-testid="memory-row"][data-path="${path}"]`);
const shot = (name) => page.screenshot({ path: join(artifacts, `browser-${name}.png`) });

before(async () => {
  fixture = makeHome();
  server = await startServer(fixture);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  // The one-time login URL sets the session cookie and redirects to the app.
  await page.goto(server.url);
  await row("response-style.md").waitFor({ timeout: 30000 });
});

after(async () => {
  await browser?.close();
  server?.child.kill();
});

test("lists every workspace's memories, grouped by type", async () => {
  for (const p of ["response-style.md", "go-engineer.md", "freeze.md", "user_role.md", "feedback_tests.md", "reference/grafana.md"]) {
    await row(p).waitFor();
  }
  const groups = await page.locator('[data-testid="group-header"]').allInnerTexts();
  const lower = groups.map((g) => g.toLowerCase());
  for (const t of ["user", "feedback", "project", "reference"]) {
    assert.ok(lower.some((g) => g.includes(t)), `group ${t} in ${groups}`);
  }
  const workspaces = await page.locator('[data-testid="workspace-item"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
  assert.deepEqual(workspaces.sort(), ["claude:-home-me-app", "personal", "qwen:-home-me-svc"]);
  await shot("list");
});

test("search finds Chinese text and full-width Latin", async () => {
  const search = page.getByTestId("search-input");
  await search.fill("简洁");
  await waitFor(async () => (await page.locator('[data-testid="memory-row"]').count()) >= 1 && (await row("freeze.md").count()) === 1, "CJK hit");
  await shot("search-cjk");
  await search.fill("ＱＷＥＮ");
  await row("reference/grafana.md").waitFor();
  await search.fill("");
  await row("go-engineer.md").waitFor();
});

test("open, edit and save with Ctrl+S writes the file", async () => {
  await row("response-style.md").click();
  const desc = page.getByTestId("detail-description");
  await desc.waitFor();
  assert.equal(await desc.inputValue(), "Keep answers terse; no trailing summaries");
  await desc.fill("Terse answers, edited in the browser");
  await page.getByTestId("detail-editor").click();
  await page.keyboard.press("End");
  await page.keyboard.type(" Added line.");
  await page.keyboard.press("Control+s");
  const file = join(fixture.personal, "response-style.md");
  await waitFor(() => readFileSync(file, "utf8").includes("description: Terse answers, edited in the browser"), "saved description");
  const text = readFileSync(file, "utf8");
  assert.match(text, /^---\nname: Response style\ndescription: Terse answers, edited in the browser\ntype: feedback\n---\n/);
  assert.ok(text.includes("Added line."), text);
  await shot("saved");
});

test("invalid frontmatter is rejected inline and nothing is written", async () => {
  const file = join(fixture.personal, "response-style.md");
  const before = readFileSync(file, "utf8");
  await page.getByTestId("detail-name").fill("");
  await page.getByTestId("save-button").click().catch(() => {});
  await page.keyboard.press("Control+s");
  const err = page.getByTestId("inline-error");
  await err.waitFor();
  assert.match(await err.innerText(), /name/i);
  assert.equal(readFileSync(file, "utf8"), before);
  await shot("inline-error");
  await page.getByTestId("detail-name").fill("Response style");
  // Back to the saved text: the editor is clean again (nothing to save, no discard prompt next).
  await waitFor(async () => await page.getByTestId("save-button").isDisabled(), "editor clean again");
  assert.equal(await page.locator(".modal-backdrop").count(), 0);
});

test("delete asks for confirmation, removes the file, and undo brings it back", async () => {
  const file = join(fixture.personal, "go-engineer.md");
  const original = readFileSync(file);
  await row("go-engineer.md").click();
  await page.getByTestId("delete-button").click();
  await page.getByTestId("confirm-delete").click();
  await waitFor(() => !existsSync(file), "file deleted");
  await waitFor(async () => (await row("go-engineer.md").count()) === 0, "row gone");
  // Undo from the workspace history.
  await page.getByTestId("history-view").click();
  const item = page.locator('[data-testid="history-item"]').filter({ hasText: "go-engineer.md" }).first();
  await item.click();
  await page.getByTestId("undo-button").click();
  await waitFor(() => existsSync(file), "file restored");
  assert.deepEqual(readFileSync(file), original, "undo restores the exact bytes");
  await shot("undo");
});

test("an outside edit appears without reload", async () => {
  await page.getByRole("button", { name: "Memories", exact: true }).click();
  await page.getByTestId("workspace-all").click();
  await row("response-style.md").waitFor();
  writeFileSync(join(fixture.personal, "outside.md"), topic("Written elsewhere", "Made by another program", "project", "Hello from vim."));
  await row("outside.md").waitFor({ timeout: 15000 });
  writeFileSync(join(fixture.claudeMemory, "fresh.md"), topic("Claude fresh", "Claude Code wrote this", "user", "x"));
  await row("fresh.md").waitFor({ timeout: 15000 });
  await shot("live");
});
