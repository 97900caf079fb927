// Benchmarks of the app and the HTTP server on a 10,000-memory fixture home (figures, no
// thresholds): `mnemo serve` latency for list and search; the app's cold start to the first
// rendered list and its idle memory (RSS of the app process and of WebKit's web process).
// Run: xvfb-run -a node tests/e2e/bench.mjs   (needs the debug binaries and tauri-driver)
import { spawn, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { homedir } from "node:os";
import { makeHome, startServer, targetDir, waitFor } from "./fixture.mjs";

const N = Number(process.env.BENCH_MEMORIES || 10000);
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.round((s.length - 1) * p)]; };
const ms = (x) => `${x.toFixed(1)} ms`;

const fixture = makeHome({ extra: N });
console.log(`fixture: ${N + 3} personal + 3 foreign memories`);

// --- mnemo serve -------------------------------------------------------------------------
{
  const server = await startServer(fixture);
  const base = server.url.replace(/\/\?login=.*/, "");
  const token = readFileSync(join(fixture.home, "server.token"), "utf8").trim();
  const call = async (cmd, args) => {
    const t = performance.now();
    const r = await fetch(`${base}/api/${cmd}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(args) });
    const body = await r.json();
    if (!r.ok) throw new Error(JSON.stringify(body));
    return [performance.now() - t, body];
  };
  await call("list", {}); // warm-up (first sync)
  const list = [], search = [];
  for (let i = 0; i < 30; i++) list.push((await call("list", { workspace: null, memoryType: null }))[0]);
  const queries = ["synthetic", "memory 42", "bulk", "Body 9999", "grafana", "简洁", "response style", "number 5"];
  for (let i = 0; i < 80; i++) search.push((await call("search", { workspace: null, query: queries[i % queries.length], limit: 50 }))[0]);
  console.log(`serve list (${N + 6} memories): p50 ${ms(pct(list, 0.5))}, p99 ${ms(pct(list, 0.99))}`);
  console.log(`serve search: p50 ${ms(pct(search, 0.5))}, p99 ${ms(pct(search, 0.99))}`);
  server.child.kill();
}

// --- the app -----------------------------------------------------------------------------
if (!process.env.BENCH_SKIP_APP) {
  const driver = spawn(process.env.TAURI_DRIVER || join(homedir(), ".cargo/bin/tauri-driver"), [], { env: fixture.env, stdio: "ignore" });
  const D = "http://127.0.0.1:4444";
  await waitFor(async () => { try { return (await fetch(`${D}/status`)).ok; } catch { return false; } }, "tauri-driver", 30000);
  const wd = async (method, path, body) => {
    const r = await fetch(`${D}${path}`, { method, headers: { "content-type": "application/json" }, body: body && JSON.stringify(body) });
    const j = await r.json();
    if (!r.ok) throw new Error(JSON.stringify(j));
    return j.value;
  };
  const t0 = performance.now();
  const { sessionId } = await wd("POST", "/session", { capabilities: { alwaysMatch: { "tauri:options": { application: process.env.MNEMO_APP_BIN || join(targetDir, "debug/mnemo-app") } } } });
  await waitFor(async () => (await wd("POST", `/session/${sessionId}/elements`, { using: "css selector", value: '[data-testid="memory-row"]' })).length > 0, "first rows", 120000);
  const cold = performance.now() - t0;
  console.log(`app cold start to first rendered list (incl. WebDriver session set-up): ${ms(cold)}`);
  await new Promise((r) => setTimeout(r, 5000));
  const rss = (pattern) => {
    try {
      return execFileSync("pgrep", ["-f", pattern]).toString().split("\n").filter(Boolean)
        .map((pid) => { try { return readFileSync(`/proc/${pid}/status`, "utf8"); } catch { return ""; } })
        .map((st) => Number((st.match(/VmRSS:\s+(\d+)/) || [0, 0])[1]))
        .filter((kb) => kb > 10 * 1024); // the process itself, not a helper shell
    } catch { return []; }
  };
  const app = rss("debug/mnemo-app");
  const web = rss("WebKitWebProcess");
  console.log(`app idle RSS: ${app.map((k) => `${(k / 1024).toFixed(0)} MiB`).join(", ")} (app) + ${web.map((k) => `${(k / 1024).toFixed(0)} MiB`).join(", ")} (WebKit web process)`);
  await wd("DELETE", `/session/${sessionId}`).catch(() => {});
  driver.kill();
}
