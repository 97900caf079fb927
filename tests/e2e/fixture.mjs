// Shared set-up for the end-to-end suites: a fixture home (Mnemo + Claude Code + Qwen Code
// memory folders, CJK included) in a temp folder, and helpers to start programs and wait.
import { mkdtempSync, mkdirSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir, homedir } from "node:os";
import { join, dirname, resolve } from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const targetDir = process.env.CARGO_TARGET_DIR || join(homedir(), ".cache/mnemo-target");
export const artifacts = join(repoRoot, "tests/e2e/artifacts");
mkdirSync(artifacts, { recursive: true });

export function topic(name, description, type, body) {
  return `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n${body}\n`;
}

function put(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A fresh fixture home; `extra` more memories in `personal` (for the big-list check). */
export function makeHome({ extra = 0 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "mnemo-e2e-"));
  chmodSync(dir, 0o755);
  const home = join(dir, "home");
  const personal = join(home, "workspaces/personal/memory");
  put(join(personal, "response-style.md"), topic("Response style", "Keep answers terse; no trailing summaries", "feedback", "Keep replies short.\nWhy: the user reads diffs."));
  put(join(personal, "go-engineer.md"), topic("Go engineer", "Senior Go engineer, new to React", "user", "Explain frontend ideas in backend terms."));
  put(join(personal, "freeze.md"), topic("发布冻结", "移动端发布前保持简洁的合并冻结窗口", "project", "每月最后一周冻结合并。"));
  for (let i = 0; i < extra; i++) {
    put(join(personal, `bulk/m${String(i).padStart(5, "0")}.md`), topic(`Bulk memory ${i}`, `Synthetic memory number ${i}`, ["user", "feedback", "project", "reference"][i % 4], `Body ${i}.`));
  }
  const claude = join(dir, "claude");
  put(join(claude, "projects/-home-me-app/memory/user_role.md"), topic("Role", "Data scientist who writes Python", "user", "Prefers pandas."));
  put(join(claude, "projects/-home-me-app/memory/feedback_tests.md"), topic("Real tests", "Integration tests hit a real database", "feedback", "No mocks."));
  const qwen = join(dir, "qwen");
  put(join(qwen, "projects/-home-me-svc/memory/reference/grafana.md"), topic("Latency board", "Grafana board for QWEN API latency", "reference", "https://grafana.example/d/api"));
  return {
    dir,
    home,
    personal,
    claudeMemory: join(claude, "projects/-home-me-app/memory"),
    env: { ...process.env, MNEMO_HOME: home, MNEMO_CLAUDE_DIR: claude, MNEMO_QWEN_DIR: qwen, MNEMO_LOG: "warn" },
  };
}

/** Start `mnemo serve` on a free port; resolves with the login URL and the child. */
export function startServer(fixture) {
  const bin = process.env.MNEMO_BIN || join(targetDir, "debug/mnemo");
  // MNEMO_UI_DIST: a UI built elsewhere (e.g. `vite build --outDir /tmp/ui`), so a run need not rebuild ui/dist.
  const ui = process.env.MNEMO_UI_DIST || join(repoRoot, "ui/dist");
  const child = spawn(bin, ["serve", "--port", "0", "--ui", ui], { env: fixture.env, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (d) => { err += d; });
  return new Promise((resolveUrl, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`mnemo serve did not start: ${err}`)), 30000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/(http:\/\/127\.0\.0\.1:\d+\/\?login=[0-9a-f]+)/);
      if (m) { clearTimeout(timer); resolveUrl({ url: m[1], child }); }
    });
    child.on("exit", (code) => reject(new Error(`mnemo serve exited with ${code}: ${err}`)));
  });
}

export async function waitFor(check, what, timeoutMs = 15000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Start the fake OpenAI-compatible model server (`mnemo-fake-model`, the project's only
 * stand-in) with a script of replies; resolves with its base URL, a `requests()` helper and the child.
 */
export function startFakeModel(dir, script) {
  const bin = process.env.MNEMO_FAKE_MODEL_BIN || join(targetDir, "debug/mnemo-fake-model");
  const path = join(dir, "fake-model-script.json");
  writeFileSync(path, JSON.stringify(script));
  const child = spawn(bin, [path], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (d) => { err += d; });
  return new Promise((resolveUrl, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`mnemo-fake-model did not start: ${err}`)), 30000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/FAKE_MODEL_URL=(\S+)/);
      if (m) {
        clearTimeout(timer);
        const url = m[1];
        const requests = async () => (await fetch(url.replace(/\/v1$/, "/_requests"))).json();
        resolveUrl({ url, child, requests });
      }
    });
    child.on("exit", (code) => reject(new Error(`mnemo-fake-model exited with ${code}: ${err}`)));
  });
}

/** Debian's Chromium, headless, with nothing reaching out to the network on its own. */
export async function launchChromium() {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** tauri-driver's address (the W3C WebDriver endpoint the real window is driven through). */
export const DRIVER = "http://127.0.0.1:4444";
/** The W3C key of an element reference. */
export const ELEMENT = "element-6066-11e4-a52f-4a0ab8f93cbe";

/** One W3C WebDriver call to tauri-driver; its `value`, or an error naming the call. */
export async function wd(method, path, body) {
  const r = await fetch(`${DRIVER}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await r.json();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json.value ?? json)}`);
  return json.value;
}
