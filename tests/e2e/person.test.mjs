// The app as a person meets it, in Debian's Chromium against `mnemo serve`: the layout
// at 1,440 and 1,000 px in light and dark (the detail pane keeps ≥ 420 px with the chat open),
// "Test connection" that saves nothing, dialogs by keyboard only (Escape anywhere, Tab kept
// inside, focus back where it was), an undone dream that offers Redo and no link to a file that
// is gone, and an axe-core pass with no serious violations. Screenshots of every view land in
// tests/e2e/artifacts/ (view-<view>-<width>-<scheme>.png); sync as the Status view and
// the settings show it — synced with a bare repository that a second home (the CLI) edited too, so
// a conflict waits — in view-status-sync-* and settings-sync-*. Curation: a fact
// replaced twice from the detail pane (the `Superseded:` lines on disk, the chain shot in
// view-facts-chain-*), then the memory archived and restored. Import: a mem0 export imported
// through Import… (its preview shot in view-import-preview-*), undone, then the workspace
// exported to a zip. Restore: a whole-home export (made by the CLI on another home) restored
// through Import… with the workspace this home lacks ticked (view-import-restore-*).
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

/**
 * The import dialog at 1,000 px, light and dark: Import inside the window, a shot of each
 * (`view-<shot>-1000-<scheme>.png`), no serious or critical axe finding; back to 1,440 px light.
 */
