// The first chat with the model that comes with Mnemo, as a person sees it in the browser UI:
// a fresh home with nothing set, `mnemo serve`, Chromium at 1,000 px. Not part of the suite (it
// needs the local model installed: `mnemo model install`); run it to look at the screens:
//   MNEMO_BIN=… node tests/e2e/local-model-shots.mjs [out dir]
// Screenshots: welcome, chat 1 (the allergy saved), chat 2 (recalled and heeded), settings,
// settings in dark mode.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium, startServer, waitFor } from "./fixture.mjs";

const out = process.argv[2] || join(tmpdir(), "mnemo-local-shots");
const dir = mkdtempSync(join(tmpdir(), "mnemo-local-"));
const env = { ...process.env, MNEMO_HOME: join(dir, "home"), MNEMO_CLAUDE_DIR: join(dir, "claude"), MNEMO_QWEN_DIR: join(dir, "qwen"), MNEMO_LOG: "warn" };
for (const k of ["MNEMO_LOCAL_MODEL", "MNEMO_LLM_BASE_URL", "MNEMO_LLM_MODEL", "MNEMO_LLM_FAST_MODEL", "MNEMO_LLM_API_KEY"]) delete env[k];
const server = await startServer({ env });
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1000, height: 760 } });
const shot = (name) => page.screenshot({ path: join(out, `${name}.png`) });
try {
  await page.goto(server.url);
  await page.getByTestId("welcome").waitFor({ timeout: 30000 });
  await waitFor(async () => /comes with Mnemo/.test(await page.getByTestId("welcome-model").innerText()), "the welcome names the local model");
  await shot("1-welcome");
  // At 1,000 px the chat is a panel opened from the sidebar.
  if (!(await page.getByTestId("chat-input").isVisible().catch(() => false))) await page.getByTestId("chat-toggle").click();
  const say = async (text) => {
    const before = await page.locator('[data-testid="chat-message"][data-role="assistant"]:not([data-streaming="true"])').count();
    const input = page.getByTestId("chat-input");
    await input.fill(text);
    await input.press("Enter");
    await waitFor(
      async () => (await page.locator('[data-testid="chat-message"][data-role="assistant"]:not([data-streaming="true"])').count()) > before,
      "the whole reply",
      180000,
    );
  };
  await say("Hi! I'm Ana, a data engineer in Lisbon. I'm allergic to peanuts, and please keep answers short.");
  await page.getByTestId("wrote-badge").first().waitFor({ timeout: 180000 });
  await shot("2-chat-1-saved");
  await page.getByTestId("chat-new").click();
  await say("Can you suggest a snack for my afternoon break?");
  await page.getByTestId("recall-badge").last().click();
  await page.getByTestId("recall-details").last().waitFor();
  await shot("3-chat-2-recalled");
  await page.getByTestId("chat-settings-button").click();
  await page.getByTestId("model-choice").waitFor();
  await waitFor(async () => /Installed/.test(await page.getByTestId("model-local-status").innerText()), "the local model's state");
  await shot("4-settings");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot("5-settings-dark");
  console.log(`screenshots in ${out}`);
} finally {
  await browser.close();
  server.child.kill();
}
