//! The shared tail of every strategy: read the chosen bodies (and those carried from earlier
//! turns of a chat) from disk, build the prompt block within its token budget — MEMORY.md cut
//! at load to 200 lines / 25,000 bytes with the warning, whatever tool wrote it —, record the
//! `recall` telemetry event.

use std::collections::HashSet;
use std::time::Instant;

use chrono::{DateTime, Utc};
use mnemo_core::{MemoryType, Result};
use mnemo_store::Vault;

use super::prompt::{
    MAX_BODY_CHARS, PromptMemory, age_text, build_block, build_compact, cut_body_to,
};
use super::{Carried, RecallRequest, RecallResult, Recalled, Strategy};
use crate::chat::compact::estimate_tokens;
use crate::telemetry;

/// A memory chosen for the prompt, by whichever strategy.
pub(super) struct Pick {
    pub(super) path: String,
    pub(super) name: String,
    pub(super) memory_type: Option<MemoryType>,
    pub(super) mtime: String,
    pub(super) score: f64,
    pub(super) vector: Option<f64>,
    pub(super) lexical: Option<f64>,
    /// For a conversation record found by meaning: the turns that matched (its nearest chunk).
    pub(super) turns: Option<String>,
}

/// A memory as the block will show it (recalled now or carried).
struct Shown {
    path: String,
    name: String,
    memory_type: Option<MemoryType>,
    age: String,
    body: String,
    conflict: bool,
}

impl Shown {
    fn as_prompt(&self) -> PromptMemory<'_> {
        PromptMemory {
            path: &self.path,
            name: &self.name,
            memory_type: self.memory_type,
            age: &self.age,
            body: &self.body,
            conflict: self.conflict,
        }
    }
}

/// Tokens (estimated) one memory takes in the block: its heading and its body as cut.
fn memory_tokens(s: &Shown, chars: usize) -> u32 {
    let text = format!(
        "{} {} {}",
        s.path,
        s.name,
        cut_body_to(&s.body, &s.path, chars)
    );
    u32::try_from(estimate_tokens(&text)).unwrap_or(u32::MAX)
}

/// Bodies cut to this many characters before anything is left out for the budget.
const TIGHT_BODY_CHARS: usize = 400;

/// The block, fitted to the budget: carried memories left out oldest first, then every body cut
/// to [`TIGHT_BODY_CHARS`], then this message's memories left out from the last, then the index
/// cut by lines. Returns the block, the body cut used, how many of each list were kept, and the
/// cuts in sentences.
fn fit_block(
    picks: &[Shown],
    carried: &[Shown],
    index: &str,
    budget: Option<usize>,
    mut cuts: Vec<String>,
    compact: bool,
) -> (String, usize, usize, usize, Vec<String>) {
    fn as_prompt(v: &[Shown]) -> Vec<PromptMemory<'_>> {
        v.iter().map(Shown::as_prompt).collect()
    }
    let render = |n_picks: usize, n_carried: usize, chars: usize, index: &str, cuts: &[String]| {
        if compact {
            return build_compact(
                &as_prompt(&picks[..n_picks]),
                &as_prompt(&carried[..n_carried]),
                chars,
            );
        }
        build_block(
            &as_prompt(&picks[..n_picks]),
            &as_prompt(&carried[..n_carried]),
            index,
            chars,
            cuts,
        )
    };
    let (mut n_picks, mut n_carried, mut chars) = (picks.len(), carried.len(), MAX_BODY_CHARS);
    let mut index = index.to_owned();
    let Some(budget) = budget else {
        let block = render(n_picks, n_carried, chars, &index, &cuts);
        return (block, chars, n_picks, n_carried, cuts);
    };
    // Each cut adds a line to the block: count a little for it.
    let over = |n_picks, n_carried, chars, index: &str, cuts: &[String]| {
        estimate_tokens(&render(n_picks, n_carried, chars, index, cuts)) + 40 > budget
    };
    while n_carried > 0 && over(n_picks, n_carried, chars, &index, &cuts) {
        n_carried -= 1;
        cuts.push(format!(
            "{} (recalled earlier in this conversation) was left out to fit the memory budget of {budget} tokens",
            carried[n_carried].path
        ));
    }
    if over(n_picks, n_carried, chars, &index, &cuts) {
        chars = TIGHT_BODY_CHARS;
        cuts.push(format!(
            "memory bodies were cut to {TIGHT_BODY_CHARS} characters to fit the memory budget of {budget} tokens"
        ));
    }
    while n_picks > 0 && over(n_picks, n_carried, chars, &index, &cuts) {
        n_picks -= 1;
        cuts.push(format!(
            "{} was left out to fit the memory budget of {budget} tokens",
            picks[n_picks].path
        ));
    }
    if over(n_picks, n_carried, chars, &index, &cuts) {
        let total = index.lines().count();
        let mut kept: Vec<&str> = index.lines().collect();
        while !kept.is_empty() && {
            let t = kept.join("\n");
            over(n_picks, n_carried, chars, &t, &cuts)
        } {
            kept.pop();
        }
        cuts.push(format!(
            "MEMORY.md was cut to {} of its {total} lines to fit the memory budget of {budget} tokens",
            kept.len()
        ));
        index = kept.join("\n");
    }
    let block = render(n_picks, n_carried, chars, &index, &cuts);
    (block, chars, n_picks, n_carried, cuts)
}

