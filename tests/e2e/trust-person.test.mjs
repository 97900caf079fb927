// "Nothing unseen, nothing false", point by point, walked as a person at 1,000 and
// 1,440 px, light and dark, in Debian's Chromium against `mnemo serve` (and the scripted fake model
// server where a model is needed), axe-core on every view visited: in review mode the chat model's
// own write is a proposal (the file unchanged, the Inbox holds it, the line under the reply says
// so); Remember… says "Proposed for review", never "Remembered", and a rejected proposal leaves no
// claim of a written memory; a sync conflict made by `mnemo sync` shows without a reload (the row's
// mark, one sentence on what it means for recall in the banner, Facts, Inbox and Status, Memory
// health counts it); the Status view tells the truth (a decided dream's proposal, the conversation
// records on disk, one clock format); the keyboard (↓ Enter opens the top hit, Ctrl+S in Settings
// never saves the memory behind it, "No changes to save."); and the small points (the Inbox follows
// a CLI's proposal, the Welcome stays gone after a delete, Cancel on a typed new memory asks).
// Shots: tests/e2e/artifacts/trust-<point>-<width>-<scheme>.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { makeHome, startServer, startFakeModel, topic, artifacts, waitFor, launchChromium, targetDir } from "./fixture.mjs";

/** What a sync conflict means for recall: the one sentence every place showing a conflict says. */
const CONFLICT_RECALL =
  "Until you choose, recall reads the memory as it is here now (both versions, where both are kept) and tells the model they disagree, so neither is taken as certain.";

const TESTING = topic("Testing habits", "How the user wants tests written", "feedback", "Integration tests hit a real database.\nWhy: mocks hid a broken migration.");
// Its first entry repeats testing.md's: a mechanical dream (no model needed) merges the two.
const DUPLICATE = topic(
  "Real database in tests",
  "Tests use a real database",
  "feedback",
  "Integration tests hit a real database.\nWhy: mocks hid a broken migration.\n\nSeed the database from fixtures.\nWhy: tests must not share state.",
);
const DEPLOYS = topic("Deploy days", "When deploys go out", "project", "Deploys go out on Tuesdays.\nWhy: the on-call rota starts then.");
const PET = topic("Pet", "The user's pet", "user", "Has a cat named Miso.\nWhy: said so in chat.");
const TEA = topic("Tea", "What the user drinks", "user", "Drinks mint tea in the afternoon.\nWhy: said so.");

let fixture, server, browser, context, page;
const fakes = [];
const file = (name) => join(fixture.personal, name);
const shot = (name) => page.screenshot({ path: join(artifacts, `trust-${name}.png`) });
const WIDTHS = [1440, 1000];
const SCHEMES = ["light", "dark"];

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

/** `mnemo` at the command line on another home (a second machine), its stdout. */
function otherMachine(home, ...args) {
  const bin = process.env.MNEMO_BIN || join(targetDir, "debug/mnemo");
  const empty = join(fixture.dir, "other-tools");
  mkdirSync(empty, { recursive: true });
  const env = { ...fixture.env, MNEMO_HOME: home, MNEMO_CLAUDE_DIR: empty, MNEMO_QWEN_DIR: empty, MNEMO_EMBED_MODEL: "off" };
  return execFileSync(bin, ["--home", home, ...args], { env, encoding: "utf8" });
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

/** Shoots `name` at `width` in both schemes, axe-core on each; `prepare` runs first at each scheme. */
async function shootBoth(name, width, found, prepare = async () => {}) {
  for (const scheme of SCHEMES) {
    await windowOf(width, scheme);
    await prepare(scheme);
    await page.waitForTimeout(150);
    await shot(`${name}-${width}-${scheme}`);
    found.push(...(await axe(`${name} ${width} (${scheme})`)));
  }
  await windowOf(width, "light");
}

/** Focus a control and press Enter: what a person does after Tab-ing to it. */
async function activate(locator) {
  await locator.focus();
  await page.keyboard.press("Enter");
}

async function toMemories() {
  await activate(page.getByRole("button", { name: "Memories", exact: true }));
  await page.getByTestId("search-input").waitFor();
}

async function chooseWorkspace(id) {
  await toMemories();
  await activate(page.locator(`[data-testid="workspace-item"][data-id="${id}"]`));
  await page.getByTestId("remember-button").waitFor();
}

async function openMemory(path) {
  await toMemories();
  const row = page.locator(`[data-testid="memory-row"][data-path="${path}"]`);
  await row.waitFor({ timeout: 20000 });
  await row.click();
  await waitFor(async () => (await page.locator('[data-testid="memory-row"][aria-selected="true"]').getAttribute("data-path").catch(() => null)) === path, `${path} open`);
  await page.getByTestId("detail-name").waitFor();
}

/** The chat shown: the side pane at 1,440 px, the drawer opened at 1,000 px. */
async function showChat() {
  if ((await page.getByTestId("chat-pane").count()) === 0) await activate(page.getByTestId("chat-toggle"));
  await page.getByTestId("chat-pane").waitFor();
}

/** The chat out of the way (closed at 1,000 px; at 1,440 px the side pane is left as it is). */
async function hideDrawer() {
  if ((await page.getByTestId("chat-backdrop").count()) > 0) {
    await page.keyboard.press("Escape");
    await page.getByTestId("chat-pane").waitFor({ state: "detached" });
  }
}

/** Toasts said their piece: out of the way of the shots. */
async function dismissToasts() {
  const dismiss = page.getByTestId("toast").getByRole("button", { name: "Dismiss" });
  while ((await dismiss.count()) > 0) await dismiss.first().click().catch(() => {});
}

/** A fake model server with `script`, set as this home's model (the tool agent for memory writes). */
async function useFakeModel(script) {
  const dir = join(fixture.dir, `fake-${fakes.length}`);
  mkdirSync(dir, { recursive: true });
  const fake = await startFakeModel(dir, script);
  fakes.push(fake);
  const saved = await api("set_model_settings", {
    settings: { base_url: fake.url, model: "fake-main", fast_model: "fake-fast", context_window: 8192, timeout_secs: 60, api_key: null, extraction: "tools" },
  });
  assert.equal(saved.configured, true, JSON.stringify(saved));
  // Set up behind the page's back (as another window would): the page reads it afresh.
  await page.reload();
  await page.locator('[data-testid="memory-row"]').first().waitFor({ timeout: 30000 });
  await chooseWorkspace("personal");
  return fake;
}

/** Every memory file of `personal` (not conversation records or daily logs) and its text. */
function topicFiles() {
  const out = {};
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(fixture.personal, path);
      if (statSync(path).isDirectory()) {
        if (rel !== "chats" && rel !== "logs") walk(path);
      } else if (name.endsWith(".md") && name !== "MEMORY.md") out[rel] = readFileSync(path, "utf8");
    }
  };
  walk(fixture.personal);
  return out;
}

