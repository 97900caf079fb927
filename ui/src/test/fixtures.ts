import type {
  LocalModelInfo,
  ApiError,
  ChangeSummary,
  ConversationEstimate,
  DocSummary,
  ErrorCode,
  Field,
  ImportPreview,
  MemoryDetail,
  MemoryStats,
  MemoryUsage,
  ModelSettings,
  Proposal,
  ProposalPage,
  ProposalSummary,
  RememberTask,
  ReviewMode,
  Semantic,
  RemoteSync,
  Status,
  SyncConflict,
  SyncSettings,
  TaskInfo,
  WorkspaceInfo,
  WorkspaceSync,
} from "../lib/bindings";
import type { Result } from "../lib/transport";

export function ok<T>(data: T): Result<T, ApiError> {
  return { status: "ok", data };
}

export function err<T = never>(code: ErrorCode, message: string, field?: Field): Result<T, ApiError> {
  return { status: "error", error: field ? { code, message, field } : { code, message } };
}

const counts = { topics: 5, invalid: 1, logs: 0 };

export const WORKSPACES: WorkspaceInfo[] = [
  {
    id: "personal",
    kind: "mnemo",
    label: "Personal",
    origin: "/home/u/.local/share/mnemo/workspaces/personal/memory",
    memory_root: "/home/u/.local/share/mnemo/workspaces/personal/memory",
    state_dir: "/home/u/.local/share/mnemo/workspaces/personal",
    lock_dir: "/home/u/.local/share/mnemo/workspaces/personal",
    shared: null,
    counts,
  },
  {
    id: "claude-proj",
    kind: "claude",
    label: "proj",
    origin: "/home/u/src/proj",
    memory_root: "/home/u/.claude/projects/proj/memory",
    state_dir: "/home/u/.local/share/mnemo/external/claude/proj",
    lock_dir: "/home/u/.claude/projects/proj",
    shared: null,
    counts: { topics: 1, invalid: 0, logs: 0 },
  },
];

const now = new Date().toISOString();

function doc(path: string, type: DocSummary["type"], name: string, description: string, extra: Partial<DocSummary> = {}): DocSummary {
  return { workspace: "personal", path, kind: "topic", type, name, description, mtime: now, valid: true, pinned: false, archived: false, ...extra };
}

export const DOCS: DocSummary[] = [
  doc("response-style.md", "feedback", "Response style", "Keep answers terse"),
  doc("zeta.md", "user", "Zeta user fact", "Sorted last among users"),
  doc("me.md", "user", "Alpha role", "The user is a Rust developer"),
  doc("proj.md", "project", "Launch date", "Ships in March"),
  doc("links.md", "reference", "Dashboards", "Grafana at grafana.example"),
  doc("broken.md", null, "", "", {
    valid: false,
    problem: { code: "invalid_frontmatter", message: "missing name in frontmatter" },
  }),
];

export function detailOf(d: DocSummary, hash = "h1"): MemoryDetail {
  const body = `${d.description}.\nWhy: because.\n`;
  return {
    ...d,
    hash,
    content: `---\nname: ${d.name}\ndescription: ${d.description}\ntype: ${d.type}\n---\n${body}`,
    body,
    entries: [{ id: d.path, summary: d.description, why: "because." }],
    pinned: false,
  };
}

/** A workspace's `stats`: extraction on, dream off, nothing run yet, all healthy. */
export function memoryStats(extra: Partial<MemoryStats> = {}): MemoryStats {
  return {
    workspace: "personal",
    auto_extract: true,
    auto_dream: false,
    last_extract_at: null,
    last_extract_status: null,
    last_dream_at: null,
    last_dream_status: null,
    last_dream_undone_by: null,
    topics: 6,
    logs: 0,
    chats: 0,
    chat_records: true,
    extraction: { road: "tools", then_planner: true, why: "not learned yet for this model: the tool agent first, the planner when it writes nothing" },
    memory_md_lines: 6,
    memory_md_max_lines: 200,
    memory_md_bytes: 400,
    memory_md_max_bytes: 25000,
    invalid: [],
    stale: [],
    expensive: [],
    archived: [],
    duplicates: 0,
    duplicate_files: [],
    same_name: [],
    same_subject: [],
    telemetry: [],
    ...extra,
  };
}

