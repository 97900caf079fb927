// "The app tells one truth", walked as a person at 1,000 and 1,440 px, light and dark,
// by keyboard, in Debian's Chromium against `mnemo serve`, axe-core on every view it visits:
// the first run at 1,000 px with fresh storage reaches a memory's body and Save by keyboard alone
// (nothing to close first) and the edit lands on disk; below 1,200 px the chat is a modal drawer
// (closed at first, a backdrop, Escape and a click outside close it, the focus kept inside and
// given back); Settings opens from the sidebar and with Ctrl+, and asks before it drops typed
// values; the open memory and the selected row never disagree, the workspace survives a reload,
// the inbox count is one number everywhere; the safe choice has the focus in confirmations, lists
// and toolbars are one Tab stop, the focus lands somewhere sensible after Undo and after the
// dream report; and the small things (switch sizes, search titles beside the chat, undone and
// redone in words, placeholders, a name clash under Name, one empty-inbox sentence).
// Shots: tests/e2e/artifacts/truth-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { makeHome, startServer, topic, artifacts, waitFor, launchChromium, targetDir } from "./fixture.mjs";

const TESTING = topic("Testing habits", "How the user wants tests written", "feedback", "Integration tests hit a real database.\nWhy: mocks hid a broken migration.");
// Its first entry repeats testing.md's: a mechanical dream (no model needed) merges the two.
const DUPLICATE = topic(
  "Real database in tests",
  "Tests use a real database",
  "feedback",
  "Integration tests hit a real database.\nWhy: mocks hid a broken migration.\n\nSeed the database from fixtures.\nWhy: tests must not share state.",
);

let fixture, server, browser, context, page;
const file = (name) => join(fixture.personal, name);
const shot = (name) => page.screenshot({ path: join(artifacts, `truth-${name}.png`) });