/** The conversation records on disk: files under `personal`'s `chats/`. */
function recordsOnDisk() {
  const found = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".md")) found.push(relative(fixture.personal, path));
    }
  };
  walk(join(fixture.personal, "chats"));
  return found.sort();
}

/** Types `text` in the chat and waits for the whole reply `reply`; the reply's message. */
async function chatTurn(text, reply) {
  const input = page.getByTestId("chat-input");
  await input.fill(text);
  await input.press("Enter");
  const last = page.locator('[data-testid="chat-message"][data-role="assistant"]').last();
  await waitFor(async () => (await last.getAttribute("data-streaming").catch(() => "true")) === null && (await last.locator(".chat-text").innerText().catch(() => "")).trim() === reply, `the reply “${reply}”`, 60000).catch(async (e) => {
    throw new Error(`${e.message}; the chat shows: ${await page.getByTestId("chat-pane").innerText().catch(() => "(no chat)")}`);
  });
  return last;
}

before(async () => {
  fixture = makeHome();
  writeFileSync(file("testing.md"), TESTING);
  writeFileSync(file("tests-real-db.md"), DUPLICATE);
  writeFileSync(file("deploys.md"), DEPLOYS);
  server = await startServer(fixture);
  browser = await launchChromium();
  // A 12-hour locale: a time written by hand as "17:12" beside the locale's "05:12 PM" shows.
  context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
  page = await context.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(server.url);
  await page.locator('[data-testid="memory-row"]').first().waitFor({ timeout: 30000 });
  // The welcome has its own test (with storage of its own): closed here.
  if ((await page.getByTestId("welcome").count()) > 0) await activate(page.getByTestId("welcome-start"));
  await chooseWorkspace("personal");
});

after(async () => {
  await browser?.close();
  server?.child.kill();
  for (const f of fakes) f.child.kill();
});