/** Model settings as `getModelSettings` returns them once a model is configured. */
export const MODEL_SETTINGS: ModelSettings = {
  base_url: "http://127.0.0.1:11434/v1",
  model: "qwen3:8b",
  fast_model: "",
  context_window: 32768,
  timeout_secs: 120,
  api_key: null,
  has_key: false,
  configured: true,
  env_overrides: [],
  extraction: "auto",
  extraction_choice: { road: "tools", then_planner: true, why: "not learned yet for this model: the tool agent first, the planner when it writes nothing" },
};

/** Semantic search as `status` reports it without an embedding model. */
export const SEMANTIC_NOT_INSTALLED: Semantic = {
  state: "not_installed",
  model: null,
  embedded: 0,
  total: 0,
  message: "search is lexical only: no embedding model found (install one with `mnemo model install`)",
};

/** `status` of a fresh install; `semantic` as given (no embedding model by default). */
export function status(semantic: Semantic = SEMANTIC_NOT_INSTALLED): Status {
  return { home: "/home/u/.local/share/mnemo", workspaces: [], index_bytes: 0, warnings: [], semantic };
}

/** A memory task, completed unless `extra` says otherwise. */
export function task(id: string, extra: Partial<TaskInfo> = {}): TaskInfo {
  return {
    id,
    kind: "extract",
    workspace: "personal",
    session: "s-1",
    status: "completed",
    reason: null,
    phase: null,
    progress: null,
    tools: [],
    result: null,
    error: null,
    created_at: "2026-03-01T10:00:00Z",
    updated_at: "2026-03-01T10:00:05Z",
    started_at: "2026-03-01T10:00:01Z",
    finished_at: "2026-03-01T10:00:05Z",
    ...extra,
  };
}

/** A remember request as the API answers it: queued in `personal` unless `extra` says otherwise. */
export function rememberTask(extra: Partial<RememberTask> = {}): RememberTask {
  return { ...QUEUED_REMEMBER, ...extra };
}

const QUEUED_REMEMBER: RememberTask = {
  taskId: "remember-1",
  workspace: "personal",
  status: "queued",
  contextMode: "workspace",
  createdAt: "2026-03-01T10:00:00Z",
  updatedAt: "2026-03-01T10:00:00Z",
  result: null,
  error: null,
};

/** A journaled change; `group` null is a single change. */
export function change(id: number, path: string, extra: Partial<ChangeSummary> = {}): ChangeSummary {
  return { id, workspace: "personal", path, source: "user", at: "2026-03-01T10:00:00Z", op: "modify", undoes: null, group: null, undone_by: null, ...extra };
}

/** One workspace's sync: synced at 10:00, nothing waiting. */
export function workspaceSync(extra: Partial<WorkspaceSync> = {}): WorkspaceSync {
  return {
    workspace: "personal",
    label: "Personal",
    key: "mnemo/personal",
    // The remote it syncs through (null here: the status's own remote is shown).
    remote: null,
    shared: false,
    not_synced: null,
    last_synced: "2026-03-01T10:00:00Z",
    pending: 0,
    incoming: 0,
    changed: [],
    group: null,
    conflicts: [],
    flagged: [],
    shares_with: [],
    sent: { added: 0, removed: 0, changed: 0 },
    received: { added: 0, removed: 0, changed: 0 },
    ...extra,
  };
}

/** A sync with a remote set up; `workspaces` as given (the personal one synced by default). */
export function remoteSync(extra: Partial<RemoteSync> = {}): RemoteSync {
  return {
    remote: "git@git.example:me/memory.git",
    auto: false,
    commit: "c0ffee",
    ahead: 0,
    behind: 0,
    last_run: { at: "2026-03-01T10:00:00Z", error: null, commit: "c0ffee" },
    workspaces: [workspaceSync()],
    elsewhere: [],
    ...extra,
  };
}

/** Two machines edited the same entry of prefs.md differently. */
export function syncConflict(extra: Partial<SyncConflict> = {}): SyncConflict {
  return {
    id: "k1",
    path: "prefs.md",
    kind: "edited",
    field: null,
    choices: [
      { label: "Ana's version", texts: ["Tabs, width 4."] },
      { label: "laptop's version", texts: ["Spaces, width 2."] },
    ],
    at: "2026-03-01T10:00:00Z",
    ...extra,
  };
}