async function importDialogAt1000(dialog, shot) {
  await page.setViewportSize({ width: 1000, height: 700 });
  const box = await dialog.getByTestId("import-start").boundingBox();
  assert.ok(box && box.x + box.width <= 1000, `Import is inside the window at 1,000 px: ${JSON.stringify(box)}`);
  const found = [];
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(150);
    await page.screenshot({ path: join(artifacts, `view-${shot}-1000-${scheme}.png`) });
    const r = await new AxeBuilder({ page }).analyze();
    for (const x of r.violations.filter((x) => x.impact === "serious" || x.impact === "critical")) {
      found.push(`${shot} (${scheme}): ${x.id} (${x.impact}) — ${x.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
    }
  }
  assert.deepEqual(found, []);
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
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
  // Escape from wherever focus is asks first: typed values are not dropped unasked.
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press("Escape");
  const ask = page.getByRole("dialog", { name: "Discard your changes?" });
  await ask.waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Keep editing", "the safe choice has the focus");
  await page.keyboard.press("Enter");
  await ask.waitFor({ state: "detached" });
  assert.equal(await page.getByTestId("model-name").inputValue(), "a-mistyped-model", "kept editing: the typed values stay");
  // Asked again, Discard closes it, and focus goes back to the button that opened it.
  await page.keyboard.press("Escape");
  await ask.waitFor();
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Discard");
  await page.keyboard.press("Enter");
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
  // The group that undid it, named as a group in words: "#4" would read like a change.
  assert.match(await page.getByTestId("group-undone").innerText(), /undone by change group \d+/);
  // The focus moved to Redo, not to the page.
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "redo-group-button");
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
    { name: "Import…", opener: page.getByTestId("import-button"), dialog: page.getByTestId("import-dialog") },
    { name: "Export…", opener: page.getByTestId("export-button"), dialog: page.getByTestId("export-dialog") },
    { name: "Copy / Move…", opener: page.getByTestId("copy-button"), dialog: page.getByTestId("copy-dialog") },
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
    // Named by the memory's name (its frontmatter, read with the memory list), never its file
    // name made a title.
    await waitFor(async () => /Response style: the same entry was edited on two machines; both versions are kept until you choose\./.test(await conflict.innerText()), "the conflict named by its memory's name");
    assert.deepEqual(await conflict.getByTestId("sync-keep").allInnerTexts(), ["Keep Ana's version", "Keep Bo's version"]);
    assert.match(await page.getByTestId("sync-sentence").innerText(), /^1 conflict waits for your choice\.$/);
    const badge = page.locator('[data-testid="workspace-item"][data-id="personal"] [data-testid="sync-badge"]');
    await badge.waitFor();
    assert.equal(await badge.getAttribute("title"), "1 conflict waits for your choice. Open Status to choose.");
    // The inbox holds the conflict too: counted in its badge, listed above the proposals.
    const inboxBadge = page.getByTestId("inbox-badge");
    await waitFor(async () => (await inboxBadge.getAttribute("data-conflicts").catch(() => null)) === "1", "the conflict counted in the inbox badge");
    assert.equal(await inboxBadge.innerText(), "Inbox: 1 to review");
    await inboxBadge.click();
    const waiting = page.getByTestId("inbox-conflicts");
    await waiting.waitFor({ timeout: 20000 });
    assert.match(await waiting.innerText(), /Sync conflicts waiting for you/);
    // One count everywhere: the inbox says what the sidebar said — once its own list is read
    // (until then the filter says only "Waiting"; never another number).
    await waitFor(async () => {
      const said = await page.getByTestId("inbox-filter-pending").innerText();
      assert.ok(said === "Waiting" || said === "Waiting (1)", said);
      return said === "Waiting (1)";
    }, "the inbox's own count", 30000);
    assert.equal(await waiting.getByTestId("sync-conflict").count(), 1);
    await page.screenshot({ path: join(artifacts, "view-inbox-conflict-1440-light.png") });
    await view("status");
    await section.waitFor();

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

/** `mnemo` at the command line on the fixture's own home (the server keeps running), its stdout. */
function cli(...args) {
  const bin = process.env.MNEMO_BIN || join(targetDir, "debug/mnemo");
  return execFileSync(bin, args, { env: fixture.env, encoding: "utf8" });
}

test("review mode: offered once on a Claude Code folder; on for personal, a dream becomes a proposal; the inbox shot at two widths, light and dark, with axe; accepted, the file changes; the usage line", async () => {
  // Two memories sharing an entry (Chinese included): a mechanical dream, which needs no model, removes the copy.
  const SHARED = "只坐靠窗的座位。\nWhy: 喜欢看风景。";
  writeFileSync(file("travel.md"), topic("旅行偏好", "出行时的座位偏好", "user", `${SHARED}\n\nPrefers morning flights.\nWhy: sleeps early.`));
  writeFileSync(file("trips.md"), topic("Trips", "座位和行李的习惯", "user", `${SHARED}\n\nCarry-on only.\nWhy: no waiting at the belt.`));
  let chatWasOpen = false;
  try {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: "light" });
    // A Claude Code folder nobody decided for: the offer, once; "Not now" decides it.
    const claude = (await api("workspaces")).find((w) => w.kind === "claude");
    assert.ok(claude, "the fixture has a Claude Code workspace");
    await view("memories");
    await page.locator(`[data-testid="workspace-item"][data-id="${claude.id}"]`).click();
    const offer = page.getByTestId("review-offer");
    await offer.waitFor({ timeout: 20000 });
    assert.match(await offer.innerText(), /Review what assistants write here before it is saved\?/);
    await page.screenshot({ path: join(artifacts, "review-offer-1440-light.png") });
    await page.getByTestId("review-offer-later").click();
    await offer.waitFor({ state: "detached" });
    assert.deepEqual(await api("review_mode", { workspace: claude.id }), { on: false, decided: true, offer: false });

    // Review mode on for personal, through the Status view's switch.
    await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
    await view("status");
    await page.getByTestId("review-toggle").check();
    await waitFor(async () => (await api("review_mode", { workspace: "personal" })).on === true, "review mode on");
    await page.getByTestId("usage-section").waitFor();

    // The dream proposes instead of writing: nothing on disk changes.
    await waitFor(async () => (await api("list", { workspace: "personal", memoryType: null })).some((d) => d.path === "trips.md"), "the new memories indexed");
    const before = { travel: readFileSync(file("travel.md"), "utf8"), trips: readFileSync(file("trips.md"), "utf8") };
    const said = cli("--workspace", "personal", "dream", "--mechanical");
    const id = Number(said.match(/proposal (\d+)/)?.[1]);
    assert.ok(id > 0, `the dream made a proposal: ${said}`);
    assert.equal(readFileSync(file("travel.md"), "utf8"), before.travel);
    assert.equal(readFileSync(file("trips.md"), "utf8"), before.trips);
    const proposal = await api("proposal", { id });
    assert.equal(proposal.status, "pending");
    const changed = proposal.files[0];

    // The count shows on the next read (a fresh page here), in the sidebar and the workspace bar.
    await page.reload();
    await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
    const badge = page.getByTestId("inbox-badge");
    await badge.waitFor({ timeout: 20000 });
    assert.match(await badge.innerText(), /^Inbox: \d+ to review$/);
    await page.getByTestId("inbox-button").click();
    const card = page.locator(`[data-testid="proposal"][data-id="${id}"]`);
    await card.waitFor({ timeout: 20000 });
    assert.match(await card.getByTestId("proposal-origin").innerText(), /^Dream \(you started it\)$/);
    assert.doesNotMatch(await card.innerText(), /[{}]|dream-\d{8}/, "no raw JSON or task ids");
    await card.getByTestId("proposal-open").click();
    await card.getByTestId("proposal-entry").first().waitFor();
    assert.match(await card.innerText(), /只坐靠窗的座位/);

    // At 1,000 px the chat is a drawer over the view: hidden while the inbox is shot.
    chatWasOpen = (await page.getByTestId("chat-input").count()) > 0;
    if (chatWasOpen) await page.getByTestId("chat-toggle").click();
    const found = [];
    for (const width of [1440, 1000]) {
      await page.setViewportSize({ width, height: width === 1000 ? 700 : 900 });
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.waitForTimeout(150);
        await page.screenshot({ path: join(artifacts, `view-inbox-${width}-${scheme}.png`) });
        const r = await new AxeBuilder({ page }).analyze();
        for (const x of r.violations.filter((x) => x.impact === "serious" || x.impact === "critical")) {
          found.push(`inbox ${width} (${scheme}): ${x.id} (${x.impact}) — ${x.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
        }
      }
    }
    assert.deepEqual(found, []);
    // The decisions are reachable at 1,000 px.
    const acceptAll = card.getByTestId("proposal-accept-all");
    const box = await acceptAll.boundingBox();
    assert.ok(box && box.x + box.width <= 1000, `Accept all is inside the window at 1,000 px: ${JSON.stringify(box)}`);
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1440, height: 900 });

    // Keyboard: Escape closes the proposal, Enter opens it again.
    await card.getByTestId("proposal-open").focus();
    await page.keyboard.press("Escape");
    await card.getByTestId("proposal-body").waitFor({ state: "detached" });
    await page.keyboard.press("Enter");
    await card.getByTestId("proposal-entry").first().waitFor();

    // Accepted: the file is what the proposal said, the toast offers Undo, nothing waits.
    await acceptAll.click();
    const toast = page.getByTestId("toast").filter({ hasText: /Saved \d+ files?/ });
    await toast.waitFor({ timeout: 20000 });
    assert.equal(await toast.getByRole("button", { name: "Undo" }).count(), 1);
    await waitFor(async () => (await card.getByTestId("proposal-status").innerText()) === "Accepted", "the proposal accepted");
    await waitFor(async () => readFileSync(file(changed.path), "utf8") === changed.after, `${changed.path} as proposed`);
    assert.equal((await api("proposal", { id })).status, "accepted");
    await badge.waitFor({ state: "detached", timeout: 20000 });

    // The memory's usage in one line in the detail pane.
    await openMemory("travel.md");
    const usage = page.getByTestId("detail-usage");
    await usage.waitFor({ timeout: 20000 });
    assert.match(await usage.innerText(), /^(Never recalled yet\.|Recalled .+ injected\.)$/);
    await page.screenshot({ path: join(artifacts, "detail-usage-1440-light.png") });
  } finally {
    if (chatWasOpen && (await page.getByTestId("chat-input").count()) === 0) await page.getByTestId("chat-toggle").click();
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1440, height: 900 });
    await api("set_review_mode", { workspace: "personal", on: false });
  }
});

