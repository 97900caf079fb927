// "The app tells one truth": a real sync conflict shown where the facts live. This home
// (Ana) and a second one (Bo, the CLI on another home) sync through a bare repository; each edits
// the same fact of lives-in-lisbon.md (name "Where I live") — "Lives in Lisbon since 2021" here,
// "Lives in Porto since 2024" there — and the merge keeps both. The Status view's card names the
// memory by its name; the memory's detail pane says the machines disagree, with both versions and
// the card's choices; the Facts view lists neither as current; keeping Bo's version from the
// banner leaves only Porto in the file. axe-core: nothing serious on the pane (light and dark),
// and no skipped heading level in Status or the Inbox. Shots: view-conflict-*.png. Then a dream
// in review mode (`mnemo dream --mechanical`, no model needed) deletes mobile-release-freeze.md,
// whose one fact freeze-window.md holds too: its proposal in the Inbox says where the fact went
// and, under "Why", the dream's reasons (view-review-why-*.png).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { makeHome, startServer, topic, artifacts, waitFor, launchChromium, targetDir } from "./fixture.mjs";

let fixture, server, browser, page;
const file = (name) => join(fixture.personal, name);
const HOME = "lives-in-lisbon.md";

/** `mnemo` at the command line on the fixture's own home (the server keeps running), its stdout. */
function cli(...args) {
  const bin = process.env.MNEMO_BIN || join(targetDir, "debug/mnemo");
  return execFileSync(bin, args, { env: { ...fixture.env, MNEMO_EMBED_MODEL: "off" }, encoding: "utf8" });
}

