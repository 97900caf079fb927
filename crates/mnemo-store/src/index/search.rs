//! Full-text search over the index: bm25 with the column weights below, ties to
//! the newest, and bounded work at any size.
//!
//! FTS5 scores every document that matches a query before it can sort, so a word found in most
//! memories made one query score most of the index (60 ms at 100,000 memories). The planner
//! keeps the work bounded without losing what matters:
//! - each term's document count is read up to [`COMMON_TERM_DOCS`] (a capped count: cheap);
//! - a term in more documents than that is *common*; when the query also has rarer terms, the
//!   common ones are left out — they barely move bm25, and the rare ones decide;
//! - when every term is common, only the newest [`COMMON_TERM_DOCS`] documents of the scope that
//!   contain them are ranked (such words say little about which memory is meant; recency does).
//!   Rowids follow recency: a changed document is stored under a new rowid and a rebuild inserts
//!   oldest first (see `Batch::upsert` and the sync);
//! - the last word is matched as a prefix (search as you type) only while it is not yet a word
//!   of the index: "deploy" means deploy, "depl" finds deploy and deployment.

use mnemo_core::Result;
use rusqlite::OptionalExtension;

use super::{Hit, Index, ms_to_rfc3339};
use crate::db;
use crate::doc::DocKind;
use crate::tokenize;

/// A term found in more documents than this is common (see the module docs).
pub const COMMON_TERM_DOCS: i64 = 2_000;

/// bm25 column weights: name, description, body.
const WEIGHTS: (f64, f64, f64) = (5.0, 3.0, 1.0);

/// Best matches ranked inside FTS5, then joined to their docs and filtered (`?8` = pool size,
/// `?9` = lowest rowid ranked).
const SEARCH_POOLED: &str =
    "SELECT d.workspace, d.path, r.rank, d.name, d.type, d.description, d.mtime_ms
     FROM (SELECT rowid AS id, bm25(docs_fts, ?4, ?5, ?6) AS rank FROM docs_fts
           WHERE docs_fts MATCH ?1 AND rowid >= ?9 ORDER BY rank LIMIT ?8) r
     JOIN docs d ON d.id = r.id
     WHERE (?2 IS NULL OR d.workspace = ?2) AND (?7 IS NULL OR d.kind = ?7)
     ORDER BY r.rank, d.mtime_ms DESC LIMIT ?3";
/// Every match joined and filtered, then ranked (when the pool was not enough; `?8` = lowest
/// rowid ranked).
const SEARCH_FULL: &str = "SELECT d.workspace, d.path, bm25(docs_fts, ?4, ?5, ?6) AS rank, d.name, d.type, d.description, d.mtime_ms
     FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid
     WHERE docs_fts MATCH ?1 AND docs_fts.rowid >= ?8 AND (?2 IS NULL OR d.workspace = ?2)
       AND (?7 IS NULL OR d.kind = ?7)
     ORDER BY rank, d.mtime_ms DESC LIMIT ?3";
/// The rowid of the `?4`-th newest match in scope (the lower end of a window of common terms).
const WINDOW_START: &str = "SELECT f.rowid FROM docs_fts f JOIN docs d ON d.id = f.rowid
     WHERE f.docs_fts MATCH ?1 AND (?2 IS NULL OR d.workspace = ?2) AND (?3 IS NULL OR d.kind = ?3)
     ORDER BY f.rowid DESC LIMIT 1 OFFSET ?4";

/// How a query runs: the MATCH expression and the lowest rowid ranked.
#[derive(Debug, PartialEq)]
struct Plan {
    expr: String,
    from_rowid: i64,
}

impl Index {
    /// Full-text search, best first; ties go to the newest. Logs are searchable too.
    pub fn search(&self, workspace: Option<&str>, query: &str, limit: usize) -> Result<Vec<Hit>> {
        self.search_kind(workspace, query, limit, None)
    }

    /// Full-text search over one kind of doc (`Some(Topic)`: memories only, as recall wants).
    pub fn search_kind(
        &self,
        workspace: Option<&str>,
        query: &str,
        limit: usize,
        kind: Option<DocKind>,
    ) -> Result<Vec<Hit>> {
        let Some(plan) = self.plan(workspace, query, kind)? else {
            return Ok(Vec::new());
        };
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // Rank inside FTS5 first and join only the best: joining every match to the wide
        // `docs` rows before sorting was most of the time at 100,000 documents. The pool leaves
        // room for matches the workspace or kind filter drops; when it was not enough the full
        // query runs.
        let pool = limit.saturating_mul(4).max(limit.saturating_add(100));
        let hits = self.search_sql(SEARCH_POOLED, &plan, workspace, limit, kind, Some(pool))?;
        if hits.len() as i64 >= limit || (workspace.is_none() && kind.is_none()) {
            return Ok(hits);
        }
        self.search_sql(SEARCH_FULL, &plan, workspace, limit, kind, None)
    }