test("usage after 20 recalls: the detail pane, `mnemo stats --memories` and the recall telemetry agree exactly", async () => {
  writeFileSync(file("espresso.md"), topic("Espresso", "How the user takes coffee", "user", "Double espresso with oat milk, every morning at eight.\nWhy: said so."));
  cli("--workspace", "personal", "index");
  const queries = ["how does the user take espresso", "oat milk coffee in the morning", "espresso at eight"];
  for (let i = 0; i < 20; i++) {
    const r = JSON.parse(cli("--json", "--workspace", "personal", "recall", queries[i % queries.length], "--lexical"));
    assert.ok(r.selected.some((s) => s.path === "espresso.md"), `recall ${i} chose espresso.md`);
  }
  // What the telemetry recorded for it, every recall this home made.
  const stats = JSON.parse(cli("--json", "--workspace", "personal", "stats"));
  let recalls = 0;
  let tokens = 0;
  for (const e of stats.telemetry.filter((t) => t.kind === "recall")) {
    for (const m of JSON.parse(e.data).memories ?? []) {
      if (m.path !== "espresso.md") continue;
      tokens += m.tokens;
      if (!m.carried) recalls += 1;
    }
  }
  assert.equal(recalls, 20);
  const listed = JSON.parse(cli("--json", "--workspace", "personal", "stats", "--memories")).find((u) => u.path === "espresso.md");
  assert.deepEqual([listed.recalls, listed.tokens], [recalls, tokens], "stats --memories equals the telemetry");
  await page.reload();
  await openMemory("espresso.md");
  const line = page.getByTestId("detail-usage");
  await line.waitFor({ timeout: 20000 });
  assert.deepEqual([Number(await line.getAttribute("data-recalls")), Number(await line.getAttribute("data-tokens"))], [recalls, tokens]);
  const text = await line.innerText();
  assert.ok(text.startsWith("Recalled 20 times") && text.includes(`~${tokens.toLocaleString("en-US")} tokens injected`), text);
  await page.screenshot({ path: join(artifacts, "detail-usage-20-recalls-1440-light.png") });
});

