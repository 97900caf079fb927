//! `journal.db`'s schema: versioned migrations (`db::migrate`), never edited once released.

pub(super) const MIGRATIONS: &[&str] = &[
    r"
CREATE TABLE changes (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace   TEXT NOT NULL,
    path        TEXT NOT NULL,
    source      TEXT NOT NULL,
    at          TEXT NOT NULL,
    op          TEXT NOT NULL,          -- create | modify | delete
    before      BLOB,                   -- NULL: no file, or too large to keep (see before_hash)
    after       BLOB,
    before_hash TEXT,
    after_hash  TEXT,
    undoes      INTEGER REFERENCES changes(id),
    state       TEXT NOT NULL DEFAULT 'pending'  -- pending | done
);
CREATE INDEX changes_by_path ON changes(workspace, path, id);
",
    r"
CREATE TABLE groups (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace TEXT NOT NULL,
    kind      TEXT NOT NULL,            -- extract | dream | forget | remember | undo
    task      TEXT,                     -- the memory task that made it
    label     TEXT NOT NULL,
    at        TEXT NOT NULL,
    undoes    INTEGER REFERENCES groups(id)
);
ALTER TABLE changes ADD COLUMN grp INTEGER REFERENCES groups(id);
CREATE INDEX changes_by_group ON changes(grp, id);
",
    r"
CREATE TABLE forgotten (
    workspace TEXT NOT NULL,
    hash      TEXT NOT NULL,            -- of the case-folded summary; never the text
    at        TEXT NOT NULL,
    PRIMARY KEY (workspace, hash)
);
",
    r"
-- A side holding a secret (a file another program wrote) is kept as its hash only; these name
-- the rules that matched, so history and undo can say why its text is missing.
ALTER TABLE changes ADD COLUMN before_secret TEXT;
ALTER TABLE changes ADD COLUMN after_secret TEXT;
",
    r"
-- Undone is a state: what undid a change or a group is looked up by `undoes`.
CREATE INDEX changes_by_undoes ON changes(undoes);
CREATE INDEX groups_by_undoes ON groups(undoes);
",
    r"
-- Review: proposals held beside the files until a person decides.
CREATE TABLE proposals (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace   TEXT NOT NULL,
    source      TEXT NOT NULL,
    kind        TEXT NOT NULL,          -- extract | dream | remember
    label       TEXT NOT NULL,
    origin      TEXT NOT NULL,          -- JSON: session, message, client, task
    at          TEXT NOT NULL,
    changes     INTEGER NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending',  -- pending | accepting | accepted | rejected | expired
    resolved_at TEXT,
    note        TEXT,
    grp         INTEGER REFERENCES groups(id),
    choice      TEXT                    -- JSON, while accepting
);
CREATE INDEX proposals_by_status ON proposals(workspace, status, id);
CREATE INDEX proposals_by_age ON proposals(workspace, status, at);
CREATE INDEX proposals_by_workspace ON proposals(workspace, id);
CREATE TABLE proposal_files (
    proposal INTEGER NOT NULL REFERENCES proposals(id),
    path     TEXT NOT NULL,
    before   BLOB,
    after    BLOB,
    PRIMARY KEY (proposal, path)
);
-- Usage per memory: each memory a recall injected.
CREATE TABLE recalls (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace TEXT NOT NULL,
    path      TEXT NOT NULL,
    session   TEXT,
    at        TEXT NOT NULL,
    tokens    INTEGER NOT NULL,
    recall    TEXT NOT NULL,         -- the id the recall's telemetry event carries
    carried   INTEGER NOT NULL       -- 1: sent again from an earlier turn, not chosen now
);
CREATE INDEX recalls_by_path ON recalls(workspace, path, id);
",
];
