// The app's first chat with the model that comes with Mnemo, in the real desktop window: the
// `mnemo-app` that `scripts/run.sh` built, a home with nothing set, under Xvfb through
// tauri-driver (as app.test.mjs drives it). Not part of the suite (it needs the local model:
// `scripts/run.sh` installs it); run it to look at the screens:
//   MNEMO_APP_BIN=<target>/release/mnemo-app MNEMO_HOME=<empty dir> \
//     xvfb-run -a node tests/e2e/app-first-chat-shots.mjs [out dir]
// Screenshots: the welcome, chat 1 answered (and what it saved), chat 2 in a new chat (what it
// recalled, and the reply).
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { targetDir, waitFor, wd, DRIVER, ELEMENT } from "./fixture.mjs";

const out = process.argv[2] || join(tmpdir(), "mnemo-app-first-chat");
mkdirSync(out, { recursive: true });
const application = process.env.MNEMO_APP_BIN || join(targetDir, "release/mnemo-app");
if (!process.env.MNEMO_HOME) throw new Error("set MNEMO_HOME to an empty folder: the first run of a fresh home is what is shown");
const env = { ...process.env };
for (const k of ["MNEMO_LOCAL_MODEL", "MNEMO_LLM_BASE_URL", "MNEMO_LLM_MODEL", "MNEMO_LLM_FAST_MODEL", "MNEMO_LLM_API_KEY"]) delete env[k];

const driver = spawn(process.env.TAURI_DRIVER || join(homedir(), ".cargo/bin/tauri-driver"), [], { env, stdio: "ignore" });
let session;
try {
  await waitFor(async () => fetch(`${DRIVER}/status`).then((r) => r.ok).catch(() => false), "tauri-driver", 30000);
  session = (await wd("POST", "/session", { capabilities: { alwaysMatch: { browserName: "wry", "tauri:options": { application } } } })).sessionId;
  const s = (p) => `/session/${session}${p}`;
  const js = (script, ...args) => wd("POST", s("/execute/sync"), { script, args });
  const shot = async (name) => writeFileSync(join(out, `${name}.png`), Buffer.from(await wd("GET", s("/screenshot")), "base64"));
  const present = (testid) => js(`return !!document.querySelector('[data-testid="${testid}"]')`);
  const click = (testid) => js(`document.querySelector('[data-testid="${testid}"]').click()`);
  const text = (css) => js(`return Array.from(document.querySelectorAll('${css}')).map(e => e.innerText).join('\\n---\\n')`);
  const replies = () => js(`return document.querySelectorAll('[data-testid="chat-message"][data-role="assistant"]:not([data-streaming="true"])').length`);
  await wd("POST", s("/window/rect"), { width: 1000, height: 760 }).catch(() => {});

  await waitFor(() => present("welcome"), "the welcome", 60000);
  await waitFor(async () => !/^Checking/.test(await text('[data-testid="welcome-model"]')), "the welcome's model sentence", 30000);
  await shot("app-1-welcome");
  if (!(await js(`const e = document.querySelector('[data-testid="chat-input"]'); return !!e && e.offsetParent !== null`))) await click("chat-toggle");
  const say = async (message) => {
    const before = await replies();
    const input = (await wd("POST", s("/element"), { using: "css selector", value: '[data-testid="chat-input"]' }));
    const id = input[ELEMENT] ?? Object.values(input)[0];
    await wd("POST", s(`/element/${id}/value`), { text: message });
    await wd("POST", s(`/element/${id}/value`), { text: "\uE007" });
    const started = Date.now();
    await waitFor(async () => (await replies()) > before, "the whole reply", 300000);
    return (Date.now() - started) / 1000;
  };
  const t1 = await say("Hi! I'm Ana, a data engineer in Lisbon. I'm allergic to peanuts, and please keep answers short.");
  await waitFor(() => present("wrote-badge"), "what chat 1 saved", 300000);
  await shot("app-2-chat-1");
  await click("chat-new");
  await waitFor(async () => (await replies()) === 0, "the new chat, empty", 30000);
  const t2 = await say("Can you suggest a snack for my afternoon break?");
  await js(`const b = document.querySelectorAll('[data-testid="recall-badge"]'); if (b.length) b[b.length - 1].click()`);
  await shot("app-3-chat-2");
  console.log(`chat 1 answered in ${t1.toFixed(1)} s, chat 2 in ${t2.toFixed(1)} s`);
  console.log(await text('[data-testid="chat-message"]'));
  console.log(`screenshots in ${out}`);
} finally {
  if (session) await wd("DELETE", `/session/${session}`).catch(() => {});
  driver.kill();
}