test("a person replaces a fact twice and archives the memory: the Superseded lines on disk, the chain shot at two widths, light and dark, with axe; archived: true, then restored", async () => {
  writeFileSync(file("home.md"), topic("住处", "Where the user lives, and with whom", "user", "Lives in Berlin.\nWhy: said so in chat.\n\nHas a cat named 小米."));
  await waitFor(async () => (await api("list", { workspace: "personal", memoryType: null })).some((d) => d.path === "home.md"), "home.md indexed", 20000);
  let chatWasOpen = false;
  try {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: "light" });
    await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
    await openMemory("home.md");
    await page.getByTestId("facts-toggle").click();
    const facts = page.getByTestId("facts-view");
    await facts.waitFor();
    assert.deepEqual(await facts.getByTestId("fact").evaluateAll((xs) => xs.map((x) => x.dataset.id)), ["home.md:1", "home.md:2"]);
    assert.equal(await page.getByTestId("facts-replaced").count(), 0, "nothing replaced yet");

    /** Replace the current fact `id` by keyboard: Enter on its Replace…, type, Ctrl+Enter. */
    const replace = async (id, text, why) => {
      const button = facts.locator(`[data-testid="fact"][data-id="${id}"] [data-testid="fact-replace"]`);
      await button.focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByTestId("replace-dialog");
      await dialog.waitFor();
      const area = dialog.getByTestId("replace-text");
      assert.ok(await area.evaluate((el) => el === document.activeElement), "the new fact's box has the focus");
      await area.fill(text);
      await dialog.getByTestId("replace-why").fill(why);
      await area.focus();
      await page.keyboard.press("Control+Enter");
      await dialog.waitFor({ state: "detached", timeout: 20000 });
      const toast = page.getByTestId("toast").filter({ hasText: "Replaced. The old fact is kept as replaced" }).last();
      await toast.waitFor({ timeout: 20000 });
      assert.equal(await toast.getByRole("button", { name: "Undo" }).count(), 1);
    };

    await replace("home.md:1", "Moved to Lisbon.\nWhy: a new job.", "moved");
    const day = "\\d{4}-\\d{2}-\\d{2}";
    await waitFor(() => new RegExp(`Lives in Berlin\\.\\n(?:.*\\n)*?\\s*Superseded: ${day} by "Moved to Lisbon\\."; moved\\n`).test(readFileSync(file("home.md"), "utf8")), "the Superseded line on disk");
    let text = readFileSync(file("home.md"), "utf8");
    assert.ok(text.indexOf("Lives in Berlin.") < text.indexOf("Moved to Lisbon."), `the old fact just before its successor:\n${text}`);
    assert.match(text, /Has a cat named 小米\./);

    // The successor is replaced in turn: a chain of two, read oldest first.
    await waitFor(async () => (await facts.locator('[data-testid="fact"][data-id="home.md:2"]').innerText().catch(() => "")).includes("Moved to Lisbon."), "the new fact listed");
    await replace("home.md:2", "Moved to Porto.", "一年后又搬家");
    await waitFor(() => /Superseded: \d{4}-\d{2}-\d{2} by "Moved to Porto\."; 一年后又搬家/.test(readFileSync(file("home.md"), "utf8")), "the second Superseded line on disk");
    text = readFileSync(file("home.md"), "utf8");
    assert.equal(text.match(/Superseded:/g)?.length, 2, text);
    const replaced = facts.getByTestId("replaced-fact");
    await waitFor(async () => (await replaced.count()) === 2, "two replaced facts shown");
    assert.deepEqual(
      (await facts.getByTestId("replaced-sentence").allInnerTexts()).map((t) => t.replace(/on \d{1,2} [A-Z][a-z]{2} \d{4}/, "on DAY")),
      ["Replaced on DAY by “Moved to Lisbon.” — moved.", "Replaced on DAY by “Moved to Porto.” — 一年后又搬家。"],
    );
    assert.deepEqual(await replaced.locator("del").allInnerTexts(), ["Lives in Berlin.", "Moved to Lisbon."]);
    assert.match(await facts.getByTestId("chain-now").innerText(), /Moved to Porto\./);
    assert.deepEqual(await facts.getByTestId("fact").evaluateAll((xs) => xs.map((x) => x.dataset.state)), ["current", "current"]);
    // Recall never uses a replaced fact.
    const recalled = JSON.stringify(await api("recall", { workspace: "personal", query: "Where does the user live? Berlin Lisbon Porto 小米", alreadySurfaced: null, lexical: true }));
    if (recalled.includes("home.md")) {
      assert.match(recalled, /Moved to Porto/, recalled);
      assert.doesNotMatch(recalled, /Lives in Berlin|Moved to Lisbon\./, "no replaced fact in the recall");
    }

    // The chain, shot at two widths, light and dark; axe-core on each.
    chatWasOpen = (await page.getByTestId("chat-input").count()) > 0;
    if (chatWasOpen) await page.getByTestId("chat-toggle").click();
    // The toasts said their piece (Undo was checked): out of the way of the shots.
    const dismiss = page.getByTestId("toast").getByRole("button", { name: "Dismiss" });
    while ((await dismiss.count()) > 0) await dismiss.first().click();
    const found = [];
    for (const width of [1440, 1000]) {
      await page.setViewportSize({ width, height: width === 1000 ? 700 : 900 });
      const box = await facts.getByTestId("fact-replace").first().boundingBox();
      assert.ok(box && box.x + box.width <= width, `Replace… is inside the window at ${width} px: ${JSON.stringify(box)}`);
      const archive = await page.getByTestId("archive-button").boundingBox();
      assert.ok(archive && archive.x + archive.width <= width, `Archive is inside the window at ${width} px: ${JSON.stringify(archive)}`);
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.waitForTimeout(150);
        await page.locator(".detail-pane").screenshot({ path: join(artifacts, `view-facts-chain-${width}-${scheme}.png`) });
        const r = await new AxeBuilder({ page }).analyze();
        for (const x of r.violations.filter((x) => x.impact === "serious" || x.impact === "critical")) {
          found.push(`facts ${width} (${scheme}): ${x.id} (${x.impact}) — ${x.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
        }
      }
    }
    assert.deepEqual(found, []);
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1440, height: 900 });

    // Archived from the header: the sentence, the list's mark, archived: true on disk; then restored.
    await page.getByTestId("archive-button").click();
    const note = page.getByTestId("detail-archived");
    await note.waitFor({ timeout: 20000 });
    assert.match(await note.innerText(), /Archived: it is not recalled and not in MEMORY\.md; it stays searchable\./);
    await waitFor(() => /^archived: true$/m.test(readFileSync(file("home.md"), "utf8")), "archived: true on disk");
    const archivedToast = page.getByTestId("toast").filter({ hasText: /^Archived: it is no longer recalled/ }).last();
    await archivedToast.waitFor({ timeout: 20000 });
    assert.equal(await archivedToast.getByRole("button", { name: "Undo" }).count(), 1);
    const row = page.locator('[data-testid="memory-row"][data-path="home.md"]');
    await row.getByTestId("archived-mark").waitFor({ timeout: 20000 });
    assert.equal(await row.getByTestId("archived-mark").innerText(), "Archived");
    await waitFor(async () => {
      const index = await api("memory_index", { workspace: "personal" });
      assert.equal(typeof index, "string", JSON.stringify(index));
      return !/home\.md/.test(index);
    }, "home.md out of MEMORY.md");
    await page.screenshot({ path: join(artifacts, "detail-archived-1440-light.png") });
    await note.getByTestId("detail-restore").focus();
    await page.keyboard.press("Enter");
    await note.waitFor({ state: "detached", timeout: 20000 });
    await waitFor(() => !/^archived:/m.test(readFileSync(file("home.md"), "utf8")), "archived: gone from disk");
    await row.getByTestId("archived-mark").waitFor({ state: "detached", timeout: 20000 });
    assert.equal(await page.getByTestId("archive-button").innerText(), "Archive");
  } finally {
    if (chatWasOpen && (await page.getByTestId("chat-input").count()) === 0) await page.getByTestId("chat-toggle").click();
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1440, height: 900 });
  }
});

test("a person imports a mem0 export: the preview's counts, shot at 1,000 px light and dark with axe; imported, listed, undone; then the workspace exported", async () => {
  // A mem0 export in a folder with a Chinese name: five memories (one Chinese), a duplicate and a
  // secret (built here, so no token sits in the repository).
  const token = ["ghp", "0123456789abcdefghij" + "ABCDEFGHIJ012345"].join("_");
  const folder = join(fixture.dir, "导入");
  mkdirSync(folder, { recursive: true });
  const source = join(folder, "mem0.json");
  const memories = [
    { id: "m1", memory: "Prefers dark mode in every editor.", categories: ["preferences"] },
    { id: "m2", memory: "喜欢靠窗的座位，长途飞行时尤其如此。", categories: ["window seats", "travel", "preferences"] },
    { id: "m3", memory: "Deploys go out on Tuesdays.", categories: ["work"] },
    { id: "m4", memory: "Answer in short bullet points.", categories: ["style"] },
    { id: "m5", memory: "The latency dashboard is https://grafana.example/d/api", categories: ["tools"] },
    { id: "m6", memory: "Prefers dark mode in every editor.", categories: ["preferences"] },
    { id: "m7", memory: `The deploy token is ${token}`, categories: ["work"] },
  ];
  writeFileSync(source, JSON.stringify({ results: memories }));
  // Each file named by its first mem0 category, not by the tool it came from (an
  // earlier step's travel.md is why the seats are not filed under "travel" here).
  const written = ["preferences.md", "window-seats.md", "work.md", "style.md", "tools.md"];
  let chatWasOpen = false;
  try {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: "light" });
    await view("memories");
    await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
    // At 1,000 px the chat is a drawer: hidden while the dialog is shot.
    chatWasOpen = (await page.getByTestId("chat-input").count()) > 0;
    if (chatWasOpen) await page.getByTestId("chat-toggle").click();
    // Earlier toasts out of the way of the shots.
    const dismiss = page.getByTestId("toast").getByRole("button", { name: "Dismiss" });
    while ((await dismiss.count()) > 0) await dismiss.first().click();
    await page.getByTestId("import-button").click();
    const dialog = page.getByTestId("import-dialog");
    await dialog.waitFor();
    assert.match(await dialog.getByTestId("import-formats").innerText(), /mem0 \/ claude-mem exports/);
    await dialog.getByTestId("import-source").fill(source);
    await dialog.getByTestId("import-preview-button").click();
    const preview = dialog.getByTestId("import-preview");
    await preview.waitFor({ timeout: 20000 });
    assert.equal(await preview.getByTestId("import-format").innerText(), "mem0 export");
    assert.equal(await preview.getByTestId("import-target").innerText(), "Personal");
    assert.equal(await preview.getByTestId("import-writes").innerText(), "5 memories in 5 new files (2 user · 1 feedback · 1 project · 1 reference)");
    assert.equal(await preview.getByTestId("import-left-out").innerText(), "1 duplicate skipped · 1 item with a secret refused");
    const reasons = await preview.getByTestId("import-reasons").innerText();
    assert.match(reasons, /item 7: it holds a secret/);
    assert.ok(!reasons.includes(token), "the secret itself is never shown");
    assert.match(await preview.getByTestId("import-samples").innerText(), /喜欢靠窗的座位/);
    // Nothing is written by a preview.
    for (const f of written) assert.equal(existsSync(file(f)), false, `${f} not written by the preview`);

    // The preview at 1,000 px, light and dark, axe on each.
    await importDialogAt1000(dialog, "import-preview");

    // Imported: the summary, the files on disk, the memories in the list.
    await dialog.getByTestId("import-start").click();
    const summary = dialog.getByTestId("import-summary");
    await summary.waitFor({ timeout: 30000 });
    assert.match(await summary.innerText(), /^Imported 5 memories into 5 files\b/);
    for (const f of written) assert.ok(existsSync(file(f)), `${f} written`);
    const seats = readFileSync(file("window-seats.md"), "utf8");
    assert.match(seats, /喜欢靠窗的座位/);
    assert.match(seats, /^name: Window seats$/m);
    const travel = page.locator('[data-testid="memory-row"][data-path="window-seats.md"]');
    await travel.waitFor({ timeout: 20000 });
    await page.screenshot({ path: join(artifacts, "import-done-1440-light.png") });

    // Undo import: every file it wrote goes, and the list follows.
    await dialog.getByTestId("import-undo").click();
    await dialog.getByTestId("import-undone").waitFor({ timeout: 20000 });
    assert.match(await dialog.getByTestId("import-undone").innerText(), /^5 files taken back: nothing of this import stays\.$/);
    // An undone import never reads as a success: no "Imported" above it.
    assert.equal(await dialog.getByTestId("import-outcome").innerText(), "Import undone");
    assert.equal(await dialog.getByTestId("import-summary").count(), 0);
    await page.screenshot({ path: join(artifacts, "import-undone-1440-light.png") });
    for (const f of written) assert.equal(existsSync(file(f)), false, `${f} taken back`);
    await travel.waitFor({ state: "detached", timeout: 20000 });
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });

    // Past conversations need a model: the estimate, and a plain sentence instead of Import.
    const chats = join(folder, "conversations.json");
    const turn = (id, parent, role, text, children) => ({ id, parent, children, message: { author: { role }, content: { content_type: "text", parts: [text] }, create_time: 1700000001 } });
    writeFileSync(
      chats,
      JSON.stringify([
        {
          id: "c1",
          title: "东京旅行",
          create_time: 1700000000,
          current_node: "c",
          mapping: {
            a: { id: "a", message: null, parent: null, children: ["b"] },
            b: turn("b", "a", "user", "我下个月去东京，只坐靠窗的座位。", ["c"]),
            c: turn("c", "b", "assistant", "好的，我记住了。", []),
          },
        },
        {
          id: "c2",
          title: "Deploys",
          create_time: 1700000100,
          current_node: "b",
          mapping: { a: { id: "a", message: null, parent: null, children: ["b"] }, b: turn("b", "a", "user", "We deploy on Tuesdays, never on Fridays.", []) },
        },
      ]),
    );
    await page.getByTestId("import-button").click();
    await dialog.getByTestId("import-source").fill(chats);
    await dialog.getByTestId("import-preview-button").click();
    await preview.waitFor({ timeout: 20000 });
    assert.equal(await preview.getByTestId("import-format").innerText(), "ChatGPT export");
    assert.equal(await preview.getByTestId("import-conversations").innerText(), "2 conversations, 3 messages to read");
    assert.match(await preview.getByTestId("import-estimate").innerText(), /^About \d+ model calls and [\d,]+ tokens, read by the model/);
    assert.match(await preview.getByTestId("import-blocked").innerText(), /^Learning from past conversations needs a model, and none is set up yet/);
    assert.equal(await dialog.getByTestId("import-start").isDisabled(), true);
    await page.setViewportSize({ width: 1000, height: 700 });
    await page.waitForTimeout(150);
    await page.screenshot({ path: join(artifacts, "view-import-conversations-1000-light.png") });
    const r = await new AxeBuilder({ page }).analyze();
    assert.deepEqual(r.violations.filter((x) => x.impact === "serious" || x.impact === "critical").map((x) => x.id), []);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });

    // Export… the workspace to the default place: a new zip, and the sentence that says where.
    await page.getByTestId("export-button").click();
    const exp = page.getByTestId("export-dialog");
    await exp.waitFor();
    const zip = await exp.getByTestId("export-dest").inputValue();
    // Named to the second (a second export the same day must not collide with the first).
    assert.match(zip, /\/mnemo-export-\d{4}-\d{2}-\d{2}-\d{6}\.zip$/);
    assert.equal(zip.slice(0, zip.lastIndexOf("/")), fixture.dir);
    await exp.getByTestId("export-start").click();
    const said = exp.getByTestId("export-sentence");
    await said.waitFor({ timeout: 20000 });
    const sentence = await said.innerText();
    assert.ok(/^Exported \d+ files \(/.test(sentence) && sentence.endsWith(` to ${zip}.`), sentence);
    assert.ok(existsSync(zip), "the zip is there");
    await page.screenshot({ path: join(artifacts, "export-done-1440-light.png") });
    // Exporting again to the same path is refused in a sentence, never overwritten.
    await page.keyboard.press("Escape");
    await exp.waitFor({ state: "detached" });
    await page.getByTestId("export-button").click();
    await exp.getByTestId("export-dest").fill(zip);
    await exp.getByTestId("export-start").click();
    const refused = exp.getByTestId("inline-error");
    await refused.waitFor({ timeout: 20000 });
    assert.match(await refused.innerText(), /already exists: choose another name/);
    assert.doesNotMatch(await refused.innerText(), /conflict/);
    await page.keyboard.press("Escape");
    await exp.waitFor({ state: "detached" });
    // A second export later the same day, to the default it offers: a new name, and it is written.
    await page.waitForTimeout(1100);
    await page.getByTestId("export-button").click();
    const second = await exp.getByTestId("export-dest").inputValue();
    assert.notEqual(second, zip);
    await exp.getByTestId("export-start").click();
    await exp.getByTestId("export-sentence").waitFor({ timeout: 20000 });
    assert.ok(existsSync(second), "the second zip is there");
    await page.keyboard.press("Escape");
    await exp.waitFor({ state: "detached" });

    // Export… and Copy / Move… forms at 1,000 px in dark, axe on each.
    await page.setViewportSize({ width: 1000, height: 700 });
    await page.emulateMedia({ colorScheme: "dark" });
    const forms = [];
    await page.getByTestId("export-button").click();
    await exp.waitFor();
    await page.waitForTimeout(150);
    await page.screenshot({ path: join(artifacts, "view-export-1000-dark.png") });
    forms.push(...(await new AxeBuilder({ page }).analyze()).violations.filter((x) => x.impact === "serious" || x.impact === "critical").map((x) => `export: ${x.id}`));
    await page.keyboard.press("Escape");
    await exp.waitFor({ state: "detached" });
    await openMemory("response-style.md");
    await page.getByTestId("copy-button").click();
    const copy = page.getByTestId("copy-dialog");
    await copy.waitFor();
    assert.ok(!(await copy.getByTestId("copy-target").innerText()).includes("Personal"), "the memory's own workspace is not offered");
    await page.waitForTimeout(150);
    await page.screenshot({ path: join(artifacts, "view-copy-1000-dark.png") });
    forms.push(...(await new AxeBuilder({ page }).analyze()).violations.filter((x) => x.impact === "serious" || x.impact === "critical").map((x) => `copy: ${x.id}`));
    await page.keyboard.press("Escape");
    await copy.waitFor({ state: "detached" });
    assert.deepEqual(forms, []);
  } finally {
    if (chatWasOpen && (await page.getByTestId("chat-input").count()) === 0) await page.getByTestId("chat-toggle").click();
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1440, height: 900 });
  }
});

test("a person restores a whole-home export: both workspaces listed, the new one ticked, shot at 1,000 px light and dark with axe; imported, team-x created on disk and in the sidebar", async () => {
  // A second home (another machine) with personal and team-x, exported whole by the CLI; this
  // home lacks team-x. The personal file's name is the step's own: nothing earlier writes it.
  const other = join(fixture.dir, "restore-home");
  const standup = topic("Standup", "when we meet", "project", "Standup at 9:30.");
  mkdirSync(join(other, "workspaces/personal/memory"), { recursive: true });
  mkdirSync(join(other, "workspaces/team-x/memory"), { recursive: true });
  writeFileSync(join(other, "workspaces/personal/memory/restore-tea.md"), topic("Tea", "What the user drinks", "user", "Mint tea."));
  writeFileSync(join(other, "workspaces/team-x/memory/standup.md"), standup);
  const folder = join(fixture.dir, "restore");
  mkdirSync(folder, { recursive: true });
  const zip = join(folder, "home.zip");
  otherMachine(other, "export", "-o", zip);
  assert.ok(existsSync(zip), "the CLI wrote the whole-home export");
  const landed = join(fixture.home, "workspaces/team-x/memory/standup.md");
  assert.equal(existsSync(landed), false, "this home has no team-x yet");
  assert.ok(!(await api("workspaces")).some((w) => w.id === "team-x"), "team-x is not a workspace here yet");
  let chatWasOpen = false;
  try {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: "light" });
    await view("memories");
    await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
    // At 1,000 px the chat is a drawer: hidden while the dialog is shot.
    chatWasOpen = (await page.getByTestId("chat-input").count()) > 0;
    if (chatWasOpen) await page.getByTestId("chat-toggle").click();
    const dismiss = page.getByTestId("toast").getByRole("button", { name: "Dismiss" });
    while ((await dismiss.count()) > 0) await dismiss.first().click();

    // Keyboard only up to the preview: Enter on Import…, the path typed, Enter previews.
    const opener = page.getByTestId("import-button");
    await opener.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByTestId("import-dialog");
    await dialog.waitFor();
    const source = dialog.getByTestId("import-source");
    assert.ok(await source.evaluate((el) => el === document.activeElement), "the path field has the focus");
    await source.fill(zip);
    await page.keyboard.press("Enter");
    const preview = dialog.getByTestId("import-preview");
    await preview.waitFor({ timeout: 20000 });
    assert.equal(await preview.getByTestId("import-format").innerText(), "Mnemo export");
    assert.equal(await preview.getByTestId("import-target").innerText(), "Personal");

    // Both workspaces of the export listed: personal (the dialog's) ticked, team-x new here and not.
    const restore = preview.getByTestId("import-restore");
    await restore.waitFor();
    const entries = restore.getByTestId("restore-choice");
    assert.deepEqual(await entries.evaluateAll((xs) => xs.map((x) => x.dataset.workspace)), ["personal", "team-x"]);
    const entry = (id) => restore.locator(`[data-testid="restore-choice"][data-workspace="${id}"]`);
    const team = entry("team-x");
    const teamTick = team.getByTestId("restore-tick");
    assert.equal(await entry("personal").getByTestId("restore-tick").isChecked(), true, "personal ticked");
    assert.equal(await teamTick.isChecked(), false, "team-x not ticked at first");
    assert.equal(await team.getAttribute("data-chosen"), "false");
    assert.match(await team.innerText(), /new here/);
    assert.equal(existsSync(landed), false, "nothing written by the preview");

    // team-x ticked by keyboard: the dialog previews again with both, the box keeps the focus.
    await teamTick.focus();
    await page.keyboard.press("Space");
    const target = preview.getByTestId("import-target");
    await waitFor(
      async () =>
        (await team.getAttribute("data-chosen").catch(() => null)) === "true" &&
        (await teamTick.isChecked().catch(() => false)) &&
        /\bteam-x\b/.test(await target.innerText().catch(() => "")),
      "the re-preview restoring team-x too",
      20000,
    );
    assert.match(await target.innerText(), /personal/i, "personal is still restored");
    assert.equal(await entry("personal").getByTestId("restore-tick").isChecked(), true, "personal still ticked");
    assert.ok(await teamTick.evaluate((el) => el === document.activeElement), "team-x's box keeps the focus");
    assert.equal(await dialog.getByTestId("import-start").isDisabled(), false, "Import can start");
    assert.equal(existsSync(landed), false, "nothing written by the second preview either");

    // The choices at 1,000 px, light and dark, axe on each.
    await importDialogAt1000(dialog, "import-restore");

    // Imported: team-x created, its file on disk, the workspace in the sidebar.
    await dialog.getByTestId("import-start").click();
    const summary = dialog.getByTestId("import-summary");
    await summary.waitFor({ timeout: 30000 });
    assert.match(await summary.innerText(), /^Imported \d+ memor(?:y|ies) into \d+ files?\b/);
    assert.ok(existsSync(landed), "team-x's standup.md restored into this home");
    assert.equal(readFileSync(landed, "utf8"), standup);
    await page.locator('[data-testid="workspace-item"][data-id="team-x"]').waitFor({ timeout: 20000 });
    await page.screenshot({ path: join(artifacts, "import-restore-done-1440-light.png") });
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    assert.ok(await opener.evaluate((b) => b === document.activeElement), "focus back on Import…");
  } finally {
    if (chatWasOpen && (await page.getByTestId("chat-input").count()) === 0) await page.getByTestId("chat-toggle").click();
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1440, height: 900 });
  }
});
