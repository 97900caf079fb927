// Dream in Debian's Chromium against `mnemo serve` + the fake model server: a workspace with one
// fact duplicated across two feedback files; the Dream button refused while another process holds
// the consolidation lock; the auto-dream switch; then a dream — "✦ dreaming" in the footer and
// live progress (phase, tool calls, files) while the scripted agent writes the merged file and
// deletes the duplicate, the report opening by itself at the end (summary, notes, deleted file,
// each file's diff), and "Undo dream" putting both files back byte for byte; last, Pin / Unpin
// in the memory's detail view.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeHome, startServer, startFakeModel, topic, artifacts, waitFor, launchChromium } from "./fixture.mjs";

const ORIGINAL = topic(
  "Testing habits",
  "How the user wants tests written and run",
  "feedback",
  "Integration tests hit a real database.\nWhy: mocks hid a broken migration last quarter.\n\nRun the whole suite before pushing.\nHow to apply: every change, however small.",
);
const DUPLICATE = topic(
  "Real database in tests",
  "Tests use a real database, not mocks",
  "feedback",
  "Integration tests hit a real database.\nWhy: mocks hid a broken migration last quarter.",
);
const MERGED = topic(
  "Testing habits",
  "How the user wants tests written and run",
  "feedback",
  "Integration tests hit a real database.\nWhy: mocks hid a broken migration last quarter.\nHow to apply: never mock the database layer.\n\nRun the whole suite before pushing.\nHow to apply: every change, however small.",
);
const AGENT_SUMMARY = "Merged the duplicate testing feedback into testing.md and deleted testing-dup.md.";
/** How long the fake model takes per turn: long enough to see the dream under way. */
const TURN_MS = 2500;

let fixture, server, fake, browser, page;
const shot = (name) => page.screenshot({ path: join(artifacts, `dream-${name}.png`) });
const file = (name) => join(fixture.personal, name);
const text = async (testId) => (await page.getByTestId(testId).innerText().catch(() => "")).trim();

before(async () => {
  fixture = makeHome();
  writeFileSync(file("testing.md"), ORIGINAL);
  writeFileSync(file("testing-dup.md"), DUPLICATE);
  // The dream agent: write the merged file, delete the duplicate, then say what it did.
  fake = await startFakeModel(fixture.dir, {
    replies: {
      tools: [
        { tool: "write_file", arguments: { path: "testing.md", content: MERGED }, delay_ms: TURN_MS },
        { tool: "delete_file", arguments: { path: "testing-dup.md" }, delay_ms: TURN_MS },
        { text: AGENT_SUMMARY, delay_ms: TURN_MS },
      ],
    },
  });
  fixture.env = { ...fixture.env, MNEMO_LLM_BASE_URL: fake.url, MNEMO_LLM_MODEL: "fake-main" };
  server = await startServer(fixture);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(server.url);
  await page.locator('[data-testid="memory-row"][data-path="testing-dup.md"]').waitFor({ timeout: 30000 });
  await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
  await page.getByTestId("dream-button").waitFor();
});

after(async () => {
  await browser?.close();
  server?.child.kill();
  fake?.child.kill();
});

test("Dream is refused inline while another process holds the consolidation lock", async () => {
  const lock = join(fixture.home, "workspaces/personal/consolidation.lock");
  writeFileSync(lock, `${process.pid}\n`);
  try {
    await page.getByTestId("dream-button").click();
    const error = page.locator('[data-testid="workspace-bar"] [data-testid="inline-error"]');
    await error.waitFor();
    assert.equal(await error.getAttribute("data-code"), "locked");
    assert.match(await error.innerText(), new RegExp(String(process.pid)));
    assert.equal(await page.getByTestId("dream-dialog").count(), 0);
  } finally {
    rmSync(lock, { force: true });
  }
  assert.equal(readFileSync(file("testing-dup.md"), "utf8"), DUPLICATE);
});

test("the auto-dream switch reads and writes the workspace's setting", async () => {
  const toggle = page.getByTestId("auto-dream-toggle");
  await waitFor(async () => !(await toggle.isDisabled()), "the auto-dream setting loaded");
  const autoDream = () =>
    page.evaluate(async () => {
      const r = await fetch("/api/auto_dream", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ workspace: "personal" }) });
      return r.json();
    });
  const before = await toggle.isChecked();
  assert.equal(await autoDream(), before);
  await toggle.click();
  await waitFor(async () => (await autoDream()) === !before, "auto-dream switched");
  await waitFor(async () => (await toggle.isChecked()) === !before && !(await toggle.isDisabled()), "the switch shows it");
  await toggle.click();
  await waitFor(async () => (await autoDream()) === before, "auto-dream switched back");
});