test("review mode: the chat model's own write is a proposal — the file unchanged, the Inbox holds it, the line under the reply says proposed, never “Wrote 1 memory”", async () => {
  await windowOf(1440, "light");
  await useFakeModel({
    chunk_delay_ms: 20,
    replies: {
      json: [{ json: { paths: [] } }, { json: { paths: [] } }, { json: { paths: [] } }],
      stream: [{ tool: "write_file", arguments: { path: "pet.md", content: PET } }, { text: "Noted: a cat named Miso." }],
    },
  });
  let id = null;
  try {
    assert.equal((await api("set_review_mode", { workspace: "personal", on: true })).on, true);
    assert.equal(await api("set_auto_extract", { workspace: "personal", enabled: false }), false);
    const before = topicFiles();
    await chooseWorkspace("personal");
    await showChat();
    const reply = await chatTurn("Remember that I have a cat named Miso.", "Noted: a cat named Miso.");

    // The line under the reply: proposed, nothing written; never "Wrote 1 memory".
    const note = reply.getByTestId("proposal-note");
    await note.waitFor({ timeout: 30000 });
    assert.equal(await note.innerText(), "Proposed a change to your memory for review: nothing is written until you accept it in the Inbox.");
    assert.equal(await reply.getByTestId("wrote-badge").count(), 0, "no “Wrote” badge");
    assert.doesNotMatch(await page.getByTestId("chat-pane").innerText(), /Wrote \d+ memor/);
    // Nothing on disk changed: no pet.md, every memory as it was.
    assert.equal(existsSync(file("pet.md")), false, "pet.md is not written");
    assert.deepEqual(topicFiles(), before, "no memory file changed");
    assert.equal(await page.locator('[data-testid="memory-row"][data-path="pet.md"]').count(), 0, "no row for a file never written");

    // The Inbox holds it: the chat's proposal, pet.md in it.
    const pending = (await api("inbox", { workspace: "personal", status: "pending", offset: 0, limit: 50 })).items;
    const proposal = pending.find((p) => p.kind === "chat");
    assert.ok(proposal, `a chat proposal waits: ${JSON.stringify(pending)}`);
    id = proposal.id;
    assert.deepEqual(proposal.paths, ["pet.md"]);

    const found = [];
    const missing = [];
    for (const width of WIDTHS) {
      await windowOf(width, "light");
      await toMemories();
      await showChat();
      // The same line at either width (the drawer at 1,000 px shows the same conversation).
      // (Said at the end, so every view is still walked and shot when it is missing.)
      const line = page.locator('[data-testid="chat-pane"] [data-testid="chat-message"][data-role="assistant"]').last();
      await line.waitFor({ timeout: 20000 });
      assert.equal((await line.locator(".chat-text").innerText()).trim(), "Noted: a cat named Miso.");
      const said = await line.getByTestId("proposal-note").waitFor({ timeout: 20000 }).then(() => true, () => false);
      if (!said) missing.push(`at ${width} px the reply's line does not say it was proposed: “${await line.innerText()}”`);
      assert.equal(await line.getByTestId("wrote-badge").count(), 0);
      assert.doesNotMatch(await line.innerText(), /Wrote \d+ memor/);
      await shootBoth("chat-proposal", width, found);
      await hideDrawer();
      const badge = page.getByTestId("inbox-badge");
      await badge.waitFor({ timeout: 20000 });
      await activate(page.getByTestId("inbox-button"));
      const card = page.locator(`[data-testid="proposal"][data-id="${id}"]`);
      await card.waitFor({ timeout: 20000 });
      assert.equal(await card.getByTestId("proposal-status").innerText(), "Waiting for you");
      if ((await card.getByTestId("proposal-body").count()) === 0) await activate(card.getByTestId("proposal-open"));
      await card.getByTestId("proposal-body").waitFor();
      // The body loads after it opens ("Loading…" first): wait for its text.
      await card.getByText(/Has a cat named Miso\./).first().waitFor({ timeout: 20000 });
      assert.match(await card.innerText(), /pet\.md/);
      assert.match(await card.innerText(), /Has a cat named Miso\./);
      await shootBoth("chat-proposal-inbox", width, found);
    }
    assert.deepEqual(topicFiles(), before, "still nothing written");
    assert.deepEqual(found, []);
    assert.deepEqual(missing, []);
  } finally {
    await windowOf(1440, "light");
    if (id) await api("inbox_reject", { id, dontLearn: false });
    await api("set_review_mode", { workspace: "personal", on: false });
  }
});