/// Shared tail of every strategy: read the chosen bodies (and those carried from earlier turns)
/// from disk, build the prompt block within its budget, record the telemetry event.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish(
    vault: &Vault,
    ws: &mnemo_store::Workspace,
    req: &RecallRequest,
    picks: Vec<Pick>,
    strategy_when_any: Strategy,
    docs_scanned: u32,
    started: Instant,
    now: DateTime<Utc>,
) -> Result<RecallResult> {
    // Room left by topic memories goes to conversation records of other chats.
    let mut picks = picks;
    let room = req
        .limit
        .unwrap_or(super::MAX_SELECTED)
        .saturating_sub(picks.len());
    let taken: HashSet<&str> = picks
        .iter()
        .map(|p| p.path.as_str())
        .chain(req.written_this_turn.iter().map(String::as_str))
        .collect();
    let records = super::records::picks(vault, &ws.id, req, room, &taken);
    picks.extend(records);
    // Bodies come from the files (the truth), confined like every read; superseded entries are
    // never injected, and a memory holding nothing else is not recalled at all.
    let (picks, shown): (Vec<Pick>, Vec<Shown>) = picks
        .into_iter()
        .filter_map(|p| {
            let detail = vault.get(&ws.id, &p.path).ok();
            if super::records::is_record(&p.path) {
                // Recalled as "From your chat on …" only when the journal says the person's
                // words are what it holds: never text a model or a program put there.
                let detail =
                    detail.filter(|d| vault.record_is_persons(&ws.id, &p.path, &d.hash))?;
                let body = detail.body;
                let mut turns = super::records::matching_turns(&body, &req.query);
                if turns.is_empty() {
                    // Found by meaning alone: the turns of its nearest chunk, if still there.
                    turns = p.turns.clone().filter(|t| body.contains(t.as_str()))?;
                }
                let shown = Shown {
                    path: p.path.clone(),
                    name: p.name.clone(),
                    memory_type: None,
                    age: age_text(&p.mtime, now),
                    body: turns,
                    conflict: false,
                };
                return Some((p, shown));
            }
            let body = detail.map(|d| d.body).unwrap_or_default();
            let current = mnemo_store::supersede::strip(&body);
            if current.trim().is_empty() && !body.trim().is_empty() {
                return None;
            }
            let shown = Shown {
                path: p.path.clone(),
                name: p.name.clone(),
                memory_type: p.memory_type,
                age: age_text(&p.mtime, now),
                body: current,
                conflict: req.conflicted.contains(&p.path),
            };
            Some((p, shown))
        })
        .unzip();
    // Memories recalled earlier in the chat, still on disk and not chosen again now.
    let mut seen: HashSet<&str> = picks.iter().map(|p| p.path.as_str()).collect();
    seen.extend(req.written_this_turn.iter().map(String::as_str));
    let carried: Vec<Shown> = req
        .carried
        .iter()
        .filter(|p| seen.insert(p.as_str()))
        .filter_map(|p| {
            let d = vault.get(&ws.id, p).ok()?;
            if super::records::is_record(p) && !vault.record_is_persons(&ws.id, p, &d.hash) {
                return None;
            }
            Some(Shown {
                path: p.clone(),
                name: d.summary.name.clone(),
                memory_type: d.summary.memory_type,
                age: age_text(&d.summary.mtime, now),
                body: mnemo_store::supersede::strip(&d.body),
                conflict: req.conflicted.contains(p),
            })
        })
        .collect();
    let index = mnemo_store::vault::memory_index_for_prompt(ws);
    let mut cuts = Vec::new();
    if index.warning.is_some() {
        cuts.push(format!(
            "MEMORY.md is {} lines, {} bytes: only its first part was loaded ({} lines / {} bytes at most)",
            index.lines,
            index.bytes,
            mnemo_store::memory_md::MAX_LINES,
            mnemo_store::memory_md::MAX_BYTES
        ));
    }
    let (prompt, chars, n_picks, n_carried, cuts) = fit_block(
        &shown,
        &carried,
        &index.text,
        req.budget_tokens,
        cuts,
        req.compact,
    );
    let selected: Vec<Recalled> = picks
        .into_iter()
        .zip(shown)
        .take(n_picks)
        .map(|(p, s)| Recalled {
            chars_injected: cut_body_to(&s.body, &p.path, chars).chars().count(),
            tokens_injected: memory_tokens(&s, chars),
            conflict: s.conflict,
            path: p.path,
            name: p.name,
            memory_type: p.memory_type,
            score: p.score,
            vector: p.vector,
            lexical: p.lexical,
            mtime: p.mtime,
            age: s.age,
        })
        .collect();
    let carried: Vec<Carried> = carried
        .into_iter()
        .take(n_carried)
        .map(|s| Carried {
            chars_injected: cut_body_to(&s.body, &s.path, chars).chars().count(),
            tokens_injected: memory_tokens(&s, chars),
            path: s.path,
            name: s.name,
            memory_type: s.memory_type,
        })
        .collect();
    let strategy = match (selected.is_empty(), strategy_when_any) {
        (true, _) => Strategy::None,
        // Only conversation records matched: found by their words.
        (false, Strategy::None) => Strategy::Heuristic,
        (false, s) => s,
    };
    let chars_injected = selected.iter().map(|s| s.chars_injected).sum::<usize>()
        + carried.iter().map(|c| c.chars_injected).sum::<usize>();
    let duration_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
    let tokens_injected = u32::try_from(estimate_tokens(&prompt)).unwrap_or(u32::MAX);
    // Each memory's usage, under the id its telemetry event carries.
    let recall_id = format!(
        "{}-{}",
        now.timestamp_nanos_opt().unwrap_or_default(),
        std::process::id()
    );
    let injected: Vec<(String, u32, bool)> = selected
        .iter()
        .map(|s| (s.path.clone(), s.tokens_injected, false))
        .chain(
            carried
                .iter()
                .map(|c| (c.path.clone(), c.tokens_injected, true)),
        )
        .collect();
    if !injected.is_empty() {
        vault.record_recall(&ws.id, req.session.as_deref(), &recall_id, &injected)?;
    }
    telemetry::Event::Recall(telemetry::Recall {
        query_len: req.query.chars().count(),
        docs_scanned,
        docs_selected: selected.len(),
        strategy,
        duration_ms,
        paths: selected.iter().map(|s| s.path.as_str()).collect(),
        carried: carried.len(),
        tokens_injected,
        recall_id: &recall_id,
        session: req.session.as_deref(),
        memories: injected
            .iter()
            .map(|(path, tokens, carried)| telemetry::Injected {
                path,
                tokens: *tokens,
                carried: *carried,
            })
            .collect(),
    })
    .record(vault, &ws.id)?;
    Ok(RecallResult {
        strategy,
        selected,
        docs_scanned,
        prompt,
        chars_injected,
        duration_ms,
        carried,
        tokens_injected,
        budget_tokens: req
            .budget_tokens
            .map(|b| u32::try_from(b).unwrap_or(u32::MAX)),
        cuts,
    })
}