test("a dream shows ✦ dreaming and live progress, then its report, and Undo dream restores the files", async () => {
  await page.getByTestId("dream-button").click();
  const dialog = page.getByTestId("dream-dialog");
  await dialog.waitFor();
  assert.equal(await page.locator('[data-testid="workspace-bar"] [data-testid="inline-error"]').count(), 0);

  // While it runs: the footer says so, and the dialog shows the phase and each tool call.
  await waitFor(async () => (await text("dream-indicator")) === "✦ dreaming", "✦ dreaming in the footer");
  await waitFor(async () => /model turn|orient|gather/.test(await text("dream-phase")), "the dream's phase");
  const steps = page.locator('[data-testid="dream-progress"] [data-testid="task-tools"] li');
  await waitFor(async () => (await steps.allInnerTexts()).some((s) => /✓\s*write_file\s+testing\.md/.test(s)), "the write_file call, done", 30000);
  await waitFor(async () => /testing\.md\s+written/.test(await text("dream-files")), "the file written so far");
  assert.equal(await text("dream-indicator"), "✦ dreaming");
  assert.equal((await page.getByTestId("dream-button").innerText()).trim(), "✦ Dreaming…");
  await shot("progress");

  // Closed while it runs, the dream goes on; its report opens by itself when it ends.
  await page.getByTestId("dream-close").click();
  await dialog.waitFor({ state: "detached" });
  assert.equal(await text("dream-indicator"), "✦ dreaming");
  const report = page.getByTestId("dream-report");
  await report.waitFor({ timeout: 30000 });
  assert.equal(await report.getAttribute("data-status"), "updated");
  assert.equal(await text("dream-outcome"), "Memory consolidated");
  assert.match(await text("dream-summary"), /1 file updated, 1 deleted \(agent\)/);
  assert.match(await text("dream-notes"), new RegExp(`agent: ${AGENT_SUMMARY.replace(/\./g, "\\.")}`));
  assert.equal(await text("dream-deleted"), "testing-dup.md");
  const groupFile = (p) => page.locator(`[data-testid="dream-report"] [data-testid="group-file"][data-path="${p}"]`);
  await groupFile("testing.md").locator("text=How to apply: never mock the database layer.").waitFor();
  await groupFile("testing-dup.md").waitFor();
  assert.match(await groupFile("testing-dup.md").innerText(), /Deleted/);
  await waitFor(async () => (await page.getByTestId("dream-indicator").count()) === 0, "✦ dreaming gone");
  await shot("report");

  // The files on disk are the dream's.
  assert.equal(existsSync(file("testing-dup.md")), false);
  assert.equal(readFileSync(file("testing.md"), "utf8"), MERGED);

  // The agent was offered the dream tools.
  const requests = await fake.requests();
  const agent = requests.find((r) => Array.isArray(r.tools) && r.tools.length > 0);
  const tools = agent.tools.map((t) => t.function?.name ?? t.name);
  for (const name of ["read_file", "write_file", "edit", "list_directory", "grep_search", "glob", "delete_file", "grep_transcripts"]) {
    assert.ok(tools.includes(name), `${name} offered: ${tools}`);
  }

  // One button undoes the whole dream; the files are back byte for byte.
  await page.getByTestId("undo-dream-button").click();
  await page.getByTestId("dream-undone").waitFor();
  assert.match(await text("dream-undone"), /Dream undone: 2 files restored/);
  assert.equal(await page.getByTestId("undo-dream-button").count(), 0);
  assert.equal(readFileSync(file("testing.md"), "utf8"), ORIGINAL);
  assert.equal(readFileSync(file("testing-dup.md"), "utf8"), DUPLICATE);
  await shot("undone");

  // The list shows the duplicate again; the report stays reachable from the task list.
  await page.getByTestId("dream-close").click();
  await page.locator('[data-testid="memory-row"][data-path="testing-dup.md"]').waitFor();
  await page.getByTestId("tasks-button").click();
  const row = page.locator('[data-testid="task-row"][data-status="completed"]').filter({ has: page.getByTestId("dream-report-button") });
  await row.first().getByTestId("dream-report-button").click();
  await page.getByTestId("dream-report").waitFor();
  assert.match(await text("dream-summary"), /1 file updated, 1 deleted \(agent\)/);
});

test("Pin marks a memory pinned in its frontmatter; Unpin takes it out again", async () => {
  await page.keyboard.press("Escape");
  await page.getByTestId("dream-dialog").waitFor({ state: "detached" });
  await page.locator('[data-testid="memory-row"][data-path="testing.md"]').click();
  const pin = page.getByTestId("pin-button");
  await waitFor(async () => (await pin.innerText().catch(() => "")).trim() === "Pin", "the Pin button");
  await pin.click();
  await page.getByTestId("pinned-marker").waitFor();
  assert.equal((await pin.innerText()).trim(), "Unpin");
  assert.match(readFileSync(file("testing.md"), "utf8"), /^pinned: true$/m);
  await shot("pinned");
  await pin.click();
  await page.getByTestId("pinned-marker").waitFor({ state: "detached" });
  assert.equal(readFileSync(file("testing.md"), "utf8"), ORIGINAL);
});