test("Remember… in review mode says “Proposed for review”, never a green “Remembered”; rejected, no claim of a written memory remains", async () => {
  await windowOf(1440, "light");
  await useFakeModel({
    chunk_delay_ms: 20,
    replies: {
      tools: [{ tool: "write_file", arguments: { path: "tea.md", content: TEA }, delay_ms: 1500 }, { text: "Saved the tea preference." }],
    },
  });
  let id = null;
  try {
    assert.equal((await api("set_review_mode", { workspace: "personal", on: true })).on, true);
    const before = topicFiles();
    await chooseWorkspace("personal");
    await hideDrawer();
    await activate(page.getByTestId("remember-button"));
    const box = page.getByTestId("remember-box");
    await box.waitFor();
    const input = box.getByTestId("remember-input");
    await waitFor(async () => !(await box.getByTestId("remember-submit").isDisabled().catch(() => true)) || (await input.inputValue()) === "", "the box ready");
    await input.fill("I drink mint tea in the afternoon.");
    await input.press("Control+Enter");
    // Every state the box shows on the way: never "Remembered".
    const seen = new Set();
    const status = box.getByTestId("remember-status");
    await waitFor(async () => {
      const t = (await status.innerText().catch(() => "")).trim();
      if (t) seen.add(t);
      return (await box.getByTestId("remember-task").getAttribute("data-status").catch(() => null)) === "completed" && t === "Proposed for review";
    }, "the remember task proposed", 60000);
    assert.ok(![...seen].some((t) => /Remembered/.test(t)), `states shown: ${[...seen].join(" → ")}`);
    assert.ok(await status.evaluate((el) => el.classList.contains("status-proposed") && !el.classList.contains("status-completed")), "the proposed tone, not the completed one");
    assert.match(await box.getByTestId("remember-proposal").innerText(), /^It waits in the Inbox for your review: nothing is saved until you accept it\./);
    assert.equal(await box.getByTestId("remember-file").count(), 0, "no link to a file written");
    assert.equal(existsSync(file("tea.md")), false, "tea.md is not written");
    assert.deepEqual(topicFiles(), before);
    const task = await box.getByTestId("remember-task").getAttribute("data-id");
    const summary = await box.getByTestId("remember-summary").innerText();
    assert.doesNotMatch(summary, /^Saved/, summary);
    id = Number(summary.match(/proposal (\d+)/)?.[1]);
    assert.ok(id > 0, summary);

    const found = [];
    for (const width of WIDTHS) {
      await windowOf(width, "light");
      await hideDrawer();
      await shootBoth("remember-proposed", width, found);
    }
    await windowOf(1440, "light");

    // Rejected in the Inbox, reached from the box.
    await activate(box.getByTestId("remember-inbox"));
    const card = page.locator(`[data-testid="proposal"][data-id="${id}"]`);
    await card.waitFor({ timeout: 20000 });
    if ((await card.getByTestId("proposal-body").count()) === 0) await activate(card.getByTestId("proposal-open"));
    await activate(card.getByTestId("proposal-reject"));
    await waitFor(async () => (await card.getByTestId("proposal-status").innerText().catch(() => "")) === "Rejected", "the proposal rejected", 20000);
    assert.equal((await api("proposal", { id })).status, "rejected");
    id = null;

    // No claim of a written memory remains: not on disk, not in the list, not in the task's row.
    await toMemories();
    assert.equal(existsSync(file("tea.md")), false);
    assert.deepEqual(topicFiles(), before);
    assert.equal(await page.locator('[data-testid="memory-row"][data-path="tea.md"]').count(), 0);
    assert.doesNotMatch(await page.locator("body").innerText(), /Remembered/);
    await activate(page.getByTestId("tasks-button"));
    const row = page.locator(`[data-testid="task-row"][data-id="${task}"]`);
    await row.waitFor({ timeout: 20000 });
    await waitFor(async () => (await row.getByTestId("task-proposal-fate").innerText().catch(() => "")) === "You rejected it in the Inbox: nothing was saved.", "the row says rejected", 20000);
    assert.doesNotMatch(await row.innerText(), /Remembered|^Saved|wrote /m);
    assert.equal(await row.getByTestId("task-file").count(), 0, "no link to a file");
    for (const width of WIDTHS) {
      await shootBoth("remember-rejected", width, found, async () => {
        await row.scrollIntoViewIfNeeded();
      });
    }
    await page.keyboard.press("Escape");
    await activate(page.getByTestId("remember-close"));
    assert.deepEqual(found, []);
  } finally {
    await windowOf(1440, "light");
    if (id) await api("inbox_reject", { id, dontLearn: false });
    await api("set_review_mode", { workspace: "personal", on: false });
  }
});

