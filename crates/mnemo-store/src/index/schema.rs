//! `index.db`'s schema: versioned migrations (`db::migrate`). The index is derivable: a corrupt
//! or newer file is moved aside and rebuilt.

pub(super) const MIGRATIONS: &[&str] = &[
    r"
CREATE TABLE docs (
    id           INTEGER PRIMARY KEY,
    workspace    TEXT NOT NULL,
    path         TEXT NOT NULL,
    kind         TEXT NOT NULL,      -- topic | log
    type         TEXT,               -- NULL for logs and invalid files
    name         TEXT NOT NULL,
    description  TEXT NOT NULL,
    body         TEXT NOT NULL,
    raw          BLOB,               -- exact bytes (NULL when too large / binary): before-content for outside edits
    valid        INTEGER NOT NULL,
    problem_code TEXT,
    problem      TEXT,
    mtime_ms     INTEGER NOT NULL,
    size         INTEGER NOT NULL,
    hash         TEXT NOT NULL,
    UNIQUE (workspace, path)
);
CREATE TABLE entries (
    doc_id   INTEGER NOT NULL REFERENCES docs(id) ON DELETE CASCADE,
    idx      INTEGER NOT NULL,
    entry_id TEXT NOT NULL,
    summary  TEXT NOT NULL,
    why      TEXT,
    how      TEXT,
    PRIMARY KEY (doc_id, idx)
);
-- Workspaces scanned at least once: later differences are outside edits worth journaling.
CREATE TABLE synced_workspaces (workspace TEXT PRIMARY KEY);
CREATE VIRTUAL TABLE docs_fts USING fts5(name, description, body, tokenize = 'unicode61 remove_diacritics 0');
",
    r"
-- Telemetry events (recall, extract, dream, …): what happened, how long it took.
CREATE TABLE telemetry (
    id        INTEGER PRIMARY KEY,
    at        TEXT NOT NULL,
    kind      TEXT NOT NULL,
    workspace TEXT NOT NULL,
    data      TEXT NOT NULL
);
CREATE INDEX telemetry_by_kind ON telemetry(kind, id);
",
    r"
-- Per-term document counts, to leave out terms that match most documents (they add almost
-- nothing to bm25 but make every query score thousands of rows).
CREATE VIRTUAL TABLE docs_vocab USING fts5vocab(docs_fts, 'row');
",
    r"
-- Counting a workspace's topics (every recall does) from the index alone: the docs rows are
-- wide (body, raw bytes), and reading 10,000 of them to test `kind` took ~8 ms.
CREATE INDEX docs_by_workspace_kind ON docs(workspace, kind);
",
    r"
-- Embedding vectors, content-addressed: one per (content hash, model id), so a
-- rebuild keeps them and a model change re-embeds. `vec` is little-endian f32, unit length.
CREATE TABLE vectors (
    hash      TEXT NOT NULL,
    model     TEXT NOT NULL,
    truncated INTEGER NOT NULL,
    vec       BLOB NOT NULL,
    PRIMARY KEY (hash, model)
) WITHOUT ROWID;
CREATE INDEX docs_by_hash ON docs(hash);
",
    r"
-- Every sync compares the files' stats with these columns: read from this index alone, not
-- from the wide docs rows (at 100,000 files that read was a quarter of a one-shot search).
CREATE INDEX docs_file_state ON docs(workspace, path, mtime_ms, size, hash);
",
    r"
-- Search now counts a term's documents capped (index/search.rs); the per-term view that read a
-- whole doclist is gone.
DROP TABLE docs_vocab;
",
    r"
-- A file another program wrote that holds a secret: its text is stored redacted and
-- its bytes not at all; this says which rules matched and where, for the listing.
ALTER TABLE docs ADD COLUMN secret TEXT;
",
    r"
-- Whether a memory is pinned (the list shows it). Every file is read again at the next
-- sync (its recorded mtime no longer matches), so the rows already here learn it from the file.
ALTER TABLE docs ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
UPDATE docs SET mtime_ms = -1;
",
    r"
-- English words are also indexed by their stem (`tokenize::stem`): every file is read
-- and its full-text row written again at the next sync.
UPDATE docs SET mtime_ms = -1;
",
    r"
-- Whether a memory is archived (out of recall and MEMORY.md, still searchable). Every
-- file is read again at the next sync, so the rows already here learn it from the file.
ALTER TABLE docs ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
CREATE INDEX docs_archived ON docs(workspace) WHERE archived = 1;
UPDATE docs SET mtime_ms = -1;
",
    r"
-- Where a file's body starts (1-based line), so a search hit can say where its passage is;
-- and notes other tools wrote (`title:`) now read as memories. Every file is read
-- again at the next sync.
ALTER TABLE docs ADD COLUMN body_line INTEGER NOT NULL DEFAULT 1;
UPDATE docs SET mtime_ms = -1;
",
    r"
-- MEMORY.md lists a workspace's first 200 valid, unarchived topics by path and counts the rest:
-- this index alone answers both, so an outside edit at 100,000 memories no longer
-- reads every row to rebuild a 200-line file.
CREATE INDEX docs_listed ON docs(workspace, path) WHERE kind = 'topic' AND valid = 1 AND archived = 0;
",
];
