import type { LocalModelInfo } from "./bindings";

/** One sentence on the model that comes with Mnemo, for Settings and the welcome. */
export function localModelText(m: LocalModelInfo): string {
  if (!m.installed) return `Not installed yet (${m.size} to fetch): install it here, or with \`mnemo model install\`.`;
  if (!m.server_found) return m.missing ?? "llama-server was not found.";
  if (m.pid !== null) return `Installed and running on this computer (${m.size}).`;
  return `Installed (${m.size}); it starts when a message needs it.`;
}

/** Whether the local model can answer now (installed, and its server found). */
export function localModelReady(m: LocalModelInfo): boolean {
  return m.installed && m.server_found;
}