test("a sync conflict made by `mnemo sync` shows without a reload: the row's mark, one sentence on recall in the banner, Facts, Inbox and Status, Memory health counts it", async () => {
  await windowOf(1440, "light");
  const remote = join(fixture.dir, "remote.git");
  execFileSync("git", ["init", "--bare", "--quiet", remote]);
  const saved = await api("set_sync_settings", { settings: { remote, author: "Ana <ana@example.org>", auto: false, claude: true, qwen: true } });
  assert.equal(saved.remote, remote, JSON.stringify(saved));
  try {
    cli("sync");
    // A second machine takes the memory, edits an entry and sends it; this one edits the same entry.
    const other = join(fixture.dir, "other-home");
    otherMachine(other, "sync", "remote", "set", remote);
    otherMachine(other, "sync", "author", "Bo <bo@example.org>");
    otherMachine(other, "sync");
    const theirs = join(other, "workspaces/personal/memory/deploys.md");
    writeFileSync(theirs, readFileSync(theirs, "utf8").replace("Deploys go out on Tuesdays.", "Deploys go out on Wednesdays."));
    otherMachine(other, "sync");
    writeFileSync(file("deploys.md"), readFileSync(file("deploys.md"), "utf8").replace("Deploys go out on Tuesdays.", "Deploys go out on Thursdays."));
    await waitFor(async () => (await api("sync_status")).workspaces.find((w) => w.workspace === "personal")?.pending >= 1, "the edit waiting to be sent", 30000);

    // The person looks at the list; the sync runs at the command line: no click, no reload here.
    await chooseWorkspace("personal");
    await hideDrawer();
    const row = page.locator('[data-testid="memory-row"][data-path="deploys.md"]');
    await row.waitFor({ timeout: 20000 });
    assert.equal(await row.getByTestId("conflict-mark").count(), 0, "no mark before the sync");
    const pageId = await page.evaluate(() => (window.__trustPage = Math.random()));
    const said = cli("sync");
    assert.match(said, /conflict/i, said);
    const mark = row.getByTestId("conflict-mark");
    // Announced by `sync_changed` within moments, not by the status poll (a minute).
    await mark.waitFor({ timeout: 30000 });
    assert.equal(await page.evaluate(() => window.__trustPage), pageId, "the same page: it arrived without a reload");
    assert.equal(await mark.getAttribute("aria-label"), "Sync conflict");
    const title = await mark.getAttribute("title");
    assert.ok(title.endsWith(CONFLICT_RECALL), `the mark's tooltip ends with the sentence: ${title}`);
    const found = [];
    for (const width of WIDTHS) await shootBoth("conflict-list", width, found);

    // The banner on the memory: the sentence, once.
    await openMemory("deploys.md");
    const banner = page.getByTestId("conflict-banner");
    await banner.waitFor({ timeout: 20000 });
    assert.equal(await banner.getByTestId("conflict-recall").innerText(), CONFLICT_RECALL);
    assert.equal((await banner.innerText()).split(CONFLICT_RECALL).length - 1, 1, "said once in the banner");
    for (const width of WIDTHS) await shootBoth("conflict-banner", width, found, () => banner.scrollIntoViewIfNeeded());

    // Facts: "In conflict", the same sentence in its lead.
    await activate(page.getByTestId("facts-toggle"));
    const facts = page.getByTestId("facts-conflict");
    await facts.waitFor({ timeout: 20000 });
    assert.ok((await facts.locator(".facts-lead").innerText()).includes(CONFLICT_RECALL), await facts.locator(".facts-lead").innerText());
    for (const width of WIDTHS) await shootBoth("conflict-facts", width, found, () => facts.scrollIntoViewIfNeeded());

    // The Inbox: the conflict listed, the same sentence.
    await activate(page.getByTestId("inbox-button"));
    const inbox = page.getByTestId("inbox-conflicts");
    await inbox.waitFor({ timeout: 20000 });
    assert.equal(await inbox.getAttribute("data-count"), "1");
    assert.equal((await inbox.innerText()).split(CONFLICT_RECALL).length - 1, 1, `said once in the Inbox: ${await inbox.innerText()}`);
    for (const width of WIDTHS) await shootBoth("conflict-inbox", width, found);

    // Status: Memory health counts it, with the sentence; the Sync section says it too.
    await activate(page.getByTestId("status-view"));
    const health = page.getByTestId("health-conflicts");
    await health.waitFor({ timeout: 20000 });
    assert.equal(await health.getAttribute("data-count"), "1");
    assert.match(await health.innerText(), /^Sync conflicts\s*1/);
    assert.ok((await health.innerText()).includes(CONFLICT_RECALL));
    assert.deepEqual(await health.getByTestId("health-conflict").evaluateAll((xs) => xs.map((x) => x.dataset.path)), ["deploys.md"]);
    assert.equal(await page.getByTestId("sync-conflicts-recall").innerText(), CONFLICT_RECALL);
    for (const width of WIDTHS) await shootBoth("conflict-health", width, found, () => health.scrollIntoViewIfNeeded());
    assert.deepEqual(found, []);

    // Both versions kept: the conflict closes, the mark goes (still no reload).
    await openMemory("deploys.md");
    await activate(page.getByTestId("conflict-banner-keep-all"));
    await page.getByTestId("conflict-banner").waitFor({ state: "detached", timeout: 30000 });
    await mark.waitFor({ state: "detached", timeout: 30000 });
  } finally {
    await windowOf(1440, "light");
    await api("set_sync_settings", { settings: { remote: null, author: null, auto: false, claude: true, qwen: true } });
  }
});

/** Every time of day the page shows (its text and its tooltips): "17:12", "05:12 PM". */
const clocks = () =>
  page.evaluate(() => {
    const texts = [document.body.innerText, ...[...document.querySelectorAll("[title]")].map((el) => el.getAttribute("title"))];
    return texts.flatMap((t) => [...t.matchAll(/\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AP]M)?/g)].map((m) => m[0]));
  });

