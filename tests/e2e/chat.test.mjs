// The chat flow in Debian's Chromium against `mnemo serve` + the fake model server: no model
// at first (the pane says what to configure), the model configured in the settings panel and
// tested, then one turn — the reply streams in, the recall badge names the seeded memory, and
// the memory written by background extraction appears in the browser without a reload.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeHome, startServer, startFakeModel, topic, artifacts, waitFor, launchChromium } from "./fixture.mjs";

const REPLY = "Think of a hook like a goroutine-local variable that survives between calls: useState keeps a value across renders.";
const EXTRACTED = topic(
  "Learning React",
  "The user is learning React hooks, coming from Go",
  "user",
  "The user is learning React hooks and wants them explained in Go terms.\nWhy: asked for hooks explained for a Go engineer.",
);

let fixture, server, fake, browser, page;
const shot = (name) => page.screenshot({ path: join(artifacts, `chat-${name}.png`) });

before(async () => {
  fixture = makeHome();
  fake = await startFakeModel(fixture.dir, {
    chunk_delay_ms: 120,
    replies: {
      plain: [{ text: "ok" }],
      json: [{ json: { paths: ["go-engineer.md"] } }],
      stream: [{ text: REPLY }],
      tools: [
        { tool: "write_file", arguments: { path: "user/learning-react.md", content: EXTRACTED }, delay_ms: 300 },
        { text: "Saved 1 memory." },
      ],
    },
  });
  server = await startServer(fixture);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(server.url);
  await page.locator('[data-testid="memory-row"][data-path="go-engineer.md"]').waitFor({ timeout: 30000 });
});

after(async () => {
  await browser?.close();
  server?.child.kill();
  fake?.child.kill();
});

test("without a model the chat pane says what to configure", async () => {
  const banner = page.getByTestId("chat-no-model");
  await banner.waitFor();
  const text = await banner.innerText();
  assert.match(text, /base URL/i);
  assert.match(text, /model/i);
  await shot("no-model");
});

test("the model is configured in settings: tested without saving, then saved", async () => {
  await page.getByTestId("chat-settings-button").click();
  const dialog = page.getByTestId("model-settings");
  await dialog.waitFor();
  await page.getByTestId("model-base-url").fill(fake.url);
  // Leaving the address asks the server for its models (GET /v1/models): offered in the Model field.
  await page.getByTestId("model-name").focus();
  const offered = page.getByTestId("model-offered");
  await waitFor(async () => /offers 2 models/.test(await offered.innerText()), "the server's model list");
  const options = await page.locator("#model-offered option").evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(options, ["fake-fast", "fake-main"]);
  await page.getByTestId("model-name").fill("fake-main");
  await page.getByTestId("model-fast").fill("fake-fast");
  await page.getByTestId("model-test").click();
  const result = page.getByTestId("model-test-result");
  await waitFor(async () => /Connected/.test(await result.innerText().catch(() => "")), "a successful connection test");
  assert.match(await result.innerText(), /fake-main/);
  await shot("settings");
  // Testing saved nothing: Save does.
  const tomlPath = join(fixture.home, "settings.toml");
  assert.ok(!existsSync(tomlPath) || !/fake-main/.test(readFileSync(tomlPath, "utf8")), "Test wrote nothing");
  await page.getByTestId("model-save").click();
  await page.getByTestId("model-saved").waitFor();
  await page.getByTestId("model-close").click();
  await page.getByTestId("chat-no-model").waitFor({ state: "detached" });
  const settings = readFileSync(join(fixture.home, "settings.toml"), "utf8");
  assert.match(settings, /fake-main/);
});

test("a turn streams the reply, shows what was recalled, and the extracted memory appears live", async () => {
  const input = page.getByTestId("chat-input");
  await input.fill("Can you explain React hooks to me?");
  await input.press("Enter");

  // The reply arrives piece by piece: catch it part-way.
  const streaming = page.locator('[data-testid="chat-message"][data-role="assistant"][data-streaming="true"] .chat-text');
  const partial = await waitFor(async () => {
    const t = (await streaming.count()) ? (await streaming.first().innerText()).trim() : "";
    return t.length > 0 && t.length < REPLY.length ? t : null;
  }, "a partly streamed reply");
  assert.ok(REPLY.startsWith(partial), `partial reply: ${partial}`);
  await shot("streaming");

  const done = page.locator('[data-testid="chat-message"][data-role="assistant"]:not([data-streaming="true"])');
  await waitFor(async () => (await done.count()) === 1 && (await done.first().locator(".chat-text").innerText()).trim() === REPLY, "the whole reply");

  // The recall badge names the seeded memory, with why.
  const badge = page.getByTestId("recall-badge").first();
  assert.match(await badge.innerText(), /Recalled 1 memor/);
  await badge.click();
  const details = page.getByTestId("recall-details").first();
  await details.waitFor();
  const why = await details.innerText();
  assert.match(why, /go-engineer\.md/);
  assert.match(why, /Go engineer/);
  assert.match(why, /model/i, "the strategy is shown");

  // The system prompt sent to the model carried the recalled memory's body.
  const requests = await fake.requests();
  const chat = requests.find((r) => r.stream === true);
  assert.ok(chat.messages[0].content.includes("Explain frontend ideas in backend terms."));

  // Background extraction writes a memory; it shows up in the browser without a reload.
  const row = page.locator('[data-testid="memory-row"][data-path="user/learning-react.md"]');
  await row.waitFor({ timeout: 30000 });
  const wrote = page.getByTestId("wrote-badge").first();
  await wrote.waitFor({ timeout: 30000 });
  assert.match(await wrote.innerText(), /Wrote 1 memor/);
  const file = join(fixture.personal, "user/learning-react.md");
  assert.ok(existsSync(file));
  assert.equal(readFileSync(file, "utf8"), EXTRACTED);
  await shot("extracted");

  // Clicking the written memory opens it in the browser.
  await page.getByTestId("wrote-link").first().click();
  await waitFor(async () => (await page.getByTestId("detail-name").inputValue().catch(() => "")) === "Learning React", "the new memory opened");

  // The extraction request carried the turn's transcript, with the manifest preloaded.
  const extraction = (await fake.requests()).find((r) => !r.stream && Array.isArray(r.tools) && r.tools.length > 0);
  assert.match(extraction.messages[0].content, /go-engineer\.md/);
  assert.match(extraction.messages[1].content, /React hooks/);
});

test("/memory answers from Mnemo itself", async () => {
  const input = page.getByTestId("chat-input");
  await input.fill("/memory");
  await input.press("Enter");
  const cmd = page.locator('[data-testid="chat-message"][data-role="command"]').last();
  await cmd.waitFor();
  assert.match(await cmd.innerText(), /4 memories/);
  // A card, not a terminal dump: a heading, a definition list, times in local words (no UTC stamps).
  const card = cmd.getByTestId("memory-card");
  await card.waitFor();
  assert.match(await card.locator("h3").innerText(), /Memory in this chat/);
  assert.ok((await card.locator("dt").count()) >= 5, "the card lists its figures");
  assert.doesNotMatch(await card.innerText(), /\d{4}-\d{2}-\d{2}T|Auto-memory:/);
});
