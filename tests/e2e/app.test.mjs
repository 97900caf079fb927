// The real desktop window: the built `mnemo-app` under Xvfb, driven through tauri-driver and
// WebKitWebDriver (W3C WebDriver over HTTP). Opens a fixture home, sees the memory list, edits a
// memory in the UI and reads the change back from disk. The window runs with MNEMO_LOG=trace: a
// text typed into a memory never appears in its logs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { homedir } from "node:os";
import { makeHome, targetDir, artifacts, waitFor, wd, DRIVER, ELEMENT } from "./fixture.mjs";

let fixture, driver, session;
let logs = "";
const MARKER = "Tauri log marker 7f3a9c";

const s = (path) => `/session/${session}${path}`;
async function find(css) {
  const v = await wd("POST", s("/element"), { using: "css selector", value: css });
  // W3C key, or the legacy single key some WebKitWebDriver versions answer with.
  return v[ELEMENT] ?? Object.values(v)[0];
}
async function findAll(css) {
  return (await wd("POST", s("/elements"), { using: "css selector", value: css })).map((e) => e[ELEMENT] ?? Object.values(e)[0]);
}
async function js(script, ...args) {
  return wd("POST", s("/execute/sync"), { script, args });
}

const application = process.env.MNEMO_APP_BIN || join(targetDir, "debug/mnemo-app");

before(async () => {
  fixture = makeHome();
  const tauriDriver = process.env.TAURI_DRIVER || join(homedir(), ".cargo/bin/tauri-driver");
  driver = spawn(tauriDriver, [], { env: { ...fixture.env, MNEMO_LOG: "trace" }, stdio: ["ignore", "pipe", "pipe"] });
  for (const stream of [driver.stdout, driver.stderr]) {
    stream.on("data", (b) => {
      logs += b.toString();
    });
  }
  // Poll /status until the driver is ready before creating a session.
  await waitFor(async () => {
    try {
      const r = await fetch(`${DRIVER}/status`);
      return r.ok;
    } catch {
      return false;
    }
  }, "tauri-driver /status", 30000);
  const created = await wd("POST", "/session", {
    capabilities: { alwaysMatch: { browserName: "wry", "tauri:options": { application } } },
  });
  session = created.sessionId;
});

after(async () => {
  if (session) {
    try {
      const png = await wd("GET", s("/screenshot"));
      writeFileSync(join(artifacts, "app-window.png"), Buffer.from(png, "base64"));
    } catch (e) {
      console.error("screenshot failed:", e.message);
    }
    await wd("DELETE", s("")).catch(() => {});
  }
  driver?.kill();
  // If the session could not be closed cleanly, the window outlives its driver (and, holding the
  // test's output pipe, would keep this run from ever ending): stop it here.
  spawnSync("pkill", ["-KILL", "-f", application]);
});

test("the window lists the fixture's memories and saves an edit to disk, and never logs memory text", async () => {
  // The window remembers the workspace chosen last (in the webview's own storage, which outlives a
  // fixture home and this run): choose "All workspaces" rather than assume a first start.
  await waitFor(async () => (await findAll('[data-testid="workspace-all"]')).length > 0, "the sidebar", 60000);
  await wd("POST", s(`/element/${await find('[data-testid="workspace-all"]')}/click`), {});
  await waitFor(async () => (await findAll('[data-testid="memory-row"]')).length >= 6, "memory rows");
  const paths = await js(
    "return [...document.querySelectorAll('[data-testid=memory-row]')].map(e => e.getAttribute('data-path'))",
  );
  for (const p of ["response-style.md", "user_role.md", "reference/grafana.md"]) {
    assert.ok(paths.includes(p), `${p} listed in ${paths}`);
  }
  // Open one memory, change its description, save with the button.
  await wd("POST", s(`/element/${await find('[data-testid="memory-row"][data-path="response-style.md"]')}/click`), {});
  const desc = await waitFor(async () => (await findAll('[data-testid="detail-description"]'))[0], "detail form");
  await wd("POST", s(`/element/${desc}/clear`), {});
  await wd("POST", s(`/element/${desc}/value`), { text: `Edited in the real window, ${MARKER}` });
  await wd("POST", s(`/element/${await find('[data-testid="save-button"]')}/click`), {});
  const file = join(fixture.personal, "response-style.md");
  await waitFor(() => readFileSync(file, "utf8").includes("description: Edited in the real window"), "the edit on disk");
  const text = readFileSync(file, "utf8");
  assert.match(text, new RegExp(`^---\\nname: Response style\\ndescription: Edited in the real window, ${MARKER}\\ntype: feedback\\n---\\n`));
  // Read it back through the window (a get and a search), then look at what the window logged.
  await wd("POST", s(`/element/${await find('[data-testid="memory-row"][data-path="user_role.md"]')}/click`), {});
  await wd("POST", s(`/element/${await find('[data-testid="memory-row"][data-path="response-style.md"]')}/click`), {});
  await waitFor(async () => (await findAll('[data-testid="detail-description"]')).length > 0, "detail form again");
  logs = logs.replace(/\x1b\[[0-9;]*m/g, "");
  writeFileSync(join(artifacts, "app-trace.log"), logs);
  assert.match(logs, /(TRACE|DEBUG) (mnemo|tauri|wry|tao)[a-z_:]*/, "the window's trace logs were captured");
  assert.ok(!logs.includes(MARKER), "memory text in the window's logs");
  // The embedder's tokenizer logs every character it normalises at trace: held at info.
  assert.doesNotMatch(logs, /TRACE tokenizers/);
});

test("in the window, Import… and Export… offer the native file chooser beside the typed path", async () => {
  await wd("POST", s(`/element/${await find('[data-testid="workspace-item"][data-id="personal"]')}/click`), {});
  await waitFor(async () => (await findAll('[data-testid="import-button"]')).length > 0, "the workspace's tools");
  await wd("POST", s(`/element/${await find('[data-testid="import-button"]')}/click`), {});
  await waitFor(async () => (await findAll('[data-testid="import-source"]')).length > 0, "the Import dialog");
  const labels = await js("return [...document.querySelectorAll('.choose-path button')].map(b => b.textContent)");
  assert.deepEqual(labels, ["Choose file…", "Choose folder…"]);
  const png = await wd("GET", s("/screenshot"));
  writeFileSync(join(artifacts, "app-import-choose.png"), Buffer.from(png, "base64"));
  await js("document.querySelector('[data-testid=import-source]').dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))");
  await waitFor(async () => (await findAll('[data-testid="import-source"]')).length === 0, "the Import dialog closed");
  await wd("POST", s(`/element/${await find('[data-testid="export-button"]')}/click`), {});
  await waitFor(async () => (await findAll('[data-testid="export-dest"]')).length > 0, "the Export dialog");
  assert.deepEqual(await js("return [...document.querySelectorAll('.choose-path button')].map(b => b.textContent)"), ["Choose where…"]);
  await js("document.querySelector('[data-testid=export-dest]').dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))");
  await waitFor(async () => (await findAll('[data-testid="export-dest"]')).length === 0, "the Export dialog closed");
});