test("Status tells the truth: a decided dream is not “waiting in the Inbox”, the records counted are the ones on disk, one clock format", async () => {
  await windowOf(1440, "light");
  let rejectId = null;
  try {
    // Two dreams in review mode: the first accepted, a later one rejected.
    assert.equal((await api("set_review_mode", { workspace: "personal", on: true })).on, true);
    const first = cli("--workspace", "personal", "dream", "--mechanical");
    const accepted = Number(first.match(/proposal (\d+)/)?.[1]);
    assert.ok(accepted > 0, `the first dream proposed: ${first}`);
    const acceptedNow = await api("inbox_accept", { id: accepted, choice: null });
    assert.equal(acceptedNow.proposal?.status, "accepted", `accepted in review mode, as from the Inbox: ${JSON.stringify(acceptedNow)}`);
    await waitFor(async () => (await api("proposal", { id: accepted })).status === "accepted", "the first proposal accepted");
    const SHARED = "Only window seats.\nWhy: likes the view.";
    writeFileSync(file("travel.md"), topic("Travel", "Seats when travelling", "user", `${SHARED}\n\nPrefers morning flights.\nWhy: sleeps early.`));
    writeFileSync(file("trips.md"), topic("Trips", "Seats and luggage", "user", `${SHARED}\n\nCarry-on only.\nWhy: no waiting at the belt.`));
    await waitFor(async () => (await api("list", { workspace: "personal", memoryType: null })).some((d) => d.path === "trips.md"), "the new memories indexed", 20000);
    const second = cli("--workspace", "personal", "dream", "--mechanical");
    rejectId = Number(second.match(/proposal (\d+)/)?.[1]);
    assert.ok(rejectId > 0, `the second dream proposed: ${second}`);
    await api("set_review_mode", { workspace: "personal", on: false });

    // Rejected in the Inbox, as a person does.
    await chooseWorkspace("personal");
    await hideDrawer();
    await activate(page.getByTestId("inbox-button"));
    const card = page.locator(`[data-testid="proposal"][data-id="${rejectId}"]`);
    await card.waitFor({ timeout: 30000 });
    if ((await card.getByTestId("proposal-body").count()) === 0) await activate(card.getByTestId("proposal-open"));
    await activate(card.getByTestId("proposal-reject"));
    await waitFor(async () => (await card.getByTestId("proposal-status").innerText().catch(() => "")) === "Rejected", "the proposal rejected", 20000);
    rejectId = null;

    // Two conversations with review off: two conversation records more on disk.
    const fake = await useFakeModel({
      chunk_delay_ms: 20,
      replies: { json: [{ json: { paths: [] } }, { json: { paths: [] } }, { json: { paths: [] } }, { json: { paths: [] } }], stream: [{ text: "First reply." }, { text: "Second reply." }] },
    });
    assert.ok(fake.url);
    assert.equal(await api("set_auto_extract", { workspace: "personal", enabled: false }), false);
    assert.equal(await api("set_chat_records", { workspace: "personal", enabled: true }), true);
    const had = recordsOnDisk();
    await showChat();
    for (const [said, reply] of [["We deploy from the main branch.", "First reply."], ["Standup is at half past nine.", "Second reply."]]) {
      await activate(page.getByTestId("chat-new"));
      await waitFor(async () => (await page.locator('[data-testid="chat-pane"] [data-testid="chat-message"]').count()) === 0, "a new, empty chat");
      await chatTurn(said, reply);
    }
    await waitFor(() => recordsOnDisk().length === had.length + 2, `two records more on disk (had ${had.join(", ")})`, 30000);
    const onDisk = recordsOnDisk().length;

    const found = [];
    for (const width of WIDTHS) {
      await windowOf(width, "light");
      await hideDrawer();
      await activate(page.getByTestId("status-view"));
      const lastDream = page.getByTestId("last-dream");
      await lastDream.waitFor({ timeout: 20000 });
      await waitFor(async () => (await lastDream.getAttribute("data-status")) === "proposal_rejected", `the last dream read as rejected (${await lastDream.innerText()})`, 30000);
      const text = await lastDream.innerText();
      assert.doesNotMatch(text, /waiting in the Inbox/, text);
      assert.match(text, /Proposed, then rejected: nothing written/, text);
      const count = page.getByTestId("chat-records-count");
      await waitFor(async () => (await count.innerText()) === `${onDisk} kept`, `“${onDisk} kept” (says ${await count.innerText()})`, 30000);
      assert.match(await page.getByTestId("status-auto").locator("header").innerText(), new RegExp(`· ${onDisk} conversation records`));
      // One clock: every time on the page written the same way (the locale's 12-hour here).
      const times = await clocks();
      assert.ok(times.length > 0, "the page shows a time");
      const twelve = times.filter((t) => /[AP]M$/.test(t));
      assert.ok(twelve.length === 0 || twelve.length === times.length, `one clock format: ${times.join(", ")}`);
      await shootBoth("status", width, found);
    }
    assert.deepEqual(found, []);
  } finally {
    await windowOf(1440, "light");
    if (rejectId) await api("inbox_reject", { id: rejectId, dontLearn: false });
    await api("set_review_mode", { workspace: "personal", on: false });
  }
});

/** The rows the list shows, top first, once two reads a little apart agree. */
async function settledRows() {
  let last = "";
  return waitFor(async () => {
    const rows = await page.locator('[data-testid="memory-row"]').evaluateAll((xs) => xs.map((x) => x.dataset.path));
    const now = rows.join("|");
    const same = rows.length > 0 && now === last;
    last = now;
    if (!same) await page.waitForTimeout(400);
    return same ? rows : null;
  }, "the search results", 20000);
}