    /// Choose the terms and the window of a query (see the module docs); `None` when it has no
    /// searchable terms.
    fn plan(
        &self,
        workspace: Option<&str>,
        query: &str,
        kind: Option<DocKind>,
    ) -> Result<Option<Plan>> {
        let terms = tokenize::search_terms(query);
        if terms.is_empty() {
            return Ok(None);
        }
        let mut dfs = Vec::with_capacity(terms.len());
        for t in &terms {
            dfs.push(self.match_count_capped(&tokenize::fts_expr(std::slice::from_ref(t), false))?);
        }
        // Still being typed: the last word is not a word of the index yet.
        let last = terms.len() - 1;
        let prefix_last =
            tokenize::ends_in_word(query) && terms[last].chars().count() >= 3 && dfs[last] == 0;
        if prefix_last {
            dfs[last] = self.match_count_capped(&tokenize::fts_expr(&terms[last..], true))?;
        }
        let all_common = dfs.iter().all(|d| *d > COMMON_TERM_DOCS);
        let kept: Vec<(usize, &String)> = terms
            .iter()
            .enumerate()
            .filter(|(i, _)| all_common || dfs[*i] <= COMMON_TERM_DOCS)
            .collect();
        let kept_terms: Vec<String> = kept.iter().map(|(_, t)| (*t).clone()).collect();
        let prefix = prefix_last && kept.last().is_some_and(|(i, _)| *i == last);
        let expr = tokenize::fts_expr(&kept_terms, prefix);
        let from_rowid = if all_common {
            self.window_start(&expr, workspace, kind)?
        } else {
            0
        };
        Ok(Some(Plan { expr, from_rowid }))
    }

    /// How many documents match `expr`, counted up to one past [`COMMON_TERM_DOCS`].
    fn match_count_capped(&self, expr: &str) -> Result<i64> {
        self.conn
            .prepare_cached(
                "SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ?1 LIMIT ?2)",
            )
            .and_then(|mut s| {
                s.query_row(rusqlite::params![expr, COMMON_TERM_DOCS + 1], |r| r.get(0))
            })
            .map_err(db::err("searching the index"))
    }

    /// The lowest rowid of the newest [`COMMON_TERM_DOCS`] matches in scope (0 when there are
    /// fewer).
    fn window_start(
        &self,
        expr: &str,
        workspace: Option<&str>,
        kind: Option<DocKind>,
    ) -> Result<i64> {
        let start: Option<i64> = self
            .conn
            .prepare_cached(WINDOW_START)
            .and_then(|mut s| {
                s.query_row(
                    rusqlite::params![
                        expr,
                        workspace,
                        kind.map(DocKind::as_str),
                        COMMON_TERM_DOCS - 1
                    ],
                    |r| r.get(0),
                )
                .optional()
            })
            .map_err(db::err("searching the index"))?;
        Ok(start.unwrap_or(0))
    }

    fn search_sql(
        &self,
        sql: &str,
        plan: &Plan,
        workspace: Option<&str>,
        limit: i64,
        kind: Option<DocKind>,
        pool: Option<i64>,
    ) -> Result<Vec<Hit>> {
        let mut st = self
            .conn
            .prepare_cached(sql)
            .map_err(db::err("searching the index"))?;
        let kind = kind.map(DocKind::as_str);
        let mut args: Vec<&dyn rusqlite::ToSql> = vec![
            &plan.expr, &workspace, &limit, &WEIGHTS.0, &WEIGHTS.1, &WEIGHTS.2, &kind,
        ];
        if let Some(pool) = &pool {
            args.push(pool);
        }
        args.push(&plan.from_rowid);
        st.query_map(args.as_slice(), |r| {
            let ty: Option<String> = r.get(4)?;
            Ok(Hit {
                workspace: r.get(0)?,
                path: r.get(1)?,
                score: -r.get::<_, f64>(2)?,
                name: r.get(3)?,
                memory_type: ty.and_then(|t| t.parse().ok()),
                description: r.get(5)?,
                mtime: ms_to_rfc3339(r.get(6)?),
                vector: None,
                lexical: None,
                matched: Vec::new(),
                doc_null: None,
                passage: None,
                weak: false,
            })
        })
        .and_then(Iterator::collect)
        .map_err(db::err("searching the index"))
    }

    /// A document's body as the index holds it (redacted when the file holds a secret) and the
    /// line of the file it starts on; `None` when the index has no such document.
    pub fn body_of(&self, workspace: &str, path: &str) -> Result<Option<(String, u32)>> {
        self.conn
            .prepare_cached("SELECT body, body_line FROM docs WHERE workspace = ?1 AND path = ?2")
            .and_then(|mut s| {
                s.query_row([workspace, path], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()
            })
            .map_err(db::err("reading a document's body"))
    }
}