/** POST /api/<command> from the page (its session cookie authenticates). */
const api = (command, args = {}) =>
  page.evaluate(
    async ([c, a]) => {
      const r = await fetch(`/api/${c}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(a) });
      return r.json();
    },
    [command, args],
  );

/** `mnemo` at the command line on the fixture's own home (the server keeps running). */
function cli(...args) {
  const bin = process.env.MNEMO_BIN || join(targetDir, "debug/mnemo");
  return execFileSync(bin, args, { env: { ...fixture.env, MNEMO_EMBED_MODEL: "off" }, encoding: "utf8" });
}

/** What has the focus, in a few words (for assertions and their messages). */
const focused = () =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { what: "the page", testid: null, text: "", editor: false, tag: "body", toolbar: null };
    const testid = el.getAttribute("data-testid") ?? el.closest("[data-testid]")?.getAttribute("data-testid") ?? null;
    const text = (el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 40);
    const toolbar = el.closest('[role="toolbar"], [role="tablist"]')?.getAttribute("aria-label") ?? null;
    return { what: `${el.tagName.toLowerCase()}[${testid ?? ""}] ${text}`, testid, text, editor: el.classList.contains("cm-content"), tag: el.tagName.toLowerCase(), toolbar };
  });

/** Presses `key` until `done(focused)` holds; the number of presses and the stops on the way. */
async function pressUntil(done, { key = "Tab", max = 30 } = {}) {
  const trail = [];
  for (let i = 1; i <= max; i++) {
    await page.keyboard.press(key);
    const f = await focused();
    trail.push(f.what);
    if (done(f)) return { presses: i, trail };
  }
  throw new Error(`never reached after ${max} × ${key}: ${trail.join(" → ")}`);
}

/** Every serious or critical axe finding on the page as it is, labelled. */
async function axe(what) {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations
    .filter((x) => x.impact === "serious" || x.impact === "critical")
    .map((x) => `${what}: ${x.id} (${x.impact}) — ${x.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
}

/** A window of `width` (1,000 px is 700 high, as a laptop; 1,440 × 900) in `scheme`. */
async function windowOf(width, scheme = "light") {
  await page.setViewportSize({ width, height: width === 1000 ? 700 : 900 });
  await page.emulateMedia({ colorScheme: scheme });
  await page.waitForTimeout(150);
}

/** Focus a control and press Enter: what a person does after Tab-ing to it. */
async function activate(locator) {
  await locator.focus();
  await page.keyboard.press("Enter");
}

async function chooseWorkspace(id) {
  await toMemories();
  await activate(page.locator(`[data-testid="workspace-item"][data-id="${id}"]`));
  await page.getByTestId("remember-button").waitFor();
}

async function toMemories() {
  await activate(page.getByRole("button", { name: "Memories", exact: true }));
  await page.getByTestId("search-input").waitFor();
}

/** Opens `path` from the list by keyboard: the list focused, ↓ until the cursor is on it, Enter. */
async function openByKeyboard(path) {
  await toMemories();
  const list = page.getByTestId("memory-list");
  await list.waitFor();
  await list.focus();
  await page.keyboard.press("Home");
  for (let i = 0; i < 60; i++) {
    const at = await list.evaluate((el) => document.getElementById(el.getAttribute("aria-activedescendant") ?? "")?.dataset.path ?? null);
    if (at === path) break;
    await page.keyboard.press("ArrowDown");
  }
  await page.keyboard.press("Enter");
  await waitFor(async () => (await page.locator('[data-testid="memory-row"][aria-selected="true"]').getAttribute("data-path").catch(() => null)) === path, `${path} open`);
  await page.getByTestId("detail-name").waitFor();
}

/** The rows shown selected (`aria-selected` and the selected look): the open memory's, at most. */
const selectedRows = () =>
  page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="memory-row"]')]
      .filter((r) => r.getAttribute("aria-selected") === "true" || r.classList.contains("selected"))
      .map((r) => r.dataset.path),
  );

before(async () => {
  fixture = makeHome();
  writeFileSync(file("testing.md"), TESTING);
  writeFileSync(file("tests-real-db.md"), DUPLICATE);
  server = await startServer(fixture);
  browser = await launchChromium();
  // Fresh storage, 1,000 px: the first test is a person's first run.
  context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  page = await context.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
});

after(async () => {
  await browser?.close();
  server?.child.kill();
});

test("first run at 1,000 px, fresh storage: the chat drawer is closed, and the keyboard alone reaches a memory's body and Save — nothing to close first — and the edit is on disk", async () => {
  await page.goto(server.url);
  await page.locator('[data-testid="memory-row"]').first().waitFor({ timeout: 30000 });
  assert.equal(await page.evaluate(() => localStorage.getItem("mnemo.welcomed")), null, "fresh storage");
  // Nothing covers the app: no drawer, no backdrop; the welcome sits where a memory would open.
  assert.equal(await page.getByTestId("chat-pane").count(), 0, "the chat drawer starts closed below 1,200 px");
  assert.equal(await page.getByTestId("chat-backdrop").count(), 0);
  await page.getByTestId("welcome").waitFor();
  assert.equal(await page.getByRole("dialog").count(), 0, "nothing modal on a first run");
  const found = [];
  for (const scheme of ["light", "dark"]) {
    await windowOf(1000, scheme);
    await shot(`first-run-1000-${scheme}`);
    found.push(...(await axe(`first run (${scheme})`)));
  }
  await windowOf(1000, "light");

  // Ctrl+K, the memory's name, ↓, Enter: it opens; the focus stays in the search box.
  await page.keyboard.press("Control+k");
  assert.equal((await focused()).testid, "search-input");
  await page.keyboard.type("engineer");
  const hit = page.locator('[data-testid="memory-row"][data-path="go-engineer.md"]');
  await hit.waitFor({ timeout: 20000 });
  await page.keyboard.press("ArrowDown");
  for (let i = 0; i < 10 && (await hit.getAttribute("data-cursor")) !== "true"; i++) await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await waitFor(async () => (await page.getByTestId("detail-name").inputValue().catch(() => "")) === "Go engineer", "Go engineer open");
  assert.deepEqual(await selectedRows(), ["go-engineer.md"]);

  // Tab from the search box: the Description field and the body are a few presses away.
  const toDescription = await pressUntil((f) => f.testid === "detail-description");
  assert.ok(toDescription.presses <= 10, `${toDescription.presses} Tabs to Description: ${toDescription.trail.join(" → ")}`);
  const toBody = await pressUntil((f) => f.editor, { max: 5 });
  assert.ok(toDescription.presses + toBody.presses <= 12, `Tabs to the body: ${[...toDescription.trail, ...toBody.trail].join(" → ")}`);

  // Typed into the body, saved with Ctrl+S: on disk.
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\nPrefers Go examples first.");
  await page.keyboard.press("Control+s");
  await waitFor(() => readFileSync(file("go-engineer.md"), "utf8").includes("Prefers Go examples first."), "the Ctrl+S edit on disk");

  // Typed again, and saved with the Save button, reached by keyboard: back to the actions
  // (one Tab stop), End to Save, Enter.
  await page.keyboard.type("\nWhy: said so.");
  const save = page.getByTestId("save-button");
  await waitFor(async () => !(await save.isDisabled()), "Save enabled");
  const back = await pressUntil((f) => f.toolbar === "Memory actions", { key: "Shift+Tab", max: 10 });
  assert.ok(back.presses <= 7, `Shift+Tabs from the body to the actions: ${back.trail.join(" → ")}`);
  await page.keyboard.press("End");
  assert.equal((await focused()).testid, "save-button", `the focus: ${(await focused()).what}`);
  await page.keyboard.press("Enter");
  await waitFor(() => readFileSync(file("go-engineer.md"), "utf8").includes("Why: said so."), "the Save-button edit on disk");
  await page.getByTestId("toast").filter({ hasText: "Saved" }).first().waitFor();
  assert.deepEqual(found, []);
});

test("below 1,200 px the chat is a modal drawer: backdrop, focus inside and back, Escape and a click outside close it; at 1,440 px a side pane", async () => {
  const found = [];
  for (const scheme of ["light", "dark"]) {
    await windowOf(1000, scheme);
    const toggle = page.getByTestId("chat-toggle");
    await activate(toggle);
    const drawer = page.getByTestId("chat-pane");
    await drawer.waitFor();
    assert.equal(await drawer.getAttribute("role"), "dialog");
    assert.equal(await drawer.getAttribute("aria-modal"), "true");
    assert.ok(await page.getByTestId("chat-backdrop").isVisible(), "a backdrop under the drawer");
    assert.equal((await focused()).testid, "chat-input", "the message box has the focus");
    // Tab and Shift+Tab never leave it.
    for (let i = 0; i < 16; i++) {
      await page.keyboard.press(i % 5 === 4 ? "Shift+Tab" : "Tab");
      assert.ok(await drawer.evaluate((d) => d.contains(document.activeElement)), `focus left the drawer at step ${i}: ${(await focused()).what}`);
    }
    await page.waitForTimeout(150);
    await shot(`drawer-1000-${scheme}`);
    found.push(...(await axe(`chat drawer (${scheme})`)));
    await page.keyboard.press("Escape");
    await drawer.waitFor({ state: "detached" });
    assert.equal((await focused()).testid, "chat-toggle", "the focus is back on the opener");
  }
  // A click outside (on the backdrop, over the list) closes it too.
  await windowOf(1000, "light");
  await activate(page.getByTestId("chat-toggle"));
  await page.getByTestId("chat-pane").waitFor();
  await page.mouse.click(120, 400);
  await page.getByTestId("chat-pane").waitFor({ state: "detached" });
  // Wide: the side pane as before, beside the app, not modal.
  await windowOf(1440, "light");
  const pane = page.getByTestId("chat-pane");
  await pane.waitFor();
  assert.equal(await pane.getAttribute("role"), null);
  assert.equal(await page.getByTestId("chat-backdrop").count(), 0);
  await shot("chat-side-pane-1440-light");
  found.push(...(await axe("chat side pane (light)")));
  assert.deepEqual(found, []);
});

test("Settings has a home: the sidebar's button and Ctrl+, at both widths, light and dark; typed values are never dropped unasked; inside Settings nothing sends you to Settings", async () => {
  const settings = join(fixture.home, "settings.toml");
  const before = existsSync(settings) ? readFileSync(settings) : null;
  const found = [];
  const dialog = page.getByTestId("model-settings");
  for (const width of [1440, 1000]) {
    for (const scheme of ["light", "dark"]) {
      await windowOf(width, scheme);
      // Chat shown or not (at 1,000 px it is closed): the button is in the sidebar's footer.
      const button = page.getByTestId("settings-button");
      assert.ok(await button.isVisible(), `the Settings button is visible at ${width} px`);
      await activate(button);
      await dialog.waitFor();
      await page.waitForTimeout(150);
      await shot(`settings-${width}-${scheme}`);
      found.push(...(await axe(`settings ${width} (${scheme})`)));
      // Nothing typed: Escape closes at once, the focus goes back to the button.
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      assert.equal((await focused()).testid, "settings-button");
    }
  }
  await windowOf(1000, "light");
  // Ctrl+, opens it; a typed value, then Escape: asked first, Keep editing has the focus.
  await page.keyboard.press("Control+Comma");
  await dialog.waitFor();
  await page.getByTestId("model-base-url").focus();
  await page.keyboard.type("http://127.0.0.1:9/v1");
  await page.keyboard.press("Escape");
  const ask = page.getByRole("dialog", { name: "Discard your changes?" });
  await ask.waitFor();
  assert.equal((await focused()).text, "Keep editing");
  for (const scheme of ["light", "dark"]) {
    await windowOf(1000, scheme);
    await shot(`settings-discard-1000-${scheme}`);
    found.push(...(await axe(`settings: discard? (${scheme})`)));
  }
  await windowOf(1000, "light");
  await page.keyboard.press("Enter");
  await ask.waitFor({ state: "detached" });
  assert.equal(await page.getByTestId("model-base-url").inputValue(), "http://127.0.0.1:9/v1", "kept editing");
  // A click outside asks as well; Discard (Tab, Enter) closes without saving.
  await page.mouse.click(5, 5);
  await ask.waitFor();
  await page.keyboard.press("Tab");
  assert.equal((await focused()).text, "Discard");
  await page.keyboard.press("Enter");
  await dialog.waitFor({ state: "detached" });
  assert.deepEqual(existsSync(settings) ? readFileSync(settings) : null, before, "nothing saved");

  // Test connection with no model: the sentence points at the fields above, never at "Settings".
  await activate(page.getByTestId("settings-button"));
  await dialog.waitFor();
  await activate(page.getByTestId("model-test"));
  const result = page.getByTestId("model-test-result");
  await waitFor(async () => (await result.getAttribute("data-state").catch(() => null)) === "failed", "the failed test", 20000);
  const said = await result.innerText();
  assert.doesNotMatch(said, /Settings/, said);
  assert.match(said, /above/, said);
  assert.equal(await dialog.getByTestId("error-settings").count(), 0, "no Open settings inside Settings");
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  assert.deepEqual(found, []);
});

test("one state: Keep editing leaves the open memory selected; a cancelled new memory leaves none; the workspace survives a reload (or falls back); the inbox count is one number", async () => {
  const found = [];
  for (const width of [1440, 1000]) {
    await windowOf(width, "light");
    await chooseWorkspace("personal");
    await openByKeyboard("response-style.md");
    await page.getByTestId("detail-name").focus();
    await page.keyboard.press("End");
    await page.keyboard.type(" (edited)");
    // Another memory, by keyboard: asked first; Keep editing (the focused one) keeps it.
    const list = page.getByTestId("memory-list");
    await list.focus();
    await page.keyboard.press("Home");
    await page.keyboard.press("Enter");
    const ask = page.getByRole("dialog", { name: "Discard your changes?" });
    await ask.waitFor();
    assert.equal((await focused()).text, "Keep editing");
    await page.keyboard.press("Enter");
    await ask.waitFor({ state: "detached" });
    assert.deepEqual(await selectedRows(), ["response-style.md"], "the open memory is the one selected");
    assert.match(await page.getByTestId("detail-name").inputValue(), /\(edited\)$/);
    for (const scheme of ["light", "dark"]) {
      await windowOf(width, scheme);
      await shot(`keep-editing-${width}-${scheme}`);
      found.push(...(await axe(`kept editing ${width} (${scheme})`)));
    }
    await windowOf(width, "light");
    // New memory: asked, Discard; nothing selected; cancelled: still nothing selected.
    await activate(page.getByTestId("new-memory-button"));
    await ask.waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await ask.waitFor({ state: "detached" });
    assert.deepEqual(await selectedRows(), []);
    await activate(page.getByRole("button", { name: "Cancel", exact: true }));
    await waitFor(async () => (await page.getByTestId("detail-name").count()) === 0, "the new memory closed");
    assert.deepEqual(await selectedRows(), [], "no row stays highlighted once nothing is open");
    assert.equal(readFileSync(file("response-style.md"), "utf8").includes("(edited)"), false, "discarded, never saved");
  }

  // A reload keeps the workspace; one gone since falls back to all of them, without an error.
  await page.reload();
  await page.locator('[data-testid="memory-row"]').first().waitFor({ timeout: 20000 });
  assert.equal(await page.locator('[data-testid="workspace-item"][data-id="personal"]').getAttribute("aria-current"), "true");
  await page.evaluate(() => localStorage.setItem("mnemo.workspace", "a-folder-removed-since"));
  await page.reload();
  await page.locator('[data-testid="memory-row"]').first().waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId("workspace-all").getAttribute("aria-current"), "true");
  assert.equal(await page.getByTestId("inline-error").count(), 0);

  // The inbox count: the sidebar, the Inbox button and the inbox itself say one number.
  let id = null;
  try {
    assert.equal((await api("set_review_mode", { workspace: "personal", on: true })).on, true);
    const said = cli("--workspace", "personal", "dream", "--mechanical");
    id = Number(said.match(/proposal (\d+)/)?.[1]);
    assert.ok(id > 0, `the dream made a proposal: ${said}`);
    await page.reload();
    await chooseWorkspace("personal");
    const badge = page.getByTestId("inbox-badge");
    await badge.waitFor({ timeout: 20000 });
    const n = Number((await badge.innerText()).match(/^Inbox: (\d+) to review$/)?.[1]);
    assert.ok(n >= 1, await badge.innerText());
    assert.equal(await page.getByTestId("inbox-button").innerText(), `Inbox ${n}`);
    for (const width of [1440, 1000]) {
      await windowOf(width, "light");
      await activate(badge);
      await page.getByTestId("inbox-panel").waitFor();
      await waitFor(async () => (await page.getByTestId("inbox-filter-pending").innerText().catch(() => "")) === `Waiting (${n})`, `Waiting (${n})`);
      assert.match(await page.getByTestId("inbox-count").innerText(), new RegExp(`^${n === 1 ? "1 proposal waits" : `${n} proposals wait`} for your review\\.$`));
      for (const scheme of ["light", "dark"]) {
        await windowOf(width, scheme);
        await shot(`inbox-count-${width}-${scheme}`);
        found.push(...(await axe(`inbox ${width} (${scheme})`)));
      }
      await toMemories();
      // The memories view's Inbox button: its name holds what it shows (axe's
      // label-content-name-mismatch is experimental, off by default: asked for here, any impact).
      found.push(...(await axe(`memories with a waiting inbox ${width}`)));
      const named = await new AxeBuilder({ page }).withRules(["label-content-name-mismatch"]).analyze();
      found.push(...named.violations.map((x) => `memories ${width}: ${x.id} — ${x.nodes.map((n) => n.target.join(" ")).join(" | ")}`));
    }
  } finally {
    await windowOf(1440, "light");
    await api("set_review_mode", { workspace: "personal", on: false });
    if (id) await api("inbox_reject", { id, dontLearn: false });
  }
  // Nothing waits any more: one sentence says so, not two.
  await page.reload();
  await chooseWorkspace("personal");
  await activate(page.getByTestId("inbox-button"));
  await page.getByTestId("inbox-empty").waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId("inbox-empty").innerText(), "Nothing waits for your review.");
  assert.equal(await page.getByTestId("inbox-count").count(), 0);
  // The dream's task, its proposal decided: it says what became of it, not "Review it in the Inbox".
  await toMemories();
  await activate(page.getByTestId("tasks-button"));
  const decided = page.locator('[data-testid="task-row"]').filter({ has: page.getByTestId("task-proposal-fate") }).first();
  await decided.waitFor({ timeout: 20000 });
  assert.equal(await decided.getByTestId("task-proposal-fate").innerText(), "You rejected it in the Inbox: nothing was saved.");
  assert.equal(await decided.getByTestId("task-proposal").innerText(), "See it in the Inbox");
  assert.equal(await page.getByText("Review it in the Inbox").count(), 0);
  await shot("task-proposal-decided-1440-light");
  await page.keyboard.press("Escape");
  assert.deepEqual(found, []);
});