test("the keyboard: ↓ Enter opens the top hit (another memory open before); Ctrl+S in Settings saves nothing behind it and never says Saved; Ctrl+S on an unchanged memory says “No changes to save.”", async () => {
  const found = [];
  for (const width of WIDTHS) {
    await windowOf(width, "light");
    await chooseWorkspace("personal");
    await hideDrawer();
    await dismissToasts();
    // What the query finds, top first.
    await page.keyboard.press("Control+k");
    await page.keyboard.type("database");
    const hits = await settledRows();
    assert.ok(hits.length >= 2, `two hits at least: ${hits.join(", ")}`);
    await page.getByTestId("search-input").fill("");
    // The second hit open; the same query typed again; ↓, Enter: the top hit opens.
    await openMemory(hits[1]);
    await page.keyboard.press("Control+k");
    await page.keyboard.type("database");
    assert.deepEqual(await settledRows(), hits);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await waitFor(async () => (await page.locator('[data-testid="memory-row"][aria-selected="true"]').getAttribute("data-path").catch(() => null)) === hits[0], `the top hit ${hits[0]} open`);
    assert.equal(await page.locator('[data-testid="memory-row"][aria-selected="true"]').count(), 1);
    await shootBoth("keyboard-top-hit", width, found);
    await page.getByTestId("search-input").fill("");

    // An edited memory behind Settings: Ctrl+S inside Settings leaves it as it is, says no "Saved".
    await openMemory("go-engineer.md");
    const before = readFileSync(file("go-engineer.md"), "utf8");
    await page.getByTestId("detail-name").focus();
    await page.keyboard.press("End");
    await page.keyboard.type(" (draft)");
    await page.keyboard.press("Control+Comma");
    const dialog = page.getByTestId("model-settings");
    await dialog.waitFor();
    await page.getByTestId("model-base-url").waitFor();
    await page.getByTestId("model-base-url").focus();
    await page.keyboard.press("Control+s");
    const unchanged = page.getByTestId("settings-unchanged");
    await unchanged.waitFor({ timeout: 20000 });
    assert.equal(await unchanged.innerText(), "Nothing to save: no setting was changed.");
    await page.waitForTimeout(1000);
    assert.equal(readFileSync(file("go-engineer.md"), "utf8"), before, "the memory behind the dialog is not saved");
    assert.equal(await page.getByTestId("model-saved").count(), 0, "no “Saved” in Settings");
    assert.equal(await page.getByTestId("toast").filter({ hasText: /^Saved/ }).count(), 0, "no “Saved” toast");
    await shootBoth("keyboard-settings-ctrl-s", width, found);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    assert.match(await page.getByTestId("detail-name").inputValue(), /\(draft\)$/, "the typed name is still there, unsaved");
    assert.equal(readFileSync(file("go-engineer.md"), "utf8"), before);
    // The draft dropped: another memory, asked, Discard.
    await page.locator('[data-testid="memory-row"][data-path="response-style.md"]').click();
    const ask = page.getByRole("dialog", { name: "Discard your changes?" });
    await ask.waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await ask.waitFor({ state: "detached" });

    // Ctrl+S on a memory with no change: "No changes to save.", nothing written.
    await openMemory("response-style.md");
    await dismissToasts();
    const still = readFileSync(file("response-style.md"), "utf8");
    const mtime = statSync(file("response-style.md")).mtimeMs;
    await page.getByTestId("detail-description").focus();
    await page.keyboard.press("Control+s");
    const toast = page.getByTestId("toast").filter({ hasText: "No changes to save." });
    await toast.waitFor({ timeout: 20000 });
    await page.waitForTimeout(1000);
    assert.equal(await page.getByTestId("toast").filter({ hasText: /^Saved/ }).count(), 0, "no “Saved” over nothing");
    assert.equal(readFileSync(file("response-style.md"), "utf8"), still);
    assert.equal(statSync(file("response-style.md")).mtimeMs, mtime, "the file is not touched");
    await shootBoth("keyboard-no-changes", width, found);
    await dismissToasts();
  }
  await windowOf(1440, "light");
  assert.deepEqual(found, []);
});