/** Sync settings as a fresh home has them: no remote, Claude Code and Qwen Code included. */
export const SYNC_SETTINGS: SyncSettings = { remote: null, author: null, auto: false, claude: true, qwen: true, sessions: false, shared: {} };

/** A workspace's review mode: off, nobody decided, nothing to offer. */
export function reviewMode(extra: Partial<ReviewMode> = {}): ReviewMode {
  return { on: false, decided: false, offer: false, ...extra };
}

/** A page of the inbox. */
export function proposalPage(items: ProposalSummary[] = [], extra: Partial<ProposalPage> = {}): ProposalPage {
  return { items, total: items.length, pending: items.filter((p) => p.status === "pending").length, ...extra };
}

/** A pending proposal of an extraction after a chat message: two changes to travel.md. */
export function proposalSummary(id: number, extra: Partial<ProposalSummary> = {}): ProposalSummary {
  return {
    id,
    workspace: "personal",
    source: "extract",
    kind: "extract",
    label: "extraction after chat s-1",
    origin: { session: "s-1", message: "我下个月去东京，记得我只坐靠窗的座位", client: null, task: "extract-1" },
    at: "2026-03-01T10:00:00Z",
    status: "pending",
    resolved_at: null,
    note: null,
    group: null,
    paths: ["travel.md"],
    changes: 2,
    ...extra,
  };
}

const TRAVEL_BEFORE = "---\nname: 旅行偏好\ndescription: 出行时的座位和航班偏好\ntype: user\n---\nPrefers morning flights.\n";
const TRAVEL_AFTER =
  "---\nname: 旅行偏好\ndescription: 出行时的座位和航班偏好\ntype: user\n---\nPrefers evening flights.\n\n只坐靠窗的座位。\nWhy: 喜欢看风景。\n";

/** The proposal of `proposalSummary(id)` with its file: one entry rewritten, one added. */
export function proposalOf(id: number, extra: Partial<ProposalSummary> = {}): Proposal {
  return {
    ...proposalSummary(id, extra),
    files: [
      {
        path: "travel.md",
        op: "modify",
        base_hash: "h0",
        before: TRAVEL_BEFORE,
        after: TRAVEL_AFTER,
        entries: [
          { id: "travel.md#1", op: "edit", before: "Prefers morning flights.", after: "Prefers evening flights." },
          { id: "travel.md#2", op: "add", before: null, after: "只坐靠窗的座位。\nWhy: 喜欢看风景。" },
        ],
      },
    ],
  };
}

/** A memory's usage; never recalled unless `extra` says otherwise. */
export function memoryUsage(path: string, extra: Partial<MemoryUsage> = {}): MemoryUsage {
  return { path, recalls: 0, last_recalled: null, tokens: 0, last_tokens: 0, carried: 0, sessions: 0, recent_sessions: [], ...extra };
}

/** A mem0 export's preview: 5 memories in 2 files, one duplicate and one secret left out. */
export function memoryPreview(extra: Partial<ImportPreview> = {}): ImportPreview {
  return {
    source: "/home/u/mem0.json",
    format: "mem0",
    format_label: "mem0 export",
    workspace: "personal",
    items: 7,
    memories: 5,
    files: 2,
    by_type: [
      { type: "feedback", count: 2 },
      { type: "user", count: 3 },
    ],
    duplicates: 1,
    secrets: 1,
    skipped: 0,
    reasons: [],
    samples: [],
    conversations: null,
    plan: "p1",
    ...extra,
  };
}

/** What 20 conversations (4 read before) would cost, a model ready. */
export function estimate(extra: Partial<ConversationEstimate> = {}): ConversationEstimate {
  return {
    conversations: 20,
    done_before: 4,
    messages: 1340,
    model_calls: 48,
    tokens: 182000,
    budget_tokens: 227500,
    spent_tokens: 0,
    model_ready: true,
    ...extra,
  };
}

/** The model that comes with Mnemo: installed, not running, not in use. */
export const LOCAL_MODEL: LocalModelInfo = {
  name: "qwen2.5-coder-1.5b-instruct",
  size: "1.1 GB",
  installed: true,
  server_found: true,
  in_use: false,
  pid: null,
  log: "/home/ana/.local/share/mnemo/local-model/server.log",
  missing: null,
};