test("the keyboard: the safe choice has the focus, lists and toolbars are one Tab stop, the focus lands somewhere after Undo, Redo and the dream report", async () => {
  const found = [];
  for (const width of [1440, 1000]) {
    await windowOf(width, "light");
    await chooseWorkspace("personal");
    await openByKeyboard("freeze.md");
    // With a workspace's tools shown too: Description within 11 Tabs of the search box.
    await page.getByTestId("search-input").focus();
    const toDescription = await pressUntil((f) => f.testid === "detail-description");
    assert.ok(toDescription.presses <= 11, `${toDescription.presses} Tabs at ${width} px: ${toDescription.trail.join(" → ")}`);

    // Delete asks with Cancel focused: Enter by reflex deletes nothing.
    await activate(page.getByTestId("delete-button"));
    await page.getByTestId("confirm-delete").waitFor();
    assert.equal((await focused()).text, "Cancel");
    await page.keyboard.press("Enter");
    await page.getByTestId("confirm-delete").waitFor({ state: "detached" });
    assert.ok(existsSync(file("freeze.md")), "Enter on the default kept the memory");
    // Deleted (Tab to Delete, Enter), then Undo from the toast: the memory's heading has the focus.
    await activate(page.getByTestId("delete-button"));
    await page.keyboard.press("Tab");
    assert.equal((await focused()).testid, "confirm-delete");
    await page.keyboard.press("Enter");
    await waitFor(() => !existsSync(file("freeze.md")), "freeze.md deleted");
    const toast = page.getByTestId("toast").filter({ hasText: "Deleted “发布冻结”" }).last();
    await toast.waitFor();
    await waitFor(async () => (await focused()).testid === "memory-list", "after Delete the list has the focus, not the page");
    await activate(toast.getByRole("button", { name: "Undo" }));
    await waitFor(() => existsSync(file("freeze.md")), "freeze.md back");
    await waitFor(async () => (await focused()).testid === "detail-heading", "the focus on the memory brought back");
    assert.equal((await focused()).text, "发布冻结");
  }

  // History: one Tab stop, ↑/↓ inside; Undo gives the focus to Redo, Redo to Undo; a redo reads as one.
  for (const width of [1440, 1000]) {
    await windowOf(width, "light");
    await activate(page.getByTestId("history-view"));
    const list = page.getByRole("listbox", { name: "Changes" });
    await list.waitFor();
    const rows = list.getByRole("option");
    await waitFor(async () => (await rows.count()) >= 3, "changes listed");
    assert.equal(await list.locator('[role="option"][tabindex="0"]').count(), 1, "one Tab stop in the history list");
    await list.locator('[role="option"][tabindex="0"]').focus();
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowDown");
    const second = await rows.nth(1).evaluate((el) => el === document.activeElement && el.getAttribute("aria-selected") === "true");
    assert.ok(second, "↓ moves the focus and shows that change");
    // Tab leaves the list at once (no stop on every row).
    await page.keyboard.press("Tab");
    assert.ok(!(await list.evaluate((l) => l.contains(document.activeElement))), "Tab leaves the list");
    for (const scheme of ["light", "dark"]) {
      await windowOf(width, scheme);
      await shot(`history-${width}-${scheme}`);
      found.push(...(await axe(`history ${width} (${scheme})`)));
    }
  }
  await windowOf(1440, "light");
  // The newest single change: undone, then redone, by keyboard.
  const single = page.locator('[data-testid="history-item"]').filter({ hasText: "Go engineer" }).filter({ hasNotText: /undoes|redo of|undone/ }).first();
  const changeId = Number(await single.getAttribute("data-id"));
  await activate(single);
  await activate(page.getByTestId("undo-button"));
  await waitFor(async () => (await focused()).testid === "redo-button", "the focus on Redo after Undo");
  const undone = page.locator(`[data-testid="history-item"][data-id="${changeId}"] [data-testid="undone-tag"]`);
  await undone.waitFor();
  assert.match(await undone.innerText(), /^· undone by change #\d+$/);
  await page.keyboard.press("Enter");
  await waitFor(async () => (await focused()).testid === "undo-button", "the focus on Undo after Redo");
  const notes = (await page.getByTestId("undo-note").allInnerTexts()).map((n) => n.trim());
  assert.ok(notes.some((n) => n === `(redo of #${changeId})`), `a redo row says so: ${notes.join(" | ")}`);
  assert.ok(notes.some((n) => n === `(undoes #${changeId})`), `the undo row too: ${notes.join(" | ")}`);
  await shot("history-redo-1440-light");

  // The dream report: closed by Escape, the focus goes back to the Dream button.
  await toMemories();
  await activate(page.getByTestId("dream-button"));
  const dream = page.getByTestId("dream-dialog");
  await dream.waitFor();
  await waitFor(async () => !/Dreaming|Waiting/.test(await page.getByTestId("dream-outcome").innerText().catch(() => "Dreaming")), "the dream's end", 30000);
  found.push(...(await axe("dream report")));
  await page.keyboard.press("Escape");
  await dream.waitFor({ state: "detached" });
  assert.equal((await focused()).testid, "dream-button", "focus back on the Dream button, not the page");
  assert.deepEqual(found, []);
});

test("small things: switches keep their size, search titles are whole beside the chat, a placeholder reads as a hint, a name clash shows under Name", async () => {
  const found = [];
  for (const width of [1440, 1000]) {
    for (const scheme of ["light", "dark"]) {
      await windowOf(width, scheme);
      await activate(page.getByTestId("status-view"));
      await page.getByTestId("status-auto").waitFor({ timeout: 20000 });
      const sizes = await page.locator(".status-switch input").evaluateAll((xs) => xs.map((x) => Math.round(x.getBoundingClientRect().width)));
      assert.ok(sizes.length >= 3 && sizes.every((w) => w >= 12), `switch widths at ${width} px: ${sizes.join(", ")}`);
      await shot(`status-switches-${width}-${scheme}`);
      found.push(...(await axe(`status ${width} (${scheme})`)));
    }
  }
  // Beside the 400 px chat at 1,440 px, a result's title is whole (it may take two lines).
  await windowOf(1440, "light");
  await toMemories();
  if ((await page.getByTestId("chat-pane").count()) === 0) await activate(page.getByTestId("chat-toggle"));
  await page.getByTestId("chat-pane").waitFor();
  await page.keyboard.press("Control+k");
  await page.keyboard.type("real database tests");
  const row = page.locator('[data-testid="memory-row"][data-path="tests-real-db.md"]');
  await row.waitFor({ timeout: 20000 });
  const whole = await row.locator(".row-name").evaluate((el) => ({
    text: el.textContent,
    sizes: [el.scrollWidth, el.clientWidth, el.scrollHeight, el.clientHeight],
    cut: el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1,
  }));
  assert.equal(whole.text, "Real database in tests");
  assert.equal(whole.cut, false, `the title is not cut: ${JSON.stringify(whole.sizes)}`);
  for (const scheme of ["light", "dark"]) {
    await windowOf(1440, scheme);
    await shot(`search-beside-chat-1440-${scheme}`);
    found.push(...(await axe(`search beside the chat (${scheme})`)));
  }
  await windowOf(1440, "light");
  await page.keyboard.press("Escape");

  // A new memory: the Name placeholder is a hint in italics; a clashing name is said under Name.
  for (const width of [1440, 1000]) {
    await windowOf(width, "light");
    await chooseWorkspace("personal");
    await activate(page.getByTestId("new-memory-button"));
    const name = page.getByTestId("detail-name");
    await name.waitFor();
    assert.equal(await name.getAttribute("placeholder"), "e.g. Response style");
    assert.equal(await name.evaluate((el) => getComputedStyle(el, "::placeholder").fontStyle), "italic");
    await name.focus();
    await page.keyboard.type("Response style");
    await page.getByTestId("detail-description").focus();
    await page.keyboard.type("How long answers should be");
    await page.keyboard.press("Control+s");
    const error = page.getByTestId("inline-error");
    await error.waitFor({ timeout: 20000 });
    assert.match(await error.innerText(), /^This workspace already has a memory of that name \(response-style\.md\): choose another name/);
    const [nameBox, errorBox, descBox] = await Promise.all([name.boundingBox(), error.boundingBox(), page.getByTestId("detail-description").boundingBox()]);
    assert.ok(nameBox.y < errorBox.y && errorBox.y < descBox.y, `under Name, above Description: ${JSON.stringify([nameBox, errorBox, descBox])}`);
    for (const scheme of ["light", "dark"]) {
      await windowOf(width, scheme);
      await shot(`name-clash-${width}-${scheme}`);
      found.push(...(await axe(`name clash ${width} (${scheme})`)));
    }
    await windowOf(width, "light");
    // Cancel on a new memory with typed words asks first; discarding drops it:
    // nothing is written, nothing stays selected.
    await activate(page.getByRole("button", { name: "Cancel", exact: true }));
    await activate(page.getByTestId("discard-confirm"));
    await waitFor(async () => (await page.getByTestId("detail-name").count()) === 0, "the new memory dropped");
    assert.deepEqual(await selectedRows(), []);
  }
  await windowOf(1440, "light");
  assert.deepEqual(found, []);
});