test("small points: the Inbox follows a proposal made at the command line without a reload; the Welcome stays gone after deleting the memory opened over it; Cancel on a typed new memory asks", async () => {
  const found = [];
  let id = null;
  try {
    // The Inbox open; `mnemo dream` in a terminal proposes; the person comes back to the window.
    await windowOf(1440, "light");
    assert.equal((await api("set_review_mode", { workspace: "personal", on: true })).on, true);
    const SHARED = "Reviews happen on Mondays.\nWhy: the week starts clean.";
    writeFileSync(file("reviews.md"), topic("Reviews", "When code reviews happen", "project", `${SHARED}\n\nTwo approvals per change.\nWhy: policy.`));
    writeFileSync(file("review-days.md"), topic("Review days", "Review schedule", "project", `${SHARED}\n\nNo reviews on Fridays.\nWhy: deploy freeze.`));
    await waitFor(async () => (await api("list", { workspace: "personal", memoryType: null })).some((d) => d.path === "review-days.md"), "the new memories indexed", 20000);
    await chooseWorkspace("personal");
    await hideDrawer();
    await activate(page.getByTestId("inbox-button"));
    await page.getByTestId("inbox-panel").waitFor();
    await page.getByTestId("inbox-empty").waitFor({ timeout: 20000 });
    const pageId = await page.evaluate(() => (window.__trustPage = Math.random()));
    const said = cli("--workspace", "personal", "dream", "--mechanical");
    id = Number(said.match(/proposal (\d+)/)?.[1]);
    assert.ok(id > 0, `the dream proposed: ${said}`);
    await page.evaluate(() => window.dispatchEvent(new Event("focus")));
    const card = page.locator(`[data-testid="proposal"][data-id="${id}"]`);
    await card.waitFor({ timeout: 60000 });
    assert.equal(await page.evaluate(() => window.__trustPage), pageId, "the same page: no reload");
    assert.equal(await page.getByTestId("inbox-empty").count(), 0);
    assert.equal(await page.getByTestId("inbox-filter-pending").innerText(), "Waiting (1)");
    for (const width of WIDTHS) await shootBoth("inbox-from-cli", width, found);
    await api("inbox_reject", { id, dontLearn: false });
    id = null;
    await api("set_review_mode", { workspace: "personal", on: false });

    // The Welcome, on a first run at each width: a memory opened over it, then deleted.
    const main = page;
    for (const width of WIDTHS) {
      const scratch = `scratch-${width}.md`;
      writeFileSync(file(scratch), topic(`Scratch ${width}`, "A note to delete", "project", "Nothing to keep."));
      // Fresh storage (the login link is spent: the session's cookie comes along).
      const fresh = await browser.newContext({ viewport: { width, height: width === 1000 ? 700 : 900 }, locale: "en-US" });
      await fresh.addCookies(await context.cookies());
      page = await fresh.newPage();
      page.on("pageerror", (e) => console.error("page error:", e.message));
      try {
        await page.goto(new URL(server.url).origin + "/");
        await page.getByTestId("welcome").waitFor({ timeout: 30000 });
        await activate(page.locator('[data-testid="workspace-item"][data-id="personal"]'));
        const row = page.locator(`[data-testid="memory-row"][data-path="${scratch}"]`);
        await row.waitFor({ timeout: 20000 });
        await row.click();
        await page.getByTestId("detail-name").waitFor();
        assert.equal(await page.getByTestId("welcome").count(), 0, "the memory opened over the welcome");
        await activate(page.getByTestId("delete-button"));
        await page.getByTestId("confirm-delete").waitFor();
        await activate(page.getByTestId("confirm-delete"));
        await waitFor(() => !existsSync(file(scratch)), `${scratch} deleted`);
        await page.getByTestId("welcome-reopen").waitFor({ timeout: 20000 });
        assert.equal(await page.getByTestId("welcome").count(), 0, "the Welcome does not come back");
        await page.waitForTimeout(1000);
        assert.equal(await page.getByTestId("welcome").count(), 0, "…nor a moment later");
        await dismissToasts();
        await shootBoth("welcome-after-delete", width, found);
      } finally {
        await fresh.close();
        page = main;
      }
    }

    // Cancel on a typed new memory asks; Keep editing keeps the words; Discard drops them.
    for (const width of WIDTHS) {
      await windowOf(width, "light");
      await chooseWorkspace("personal");
      await hideDrawer();
      await activate(page.getByTestId("new-memory-button"));
      const name = page.getByTestId("detail-name");
      await name.waitFor();
      await name.focus();
      await page.keyboard.type("Lunch spot");
      const cancel = page.locator(".detail-pane").getByRole("button", { name: "Cancel", exact: true });
      await activate(cancel);
      const ask = page.getByRole("dialog", { name: "Discard your changes?" });
      await ask.waitFor();
      assert.match(await ask.innerText(), /The new memory is not saved yet: discarding it drops what you typed\./);
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Keep editing", "the safe choice has the focus");
      await shootBoth("cancel-new-asks", width, found);
      await page.keyboard.press("Enter");
      await ask.waitFor({ state: "detached" });
      assert.equal(await name.inputValue(), "Lunch spot", "kept editing: the words stay");
      await activate(cancel);
      await ask.waitFor();
      await activate(page.getByTestId("discard-confirm"));
      await waitFor(async () => (await page.getByTestId("detail-name").count()) === 0, "the new memory dropped");
      assert.equal(existsSync(file("lunch-spot.md")), false, "nothing written");
    }
    assert.deepEqual(found, []);
  } finally {
    await windowOf(1440, "light");
    if (id) await api("inbox_reject", { id, dontLearn: false });
    await api("set_review_mode", { workspace: "personal", on: false });
  }
});