/** POST /api/<command> from the page (its session cookie authenticates). */
const api = (command, args = {}) =>
  page.evaluate(
    async ([c, a]) => {
      const r = await fetch(`/api/${c}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(a) });
      return r.json();
    },
    [command, args],
  );

/** `mnemo` at the command line on another home (a second machine), its stdout. */
function otherMachine(home, ...args) {
  const bin = process.env.MNEMO_BIN || join(targetDir, "debug/mnemo");
  const empty = join(fixture.dir, "other-tools");
  mkdirSync(empty, { recursive: true });
  const env = { ...fixture.env, MNEMO_HOME: home, MNEMO_CLAUDE_DIR: empty, MNEMO_QWEN_DIR: empty, MNEMO_EMBED_MODEL: "off" };
  return execFileSync(bin, ["--home", home, ...args], { env, encoding: "utf8" });
}

async function view(name) {
  const button = name === "memories" ? page.getByRole("button", { name: "Memories", exact: true }) : page.getByTestId(`${name}-view`);
  await button.click();
}

/** Serious or critical axe findings (and, with `rules`, only those rules at any impact). */
async function axe(what, rules = null) {
  const builder = new AxeBuilder({ page });
  if (rules) builder.withRules(rules);
  const r = await builder.analyze();
  return r.violations
    .filter((x) => rules !== null || x.impact === "serious" || x.impact === "critical")
    .map((x) => `${what}: ${x.id} (${x.impact}) — ${x.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
}

before(async () => {
  fixture = makeHome();
  writeFileSync(file(HOME), topic("Where I live", "The user's home town", "user", "Lives in Lisbon.\nWhy: said so in chat.\n\nHas a cat called Xiaomi."));
  server = await startServer(fixture);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(server.url);
  await page.locator(`[data-testid="memory-row"][data-path="${HOME}"]`).waitFor({ timeout: 30000 });
  await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
});

after(async () => {
  await browser?.close();
  server?.child.kill();
});

test("a sync conflict shows on its memory: a banner with both versions and the card's choices, the facts in conflict kept apart; keeping one leaves it alone in the file", async () => {
  const remote = join(fixture.dir, "remote.git");
  execFileSync("git", ["init", "--bare", "--quiet", remote]);
  const saved = await api("set_sync_settings", { settings: { remote, author: "Ana <ana@example.org>", auto: false, claude: true, qwen: true } });
  assert.equal(saved.remote, remote, JSON.stringify(saved));
  const found = [];
  try {
    await view("status");
    const section = page.getByTestId("sync-status");
    await section.waitFor();
    await page.getByTestId("sync-now").click();
    await waitFor(async () => /^Synced just now\.$/.test(await page.getByTestId("sync-sentence").innerText()), "the first sync", 30000);

    // Bo takes the memory and moves the user to Porto; Ana, here, dates Lisbon.
    const other = join(fixture.dir, "other-home");
    otherMachine(other, "sync", "remote", "set", remote);
    otherMachine(other, "sync", "author", "Bo <bo@example.org>");
    otherMachine(other, "sync");
    const theirs = join(other, "workspaces/personal/memory", HOME);
    writeFileSync(theirs, readFileSync(theirs, "utf8").replace("Lives in Lisbon.\nWhy: said so in chat.", "Lives in Porto since 2024.\nWhy: moved for work."));
    otherMachine(other, "sync");
    writeFileSync(file(HOME), readFileSync(file(HOME), "utf8").replace("Lives in Lisbon.", "Lives in Lisbon since 2021."));
    await waitFor(async () => (await api("sync_status")).workspaces.find((w) => w.workspace === "personal")?.pending >= 1, "the edit waiting to be sent");
    await page.getByTestId("sync-now").click();

    // The card names the memory by its name, never "Lives in lisbon".
    const card = page.getByTestId("sync-conflict");
    await card.waitFor({ timeout: 30000 });
    await waitFor(async () => /^Where I live: the same entry was edited on two machines/.test(await card.locator(".sync-conflict-what").innerText()), "the card named by the memory's name");
    assert.doesNotMatch(await card.innerText(), /Lives in lisbon:/);
    found.push(...(await axe("status with a conflict", ["heading-order"])));
    // The inbox lists it too; its headings skip no level either.
    await page.getByTestId("inbox-badge").click();
    await page.getByTestId("inbox-conflicts").waitFor({ timeout: 20000 });
    found.push(...(await axe("inbox with a conflict", ["heading-order"])));

    // The memory itself says so, at the top of its pane.
    await view("memories");
    await page.locator(`[data-testid="memory-row"][data-path="${HOME}"]`).click();
    const banner = page.getByTestId("conflict-banner");
    await banner.waitFor({ timeout: 20000 });
    assert.match(await page.getByTestId("conflict-banner-sentence").innerText(), /^Your machines disagree about this memory: the same fact was changed differently on two of them\./);
    const versions = banner.getByTestId("conflict-banner-version");
    assert.equal(await versions.count(), 2);
    const texts = (await versions.allInnerTexts()).join("\n");
    assert.match(texts, /Ana's version[\s\S]*Lives in Lisbon since 2021/);
    assert.match(texts, /Bo's version[\s\S]*Lives in Porto since 2024/);
    assert.doesNotMatch(texts, /\\u\{a\}/, "a line break shown as a line break, not an escape");
    assert.deepEqual(await banner.getByTestId("conflict-banner-keep").allInnerTexts(), ["Keep Ana's version", "Keep Bo's version"]);
    assert.equal(await banner.getByTestId("conflict-banner-keep-all").innerText(), "Keep both");

    // Facts: neither version is current.
    await page.getByTestId("facts-toggle").click();
    const group = page.getByTestId("facts-conflict");
    await group.waitFor();
    assert.match(await group.innerText(), /In conflict — choose one/);
    assert.equal(await group.getByTestId("conflict-fact").count(), 2);
    const current = await page.getByTestId("facts-current").innerText();
    assert.match(current, /Has a cat called Xiaomi/);
    assert.doesNotMatch(current, /Lisbon|Porto/);
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(150);
      await page.screenshot({ path: join(artifacts, `view-conflict-banner-1440-${scheme}.png`) });
      found.push(...(await axe(`the memory in conflict (${scheme})`)));
      if (scheme === "light") found.push(...(await axe("the memory in conflict", ["heading-order"])));
    }
    await page.emulateMedia({ colorScheme: "light" });

    // Keep Bo's version from the banner: the banner goes, the file holds Porto alone.
    await banner.getByTestId("conflict-banner-keep").nth(1).click();
    await banner.waitFor({ state: "detached", timeout: 20000 });
    await waitFor(() => !readFileSync(file(HOME), "utf8").includes("Lisbon"), "Lisbon gone from the file");
    const text = readFileSync(file(HOME), "utf8");
    assert.match(text, /Lives in Porto since 2024\./);
    assert.match(text, /Has a cat called Xiaomi\./);
    await page.getByTestId("facts-current").waitFor();
    await waitFor(async () => /Lives in Porto since 2024/.test(await page.getByTestId("facts-current").innerText()), "Porto a current fact");
    assert.equal(await page.getByTestId("facts-conflict").count(), 0);
    await waitFor(async () => (await api("sync_status")).workspaces.find((w) => w.workspace === "personal")?.conflicts.length === 0, "the conflict closed");
    assert.deepEqual(found, []);
  } finally {
    await page.emulateMedia({ colorScheme: "light" });
    await api("set_sync_settings", { settings: { remote: null, author: null, auto: false, claude: true, qwen: true } });
  }
});

test("a dream's proposal says where a deleted file's fact went and why each file changed; the inbox's headings skip no level", async () => {
  const FREEZE = "No merges to main in the last week of each month.\nWhy: the mobile release ships then.";
  writeFileSync(file("freeze-window.md"), topic("Freeze window", "When merges stop", "project", `Tag releases on Friday.\n\n${FREEZE}`));
  writeFileSync(file("mobile-release-freeze.md"), topic("Mobile release freeze", "Freeze before the mobile release", "project", "No merges to main in the last week of each month."));
  try {
    assert.equal((await api("set_review_mode", { workspace: "personal", on: true })).on, true);
    await waitFor(async () => (await api("list", { workspace: "personal", memoryType: null })).some((d) => d.path === "mobile-release-freeze.md"), "the new memories indexed");
    const said = cli("--workspace", "personal", "dream", "--mechanical");
    const id = Number(said.match(/proposal (\d+)/)?.[1]);
    assert.ok(id > 0, `the dream made a proposal: ${said}`);
    const proposal = await api("proposal", { id });
    assert.ok(proposal.origin.task, "the proposal names its task");

    await page.reload();
    await page.locator('[data-testid="workspace-item"][data-id="personal"]').click();
    await page.getByTestId("inbox-button").click();
    const card = page.locator(`[data-testid="proposal"][data-id="${id}"]`);
    await card.waitFor({ timeout: 20000 });
    await card.getByTestId("proposal-open").click();
    const deleted = card.locator('[data-testid="proposal-file"][data-path="mobile-release-freeze.md"]');
    await deleted.waitFor();
    const went = deleted.getByTestId("proposal-file-went");
    await went.waitFor({ timeout: 20000 });
    assert.equal(await went.innerText(), "Nothing is lost: every entry it held is kept in freeze-window.md.");
    const why = card.getByTestId("proposal-why");
    await why.waitFor();
    assert.equal(await why.getByRole("heading", { name: "Why" }).count(), 1);
    const notes = await why.getByTestId("proposal-why-note").allInnerTexts();
    assert.ok(notes.length > 0, "the dream's notes under Why");
    assert.ok(notes.every((n) => !/^Review mode: these changes are proposal/.test(n)), `no note restating the inbox: ${notes.join(" | ")}`);
    // A dream that writes a reason per file says the deleted file's under Why too.
    const about = notes.find((n) => n.startsWith("mobile-release-freeze.md:"));
    assert.equal(about, "mobile-release-freeze.md: Deleted: every entry it held is kept in freeze-window.md.", notes.join(" | "));
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(150);
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(artifacts, `view-review-why-1440-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: "light" });
    const found = [...(await axe("inbox with a dream's proposal open", ["heading-order"])), ...(await axe("inbox with a dream's proposal open"))];
    assert.deepEqual(found, []);
  } finally {
    await page.emulateMedia({ colorScheme: "light" });
    await api("set_review_mode", { workspace: "personal", on: false });
  }
});
