// The workspace's memory tools in Debian's Chromium against `mnemo serve` + the fake model server:
// the Status panel (health before any activity — MEMORY.md budget, an invalid file, a stale
// memory, likely duplicates whose "Dream" action runs a mechanical dream), chat turns seeding
// recall and extraction telemetry, then the switches, the filtered task list and the charts;
// automatic extraction switched off (the next turn's extraction is `skipped`/`disabled` and no
// agent runs); the Remember… box with the fake agent writing a memory that then opens; the
// Forget… dialog (a stale preview refused with `conflict`, previewed again, the checked entry
// forgotten on disk, then undone byte for byte). Screenshots land in tests/e2e/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeHome, startServer, startFakeModel, topic, artifacts, waitFor, launchChromium } from "./fixture.mjs";

const TESTING = topic(
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
const REMEMBERED = topic(
  "Deploy day",
  "Deploys go out on Tuesdays",
  "project",
  "Deploys go out on Tuesdays.\nWhy: the release team is staffed on Tuesdays.",
);
const FACT = "We deploy on Tuesdays because the release team is staffed then.";

let fixture, server, fake, browser, page;
const shot = (name) => page.screenshot({ path: join(artifacts, `${name}.png`) });
const file = (name) => join(fixture.personal, name);
const text = async (locator) => ((await locator.innerText().catch(() => "")) ?? "").trim();

/** POST /api/<command> from the page (its session cookie authenticates). */
const api = (command, args = {}) =>
  page.evaluate(
    async ([c, a]) => {
      const r = await fetch(`/api/${c}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(a) });
      return r.json();
    },
    [command, args],
  );
const tasksOf = (kind) => api("tasks", { workspace: "personal", kind, status: null, limit: 50 });

async function chatTurn(message) {
  const done = page.locator('[data-testid="chat-message"][data-role="assistant"]:not([data-streaming="true"])');
  const before = await done.count();
  const input = page.getByTestId("chat-input");
  await input.fill(message);
  await input.press("Enter");
  await waitFor(async () => (await done.count()) === before + 1, "the assistant's reply", 30000);
}

before(async () => {
  fixture = makeHome();
  writeFileSync(file("testing.md"), TESTING);
  // Merged into the first file by path (testing.md); the emptied duplicate is deleted.
  writeFileSync(file("tests-real-db.md"), DUPLICATE);
  writeFileSync(file("broken.md"), "---\nname: Broken\n---\nno type and no description\n");
  // Untouched for 200 days and never recalled: stale.
  const old = new Date(Date.now() - 200 * 24 * 3600 * 1000);
  utimesSync(file("freeze.md"), old, old);

  fake = await startFakeModel(fixture.dir, {
    chunk_delay_ms: 20,
    replies: {
      // Turn 1's recall: the fast model picks. Later recalls get "ok" (not JSON) and fall back to
      // lexical; so does the forget preview (the heuristic).
      json: [{ json: { paths: ["go-engineer.md"] } }],
      stream: [
        { text: "Explain it as you would to a backend engineer." },
        { text: "Noted." },
      ],
      // Turn 1's extraction (nothing worth saving), then the remember agent.
      tools: [
        { text: "Nothing new worth remembering." },
        { tool: "write_file", arguments: { path: "project/deploy-day.md", content: REMEMBERED }, delay_ms: 800 },
        { text: "Saved the deploy day as project/deploy-day.md." },
      ],
    },
  });
  // No model at first: the first dream is mechanical.
  server = await startServer(fixture);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(server.url);
  await page.locator('[data-testid="memory-row"][data-path="tests-real-db.md"]').waitFor({ timeout: 30000 });
  await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
  await page.getByTestId("status-button").waitFor();
});

after(async () => {
  await browser?.close();
  server?.child.kill();
  fake?.child.kill();
});

test("each workspace row shows where it comes from on hover, with its counts", async () => {
  const workspaces = await api("workspaces");
  for (const w of workspaces) {
    const title = await page.locator(`[data-testid="workspace-item"][data-id="${w.id}"]`).getAttribute("title");
    assert.ok(w.origin, `${w.id} has an origin`);
    assert.ok(title.includes(w.origin), `${w.id}: ${title}`);
    assert.match(title, /\d+ memories · \d+ daily logs · \d+ invalid/);
  }
});

test("the status panel shows memory health, and its Dream action merges the duplicates", async () => {
  await page.getByTestId("status-button").click();
  const panel = page.getByTestId("status-panel");
  await panel.waitFor();
  assert.equal(await panel.getAttribute("data-workspace"), "personal");

  // MEMORY.md budget bars, and each finding with its action.
  await page.getByTestId("budget-lines").waitFor();
  assert.match(await text(page.getByTestId("budget-lines")), /MEMORY\.md lines\s+\d+ \/ \d+/);
  assert.match(await text(page.getByTestId("budget-bytes")), /KB|B/);
  const item = (kind, path) => page.locator(`[data-testid="health-item"][data-kind="${kind}"][data-path="${path}"]`);
  await item("invalid", "broken.md").waitFor();
  await item("stale", "freeze.md").waitFor();
  await page.getByTestId("health-duplicates").waitFor();
  assert.ok((await item("duplicate", "testing.md").count()) + (await item("duplicate", "tests-real-db.md").count()) >= 1);
  // Nothing happened yet: the charts say so.
  for (const chart of ["chart-recall-mix", "chart-recall-latency", "chart-extract", "chart-dream"]) {
    assert.equal(await page.getByTestId(chart).getAttribute("data-count"), "0", chart);
  }
  assert.match(await text(page.getByTestId("last-dream")), /never/);
  await shot("status-health");

  // "Dream" (no model configured: mechanical) merges them; the report opens.
  await page.getByTestId("health-dream").click();
  const report = page.getByTestId("dream-report");
  await report.waitFor({ timeout: 30000 });
  assert.equal(await report.getAttribute("data-status"), "updated");
  assert.match(await text(page.getByTestId("dream-summary")), /mechanical/);
  await page.getByTestId("dream-close").click();
  assert.equal(existsSync(file("tests-real-db.md")), false);
  assert.match(readFileSync(file("testing.md"), "utf8"), /Integration tests hit a real database\.[^]*Run the whole suite/);

  // The figures follow: no duplicates left, one dream drawn, last dream "Updated".
  await page.getByTestId("health-duplicates").waitFor({ state: "detached" });
  await waitFor(async () => (await page.getByTestId("chart-dream").getAttribute("data-count")) === "1", "the dream in the chart");
  assert.equal(await page.getByTestId("last-dream").getAttribute("data-status"), "updated");

  // "Open" on the invalid file shows it (with its problem) in the memory browser.
  await item("invalid", "broken.md").getByTestId("health-open").click();
  await page.getByTestId("detail-raw").waitFor();
  await page.getByTestId("status-button").click();
  await panel.waitFor();
});

test("chat turns with the fake model record recall and extraction", async () => {
  const settings = await api("get_model_settings");
  const saved = await api("set_model_settings", { settings: { ...settings, base_url: fake.url, model: "fake-main", fast_model: "fake-fast" } });
  assert.equal(saved.configured, true, JSON.stringify(saved));
  await page.reload();
  await page.getByTestId("chat-input").waitFor({ timeout: 30000 });
  await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();

  await chatTurn("How should frontend ideas be explained to me?");
  await waitFor(async () => (await tasksOf("extract")).some((t) => t.status === "completed"), "the turn's extraction", 30000);
});

test("the status panel shows the switches, the task list and the telemetry charts", async () => {
  await page.getByTestId("status-view").click();
  const panel = page.getByTestId("status-panel");
  await panel.waitFor();

  // Switches, as the settings say.
  const extract = page.getByTestId("auto-extract-toggle");
  const dream = page.getByTestId("status-auto-dream-toggle");
  await extract.waitFor();
  assert.equal(await extract.isChecked(), await api("auto_extract", { workspace: "personal" }));
  assert.equal(await dream.isChecked(), await api("auto_dream", { workspace: "personal" }));
  assert.equal(await extract.isChecked(), true);

  // Last runs.
  await waitFor(async () => (await page.getByTestId("last-extract").getAttribute("data-status")) === "completed", "the last extraction");
  assert.equal(await page.getByTestId("last-dream").getAttribute("data-status"), "updated");

  // The task list: the dream and the extraction, filterable by kind and status.
  const rows = page.locator('[data-testid="status-task-list"] [data-testid="task-row"]');
  const row = (kind, status) => rows.filter({ hasText: kind }).and(page.locator(`[data-status="${status}"]`));
  await waitFor(async () => (await row("Extract", "completed").count()) >= 1, "the extraction in the task list");
  assert.ok((await row("Dream", "completed").count()) >= 1);
  await page.getByTestId("task-filter-kind").selectOption("dream");
  await waitFor(async () => (await rows.count()) >= 1 && (await rows.allInnerTexts()).every((t) => /Dream/.test(t)), "only dreams");
  await page.getByTestId("task-filter-kind").selectOption("");
  await page.getByTestId("task-filter-status").selectOption("completed");
  await waitFor(async () => (await rows.evaluateAll((els) => els.every((e) => e.getAttribute("data-status") === "completed"))) && (await rows.count()) >= 2, "only completed tasks");
  await page.getByTestId("task-filter-status").selectOption("");

  // Charts: drawn in SVG from the telemetry.
  await waitFor(async () => Number(await page.getByTestId("chart-recall-mix").getAttribute("data-count")) >= 1, "a recall in the mix");
  const mix = page.locator('[data-testid="chart-recall-mix"] svg rect');
  assert.ok((await mix.count()) >= 1);
  assert.equal(await page.locator('[data-testid="chart-recall-mix"] svg rect[data-key="model"]').count(), 1);
  assert.ok((await page.locator('[data-testid="chart-recall-latency"] svg rect').count()) >= 1);
  assert.equal(await page.getByTestId("chart-extract").getAttribute("data-count"), "1");
  assert.equal(await page.locator('[data-testid="chart-extract"] svg rect[data-status="completed"]').count(), 1);
  assert.equal(await page.locator('[data-testid="chart-dream"] svg rect[data-status="updated"]').count(), 1);
  const box = await page.locator('[data-testid="chart-recall-mix"] svg').boundingBox();
  assert.ok(box && box.width > 50 && box.height > 5, `the mix is drawn: ${JSON.stringify(box)}`);
  // Axes: 0 and a round top with its unit, the local times below, a caption saying what is shown.
  const yLabels = await page.locator('[data-testid="chart-recall-latency"] svg text[data-axis="y"]').allTextContents();
  assert.equal(yLabels.length, 2, JSON.stringify(yLabels));
  assert.match(yLabels[0], /^\d+(\.\d+)? (ms|s)$/);
  assert.equal(yLabels[1], "0");
  assert.ok((await page.locator('[data-testid="chart-extract"] svg text[data-axis="x"]').count()) >= 1, "the extraction's time");
  assert.match(await page.locator('[data-testid="chart-recall-latency"] .chart-caption').innerText(), /Recall time for/);
  // One dream is one narrow mark, not a bar across the track.
  const mark = await page.locator('[data-testid="chart-dream"] svg rect[data-status="updated"]').boundingBox();
  assert.ok(mark && mark.width <= 12, `one dream is a narrow mark: ${JSON.stringify(mark)}`);
  await shot("status-panel");
});

test("with automatic extraction off, the next turn runs no extraction", async () => {
  const toggle = page.getByTestId("auto-extract-toggle");
  await toggle.click();
  await waitFor(async () => (await api("auto_extract", { workspace: "personal" })) === false, "automatic extraction off");
  await waitFor(async () => !(await toggle.isChecked()) && !(await toggle.isDisabled()), "the switch shows it");
  const agentCalls = async () => (await fake.requests()).filter((r) => !r.stream && Array.isArray(r.tools) && r.tools.length > 0).length;
  const callsBefore = await agentCalls();
  const extractsBefore = (await tasksOf("extract")).length;

  await chatTurn("Thanks, that helps.");

  // The turn's extraction is recorded as skipped (disabled), in the API and in the task list.
  const skipped = await waitFor(async () => {
    const list = await tasksOf("extract");
    return list.length > extractsBefore ? list.find((t) => t.status === "skipped" && t.reason === "disabled") : null;
  }, "the skipped extraction");
  assert.equal((await tasksOf("extract")).filter((t) => t.status === "completed").length, 1);
  await page.getByTestId("task-filter-kind").selectOption("extract");
  await page.getByTestId("task-filter-status").selectOption("skipped");
  const row = page.locator(`[data-testid="status-task-list"] [data-testid="task-row"][data-id="${skipped.id}"]`);
  await row.waitFor();
  // The reason is said in words, not as the code `disabled`.
  assert.match(await text(row), /Skipped — switched off for this workspace/);
  assert.doesNotMatch(await text(row), /\(disabled\)/);
  await page.getByTestId("task-filter-kind").selectOption("");
  await page.getByTestId("task-filter-status").selectOption("");
  // No extraction agent asked the model anything.
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await agentCalls(), callsBefore);
  await shot("status-extract-off");
});

test("Remember… runs the memory agent, shows the task live, and opens what it wrote", async () => {
  await page.locator('.view-switch button', { hasText: "Memories" }).click();
  await page.getByTestId("remember-button").click();
  const box = page.getByTestId("remember-box");
  await box.waitFor();
  await page.getByTestId("remember-input").fill(FACT);
  await page.getByTestId("remember-submit").click();
  const taskView = page.getByTestId("remember-task");
  await taskView.waitFor();
  const id = await taskView.getAttribute("data-id");
  assert.match(id, /^remember-/);
  await waitFor(async () => ["queued", "running"].includes(await taskView.getAttribute("data-status")), "the task under way");
  await shot("remember-running");

  await waitFor(async () => (await taskView.getAttribute("data-status")) === "completed", "the remember task completed", 30000);
  assert.match(await text(page.getByTestId("remember-summary")), /deploy day/i);
  // What it wrote is open in the browser, and on disk.
  await waitFor(async () => (await page.getByTestId("detail-name").inputValue().catch(() => "")) === "Deploy day", "the new memory opened");
  assert.equal(readFileSync(file("project/deploy-day.md"), "utf8"), REMEMBERED);
  await page.locator('[data-testid="memory-row"][data-path="project/deploy-day.md"]').waitFor();
  const task = await api("remember_task", { id, clientId: null });
  assert.deepEqual(task.result.filesTouched, ["project/deploy-day.md"]);
  // The agent was asked with the fact.
  const asked = (await fake.requests()).filter((r) => !r.stream && Array.isArray(r.tools) && r.tools.length > 0);
  assert.ok(asked.some((r) => JSON.stringify(r.messages).includes("Tuesdays")));
  await shot("remember-done");
  await page.getByTestId("remember-close").click();
});

test("Forget… previews, refuses a stale preview, forgets the checked entry and undoes it", async () => {
  const before = readFileSync(file("testing.md"), "utf8");
  assert.match(before, /Run the whole suite before pushing\./);
  await page.getByTestId("forget-button").click();
  const dialog = page.getByTestId("forget-dialog");
  await dialog.waitFor();

  // Nothing matches: said so.
  await page.getByTestId("forget-query").fill("kubernetes helm charts");
  await page.getByTestId("forget-preview-button").click();
  await page.getByTestId("forget-empty").waitFor({ timeout: 30000 });

  // A preview, then the file changes: forgetting is refused with `conflict`, nothing written.
  await page.getByTestId("forget-query").fill("whole suite");
  await page.getByTestId("forget-preview-button").click();
  const entry = page.locator('[data-testid="forget-entry"]');
  await entry.first().waitFor({ timeout: 30000 });
  assert.equal(await entry.count(), 1);
  const entryId = await entry.first().getAttribute("data-id");
  assert.match(entryId, /^testing\.md/);
  assert.match(await text(entry.first()), /Run the whole suite before pushing\./);
  assert.ok(await entry.first().locator("input[type=checkbox]").isChecked());
  assert.equal(await text(page.getByTestId("forget-confirm")), "Forget 1 entry");
  const changed = `${before.trimEnd()}\n\nKeep CI under ten minutes.\n`;
  writeFileSync(file("testing.md"), changed);
  await page.getByTestId("forget-confirm").click();
  const error = page.locator('[data-testid="forget-dialog"] [data-testid="inline-error"]');
  await error.waitFor();
  assert.equal(await error.getAttribute("data-code"), "conflict");
  assert.equal(readFileSync(file("testing.md"), "utf8"), changed);
  await shot("forget-conflict");

  // Preview again, forget: the entry is gone from the file, the rest kept.
  await page.getByTestId("forget-repreview").click();
  await waitFor(async () => (await error.count()) === 0 && (await entry.count()) === 1, "a fresh preview");
  await shot("forget-preview");
  await page.getByTestId("forget-confirm").click();
  const done = page.getByTestId("forget-done");
  await done.waitFor();
  assert.match(await text(done), /Forgot 1 entry from testing\.md/);
  const after = readFileSync(file("testing.md"), "utf8");
  assert.doesNotMatch(after, /Run the whole suite/);
  assert.match(after, /Integration tests hit a real database\./);
  assert.match(after, /Keep CI under ten minutes\./);
  const forgets = await tasksOf("forget");
  assert.ok(forgets.some((t) => t.status === "completed" && t.result?.files.includes("testing.md")));
  await shot("forget-done");

  // Undo puts the file back byte for byte.
  await page.getByTestId("forget-undo").click();
  await page.getByTestId("forget-undone").waitFor();
  assert.equal(readFileSync(file("testing.md"), "utf8"), changed);
  await page.getByTestId("forget-close").click();
  await dialog.waitFor({ state: "detached" });
});
