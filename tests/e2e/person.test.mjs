// Issue 20, the app as a person meets it, in Debian's Chromium against `mnemo serve`: the layout
// at 1,440 and 1,000 px in light and dark (the detail pane keeps ≥ 420 px with the chat open),
// "Test connection" that saves nothing, dialogs by keyboard only (Escape anywhere, Tab kept
// inside, focus back where it was), an undone dream that offers Redo and no link to a file that
// is gone, and an axe-core pass with no serious violations. Screenshots of every view land in
// tests/e2e/artifacts/ (view-<view>-<width>-<scheme>.png); sync (issue 22) as the Status view and
// the settings show it — synced with a bare repository that a second home (the CLI) edited too, so
// a conflict waits — in view-status-sync-* and settings-sync-*.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { makeHome, startServer, topic, artifacts, waitFor, launchChromium, targetDir } from "./fixture.mjs";

const TESTING = topic("Testing habits", "How the user wants tests written", "feedback", "Integration tests hit a real database.\nWhy: mocks hid a broken migration.");
// Its first entry repeats testing.md's, its second is its own: the dream rewrites this file.
const DUPLICATE = topic(
  "Real database in tests",
  "Tests use a real database",
  "feedback",
  "Integration tests hit a real database.\nWhy: mocks hid a broken migration.\n\nSeed the database from fixtures.\nWhy: tests must not share state.",
);

let fixture, server, browser, page;
const file = (name) => join(fixture.personal, name);

/** POST /api/<command> from the page (its session cookie authenticates). */
const api = (command, args = {}) =>
  page.evaluate(
    async ([c, a]) => {
      const r = await fetch(`/api/${c}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(a) });
      return r.json();
    },
    [command, args],
  );

async function view(name) {
  const button = name === "memories" ? page.getByRole("button", { name: "Memories", exact: true }) : page.getByTestId(`${name}-view`);
  await button.click();
}

async function openMemory(path) {
  await view("memories");
  await page.locator(`[data-testid="memory-row"][data-path="${path}"]`).click();
  await page.getByTestId("detail-name").waitFor();
}

before(async () => {
  fixture = makeHome();
  writeFileSync(file("testing.md"), TESTING);
  writeFileSync(file("tests-real-db.md"), DUPLICATE);
  server = await startServer(fixture);
  browser = await launchChromium();
  // A context of its own: axe-core's Playwright bridge needs one.
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(server.url);
  await page.locator('[data-testid="memory-row"][data-path="testing.md"]').waitFor({ timeout: 30000 });
  await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
});

after(async () => {
  await browser?.close();
  server?.child.kill();
});

test("at 1,000 px the detail pane keeps room with the chat open; every view is shot at two widths, light and dark", async () => {
  await openMemory("response-style.md");
  if ((await page.getByTestId("chat-input").count()) === 0) await page.getByTestId("chat-toggle").click();
  await page.getByTestId("chat-input").waitFor();
  for (const width of [1440, 1000]) {
    await page.setViewportSize({ width, height: width === 1000 ? 700 : 900 });
    await openMemory("response-style.md");
    const detail = await page.locator(".detail-pane").boundingBox();
    assert.ok(detail.width >= 420, `detail pane is ${detail.width} px wide at ${width} px`);
    const name = await page.getByTestId("detail-name").boundingBox();
    assert.ok(name.width >= 200, `the Name field is ${name.width} px wide at ${width} px`);
    // The search box shows its whole placeholder.
    const fits = await page.getByTestId("search-input").evaluate((el) => {
      const probe = document.createElement("span");
      const cs = getComputedStyle(el);
      probe.style.font = cs.font;
      probe.style.position = "absolute";
      probe.style.visibility = "hidden";
      probe.textContent = el.placeholder;
      document.body.append(probe);
      const need = probe.getBoundingClientRect().width + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight);
      probe.remove();
      return need <= el.clientWidth + 1;
    });
    assert.ok(fits, `the search placeholder fits at ${width} px`);
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const v of ["memories", "history", "status"]) {
        await view(v);
        if (v === "memories") await openMemory("response-style.md");
        await page.waitForTimeout(150);
        await page.screenshot({ path: join(artifacts, `view-${v}-${width}-${scheme}.png`) });
      }
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
});

test("Test connection tries the typed values and saves nothing; Escape closes the dialog and focus comes back", async () => {
  const settings = join(fixture.home, "settings.toml");
  const before = existsSync(settings) ? readFileSync(settings) : null;
  const opener = page.getByTestId("chat-settings-button");
  await opener.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByTestId("model-settings");
  await dialog.waitFor();
  await page.getByTestId("model-base-url").fill("http://127.0.0.1:9/v1");
  await page.getByTestId("model-name").fill("a-mistyped-model");
  await page.getByTestId("model-test").click();
  const result = page.getByTestId("model-test-result");
  await waitFor(async () => (await result.getAttribute("data-state")) === "failed", "the failed test", 20000);
  const said = await result.innerText();
  assert.match(said, /can't reach the model server/i, said);
  assert.doesNotMatch(said, /model_unreachable|model_not_configured|`/, said);
  const after = existsSync(settings) ? readFileSync(settings) : null;
  assert.deepEqual(after, before, "settings.toml unchanged by Test");
  assert.equal(await page.getByTestId("model-save").isDisabled(), false, "Save is still there to save it");
  // Keyboard only: Tab and Shift+Tab never leave the dialog.
  for (let i = 0; i < 25; i++) {
    await page.keyboard.press(i % 5 === 4 ? "Shift+Tab" : "Tab");
    assert.ok(await dialog.evaluate((d) => d.contains(document.activeElement)), `focus left the dialog at step ${i}`);
  }
  await page.screenshot({ path: join(artifacts, "settings-test-unsaved.png") });
  // Escape from wherever focus is closes it, and focus goes back to the button that opened it.
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  assert.equal(await opener.evaluate((b) => b === document.activeElement), true, "focus restored to the opener");
});

test("an undone dream reads as undone: Redo offered, no link to a file that is gone", async () => {
  const t = await api("dream", { workspace: "personal", mechanical: true });
  const id = t.id;
  await waitFor(async () => {
    const now = await api("task", { id });
    return now.status === "completed" ? now : null;
  }, "the dream", 30000);
  const done = await api("task", { id });
  const group = done.result.group;
  assert.ok(group, "the dream changed files");
  await view("history");
  // Rows lead with the memories' names, not with change numbers and files.
  const groupRow = page.locator(`[data-testid="history-group"][data-group="${group}"]`);
  await waitFor(async () => /Real database in tests/.test((await groupRow.locator(".history-name").innerText().catch(() => "")) ?? ""), "the group row named by its memory");
  await groupRow.click();
  const detail = page.getByTestId("group-detail");
  await detail.waitFor();
  await waitFor(async () => (await detail.getByRole("button", { name: "Open memory" }).count()) > 0, "links while the dream is in effect");
  await detail.getByTestId("undo-group-button").click();
  await page.getByTestId("redo-group-button").waitFor();
  assert.match(await page.getByTestId("group-undone").innerText(), /undone by #\d+/);
  assert.equal(await detail.getByRole("button", { name: "Open memory" }).count(), 0, "no link to a file the undo removed");
  assert.equal(await page.getByTestId("undo-group-button").count(), 0);
  assert.equal((await api("task", { id })).result.undone_by !== null, true, "the task says so too");
  await page.screenshot({ path: join(artifacts, "history-dream-undone.png") });
  // Redo puts it back.
  await page.getByTestId("redo-group-button").click();
  await waitFor(async () => (await page.getByTestId("undo-group-button").count()) === 1, "Undo offered again");
  assert.doesNotMatch(readFileSync(file("tests-real-db.md"), "utf8"), /hit a real database/, "the dream's merge is back in effect");
  await waitFor(async () => (await detail.getByRole("button", { name: "Open memory" }).count()) > 0, "links again once redone");
});

test("a memory another program writes is marked New, by whom, until opened; pinned memories show a pin", async () => {
  await view("memories");
  writeFileSync(file("from-editor.md"), topic("Written elsewhere", "A note an editor saved", "project", "Ship on Tuesdays."));
  const row = page.locator('[data-testid="memory-row"][data-path="from-editor.md"]');
  await row.waitFor({ timeout: 20000 });
  const mark = row.getByTestId("unseen-mark");
  await mark.waitFor();
  assert.equal(await mark.innerText(), "New");
  assert.equal(await mark.getAttribute("aria-label"), "New, by Outside editor");
  await page.screenshot({ path: join(artifacts, "list-new-mark.png") });
  await row.click();
  await page.getByTestId("detail-name").waitFor();
  await waitFor(async () => (await row.getByTestId("unseen-mark").count()) === 0, "the mark gone once opened");
  // Pinned from the detail pane: the list shows the pin.
  await api("set_pinned", { workspace: "personal", path: "from-editor.md", pinned: true });
  await waitFor(async () => (await row.getByTestId("pin-mark").count()) === 1, "the pin in the list");
  // Our own change is not pointed out to us.
  assert.equal(await row.getByTestId("unseen-mark").count(), 0);
});

test("axe-core finds no serious or critical accessibility violation in any view, light or dark", async () => {
  const found = [];
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const v of ["memories", "history", "status"]) {
      await view(v);
      if (v === "memories") await openMemory("response-style.md");
      await page.waitForTimeout(150);
      const r = await new AxeBuilder({ page }).analyze();
      for (const x of r.violations.filter((x) => x.impact === "serious" || x.impact === "critical")) {
        found.push(`${v} (${scheme}): ${x.id} (${x.impact}) — ${x.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
      }
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  assert.deepEqual(found, []);
});

test("a new person is welcomed: what Mnemo is, the four types, a model to connect, the folders found", async () => {
  await page.evaluate(() => localStorage.removeItem("mnemo.welcomed"));
  await page.reload();
  const welcome = page.getByTestId("welcome");
  await welcome.waitFor({ timeout: 20000 });
  const text = await welcome.innerText();
  for (const t of ["User", "Feedback", "Project", "Reference", "Connect a model"]) assert.ok(text.includes(t), `${t} in: ${text}`);
  // The fixture home has a Claude Code project and a Qwen Code one.
  assert.match(await page.getByTestId("welcome-found").innerText(), /Claude Code · .*Qwen Code · /s);
  const found = [];
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1440, 1000]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(artifacts, `view-welcome-${width}-${scheme}.png`) });
    }
    const r = await new AxeBuilder({ page }).analyze();
    for (const x of r.violations.filter((x) => x.impact === "serious" || x.impact === "critical")) {
      found.push(`welcome (${scheme}): ${x.id} — ${x.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
  assert.deepEqual(found, []);
  // Keyboard: Get started is reachable and closes it; it stays closed after a reload.
  await page.getByTestId("welcome-start").focus();
  await page.keyboard.press("Enter");
  await welcome.waitFor({ state: "detached" });
  await page.reload();
  await page.locator('[data-testid="memory-row"]').first().waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId("welcome").count(), 0);
});

test("every dialog works by keyboard alone: opened with Enter, Tab kept inside, Escape closes, focus comes back", async () => {
  await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
  await openMemory("response-style.md");
  const dialogs = [
    { name: "Forget…", opener: page.getByTestId("forget-button"), dialog: page.getByTestId("forget-dialog") },
    { name: "Delete (confirm)", opener: page.getByTestId("delete-button"), dialog: page.getByRole("dialog") },
    { name: "Dream report", opener: page.getByTestId("dream-button"), dialog: page.getByTestId("dream-dialog") },
    { name: "Model settings", opener: page.getByTestId("chat-settings-button"), dialog: page.getByTestId("model-settings") },
  ];
  for (const d of dialogs) {
    await d.opener.focus();
    await page.keyboard.press("Enter");
    await d.dialog.first().waitFor({ timeout: 20000 });
    const dialog = d.dialog.first();
    if (d.name === "Dream report") {
      // Closed while it runs, the report would open again when the dream ends: let it end first.
      await waitFor(
        async () => !/Dreaming|Waiting/.test(await page.getByTestId("dream-outcome").innerText().catch(() => "Dreaming")),
        "the dream's end",
        30000,
      );
    }
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press(i % 4 === 3 ? "Shift+Tab" : "Tab");
      assert.ok(await dialog.evaluate((el) => el.contains(document.activeElement)), `${d.name}: focus left the dialog at step ${i}`);
    }
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    assert.ok(await d.opener.evaluate((b) => b === document.activeElement), `${d.name}: focus back on its opener`);
  }
  // Escape on the delete confirmation deleted nothing.
  assert.ok(existsSync(file("response-style.md")));
});

/** `mnemo` at the command line on another home (a second machine), its stdout. */
function otherMachine(home, ...args) {
  const bin = process.env.MNEMO_BIN || join(targetDir, "debug/mnemo");
  const empty = join(fixture.dir, "other-tools");
  mkdirSync(empty, { recursive: true });
  const env = { ...fixture.env, MNEMO_HOME: home, MNEMO_CLAUDE_DIR: empty, MNEMO_QWEN_DIR: empty, MNEMO_EMBED_MODEL: "off" };
  return execFileSync(bin, ["--home", home, ...args], { env, encoding: "utf8" });
}

test("sync in the Status view and in the settings: a conflict between two machines, shot at two widths, light and dark; axe-core finds nothing serious", async () => {
  // A remote of the fixture's own: a bare repository next to the home.
  const remote = join(fixture.dir, "remote.git");
  execFileSync("git", ["init", "--bare", "--quiet", remote]);
  const saved = await api("set_sync_settings", { settings: { remote, author: "Ana <ana@example.org>", auto: false, claude: true, qwen: true } });
  assert.equal(saved.remote, remote, JSON.stringify(saved));
  let chatWasOpen = false;
  try {
    await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
    await view("status");
    const section = page.getByTestId("sync-status");
    await section.waitFor();
    await page.getByTestId("sync-now").click();
    const outcome = page.getByTestId("sync-outcome");
    await outcome.waitFor({ timeout: 30000 });
    assert.match(await outcome.innerText(), /changed here/);
    await waitFor(async () => /^Synced just now\.$/.test(await page.getByTestId("sync-sentence").innerText()), "the synced sentence");
    assert.equal(await section.getByTestId("inline-error").count(), 0, "no error after a sync with a reachable remote");

    // A second machine takes the memory, edits an entry and sends it; this one edits the same entry.
    const other = join(fixture.dir, "other-home");
    otherMachine(other, "sync", "remote", "set", remote);
    otherMachine(other, "sync", "author", "Bo <bo@example.org>");
    otherMachine(other, "sync");
    const theirs = join(other, "workspaces/personal/memory/response-style.md");
    writeFileSync(theirs, readFileSync(theirs, "utf8").replace("Keep replies short.", "Keep replies very short."));
    otherMachine(other, "sync");
    writeFileSync(file("response-style.md"), readFileSync(file("response-style.md"), "utf8").replace("Keep replies short.", "Keep replies under five lines."));
    await waitFor(async () => (await api("sync_status")).workspaces.find((w) => w.workspace === "personal")?.pending >= 1, "the edit waiting to be sent");
    await page.getByTestId("sync-now").click();
    const conflict = page.getByTestId("sync-conflict");
    await conflict.waitFor({ timeout: 30000 });
    assert.match(await conflict.innerText(), /Response style: the same entry was edited on two machines; both versions are kept until you choose\./);
    assert.deepEqual(await conflict.getByTestId("sync-keep").allInnerTexts(), ["Keep Ana's version", "Keep Bo's version"]);
    assert.match(await page.getByTestId("sync-sentence").innerText(), /^1 conflict waits for your choice\.$/);
    const badge = page.locator('[data-testid="workspace-item"][data-id="personal"] [data-testid="sync-badge"]');
    await badge.waitFor();
    assert.equal(await badge.getAttribute("title"), "1 conflict waits for your choice. Open Status to choose.");

    // At 1,000 px the chat is a drawer over the Status view: hidden while the sync is shot.
    chatWasOpen = (await page.getByTestId("chat-input").count()) > 0;
    if (chatWasOpen) await page.getByTestId("chat-toggle").click();
    const found = [];
    const check = async (what, scheme) => {
      const r = await new AxeBuilder({ page }).analyze();
      for (const x of r.violations.filter((x) => x.impact === "serious" || x.impact === "critical")) {
        found.push(`${what} (${scheme}): ${x.id} (${x.impact}) — ${x.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
      }
    };
    for (const width of [1440, 1000]) {
      await page.setViewportSize({ width, height: width === 1000 ? 700 : 900 });
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        await section.scrollIntoViewIfNeeded();
        await page.waitForTimeout(150);
        await page.screenshot({ path: join(artifacts, `view-status-sync-${width}-${scheme}.png`) });
        if (width === 1440) await check("status: sync", scheme);
        // The settings open at their Sync section.
        await page.getByTestId("sync-open-settings").focus();
        await page.keyboard.press("Enter");
        const dialog = page.getByTestId("model-settings");
        await page.getByTestId("sync-remote").waitFor();
        assert.equal(await page.getByTestId("sync-remote").inputValue(), remote);
        await waitFor(async () => page.getByTestId("sync-remote").evaluate((el) => el === document.activeElement), "the remote field focused");
        await page.waitForTimeout(150);
        await page.screenshot({ path: join(artifacts, `settings-sync-${width}-${scheme}.png`) });
        if (width === 1440) await check("settings: sync", scheme);
        await page.keyboard.press("Escape");
        await dialog.waitFor({ state: "detached" });
      }
    }
    assert.deepEqual(found, []);
    // Both versions stay; the conflict closes, here and (with the next sync) on the other machine.
    await page.getByTestId("sync-keep-all").click();
    await conflict.waitFor({ state: "detached" });
    await badge.waitFor({ state: "detached" });
    const both = readFileSync(file("response-style.md"), "utf8");
    assert.match(both, /under five lines/);
    assert.match(both, /very short/);
  } finally {
    if (chatWasOpen && (await page.getByTestId("chat-input").count()) === 0) await page.getByTestId("chat-toggle").click();
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1440, height: 900 });
    await api("set_sync_settings", { settings: { remote: null, author: null, auto: false, claude: true, qwen: true } });
  }
});
